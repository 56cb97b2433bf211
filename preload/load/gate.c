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

/* a module asked for by name that is not final yet */
static bool names_left(const struct mp_ctx *ctx)
{
	const struct mp_plan *p = mp_ctx_plan_const(ctx);
	int i;

	for (i = 0; i < p->nmods; i++)
		if (mp_module_named(&p->mods[i]) && !mp_state_done(p->mods[i].state))
			return true;
	return false;
}

int mp_gate_take(struct mp_ctx *ctx, const char *path)
{
	struct mp_handover *ho = mp_ctx_handover(ctx);
	int fd;

	/* no name to wait for: no gate, and --wait-names finds none */
	if (ho->gate_fd >= 0 || !names_left(ctx))
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
	return 0;
}

bool mp_gate_held(const struct mp_ctx *ctx)
{
	return mp_ctx_handover_const(ctx)->gate_fd >= 0;
}

void mp_gate_check(struct mp_ctx *ctx, bool end)
{
	struct mp_handover *ho = mp_ctx_handover(ctx);

	if (ho->gate_fd < 0 || (!end && names_left(ctx)))
		return;
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
