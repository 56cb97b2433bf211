// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where /init speaks: the kernel log (/dev/kmsg: one record per write,
 * "<prio>" in front) and, for what a person at the console must see, the
 * console itself. The kernel already echoes urgent kmsg records to the
 * console unless loglevel= hides them; a failure message must not depend
 * on that, so init_shout writes to the console itself when the kernel
 * would not.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "init.h"
#include "util.h"

#define LINE_MAX_ 1024

/* What a line quotes of the command line (root=, init=, a name) reaches
 * the console and the kernel log with its control bytes escaped. */
static int format(char *line, const char *prefix, const char *fmt, va_list ap)
{
	char text[LINE_MAX_];
	int n = snprintf(line, LINE_MAX_, "%s", prefix);

	vsnprintf(text, sizeof(text), fmt, ap);
	mp_escape_ctl(text, line + n, (size_t)(LINE_MAX_ - n - 1));
	n += (int)strlen(line + n);
	line[n++] = '\n';
	return n;
}

static void put(int fd, const char *line, int n)
{
	if (fd >= 0 && write(fd, line, (size_t)n) < 0) {
		/* nowhere else to say it */
	}
}

static void emit(struct init_log *l, const char *tag, int prio, const char *fmt, va_list ap)
{
	char line[LINE_MAX_], prefix[48];
	int n;

	if (l->kmsg < 0) {
		/* before /dev is mounted, or without it: the console */
		snprintf(prefix, sizeof(prefix), "%s: ", tag);
		n = format(line, prefix, fmt, ap);
		put(l->console, line, n);
		return;
	}
	snprintf(prefix, sizeof(prefix), "<%d>%s: ", prio, tag);
	n = format(line, prefix, fmt, ap);
	put(l->kmsg, line, n);
}

void init_logv(struct init_log *l, int prio, const char *fmt, va_list ap)
{
	if (prio <= l->max_prio)
		emit(l, "init", prio, fmt, ap);
}

void init_log_lib(void *data, int prio, const char *fmt, va_list ap)
{
	struct init_log *l = data;

	if (prio <= l->lib_max_prio)
		emit(l, "modpreload", prio, fmt, ap);
}

void init_log(struct init_log *l, int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	init_logv(l, prio, fmt, ap);
	va_end(ap);
}

/* Whether the kernel prints a record of this priority on the console:
 * the first number of /proc/sys/kernel/printk ("quiet" makes it 4). */
static bool kernel_echoes(int prio)
{
	char buf[64];

	return mp_read_file("/proc/sys/kernel/printk", buf, sizeof(buf), NULL) == 0 &&
	       prio < atoi(buf);
}

void init_shout(struct init_log *l, const char *fmt, ...)
{
	char line[LINE_MAX_];
	va_list ap;
	int n, fd = -1;

	va_start(ap, fmt);
	n = format(line, "init: ", fmt, ap);
	va_end(ap);
	/* /dev/kmsg drops a writer's records past 10 in 5 s, silently; the
	 * limit is per open file, so a message that must be seen gets a
	 * file of its own */
	if (l->kmsg >= 0)
		fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd >= 0) {
		char rec[LINE_MAX_ + 8];
		int m = snprintf(rec, sizeof(rec), "<3>%.*s", n, line);

		put(fd, rec, m < (int)sizeof(rec) ? m : (int)sizeof(rec) - 1);
		close(fd);
	}
	/* once on the console: by the kernel when its log level lets the
	 * record through, by us otherwise */
	if (fd < 0 || !kernel_echoes(3))
		put(l->console, line, n);
}
