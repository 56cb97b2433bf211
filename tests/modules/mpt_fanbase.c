// SPDX-License-Identifier: GPL-2.0
/* The base every mpt_fanNN depends on; counts the leaves that pinged it. */
#include <linux/atomic.h>
#include "mpt.h"

static atomic_t leaves = ATOMIC_INIT(0);

static int leaves_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&leaves));
}

static const struct kernel_param_ops leaves_ops = { .get = leaves_get };
module_param_cb(leaves, &leaves_ops, NULL, 0444);
MODULE_PARM_DESC(leaves, "number of fan leaves initialised so far");

int mpt_fanbase_ping(const char *who)
{
	int n = atomic_inc_return(&leaves);

	pr_info("mpt: init %s leaf=%d\n", who, n);
	return n;
}
EXPORT_SYMBOL_GPL(mpt_fanbase_ping);

MPT_PLAIN_MODULE("modpreload test: base of the fan-out");
