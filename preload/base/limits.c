// SPDX-License-Identifier: LGPL-2.1-or-later
/* The numeric options' bounds and defaults, in one table: main.c parses
 * and explains -j, -t and --settle-ms with it, cmdline.c bounds
 * rd.modpreload.jobs= and .timeout=, context/env.c fills in the defaults. */
#include "modpreload.h"

const struct mp_limit mp_limits[MP_LIM_MAX] = {
	/* the default caps the CPU count: loads serialise on the kernel's
	 * module locks well before, and more threads only cost memory (the
	 * booted system's unit asks for 4: there many at once, under a
	 * hypervisor with fewer real CPUs than virtual ones, froze the
	 * guest's boot) */
	[MP_LIM_JOBS] = { .min = 1, .max = 64, .def = 16, .what = "a number from %u to %u" },
	[MP_LIM_TIMEOUT_S] = { .min = 1, .max = 86400, .def = 60, .what = "a number of seconds (%u-%u)" },
	[MP_LIM_SETTLE_MS] = { .min = 1, .max = 60000, .def = 200, .what = "a number of ms (%u-%u)" },
};
