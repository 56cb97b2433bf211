// SPDX-License-Identifier: GPL-2.0
/*
 * Needs a symbol that no module and not the kernel exports: loading fails
 * with ENOENT ("Unknown symbol").  Built in its own pass with
 * KBUILD_MODPOST_WARN=1 so modpost only warns about it.
 */
#include "mpt.h"

static int __init mpt_nosym_init(void)
{
	pr_info("mpt: init %s value=%d\n", KBUILD_MODNAME, mpt_nosym_nowhere());
	return 0;
}

static void __exit mpt_nosym_exit(void)
{
}

module_init(mpt_nosym_init);
module_exit(mpt_nosym_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modpreload test: needs a symbol nobody exports");
