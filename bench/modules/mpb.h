/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benchmark's own modules (bench/modules/build.sh generates their
 * sources).  Two families:
 *
 *  mpb_gNNN   one node of a fixed dependency DAG.  init() calls every
 *             parent's exported function (so depmod sees the edges), then
 *             works for ms= milliseconds: it sleeps, or with spin=1 burns
 *             that much of its own CPU time.
 *  mpb_dupNN  a module with a 256 KiB payload, needing mpb_dupbase: the
 *             copies the kernel reads and refuses when it is asked for the
 *             same module many times at once.
 */
#ifndef MPB_H
#define MPB_H

#include <linux/delay.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/sched.h>

/*
 * Burn ms milliseconds of this task's CPU time, not of wall time: when more
 * loads than CPUs spin at once they share the CPUs and each takes longer,
 * which is what makes the work CPU-bound (total work / CPUs is a real
 * bound).  sum_exec_runtime advances at every tick and context switch.
 */
static inline void mpb_burn(unsigned int ms)
{
	u64 end = current->se.sum_exec_runtime + (u64)ms * NSEC_PER_MSEC;

	while (READ_ONCE(current->se.sum_exec_runtime) < end) {
		cpu_relax();
		cond_resched();
	}
}

/* One DAG node: MPB_NODE(ms, expression calling every parent). */
#define MPB_NODE(default_ms, parents)					\
	static unsigned int ms = default_ms;				\
	module_param(ms, uint, 0444);					\
	MODULE_PARM_DESC(ms, "milliseconds of work in init()");	\
	static bool spin;						\
	module_param(spin, bool, 0444);					\
	MODULE_PARM_DESC(spin, "burn CPU time instead of sleeping");	\
	static int __init mpb_node_init(void)				\
	{								\
		int p = (parents);					\
									\
		if (spin)						\
			mpb_burn(ms);					\
		else							\
			msleep(ms);					\
		return p < 0 ? -EINVAL : 0;				\
	}								\
	static void __exit mpb_node_exit(void)				\
	{								\
	}								\
	module_init(mpb_node_init);					\
	module_exit(mpb_node_exit);					\
	MODULE_LICENSE("GPL");						\
	MODULE_DESCRIPTION("modpreload benchmark: one node of the DAG")

#endif
