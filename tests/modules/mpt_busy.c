// SPDX-License-Identifier: GPL-2.0
/*
 * init() returns -EBUSY, the errno the kernel also gives a duplicate of a
 * load in flight: a loader must not take it for someone else's load and
 * ask again. Exports a symbol for mpt_busy_child, which so never loads.
 */
#include "mpt.h"

int mpt_busy_value(void)
{
	return 1;
}
EXPORT_SYMBOL_GPL(mpt_busy_value);

static int __init mpt_busy_init(void)
{
	pr_info("mpt: init %s (fails with -EBUSY)\n", KBUILD_MODNAME);
	return -EBUSY;
}

module_init(mpt_busy_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modpreload test: init fails with -EBUSY");
