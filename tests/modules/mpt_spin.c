// SPDX-License-Identifier: GPL-2.0
/* init() busy-waits spin_ms milliseconds: a CPU-bound load for benchmarks. */
#include <linux/ktime.h>
#include <linux/sched.h>
#include "mpt.h"

static unsigned int spin_ms = 100;
module_param(spin_ms, uint, 0444);
MODULE_PARM_DESC(spin_ms, "milliseconds init() spins (default 100)");

static int __init mpt_spin_init(void)
{
	ktime_t end = ktime_add_ms(ktime_get(), spin_ms);

	pr_info("mpt: init %s spin_ms=%u\n", KBUILD_MODNAME, spin_ms);
	while (ktime_before(ktime_get(), end)) {
		cpu_relax();
		cond_resched();
	}
	return 0;
}

static void __exit mpt_spin_exit(void)
{
}

module_init(mpt_spin_init);
module_exit(mpt_spin_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modpreload test: CPU-bound init");
