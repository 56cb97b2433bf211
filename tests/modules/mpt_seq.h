/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A module that records its place in the init order: the number is in
 * /sys/module/<name>/parameters/seq and on the console as
 * "mpt: init <name> seq=N".
 */
#include "mpt.h"

static int seq;
module_param(seq, int, 0444);
MODULE_PARM_DESC(seq, "place of this module in the mpt_seq init order");

static int __init mpt_seq_user_init(void)
{
	seq = mpt_seq_next(KBUILD_MODNAME);
	return 0;
}

static void __exit mpt_seq_user_exit(void)
{
}

module_init(mpt_seq_user_init);
module_exit(mpt_seq_user_exit);
MODULE_LICENSE("GPL");
