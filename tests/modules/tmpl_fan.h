/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One leaf of the fan-out: the generated mpt_fanNN.c includes this.  Every
 * leaf depends on mpt_fanbase and on nothing else.
 */
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include "mpt.h"

/* for the scheduler's tests: leaves that sleep or burn the CPU for known
 * times (spin_ms: on the CPU, as a CPU-bound init() is) */
static unsigned int delay_ms, spin_ms;
module_param(delay_ms, uint, 0444);
MODULE_PARM_DESC(delay_ms, "milliseconds init() sleeps (default 0)");
module_param(spin_ms, uint, 0444);
MODULE_PARM_DESC(spin_ms, "milliseconds init() spins (default 0)");

static int __init mpt_fan_init(void)
{
	ktime_t end = ktime_add_ms(ktime_get(), spin_ms);

	mpt_fanbase_ping(KBUILD_MODNAME);
	if (delay_ms)
		msleep(delay_ms);
	if (!spin_ms)
		return 0;
	/* the kernel log's timestamps say when this was on the CPU */
	pr_info("mpt: spin %s start\n", KBUILD_MODNAME);
	while (ktime_before(ktime_get(), end)) {
		cpu_relax();
		cond_resched();
	}
	pr_info("mpt: spin %s end\n", KBUILD_MODNAME);
	return 0;
}

static void __exit mpt_fan_exit(void)
{
}

module_init(mpt_fan_init);
module_exit(mpt_fan_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modpreload test: one leaf of a wide fan-out");
