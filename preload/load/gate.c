// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The names gate: how the booted system's run hands over before the
 * modules asked for by name are live, without a second load of them.
 *
 * Before 6.5 a second finit_module of a module still loading is read,
 * checked and refused once ours is live; systemd-modules-load loads every
 * name of modules-load.d again, right after our unit is started, and
 * what is ordered after it (systemd-sysctl, say) counts on each being
 * live. So the run waited for its names before READY=1, and udevd and the
 * whole of sysinit.target waited with it (mpt_params, alone: 3.5 s of a
 * 16-vCPU boot under TCG).
 *
 * With a gate, the run locks a file (flock) before it hands over and lets
 * it go once every name is final; systemd-modules-load's ExecStartPre=
 * (modpreload --wait-names) waits for the lock, so it starts when the
 * names are live and loads none of them again. The kernel lets a lock go
 * with its holder, a SIGKILL included: a gate never outlives its run, and
 * the waiter is bounded anyway (a holder stuck in an init() cannot finish
 * dying).
 *
 * What the gate costs is what sysinit.target waits for behind it. Taken
 * before the plan (the early hand-over, early.c), it stayed shut for the
 * whole of the walk of sysfs, though the plan then left every name to
 * systemd-modules-load (leave.c: only names ask for them), which opened
 * it: on 6.1 under TCG that walk took 12-16 s in 2 of 10 boots (0.2-1 s
 * otherwise), and sysinit.target came that much later. So early, it is
 * taken only for a name the last boot's run did not leave to systemd-
 * modules-load (the lookups file, known.c); a name a device asks for now
 * and did not then takes it at the plan, which can be too late for
 * systemd-modules-load: at most one refused duplicate of it before 6.5.
 * And the gate's file goes as it opens: modpreload-names.service runs only
 * where it is there (ConditionPathExists=), and a start of it cost 1-2 s
 * of systemd 257's boot under TCG, before systemd-modules-load, for a gate
 * that was open already.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* the gate's file, its folder made if need be (one level: /run/modpreload) */
static int gate_open(const char *path)
{
	char dir[PATH_MAX];
	char *slash;
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd >= 0 || errno != ENOENT || strlen(path) >= sizeof(dir))
		return fd < 0 ? -errno : fd;
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return -ENOENT;
	*slash = '\0';
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	return fd < 0 ? -errno : fd;
}

/* a module asked for by name that is not final yet (early: and that the
 * last boot's run did not leave to systemd-modules-load) */
static bool names_left(const struct mp_ctx *ctx, bool early)
{
	const struct mp_plan *p = mp_ctx_plan_const(ctx);
	int i;

	for (i = 0; i < p->nmods; i++)
		if (mp_module_named(&p->mods[i]) && !mp_state_done(p->mods[i].state) &&
		    !(early && mp_known_left(ctx, p->mods[i].name)))
			return true;
	return false;
}

int mp_gate_take(struct mp_ctx *ctx, const char *path, bool early)
{
	struct mp_handover *ho = mp_ctx_handover(ctx);
	int fd;

	/* no name to wait for: no gate, and --wait-names finds none */
	if (ho->gate_fd >= 0 || !names_left(ctx, early))
		return 0;
	fd = gate_open(path);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
		/* another run has it: that run's names, not ours */
		int e = errno == EWOULDBLOCK ? -EBUSY : -errno;

		close(fd);
		fd = e;
	}
	if (fd < 0) {
		mp_log(ctx, MP_LOG_INFO, "%s: no names gate (%s); the names load before the hand-over",
		       path, mp_errno_name(-fd));
		return fd;
	}
	ho->gate_fd = fd;
	ho->gate = path;
	return 0;
}

bool mp_gate_held(const struct mp_ctx *ctx)
{
	return mp_ctx_handover_const(ctx)->gate_fd >= 0;
}

void mp_gate_check(struct mp_ctx *ctx, bool end)
{
	struct mp_handover *ho = mp_ctx_handover(ctx);

	if (ho->gate_fd < 0 || (!end && names_left(ctx, false)))
		return;
	/* gone before the lock: a waiter that opened it has it at the close,
	 * and one that comes later finds none and does not start (ENOENT) */
	if (unlink(ho->gate) < 0 && errno != ENOENT)
		mp_log(ctx, MP_LOG_DEBUG, "%s: %s", ho->gate, strerror(errno));
	close(ho->gate_fd);
	ho->gate_fd = -1;
	mp_log(ctx, MP_LOG_DEBUG, "the names are final: the names gate is open");
}

int mp_gate_wait(const char *path, unsigned timeout_ms)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	uint64_t end = mp_now_ms() + timeout_ms;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	/* polled, not a blocking flock() under an alarm: nothing to undo;
	 * every 50 ms, not 10: the wait lasts the booted run's plan (1-2 s
	 * under TCG), whose CPU time each wake takes a little of */
	while (flock(fd, LOCK_SH | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (mp_now_ms() >= end)
			return -ETIMEDOUT;
		mp_sleep_ms(50);
	}
	return 0;
}
