// SPDX-License-Identifier: GPL-2.0
/*
 * init() fails with -ENODEV, so finit_module returns ENODEV.  It still
 * exports a symbol: mpt_fail_child needs it and so can never load.
 */
#include "mpt.h"

int mpt_fail_value(void)
{
	return 1;
}
EXPORT_SYMBOL_GPL(mpt_fail_value);

static int __init mpt_fail_init(void)
{
	pr_info("mpt: init %s (fails with -ENODEV)\n", KBUILD_MODNAME);
	return -ENODEV;
}

module_init(mpt_fail_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modpreload test: init fails with -ENODEV");
