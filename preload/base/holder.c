// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Who holds a module (handover.c): each hold file names its holder, the
 * process that loads the module after the hand-over and removes the file
 * at its end, by its pid, its start time (a pid is reused; the pair is
 * not) and the boot. A holder killed with SIGKILL (the OOM killer, a unit
 * stopped, a crash) removes nothing: udev would obey its files for the
 * rest of the boot and the next run would count them as the
 * administrator's blacklist. With its identity a file of a dead holder is
 * known for what it is, and removed (context/stale.c).
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

int mp_holder_path(char *buf, size_t size, const char *dir, const char *name)
{
	int n = snprintf(buf, size, "%s/" MP_HELD_PREFIX "%s.conf", dir, name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* the rule of --hold-udev (load/udevhold.c) beside the hold directory DIR:
 * its parent's udev/rules.d (/run/udev/rules.d for /run/modprobe.d) */
int mp_holder_rule_path(char *buf, size_t size, const char *dir)
{
	const char *slash = strrchr(dir, '/');
	int n;

	if (slash == NULL)
		return -EINVAL;
	n = snprintf(buf, size, "%.*s/udev/rules.d/" MP_HOLD_RULE, (int)(slash - dir), dir);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* this boot's id, the report's too: "" when /proc has none. Read once,
 * as it never changes: a holder's report may be written while /init has
 * moved /proc into the new root (run.c reads it at the hand-over). */
void mp_boot_id(char *buf, size_t size)
{
	static char id[64];

	if (id[0] == '\0') {
		if (mp_read_file("/proc/sys/kernel/random/boot_id", id, sizeof(id), NULL) < 0)
			id[0] = '\0';
		id[strcspn(id, "\n")] = '\0';
	}
	snprintf(buf, size, "%s", id);
}

/* a decimal number at s, up to a blank or the end (no sscanf: musl's
 * scanf family would add 8 KiB to the static binary) */
static int number(const char *s, unsigned long long *out)
{
	const char *p;

	*out = 0;
	for (p = s; *p >= '0' && *p <= '9' && *out < ULLONG_MAX / 10; p++)
		*out = *out * 10 + (unsigned)(*p - '0');
	return p != s && (*p == ' ' || *p == '\n' || *p == '\0') ? 0 : -EINVAL;
}

/*
 * PID's start time (field 22 of /proc/PID/stat, after the name in
 * parentheses, which may hold anything) and whether it is a zombie: a
 * killed holder is one until reaped, and its files are as dead as it.
 */
static int proc_start(pid_t pid, unsigned long long *start, bool *zombie)
{
	char path[64], buf[1024], *p;
	int i, r;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	r = mp_read_file(path, buf, sizeof(buf), NULL);
	if (r < 0)
		return r;
	p = strrchr(buf, ')');
	if (p == NULL || p[1] != ' ')
		return -EINVAL;
	p += 2;
	*zombie = *p == 'Z' || *p == 'X';
	for (i = 3; i < 22 && p; i++)
		p = strchr(p + 1, ' ');
	return p ? number(p + 1, start) : -EINVAL;
}

int mp_holder_line(char *buf, size_t size)
{
	unsigned long long start;
	char boot[64];
	bool zombie;
	int n;

	mp_boot_id(boot, sizeof(boot));
	if (proc_start(getpid(), &start, &zombie) < 0 || boot[0] == '\0') {
		buf[0] = '\0';
		return 0;
	}
	n = snprintf(buf, size, "# holder: pid=%d start=%llu boot=%s\n", (int)getpid(), start, boot);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/*
 * A hold file of a modpreload before the holder line: gone only when no
 * other process runs the modpreload binary (comm, which argv[0]'s '@'
 * does not change). A live one may be its holder, which a wrong guess
 * would give a duplicate load by udev; a dead one left would keep a
 * device from its driver for the whole boot.
 */
static bool no_other_modpreload(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t self = getpid(), parent = getppid();
	bool none = d != NULL;

	while (none && (e = readdir(d)) != NULL) {
		char path[64], comm[32];
		pid_t pid = (pid_t)strtol(e->d_name, NULL, 10);

		if (pid <= 0 || pid == self || pid == parent)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		none = mp_read_file(path, comm, sizeof(comm), NULL) < 0 || strcmp(comm, "modpreload\n") != 0;
	}
	if (d)
		closedir(d);
	return none;
}

int mp_holder_gone(const char *text, int *pid)
{
	const char *l = strstr(text, "# holder: ");
	unsigned long long pid_n, start, now;
	char this_boot[64];
	bool zombie;
	int r;

	*pid = 0;
	if (l == NULL || (l != text && l[-1] != '\n'))
		return no_other_modpreload();
	l += strlen("# holder: ");
	if (strncmp(l, "pid=", 4) != 0 || number(l + 4, &pid_n) < 0 || pid_n == 0 || pid_n > INT_MAX ||
	    (l = strstr(l, " start=")) == NULL || number(l + 7, &start) < 0 ||
	    (l = strstr(l, " boot=")) == NULL)
		return -EINVAL;
	*pid = (int)pid_n;
	l += 6;
	mp_boot_id(this_boot, sizeof(this_boot));
	if (this_boot[0] && (strncmp(l, this_boot, strlen(this_boot)) != 0 ||
			     (l[strlen(this_boot)] != '\n' && l[strlen(this_boot)] != '\0')))
		return 1;
	r = proc_start(*pid, &now, &zombie);
	/* without /proc nothing can be told: it stays */
	if (r == -ENOENT && access("/proc/self/stat", F_OK) == 0)
		return 1;
	return r == 0 && (zombie || now != start);
}

int mp_holder_elsewhere(const char *path, int *pid)
{
	char buf[1024];

	return mp_read_file(path, buf, sizeof(buf), NULL) >= 0 && mp_holder_gone(buf, pid) == 0 &&
	       *pid != (int)getpid();
}

/* --- --wait-runs: the other runs of root's, until they are done --- */

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* the same number on every architecture */
#endif
#define MP_RUNS_MAX 64

/* PID's real uid (status's "Uid:" line), or -1 */
static long proc_uid(pid_t pid)
{
	char path[64], buf[2048], *p;
	unsigned long long uid;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (mp_read_file(path, buf, sizeof(buf), NULL) < 0 || (p = strstr(buf, "\nUid:\t")) == NULL)
		return -1;
	p += 6;
	p[strspn(p, "0123456789")] = '\0'; /* real, effective, ...: tabs between */
	return number(p, &uid) == 0 && uid <= LONG_MAX ? (long)uid : -1;
}

/*
 * The other processes that run the modpreload binary as root and whose
 * first thread lives, into pids (at most max): how many, or more than max.
 * Any user may name a process modpreload; only root's count. A first
 * thread gone is a run done: a thread stuck in a hung init() keeps the
 * rest of a process that wrote its report long ago.
 */
static int other_runs(pid_t *pids, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t self = getpid(), parent = getppid();
	int n = 0;

	while (d && (e = readdir(d)) != NULL) {
		char path[64], comm[32];
		unsigned long long start;
		pid_t pid = (pid_t)strtol(e->d_name, NULL, 10);
		bool zombie;

		if (pid <= 0 || pid == self || pid == parent)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		if (mp_read_file(path, comm, sizeof(comm), NULL) < 0 || strcmp(comm, "modpreload\n") != 0 ||
		    proc_start(pid, &start, &zombie) < 0 || zombie || proc_uid(pid) != 0)
			continue;
		if (n < max)
			pids[n] = pid;
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

/*
 * Until no other run of root's is left, at most timeout_ms: 0, or
 * -ETIMEDOUT. Each wait is on the runs' pidfds (Linux 5.3), which wake it
 * when one ends, and a look every 5 s for a first thread gone before the
 * rest; without pidfds, a look every second. A look reads one small file
 * per process: the shell loop this replaces read /proc/PID/stat a byte at
 * a time (dash's read), 14000 calls a look for 80 processes, every second,
 * beside the boot.
 */
int mp_wait_runs(unsigned timeout_ms)
{
	uint64_t end = mp_now_ms() + timeout_ms;
	pid_t pids[MP_RUNS_MAX];
	struct pollfd pfd[MP_RUNS_MAX];

	/* not a run: two waiters would wait for each other to the end */
	(void)prctl(PR_SET_NAME, "modpreload-wait");
	for (;;) {
		int i, n = other_runs(pids, MP_RUNS_MAX), nfd = 0;
		uint64_t now = mp_now_ms(), left;
		bool gone = false;

		if (n == 0)
			return 0;
		if (now >= end)
			return -ETIMEDOUT;
		left = end - now;
		for (i = 0; i < n && i < MP_RUNS_MAX; i++) {
			int fd = (int)syscall(SYS_pidfd_open, pids[i], 0);

			if (fd >= 0)
				pfd[nfd++] = (struct pollfd){ .fd = fd, .events = POLLIN };
			gone |= fd < 0 && errno == ESRCH;
		}
		if (gone)
			; /* ended since the look: look again */
		else if (nfd == n)
			(void)poll(pfd, (nfds_t)nfd, (int)(left < 5000 ? left : 5000));
		else
			mp_sleep_ms((unsigned)(left < 1000 ? left : 1000));
		for (i = 0; i < nfd; i++)
			close(pfd[i].fd);
	}
}
