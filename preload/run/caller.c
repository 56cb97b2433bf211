// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The caller's side of mp_run() (run.c): waiting for the loader, its child,
 * to hand over or end, and the runs that load nothing but wait
 * (--wait-names, --wait-runs).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "run.h"

void mp_run_log(const struct mp_run_args *a, int prio, const char *fmt, ...)
{
	va_list ap;

	if (a->log == NULL)
		return;
	va_start(ap, fmt);
	a->log(a->log_data, prio, fmt, ap);
	va_end(ap);
}

/* One byte from fd, waiting until deadline (CLOCK_MONOTONIC ns; 0: no
 * end): 1, 0 at its end, -1 on an error or (errno ETIMEDOUT) the deadline. */
static ssize_t read_status(int fd, unsigned char *b, uint64_t deadline)
{
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		uint64_t now = mp_now_ns();
		int ms = -1;
		ssize_t n;

		if (deadline) {
			if (now >= deadline) {
				errno = ETIMEDOUT;
				return -1;
			}
			ms = (int)((deadline - now) / 1000000u) + 1;
		}
		n = poll(&pfd, 1, ms);
		if (n == 0 || (n < 0 && errno == EINTR))
			continue;
		if (n < 0)
			return -1;
		n = read(fd, b, 1);
		if (n >= 0 || errno != EINTR)
			return n;
	}
}

/* The child's status, as the caller of mp_run() gets it: at the end, or
 * MP_EXIT_OK when the child let us go before it (MP_STATUS_HANDOVER). A
 * systemd service's main process is let go by READY=1 (*notified) and
 * stays until the end, so that the unit says what runs. *died: the child
 * ended without a status, of that signal (-1: none). */
int mp_run_wait_child(const struct mp_run_args *a, int fd, pid_t pid, bool *notified, int *died)
{
	uint64_t deadline = a->opts.deadline_ms ? mp_now_ns() + a->opts.deadline_ms * 1000000ull : 0;
	unsigned char b;
	int status;
	ssize_t n;

	n = read_status(fd, &b, deadline);
	if (n == 1 && b == MP_STATUS_HANDOVER) {
		/* systemd's unit is started now; its main process stays until
		 * the end, as the unit's status should say. Anyone else goes. */
		*notified = mp_notify_ready("handed over; loading the rest") > 0;
		if (!*notified)
			return MP_EXIT_OK;
		/* as the child does (handover.c): a stopping unit's SIGTERM
		 * would end us alone, and its ExecStopPost (--release-stale)
		 * would find the child alive and its holds not stale; its
		 * SIGKILL ends both, and ExecStopPost then finds them stale */
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGINT, SIG_IGN);
		n = read_status(fd, &b, deadline);
	}
	if (n < 0 && errno == ETIMEDOUT) {
		/* it stops loading a little before, and reports then: what
		 * holds it is a stuck load, which it may not finish */
		mp_run_log(a, MP_LOG_WARNING, "the loader has not finished within %u ms; going on "
		       "without it", a->opts.deadline_ms);
		return MP_EXIT_SOME_FAILED;
	}
	if (n == 1) {
		/* reap it if it is already gone; if a thread is stuck in an
		 * init(), it will be reaped by whoever inherits it */
		(void)waitpid(pid, NULL, WNOHANG);
		return b;
	}
	*died = -1;
	if (waitpid(pid, &status, 0) == pid && WIFSIGNALED(status)) {
		int sig = *died = WTERMSIG(status);

		/* libkmod reads the indexes through a mapping: a bad one faults */
		mp_run_log(a, MP_LOG_ERR, "the loader died of signal %d (%s)%s", sig, strsignal(sig),
		       sig == SIGSEGV || sig == SIGBUS ?
		       "; is an index under the module directory corrupt?" : "");
		return MP_EXIT_NOTHING;
	}
	mp_run_log(a, MP_LOG_ERR, "the loader ended without a status");
	return MP_EXIT_NOTHING;
}

/* --wait-names: systemd-modules-load's ExecStartPre=, no context */
int mp_run_wait_names(const struct mp_run_args *a)
{
	unsigned ms = a->opts.timeout_ms ? a->opts.timeout_ms : 60000u;
	int r = mp_gate_wait(a->wait_names, ms);

	if (r == 0)
		return MP_EXIT_OK;
	mp_run_log(a, MP_LOG_WARNING, "%s: the names gate %s after %u s; going on", a->wait_names,
	       r == -ETIMEDOUT ? "is still shut" : mp_errno_name(-r), ms / 1000u);
	return MP_EXIT_SOME_FAILED;
}

/* --wait-runs: modpreload-save-report's, before it copies the reports */
int mp_run_wait_runs(const struct mp_run_args *a)
{
	unsigned ms = a->opts.timeout_ms ? a->opts.timeout_ms : 1800000u;

	if (mp_wait_runs(ms) == 0)
		return MP_EXIT_OK;
	mp_run_log(a, MP_LOG_WARNING, "runs of modpreload still going after %u s; going on", ms / 1000u);
	return MP_EXIT_SOME_FAILED;
}

