// SPDX-License-Identifier: GPL-2.0
/* Depends on mpt_nomem, which a small guest has no memory for. */
#include "mpt.h"

static int __init mpt_nomem_child_init(void)
{
	pr_info("mpt: init %s value=%d\n", KBUILD_MODNAME, mpt_nomem_value());
	return 0;
}

static void __exit mpt_nomem_child_exit(void)
{
}

module_init(mpt_nomem_child_init);
module_exit(mpt_nomem_child_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modpreload test: depends on a module too large for the guest");
