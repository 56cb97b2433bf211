// SPDX-License-Identifier: GPL-2.0
/*
 * init() returns -EEXIST, as acpi_cpufreq and pcc_cpufreq do while
 * another cpufreq driver is registered: the errno a duplicate of a live
 * module also gets, but here nothing is loaded, and a loader must not
 * report it live.
 */
#include "mpt.h"

static int __init mpt_exist_init(void)
{
	pr_info("mpt: init %s (fails with -EEXIST)\n", KBUILD_MODNAME);
	return -EEXIST;
}

module_init(mpt_exist_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modpreload test: init fails with -EEXIST");
