/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A platform driver for the devices mpt_spawn registers.  The including
 * file defines MPT_DEV_NAME (the platform device name it matches) and may
 * define MPT_PROBED(dev) to report each probe somewhere else too.  The
 * number of bound devices is in /sys/module/<name>/parameters/probed.
 */
#include <linux/atomic.h>
#include <linux/mod_devicetable.h>
#include <linux/platform_device.h>
#include "mpt.h"

static atomic_t probed = ATOMIC_INIT(0);

static int probed_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&probed));
}

static const struct kernel_param_ops probed_ops = { .get = probed_get };
module_param_cb(probed, &probed_ops, NULL, 0444);
MODULE_PARM_DESC(probed, "number of devices probed");

static const struct platform_device_id mpt_drv_ids[] = {
	{ .name = MPT_DEV_NAME },
	{}
};
MODULE_DEVICE_TABLE(platform, mpt_drv_ids);

static int mpt_drv_probe(struct platform_device *pdev)
{
	atomic_inc(&probed);
#ifdef MPT_PROBED
	MPT_PROBED(dev_name(&pdev->dev));
#endif
	return 0;
}

/* .remove changed type in 6.11; leaving it out is valid everywhere. */
static struct platform_driver mpt_drv_driver = {
	.driver = { .name = KBUILD_MODNAME },
	.probe = mpt_drv_probe,
	.id_table = mpt_drv_ids,
};

static int __init mpt_drv_init(void)
{
	mpt_announce();
	return platform_driver_register(&mpt_drv_driver);
}

static void __exit mpt_drv_exit(void)
{
	platform_driver_unregister(&mpt_drv_driver);
}

module_init(mpt_drv_init);
module_exit(mpt_drv_exit);
MODULE_LICENSE("GPL");
