/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One link of the dependency chain mpt_chain0 <- mpt_chain1 <- ... : the
 * generated mpt_chainN.c defines MPT_N (and MPT_PREV for N > 0) and includes
 * this.  Link N exports mpt_chainN_depth(); link N calls link N-1's, so
 * depmod sees a hard dependency on the previous link.
 */
#include <linux/delay.h>
#include "mpt.h"

#define MPT_CAT3(a, b, c) a##b##c
#define MPT_FN(n) MPT_CAT3(mpt_chain, n, _depth)

#ifdef MPT_PREV
int MPT_FN(MPT_PREV)(void);
#endif
int MPT_FN(MPT_N)(void);

int MPT_FN(MPT_N)(void)
{
#ifdef MPT_PREV
	return MPT_FN(MPT_PREV)() + 1;
#else
	return 0;
#endif
}
EXPORT_SYMBOL_GPL(MPT_FN(MPT_N));

/* for the scheduler's tests: a chain whose links take known times */
static unsigned int delay_ms;
module_param(delay_ms, uint, 0444);
MODULE_PARM_DESC(delay_ms, "milliseconds init() sleeps (default 0)");

static int __init mpt_chain_init(void)
{
	pr_info("mpt: init %s depth=%d\n", KBUILD_MODNAME, MPT_FN(MPT_N)());
	if (delay_ms)
		msleep(delay_ms);
	return 0;
}

static void __exit mpt_chain_exit(void)
{
}

module_init(mpt_chain_init);
module_exit(mpt_chain_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modpreload test: one link of a dependency chain");
