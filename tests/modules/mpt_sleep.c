// SPDX-License-Identifier: GPL-2.0
/* init() sleeps delay_ms milliseconds, then succeeds. */
#include <linux/delay.h>
#include "mpt.h"

static unsigned int delay_ms = 200;
module_param(delay_ms, uint, 0444);
MODULE_PARM_DESC(delay_ms, "milliseconds init() sleeps (default 200)");

static int __init mpt_sleep_init(void)
{
	pr_info("mpt: init %s delay_ms=%u\n", KBUILD_MODNAME, delay_ms);
	msleep(delay_ms);
	pr_info("mpt: done %s\n", KBUILD_MODNAME);
	return 0;
}

static void __exit mpt_sleep_exit(void)
{
}

module_init(mpt_sleep_init);
module_exit(mpt_sleep_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modpreload test: slow init");
