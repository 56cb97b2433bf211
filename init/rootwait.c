// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Waiting for the root device, for a bounded time. A device that appears
 * after the preloader finished (a slow USB disk) has no driver yet, so
 * the wait runs the preloader's coldplug again now and then.
 */
#include <errno.h>
#include <time.h>

#include "init.h"
#include "modpreload.h"
#include "util.h"

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000u, (long)(ms % 1000u) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static uint64_t now_ms(void)
{
	return mp_now_ns() / 1000000u;
}

/*
 * Returns the index in devs of the first device root matches, or -ENODEV
 * once wait_ms have passed; *nmatch as blkdevs_find() says. rescan, if
 * not NULL, is the preloader's coldplug run, made every INIT_RESCAN_MS.
 */
int root_wait(struct blkdevs *devs, const struct root_spec *root, unsigned wait_ms,
	      const struct mp_run_args *rescan, int *nmatch)
{
	uint64_t t0 = now_ms(), deadline = t0 + wait_ms, next = t0 + INIT_RESCAN_MS;
	int idx;

	for (;;) {
		(void)blkdevs_scan(devs);
		idx = blkdevs_find(devs, root, nmatch);
		if (idx >= 0)
			return idx;
		if (now_ms() >= deadline)
			return -ENODEV;
		/* not so late that the rescan would overrun the bound */
		if (rescan && now_ms() >= next && now_ms() + 1000u < deadline) {
			/* a run is bounded only per module, and a module left
			 * coming would hold it that long: it gets what is left */
			struct mp_run_args a = *rescan;

			a.opts.deadline_ms = (unsigned)(deadline - now_ms());
			(void)mp_run(&a);
			next = now_ms() + INIT_RESCAN_MS;
		}
		sleep_ms(50);
	}
}
