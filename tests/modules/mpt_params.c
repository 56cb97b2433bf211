// SPDX-License-Identifier: GPL-2.0
/* Parameters readable under /sys/module/mpt_params/parameters/. */
#include "mpt.h"

static int value = 42;
module_param(value, int, 0444);
MODULE_PARM_DESC(value, "an integer (default 42)");

static char *label = "none";
module_param(label, charp, 0444);
MODULE_PARM_DESC(label, "a string (default \"none\")");

static int __init mpt_params_init(void)
{
	pr_info("mpt: init %s value=%d label=%s\n", KBUILD_MODNAME, value, label);
	return 0;
}

static void __exit mpt_params_exit(void)
{
}

module_init(mpt_params_init);
module_exit(mpt_params_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modpreload test: module parameters");
