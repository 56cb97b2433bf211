// SPDX-License-Identifier: GPL-2.0
/*
 * A global init counter for the modules whose relative order a test checks
 * (the softdep trio): each asks for the next number when it initialises.
 */
#include <linux/atomic.h>
#include "mpt.h"

static atomic_t counter = ATOMIC_INIT(0);

int mpt_seq_next(const char *who)
{
	int n = atomic_inc_return(&counter);

	pr_info("mpt: init %s seq=%d\n", who, n);
	return n;
}
EXPORT_SYMBOL_GPL(mpt_seq_next);

MPT_PLAIN_MODULE("modpreload test: init order counter");
