// SPDX-License-Identifier: GPL-2.0
/* A helper library mpt_drv2 depends on; counts the probes it was told of. */
#include <linux/atomic.h>
#include "mpt.h"

static atomic_t probes = ATOMIC_INIT(0);

static int probes_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&probes));
}

static const struct kernel_param_ops probes_ops = { .get = probes_get };
module_param_cb(probes, &probes_ops, NULL, 0444);
MODULE_PARM_DESC(probes, "probes reported by drivers using this library");

int mpt_drvlib_probed(const char *drv, const char *dev)
{
	int n = atomic_inc_return(&probes);

	pr_info("mpt: probe %s %s n=%d\n", drv, dev, n);
	return n;
}
EXPORT_SYMBOL_GPL(mpt_drvlib_probed);

MPT_PLAIN_MODULE("modpreload test: helper library of mpt_drv2");
