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
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

int mp_holder_path(char *buf, size_t size, const char *dir, const char *name)
{
	int n = snprintf(buf, size, "%s/" MP_HELD_PREFIX "%s.conf", dir, name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* this boot's id, the report's too: "" when /proc has none */
void mp_boot_id(char *buf, size_t size)
{
	if (mp_read_file("/proc/sys/kernel/random/boot_id", buf, size, NULL) < 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
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
