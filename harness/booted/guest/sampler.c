// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The booted-* VM cases' sampler (mpt.sample on the kernel command line;
 * bench/boot-pairs.sh -C lean-sampled): from just after switch-root until
 * the report, every 0.5 s, what the guest's CPUs went to. In C, static:
 * a shell reading /proc took 1.5-3 s a sample under TCG at 32 vCPUs and
 * was the busiest task of the boot. Writes /run/mpt-samples until
 * /run/mpt-sampler.stop exists; guest/booted-report.sh prints it as
 * "MPT: smp ..." lines:
 *   T UPTIME cpu user nice system idle iowait irq softirq     (/proc/stat)
 *   1 STATE WCHAN                    PID 1, every sample
 *   P PID COMM STATE TICKS WCHAN     a task whose user+system ticks grew
 *                                    since the last sample, or in D state
 *   K PID COMM FRAMES                the kernel stack of a task in D state
 * bench/samples.sh reads them. It is for the reader: nothing decides by it.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXPID 65536

static unsigned long last[MAXPID];

/* the whole of a small /proc file, NUL-ended; its length or -1 */
static ssize_t slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

static void wchan(int pid, char *out, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	if (slurp(path, out, size) <= 0)
		snprintf(out, size, "0");
}

/* the kernel stack's frames, one line: "[<0>] f+0x1/0x2\n..." to "f f ..." */
static void stack(FILE *o, int pid, const char *comm)
{
	char path[64], buf[4096], *l, *save = NULL;

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	if (slurp(path, buf, sizeof(buf)) <= 0)
		return;
	fprintf(o, "K %d %s", pid, comm);
	for (l = strtok_r(buf, "\n", &save); l != NULL; l = strtok_r(NULL, "\n", &save)) {
		char *f = strchr(l, ' ');

		fprintf(o, " %.*s", f ? (int)strcspn(f + 1, "+") : 0, f ? f + 1 : "");
	}
	fputc('\n', o);
}

static void task(FILE *o, int pid)
{
	char path[64], buf[1024], comm[64], w[128], state;
	unsigned long ut, st, t;
	char *a, *b;
	size_t i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (slurp(path, buf, sizeof(buf)) <= 0 || (a = strchr(buf, '(')) == NULL || (b = strrchr(buf, ')')) == NULL)
		return;
	snprintf(comm, sizeof(comm), "%.*s", (int)(b - a - 1), a + 1);
	for (i = 0; comm[i]; i++)
		if (comm[i] == ' ')
			comm[i] = '_';
	/* after ") ": state ppid pgrp session tty_nr tpgid flags minflt
	 * cminflt majflt cmajflt utime stime */
	if (sscanf(b + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &state, &ut, &st) != 3)
		return;
	t = ut + st;
	if (pid < MAXPID && t == last[pid] && state != 'D')
		return;
	wchan(pid, w, sizeof(w));
	fprintf(o, "P %d %s %c %lu %s\n", pid, comm, state, pid < MAXPID ? t - last[pid] : t, w);
	if (pid < MAXPID)
		last[pid] = t;
	if (state == 'D')
		stack(o, pid, comm);
}

/* " cpu u n s i w q sq": the first seven counters of /proc/stat's "cpu" */
static void cpu(FILE *o)
{
	unsigned long v[7] = { 0 };
	char buf[4096];
	int i;

	if (slurp("/proc/stat", buf, sizeof(buf)) > 0)
		sscanf(buf, "cpu %lu %lu %lu %lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]);
	fputs(" cpu", o);
	for (i = 0; i < 7; i++)
		fprintf(o, " %lu", v[i]);
	fputc('\n', o);
}

int main(void)
{
	const struct timespec pause = { 0, 500000000 };
	FILE *o = fopen("/run/mpt-samples", "we");
	char buf[4096], w[128], *nl;

	if (o == NULL)
		return 1;
	while (access("/run/mpt-sampler.stop", F_OK) != 0) {
		struct dirent *d;
		DIR *dir;

		if (slurp("/proc/uptime", buf, sizeof(buf)) > 0)
			fprintf(o, "T %.*s", (int)strcspn(buf, " "), buf);
		cpu(o);
		if (slurp("/proc/1/stat", buf, sizeof(buf)) > 0 && (nl = strrchr(buf, ')')) != NULL) {
			wchan(1, w, sizeof(w));
			fprintf(o, "1 %c %s\n", nl[2], w);
		}
		dir = opendir("/proc");
		if (dir != NULL) {
			while ((d = readdir(dir)) != NULL)
				if (d->d_name[0] >= '1' && d->d_name[0] <= '9')
					task(o, atoi(d->d_name));
			closedir(dir);
		}
		fflush(o);
		nanosleep(&pause, NULL);
	}
	fclose(o);
	return 0;
}
