// SPDX-License-Identifier: GPL-2.0
/* Depends on mpt_busy, whose init always returns -EBUSY. */
#include "mpt.h"

static int __init mpt_busy_child_init(void)
{
	pr_info("mpt: init %s value=%d\n", KBUILD_MODNAME, mpt_busy_value());
	return 0;
}

static void __exit mpt_busy_child_exit(void)
{
}

module_init(mpt_busy_child_init);
module_exit(mpt_busy_child_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modpreload test: depends on a module whose init returns -EBUSY");
