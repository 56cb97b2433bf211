// SPDX-License-Identifier: GPL-2.0
/*
 * Reached only through coldplug: its alias
 * "cpu:type:x86,ven*fam*mod*:feature:*001A*" matches the modalias of every
 * x86-64 CPU (all have SSE2, feature 001A; FPU, feature 0000, cannot be
 * used: 0 means "any feature" in the table), so a loader that walks the
 * CPUs' modaliases asks for it once per CPU.  On arm64 the generic table
 * gives "cpu:type:*:feature:*0001*": ASIMD, hwcap bit 1, which every
 * ARMv8-A CPU Linux runs on has (FP, bit 0, is "any" again).  Loading it registers `count`
 * platform devices "mpt-dev" (modalias platform:mpt-dev, served by mpt_drv)
 * and `count2` devices "mpt-dev2" (served by mpt_drv2): a second wave of
 * devices whose modules must then be loaded too.
 */
#include <linux/err.h>
#include <linux/mod_devicetable.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#ifdef CONFIG_X86
#include <asm/cpu_device_id.h>
#include <asm/cpufeatures.h>
#endif
#include "mpt.h"

static unsigned int count = 16;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "number of mpt-dev platform devices (default 16)");

static unsigned int count2 = 4;
module_param(count2, uint, 0444);
MODULE_PARM_DESC(count2, "number of mpt-dev2 platform devices (default 4)");

#ifdef CONFIG_X86
static const struct x86_cpu_id mpt_spawn_cpu_ids[] = {
	X86_MATCH_FEATURE(X86_FEATURE_XMM2, NULL),
	{}
};
MODULE_DEVICE_TABLE(x86cpu, mpt_spawn_cpu_ids);
#else
static const struct cpu_feature mpt_spawn_cpu_ids[] = {
	{ .feature = 1 },
	{}
};
MODULE_DEVICE_TABLE(cpu, mpt_spawn_cpu_ids);
#endif

static struct platform_device **devs;
static unsigned int ndevs;

static void mpt_spawn_remove_all(void)
{
	while (ndevs > 0)
		platform_device_unregister(devs[--ndevs]);
	kfree(devs);
	devs = NULL;
}

static int mpt_spawn_add(const char *name, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct platform_device *pd;

		pd = platform_device_register_simple(name, i, NULL, 0);
		if (IS_ERR(pd))
			return PTR_ERR(pd);
		devs[ndevs++] = pd;
	}
	return 0;
}

static int __init mpt_spawn_init(void)
{
	int err;

	pr_info("mpt: init %s count=%u count2=%u\n", KBUILD_MODNAME, count,
		count2);
	devs = kcalloc(count + count2 + 1, sizeof(*devs), GFP_KERNEL);
	if (!devs)
		return -ENOMEM;
	err = mpt_spawn_add("mpt-dev", count);
	if (!err)
		err = mpt_spawn_add("mpt-dev2", count2);
	if (err)
		mpt_spawn_remove_all();
	return err;
}

static void __exit mpt_spawn_exit(void)
{
	mpt_spawn_remove_all();
}

module_init(mpt_spawn_init);
module_exit(mpt_spawn_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modpreload test: coldplugged by CPU, spawns platform devices");
