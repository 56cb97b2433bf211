/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One leaf of the fan-out: the generated mpt_fanNN.c includes this.  Every
 * leaf depends on mpt_fanbase and on nothing else.
 */
#include "mpt.h"

static int __init mpt_fan_init(void)
{
	mpt_fanbase_ping(KBUILD_MODNAME);
	return 0;
}

static void __exit mpt_fan_exit(void)
{
}

module_init(mpt_fan_init);
module_exit(mpt_fan_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modpreload test: one leaf of a wide fan-out");
