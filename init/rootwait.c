// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Waiting for the root device, for a bounded time. A device that appears
 * after the preloader finished (a slow USB disk) has no driver yet, so
 * the wait runs the preloader's coldplug again now and then.
 */
#include <errno.h>

#include "init.h"
#include "modpreload.h"
#include "util.h"

/*
 * Returns the index in devs of the first device root matches, or -ENODEV
 * once wait_ms have passed; *nmatch as blkdevs_find() says. rescan, if
 * not NULL, is the preloader's coldplug run, made every INIT_RESCAN_MS.
 */
int root_wait(struct blkdevs *devs, const struct root_spec *root, unsigned wait_ms,
	      const struct mp_run_args *rescan, int *nmatch)
{
	uint64_t t0 = mp_now_ms(), deadline = t0 + wait_ms, next = t0 + INIT_RESCAN_MS;
	int idx;

	for (;;) {
		(void)blkdevs_scan(devs);
		idx = blkdevs_find(devs, root, nmatch);
		if (idx >= 0)
			return idx;
		if (mp_now_ms() >= deadline)
			return -ENODEV;
		/* not so late that the rescan would overrun the bound */
		if (rescan && mp_now_ms() >= next && mp_now_ms() + 1000u < deadline) {
			/* a run is bounded only per module, and a module left
			 * coming would hold it that long: it gets what is left */
			struct mp_run_args a = *rescan;

			a.opts.deadline_ms = (unsigned)(deadline - mp_now_ms());
			(void)mp_run(&a);
			next = mp_now_ms() + INIT_RESCAN_MS;
		}
		mp_sleep_ms(50);
	}
}
