// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The scheduler's waits after a hand-over asked for soon (the booted
 * system's unit): what is left waits for udev's coldplug to begin, and
 * what found no device on the last boot for udev's queue to empty.
 * sched.c asks; nothing here calls back into it.
 */
#include <unistd.h>

#include "sched.h"

/* late modules (handover.c) wait for udev's queue to empty: how many */
int mp_sched_late_waiting(const struct sched *s)
{
	int i, n = 0;

	for (i = 0; i < s->plan->nmods && !s->late_go; i++)
		n += s->plan->mods[i].late && s->plan->mods[i].state == MP_PENDING;
	return n;
}

/*
 * After a hand-over that was asked for soon (the booted system's unit),
 * what had not started waits until udev's coldplug has begun, as udev's
 * own workers would have loaded it then: held, nothing waits for it. Begun
 * at once, beside the burst of systemd's own loads (modprobe@ units) as
 * the boot starts its units, the unit's loads held PID 1 up under TCG:
 * it took READY=1 1.5-48 s late in 6 of 27 boots. A fixed 10 s bound was
 * no better: udevd came 10-20 s after the hand-over in 5 of 10 boots at 16
 * vCPUs, the rest (acpi_cpufreq, pcc_cpufreq, edac_mce_amd) loaded beside
 * systemd-modules-load's, and both took until the last ended (13-20 s
 * for a module whose init() returns at once). So the bound is the run's
 * own for an init() (--timeout, 60 s): it ends the wait only where no
 * udevd runs, and says so; udevd's queue file lives while coldplug's
 * hundreds of events are queued, far longer than the 0.1 s between two
 * looks. Called with the lock held; *wait_ns: when to look again.
 */
void mp_sched_resume(struct sched *s, uint64_t now, uint64_t *wait_ns)
{
	const uint64_t look = 100000000u; /* 0.1 s */
	uint64_t bound = s->env->timeout_ms * 1000000ull;
	bool began;

	if (!s->paused)
		return;
	began = access(s->feed.after, F_OK) == 0;
	if (!began && now - s->handed_over_at < bound) {
		if (*wait_ns > look)
			*wait_ns = look;
		return;
	}
	s->paused = false;
	mp_ctx_handover(s->ctx)->udev_seen |= began;
	if (began)
		mp_log(s->ctx, MP_LOG_DEBUG, "udev's coldplug began after %.1f s: loading the rest",
		       (double)(now - s->handed_over_at) / 1e9);
	else
		mp_log(s->ctx, MP_LOG_NOTICE, "%s still not there after %u s: no udevd, loading the rest",
		       s->feed.after, s->env->timeout_ms / 1000u);
	pthread_cond_broadcast(&s->work);
}

/*
 * What found no device on the last boot (late, handover.c) starts once
 * udev's queue, seen since the hand-over, has stayed away for
 * MP_LATE_QUIET_MS (it empties for an instant between the trigger's
 * batches), or at once where nothing will make it wait: no hand-over in
 * this run or none to come, no udevd (resume's bound), udevd's own bound
 * for an event after the hand-over. Called with the lock held; *wait_ns:
 * when to look again.
 */
#define MP_LATE_QUIET_MS 3000u
bool mp_sched_late_go(struct sched *s, uint64_t now, uint64_t *wait_ns)
{
	const uint64_t look = 100000000u; /* 0.1 s */
	int n = mp_sched_late_waiting(s);
	bool wait = false;

	if (n == 0)
		return false;
	if (s->feed.handover == NULL || s->feed.after == NULL)
		wait = false;
	else if (!s->handed_over)
		/* hand_over() looks first; refused with nothing else left, the
		 * run waits for them as it did before */
		wait = s->running > 0 || s->qlen > 0 || !s->handover_tried;
	else if (s->paused)
		wait = true; /* resume() first */
	else {
		/* resume() saw the queue just now, or no udevd (udev_seen false) */
		if (s->late_seen_at == 0 || access(s->feed.after, F_OK) == 0)
			s->late_seen_at = now;
		wait = mp_ctx_handover(s->ctx)->udev_seen && now - s->late_seen_at < MP_LATE_QUIET_MS * 1000000ull &&
		       now - s->handed_over_at < MP_UDEV_EVENT_TIMEOUT_MS * 1000000ull;
	}
	if (wait) {
		if (*wait_ns > look)
			*wait_ns = look;
		return false;
	}
	s->late_go = true;
	mp_log(s->ctx, MP_LOG_NOTICE, "%sloading %d module%s that found no device for a CPU on the last boot",
	       s->handed_over && mp_ctx_handover(s->ctx)->udev_seen ? "udev's queue is empty: " : "", n,
	       n == 1 ? "" : "s");
	return true;
}
