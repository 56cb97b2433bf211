// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The booted system's hand-over before the walk (--handover-soon with
 * --lookups): what the last boot's run held from udev, with the same
 * lookups (known.c), is held again at once, and the caller goes on; then
 * sysfs is walked and the plan made, beside udevd's start.
 *
 * Before, udevd and its trigger waited for the whole plan: READY=1 came
 * 0.7-1.2 s after the unit's start under TCG at 16 vCPUs (the walk of 860
 * sysfs directories was most of it), and udev's trigger 1.4 s later than
 * without modpreload (median of 10 boots; bench 2026-12-06). On the same
 * machine and tree the plan holds what it held the boot before, so the
 * holds come first and the plan after them:
 *   - a module of the plan held early stays held (handover.c); one the
 *     plan finds that the last boot did not hold is held at the plan's
 *     hand-over (sched.c: the plan made, what must be live before it
 *     live), after udevd may have started: udev's workers come later than
 *     that under TCG, and a race lost costs one refused duplicate, which
 *     the kernel's counts show;
 *   - one held early that this boot's plan does not hold (its device gone,
 *     left to udev now) goes at the end as the others do, once udev's
 *     queue is empty, and its devices' add is replayed (replay.c);
 *   - the loads wait for udev's coldplug to begin as before (waits.c):
 *     under TCG udevd starts 5-10 s after READY=1, after the boot's first
 *     units. Where its coldplug could begin and end while the plan is made
 *     (a machine with few devices), they wait for the run's bound (60 s)
 *     with the holds in place; a bound of 5 s, and a look at the kernel's
 *     uevent count, both let them start before udevd under TCG, beside
 *     those units;
 *   - a module asked for by name, or live already, is not held: a name
 *     held would be skipped by systemd-modules-load;
 *   - what the last boot's hand-over had to wait for (a device asks for it
 *     and it cannot be held: a kernel alias leads to it too) must be live
 *     already, or there is no hand-over before the plan: udev's workers
 *     would ask for it while the plan is made, once per CPU for some.
 * Not on the first boot, another kernel or tree, changed indexes or
 * modprobe.d aliases, or where the last run did not hand over: then the
 * hand-over comes after the plan, as it did.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* NAME, asked for by name in this run's plan so far */
static bool named(const struct mp_plan *p, const char *name)
{
	int i;

	for (i = 0; i < p->nmods; i++)
		if (strcmp(p->mods[i].name, name) == 0)
			return mp_module_named(&p->mods[i]);
	return false;
}

/* what the last boot's hand-over waited for (must_finish: a device asks
 * for it, and it cannot be held) is live, or udev's workers would ask for
 * it while the plan is made: NULL, else the first that is not */
static const char *not_live(const struct mp_ctx *ctx, const char *const *waits, int n)
{
	int i, st;

	for (i = 0; i < n; i++) {
		st = mp_initstate(mp_ctx_env(ctx)->sysfs_fd, waits[i]);
		if (st != MP_INITSTATE_LIVE && st != MP_INITSTATE_BUILTIN)
			return waits[i];
	}
	return NULL;
}

int mp_handover_early(struct mp_ctx *ctx, const char *dir, char *argv0)
{
	struct mp_handover *ho = mp_ctx_handover(ctx);
	const struct mp_plan *p = mp_ctx_plan_const(ctx);
	const char *const *names, *const *waits, *first;
	int i, nwaits, n = mp_known_held(ctx, &names, &waits, &nwaits), r = 0;

	if (n < 0)
		return 0;
	first = not_live(ctx, waits, nwaits);
	if (first) {
		mp_log(ctx, MP_LOG_INFO, "%s: the last boot's hand-over waited for it, and it is not live: handing "
		       "over after the plan", first);
		return 0;
	}
	ho->early = calloc((size_t)n + 1, sizeof(*ho->early));
	ho->early_used = calloc((size_t)n + 1, sizeof(*ho->early_used));
	if (ho->early == NULL || ho->early_used == NULL)
		return 0;
	/* made even with nothing to hold: udevd watches only the
	 * configuration directories that were there when it started */
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		r = -errno;
	for (i = 0; i < n && r >= 0; i++) {
		if (named(p, names[i]) || mp_initstate(mp_ctx_env(ctx)->sysfs_fd, names[i]) != MP_INITSTATE_NONE)
			continue;
		r = mp_handover_hold_one(ctx, dir, names[i]);
		if (r > 0)
			ho->early[ho->nearly++] = names[i];
	}
	if (r < 0) {
		mp_warn(ctx, "%s: cannot hold what the last boot held: %s; handing over after the plan", dir,
			mp_errno_name(-r));
		for (i = 0; i < ho->nearly; i++)
			mp_handover_unhold_one(ctx, dir, ho->early[i]);
		ho->nearly = 0;
		return 0;
	}
	ho->let_go = true;
	mp_handover_begin(ctx, argv0);
	mp_log(ctx, MP_LOG_NOTICE, "handing over before the plan: %d module%s held from udev, as the last "
	       "boot's run held them", ho->nearly, ho->nearly == 1 ? "" : "s");
	return 1;
}
