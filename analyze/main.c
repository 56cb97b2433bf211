// SPDX-License-Identifier: LGPL-2.1-or-later
/* modpreload analyze [--svg FILE] [REPORT]: a report read back for people.
 * `modpreload analyze` execs this (preload/run/main.c). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze.h"
#include "modpreload.h"
#include "util.h"

#define AN_DEFAULT_REPORT "/var/lib/modpreload/last-report.json"
/* far more than any report (Debian's whole tree planned: under 3 MB) */
#define AN_REPORT_MAX (256u << 20)

static const char usage[] =
	"Usage: modpreload analyze [--svg FILE] [REPORT]\n"
	"What a modpreload run did, from its report (default " AN_DEFAULT_REPORT ";\n"
	"-: standard input): the modules by load time, the critical chain, what\n"
	"failed, hung, was skipped or found no device and why, the hand-over, and\n"
	"what the duplicates would have cost when the report has that estimate.\n"
	"\n"
	"      --svg FILE   also draw the run's timeline, a lane per worker, into FILE\n"
	"                   (-: standard output, instead of the text)\n"
	"  -h, --help       this text\n"
	"  -V, --version    the version\n"
	"\n"
	"Exit status: 0 said; 2 usage; 3 the report cannot be read or is none;\n"
	"4 the output cannot be written.\n";

static const struct option longopts[] = {
	{ "svg", required_argument, NULL, 's' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void say(const char *what, const char *why)
{
	fputs("modpreload analyze: ", stderr);
	an_put_text(stderr, what);
	fprintf(stderr, ": %s\n", why);
}

/* One line when the report is not this boot's, or cannot say whose it is:
 * a report travels (bug reports), and the booted system keeps the last
 * one across boots. */
static void boot_note(const char *path, const struct an_report *r)
{
	char id[64] = "";
	ssize_t n = -1;
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, id, sizeof(id) - 1);
		close(fd);
	}
	id[n > 0 ? strcspn(id, "\n") : 0] = '\0';
	switch (an_report_boot(r, id[0] ? id : NULL)) {
	case AN_BOOT_THIS:
		return;
	case AN_BOOT_NONE:
		say(path, "no boot id in the report: it may not be this boot's");
		return;
	case AN_BOOT_OTHER:
		fputs("modpreload analyze: ", stderr);
		an_put_text(stderr, path);
		fputs(": not this boot's report (its boot id ", stderr);
		an_put_text(stderr, r->boot_id);
		fputs(", this boot's ", stderr);
		an_put_text(stderr, id);
		fputs(")\n", stderr);
		return;
	}
}

/* The whole report (standard input for "-") into *buf, NUL-terminated. */
static int slurp(const char *path, char **buf, size_t *len)
{
	if (strcmp(path, "-") == 0)
		return mp_read_fd_alloc(STDIN_FILENO, AN_REPORT_MAX, buf, len);
	return mp_read_file_alloc(path, AN_REPORT_MAX, buf, len);
}

static int write_svg(const char *path, const struct an_report *r)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "we");
	int e;

	if (f == NULL)
		return -errno;
	e = an_svg(f, r);
	if (f == stdout)
		e = fflush(f) != 0 && e == 0 ? -errno : e;
	else if (fclose(f) != 0 && e == 0)
		e = -errno;
	return e;
}

int main(int argc, char **argv)
{
	const char *svg = NULL, *path = AN_DEFAULT_REPORT;
	struct an_report r;
	struct an_json j;
	char *buf = NULL;
	size_t len = 0;
	int c, e, status = MP_EXIT_OK;

	while ((c = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			svg = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return fflush(stdout) == 0 ? MP_EXIT_OK : MP_EXIT_OUTPUT;
		case 'V':
			puts("modpreload-analyze " MP_VERSION);
			return fflush(stdout) == 0 ? MP_EXIT_OK : MP_EXIT_OUTPUT;
		default:
			fputs("Try 'modpreload analyze --help'.\n", stderr);
			return MP_EXIT_USAGE;
		}
	}
	if (optind < argc)
		path = argv[optind++];
	if (optind < argc) {
		say(argv[optind], "one report at a time");
		return MP_EXIT_USAGE;
	}
	e = slurp(path, &buf, &len);
	if (e < 0) {
		say(path, e == -EFBIG ? "larger than any report" : strerror(-e));
		return MP_EXIT_NOTHING;
	}
	e = an_json_parse(&j, buf, len);
	if (e == 0) {
		e = an_report_read(&r, &j);
		if (e == -EBADMSG)
			say(path, "JSON, but no modpreload report");
	} else if (e == -EBADMSG) {
		char at[64];

		snprintf(at, sizeof(at), "not JSON (at byte %zu)", j.err_at);
		say(path, at);
	}
	if (e == -ENOMEM)
		say(path, strerror(ENOMEM));
	if (e < 0) {
		an_json_free(&j);
		free(buf);
		return MP_EXIT_NOTHING;
	}
	boot_note(path, &r);
	if (svg == NULL || strcmp(svg, "-") != 0) {
		e = an_text(stdout, &r);
		if (e == 0 && fflush(stdout) != 0)
			e = -errno;
		if (e < 0) {
			say("standard output", strerror(-e));
			status = MP_EXIT_OUTPUT;
		}
	}
	if (svg && status == MP_EXIT_OK) {
		e = write_svg(svg, &r);
		if (e < 0) {
			say(svg, strerror(-e));
			status = MP_EXIT_OUTPUT;
		}
	}
	an_report_free(&r);
	an_json_free(&j);
	free(buf);
	return status;
}
