// SPDX-License-Identifier: GPL-2.0
/*
 * A slow driver for a device nobody else drives: QEMU's pci-testdev
 * (1b36:0005), which no in-tree driver claims, so coldplug (udev's and
 * modpreload's) reaches this module by its alias. init() sleeps delay_ms
 * (default 30 s: a slow init() that a hand-over must not let hold the
 * boot) and returns ret (default 0; ret=-11 makes it fail with EAGAIN
 * once it has slept). Writing 1 to parameters/release (there while init()
 * runs) ends the sleep early: a test that has seen what it waited for
 * (the root reached while this was still coming) need not wait out the
 * rest. It binds nothing: the alias is all it needs.
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include "mpt.h"

static unsigned int delay_ms = 30000;
module_param(delay_ms, uint, 0444);
MODULE_PARM_DESC(delay_ms, "milliseconds init() sleeps at most (default 30000)");

static int ret;
module_param(ret, int, 0444);
MODULE_PARM_DESC(ret, "what init() returns after its sleep (default 0; -11: EAGAIN)");

static bool release;
module_param(release, bool, 0644);
MODULE_PARM_DESC(release, "1 ends init()'s sleep now");

static int __init mpt_slowpci_init(void)
{
	unsigned long end = jiffies + msecs_to_jiffies(delay_ms);

	pr_info("mpt: init %s delay_ms=%u ret=%d\n", KBUILD_MODNAME, delay_ms, ret);
	while (time_before(jiffies, end) && !READ_ONCE(release))
		msleep(min_t(unsigned int, 100, jiffies_to_msecs(end - jiffies) + 1));
	pr_info("mpt: done %s ret=%d%s\n", KBUILD_MODNAME, ret, READ_ONCE(release) ? " (released)" : "");
	return ret;
}

static void __exit mpt_slowpci_exit(void)
{
}

module_init(mpt_slowpci_init);
module_exit(mpt_slowpci_exit);
MODULE_ALIAS("pci:v00001B36d00000005sv*sd*bc*sc*i*");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modpreload test: slow init() for QEMU's pci-testdev");
