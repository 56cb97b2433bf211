// SPDX-License-Identifier: GPL-2.0
/* Top of the diamond: needs both sides, which share one base. */
#include "mpt.h"

static int __init mpt_dia_top_init(void)
{
	pr_info("mpt: init %s sum=%d\n", KBUILD_MODNAME,
		mpt_dia_left_value() + mpt_dia_right_value());
	return 0;
}

static void __exit mpt_dia_top_exit(void)
{
}

module_init(mpt_dia_top_init);
module_exit(mpt_dia_top_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modpreload test: diamond top");
