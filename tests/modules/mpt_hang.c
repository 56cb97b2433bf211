// SPDX-License-Identifier: GPL-2.0
/*
 * init() sleeps uninterruptibly for hang_s seconds (default an hour): the
 * module stays "coming" and its loader cannot be interrupted.  Sleeping in
 * short steps keeps the hung-task detector quiet.  mpt_hang_child needs a
 * symbol from it, so loading the child waits on it (and gives up with EBUSY
 * after 30 s on the kernels here).
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include "mpt.h"

static unsigned int hang_s = 3600;
module_param(hang_s, uint, 0444);
MODULE_PARM_DESC(hang_s, "seconds init() sleeps (default 3600)");

int mpt_hang_value(void)
{
	return 1;
}
EXPORT_SYMBOL_GPL(mpt_hang_value);

static int __init mpt_hang_init(void)
{
	unsigned long end = jiffies + (unsigned long)hang_s * HZ;

	pr_info("mpt: init %s hang_s=%u\n", KBUILD_MODNAME, hang_s);
	while (time_before(jiffies, end))
		msleep(100);
	pr_info("mpt: done %s\n", KBUILD_MODNAME);
	return 0;
}

static void __exit mpt_hang_exit(void)
{
}

module_init(mpt_hang_init);
module_exit(mpt_hang_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modpreload test: init hangs for a long time");
