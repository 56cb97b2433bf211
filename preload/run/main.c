// SPDX-License-Identifier: LGPL-2.1-or-later
/* modpreload(8): the command-line face of the preloader. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modpreload.h"
#include "util.h"

static const char usage_head[] =
	"Usage: modpreload [OPTION]... [MODULE|ALIAS]...\n"
	"       modpreload analyze [--svg FILE] [REPORT]   (modpreload analyze --help)\n"
	"Load kernel modules and what they need, each exactly once, in parallel as\n"
	"soon as their dependencies are live.\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"Exit status: 0 all loaded or already live, or handed over; 1 some failed, hung or were\n"
	"skipped; 2 usage; 3 nothing could be done (no module directory or index);\n"
	"4 the report (or -h, -V) could not be written. More: modpreload(8).\n";

/* the long options without a short one */
enum {
	OPT_COLDPLUG = 256, OPT_NO_DEFAULT_CONFIG, OPT_CMDLINE, OPT_WAVES, OPT_SETTLE, OPT_KMSG, OPT_NO_KSTATS,
	OPT_SYSFS, OPT_NO_FORK, OPT_ORDER, OPT_POOL, OPT_PROFILE, OPT_PROFILE_OUT, OPT_MODULES_LOAD, OPT_NODEV,
	OPT_LIST_CONFIG, OPT_HANDOVER, OPT_HANDOVER_SOON, OPT_HANDOVER_EARLY, OPT_HOLD_UDEV, OPT_LEAVE_SINGLE,
	OPT_HOLD_DIR, OPT_RELEASE_STALE, OPT_ESTIMATE, OPT_NAMES_GATE, OPT_WAIT_NAMES, OPT_WAIT_RUNS, OPT_ROOT_FS,
	OPT_LOOKUPS, OPT_LOOKUPS_OUT,
};

/* --help's headings */
enum { NO_HEADING, REQUESTS, RESOLVING, LOADING, REPORTING };
static const char headings[][10] = { "", "Requests", "Resolving", "Loading", "Reporting" };

/*
 * Every option, once: getopt_long()'s array, the short options' string,
 * --help and the numeric options' bounds are made from this table, and
 * lint checks the manual page (modpreload.8, written by hand) against it
 * (scripts/lint-options.sh). What each option does is main()'s switch.
 */
struct cli_option {
	const char *name;
	short key;                /* its short letter, or an OPT_* */
	signed char lim;          /* the mp_limits[] entry that bounds it, or -1 */
	unsigned char heading;    /* --help's heading before it, or NO_HEADING */
	const char *arg;          /* its argument in --help; NULL: it takes none */
	/* --help's text: after a newline, a line of its own in the column; a
	 * first newline puts it all under the option; %u: the limit's default */
	const char *help;
};

static const struct cli_option options[] = {
	{ "coldplug", OPT_COLDPLUG, -1, REQUESTS, NULL,
	  "every device's modalias, and devices that appear\n"
	  "while modules load" },
	{ "config", 'c', -1, NO_HEADING, "FILE", "a modules-load.d style list (repeatable)" },
	{ "no-default-config", OPT_NO_DEFAULT_CONFIG, -1, NO_HEADING, NULL,
	  "skip /etc/modpreload.d, /run/modpreload.d,\n"
	  "/usr/lib/modpreload.d" },
	{ "list-config-files", OPT_LIST_CONFIG, -1, NO_HEADING, "ROOT",
	  "\n"
	  "print the modpreload.d lists under ROOT; exit" },
	{ "modules-load", OPT_MODULES_LOAD, -1, NO_HEADING, NULL,
	  "the lists systemd-modules-load reads: modules-load.d\n"
	  "and modules_load= on the command line" },
	{ "cmdline", OPT_CMDLINE, -1, NO_HEADING, "FILE",
	  "kernel command line to read (default /proc/cmdline;\n"
	  "\"\": none)" },
	{ "basedir", 'd', -1, RESOLVING, "DIR", "root under which lib/modules/KVER is" },
	{ "kernel-version", 'S', -1, NO_HEADING, "V", "kernel version (default: the running one)" },
	{ "modprobe-config", 'C', -1, NO_HEADING, "P",
	  "modprobe.d file or directory to read instead of the\n"
	  "default ones (repeatable)" },
	{ "use-blacklist", 'b', -1, NO_HEADING, NULL,
	  "the blacklist stops the MODULE arguments too, as\n"
	  "modprobe -b's (without: aliases only, as modprobe's)" },
	{ "jobs", 'j', MP_LIM_JOBS, LOADING, "N", "loads at once (default: CPUs, at most %u)" },
	{ "waves", OPT_WAVES, -1, NO_HEADING, NULL,
	  "wait for each wave to finish before the next starts" },
	{ "order", OPT_ORDER, -1, NO_HEADING, "ORDER",
	  "which ready module first: critical (the longest\n"
	  "chain of expected load time, default) or fifo" },
	{ "pool", OPT_POOL, -1, NO_HEADING, "POOL",
	  "adaptive (default without -j) or fixed (with -j)" },
	{ "profile", OPT_PROFILE, -1, NO_HEADING, "FILE",
	  "the last boot's load times (default\n"
	  "/usr/lib/modpreload/profile if there; \"\": none)" },
	{ "profile-out", OPT_PROFILE_OUT, -1, NO_HEADING, "FILE",
	  "write this run's times there (default: \"profile\"\n"
	  "beside the report; \"\": nowhere)" },
	{ "lookups", OPT_LOOKUPS, -1, NO_HEADING, "FILE",
	  "the last boot's lookups and index identities:\n"
	  "used where the tree is the same (default: none)" },
	{ "lookups-out", OPT_LOOKUPS_OUT, -1, NO_HEADING, "FILE", "keep this run's there, for the next --lookups" },
	{ "timeout", 't', MP_LIM_TIMEOUT_S, NO_HEADING, "SECONDS",
	  "give up on an init() after this long (default %u)" },
	{ "settle-ms", OPT_SETTLE, MP_LIM_SETTLE_MS, NO_HEADING, "MS",
	  "coldplug: quiet time before the final rescan (%u)" },
	{ "handover", OPT_HANDOVER, -1, NO_HEADING, NULL,
	  "return (READY=1 under systemd) once the plan is\n"
	  "whole; a child finishes the loads, udev kept off them" },
	{ "handover-soon", OPT_HANDOVER_SOON, -1, NO_HEADING, NULL,
	  "--handover, sooner (the booted system): what it\n"
	  "waits for loads first, a kernel alias is not\n"
	  "waited for before 6.5" },
	{ "handover-early", OPT_HANDOVER_EARLY, -1, NO_HEADING, NULL,
	  "--handover-soon, before the plan: with --lookups,\n"
	  "hold what the last boot held, then return" },
	{ "hold-udev", OPT_HOLD_UDEV, -1, NO_HEADING, NULL,
	  "--handover, and udev loads no driver\n"
	  "(--handover-soon: no CPU's) until the run is done" },
	{ "leave-single", OPT_LEAVE_SINGLE, -1, NO_HEADING, NULL,
	  "leave to udev what one device alone asks for,\n"
	  "and to systemd-modules-load what only its names\n"
	  "ask for, with all they need: no duplicate" },
	{ "root-fs", OPT_ROOT_FS, -1, NO_HEADING, NULL,
	  "load the root's file system module too: from\n"
	  "rootfstype=, or root='s superblock once there" },
	{ "names-gate", OPT_NAMES_GATE, -1, NO_HEADING, "FILE",
	  "with --handover-soon: keep FILE locked until\n"
	  "the names asked for are live, and hand over\n"
	  "before that" },
	{ "wait-names", OPT_WAIT_NAMES, -1, NO_HEADING, "FILE",
	  "only wait until that lock is let go, at most\n"
	  "--timeout (systemd-modules-load's ExecStartPre=)" },
	{ "wait-runs", OPT_WAIT_RUNS, -1, NO_HEADING, NULL,
	  "\n"
	  "only wait until no other run of root's is left,\n"
	  "at most --timeout (modpreload-save-report)" },
	{ "hold-dir", OPT_HOLD_DIR, -1, NO_HEADING, "DIR",
	  "where held modules are blacklisted (default\n"
	  MP_HOLD_DIR ")" },
	{ "release-stale", OPT_RELEASE_STALE, -1, NO_HEADING, NULL,
	  "\n"
	  "only remove the holds of a loader that is gone\n"
	  "and replay their devices' add (ExecStopPost=)" },
	{ "dry-run", 'n', -1, NO_HEADING, NULL, "print the plan and load nothing" },
	{ "report", 'r', -1, REPORTING, "FILE", "write the JSON report to FILE (\"-\": stdout)" },
	{ "nodev-blacklist", OPT_NODEV, -1, NO_HEADING, "FILE",
	  "blacklist there the CPU drivers that found no\n"
	  "device (modpreload.nodev=0: off)" },
	{ "kmsg", OPT_KMSG, -1, NO_HEADING, NULL, "log to /dev/kmsg instead of stderr" },
	{ "no-kstats", OPT_NO_KSTATS, -1, NO_HEADING, NULL, "do not read /sys/kernel/debug/modules/stats" },
	{ "estimate", OPT_ESTIMATE, -1, NO_HEADING, NULL, "the report's duplicate_cost (always with -n)" },
	{ "quiet", 'q', -1, NO_HEADING, NULL, "errors only" },
	{ "verbose", 'v', -1, NO_HEADING, NULL, "more (twice: debug)" },
	{ "sysfs", OPT_SYSFS, -1, NO_HEADING, "DIR", "sysfs to read (default /sys)" },
	{ "no-fork", OPT_NO_FORK, -1, NO_HEADING, NULL, "load in this process (a hung init() then holds it)" },
	{ "help", 'h', -1, NO_HEADING, NULL, "this text" },
	{ "version", 'V', -1, NO_HEADING, NULL, "the version" },
};

#define NOPTIONS (sizeof(options) / sizeof(options[0]))
/* where --help's texts begin */
#define HELP_COLUMN 27

struct logger {
	int fd;
	bool kmsg;
	int max_prio;
};

/* One write per line: /dev/kmsg takes a record per write(). */
static void log_line(void *data, int prio, const char *fmt, va_list ap)
{
	const struct logger *l = data;
	char line[1024];
	int n = 0;

	if (prio > l->max_prio)
		return;
	if (l->kmsg)
		n = snprintf(line, sizeof(line), "<%d>modpreload: ", prio);
	else
		n = snprintf(line, sizeof(line), "modpreload: ");
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (write(l->fd, line, (size_t)n) < 0) {
		/* nowhere else to say it */
	}
}

/* fmt's one %s is arg, from the command line: its control bytes escaped */
static int bad_usage(const char *fmt, const char *arg)
{
	char shown[256];

	mp_escape(arg, strlen(arg), shown, sizeof(shown));
	fprintf(stderr, "modpreload: ");
	fprintf(stderr, fmt, shown);
	fprintf(stderr, "\nTry 'modpreload --help'.\n");
	return MP_EXIT_USAGE;
}

/* --opt's argument, within its limits; MP_EXIT_USAGE after saying why. */
static int parse_limit(const char *opt, int lim, const char *s, unsigned *out)
{
	const struct mp_limit *l = &mp_limits[lim];
	char *end, shown[64];
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno == 0 && end != s && *end == '\0' && v >= (long)l->min && v <= (long)l->max) {
		*out = (unsigned)v;
		return 0;
	}
	mp_escape(s, strlen(s), shown, sizeof(shown));
	fprintf(stderr, "modpreload: --%s: '%s' is not ", opt, shown);
	fprintf(stderr, l->what, l->min, l->max);
	fprintf(stderr, "\nTry 'modpreload --help'.\n");
	return MP_EXIT_USAGE;
}

/* -h and -V: a full disk or a closed pipe is said, not a silent success. */
static int put_stdout(const char *s)
{
	if (fputs(s, stdout) < 0 || fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "modpreload: standard output: %s\n", strerror(errno));
		return MP_EXIT_OUTPUT;
	}
	return MP_EXIT_OK;
}

/* -h: the usage text, from the table, with the limits' defaults. */
static int put_usage(void)
{
	size_t i;

	fputs(usage_head, stdout);
	for (i = 0; i < NOPTIONS; i++) {
		const struct cli_option *o = &options[i];
		char help[512];
		const char *h = help, *nl;
		bool under;
		int n;

		/* the text is a format: its one %u, if any, the limit's default */
		snprintf(help, sizeof(help), o->help, o->lim >= 0 ? mp_limits[o->lim].def : 0);
		if (o->heading)
			printf("%s:\n", headings[o->heading]);
		if (o->key < 256)
			n = printf("  -%c, --%s", o->key, o->name);
		else
			n = printf("      --%s", o->name);
		if (o->arg)
			n += printf(" %s", o->arg);
		under = *h == '\n';
		n = under ? HELP_COLUMN : n + 2 > HELP_COLUMN ? 2 : HELP_COLUMN - n;
		for (h += under;; h = nl + 1, n = HELP_COLUMN) {
			nl = strchrnul(h, '\n');
			printf("%s%*s%.*s\n", under ? "\n" : "", n, "", (int)(nl - h), h);
			under = false;
			if (*nl == '\0')
				break;
		}
	}
	return put_stdout(usage_tail);
}

/* getopt_long()'s view of the table: its array and the short options. */
static void getopt_tables(struct option *longopts, char *shortopts)
{
	size_t i;

	for (i = 0; i < NOPTIONS; i++) {
		longopts[i] = (struct option){ .name = options[i].name, .val = options[i].key,
					       .has_arg = options[i].arg ? required_argument : no_argument };
		if (options[i].key < 256) {
			*shortopts++ = (char)options[i].key;
			if (options[i].arg)
				*shortopts++ = ':';
		}
	}
	longopts[i] = (struct option){ 0 };
	*shortopts = '\0';
}

/* The table's entry for a key getopt_long() returned, or NULL. */
static const struct cli_option *option_of(int key)
{
	size_t i;

	for (i = 0; i < NOPTIONS; i++)
		if (options[i].key == key)
			return &options[i];
	return NULL;
}

/* Growable NULL-terminated list of borrowed strings. */
static int push(const char ***list, int *n, const char *s)
{
	const char **l = realloc(*list, (size_t)(*n + 2) * sizeof(char *));

	if (l == NULL)
		return -ENOMEM;
	l[(*n)++] = s;
	l[*n] = NULL;
	*list = l;
	return 0;
}

/* What the command line asks for: the run's arguments, the lists they
 * borrow from argv, and where the log goes and how much of it. */
struct cli {
	struct mp_run_args a;
	struct logger lg;
	bool kmsg;
	const char **configs, **mpconf, **names;
	int nconfigs, nmpconf, nnames;
};

/* The lists go on every way out of main(), a usage error's too. */
static void cli_done(struct cli *c)
{
	free(c->configs);
	free(c->mpconf);
	free(c->names);
}

/* parse_options()'s and set_option()'s "no exit status yet: go on" */
#define GO_ON (-1)

/*
 * modpreload analyze: a program of its own (analyze/), so that the binary
 * early boot runs does not carry it. It is beside this one in a build tree
 * (build/modpreload-analyze) and in PREFIX/lib/modpreload when installed,
 * as modpreload-mkinitramfs finds the /init.
 */
static int run_analyze(char **argv)
{
	static const char *const where[] = { "modpreload-analyze", "../lib/modpreload/analyze" };
	char self[4096], path[4096 + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t i;

	if (n <= 0) {
		self[0] = '.';
		n = 1;
	}
	self[n] = '\0';
	if (strrchr(self, '/'))
		*strrchr(self, '/') = '\0';
	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", self, where[i]);
		execv(path, argv);
	}
	fprintf(stderr, "modpreload: analyze: neither %s/%s nor %s/%s can run: %s\n", self, where[0], self,
		where[1], strerror(errno));
	return MP_EXIT_NOTHING;
}

/* The option KEY getopt_long() returned, with its argument ARG (V: its
 * value, for a number), into c. WORD is the option as written, for the
 * message when it is none of ours. GO_ON, or the exit status. */
static int set_option(struct cli *c, int key, const char *arg, unsigned v, const char *word)
{
	struct mp_run_args *a = &c->a;

	switch (key) {
	case OPT_COLDPLUG:
		a->opts.coldplug = true;
		break;
	case 'c':
		if (push(&c->configs, &c->nconfigs, arg) < 0)
			return MP_EXIT_NOTHING;
		break;
	case OPT_NO_DEFAULT_CONFIG:
		a->default_configs = false;
		break;
	case OPT_LIST_CONFIG:
		if (mp_list_config_files(strcmp(arg, "/") == 0 ? "" : arg, stdout) < 0)
			return MP_EXIT_NOTHING;
		return put_stdout("");
	case OPT_CMDLINE:
		a->opts.cmdline = arg;
		break;
	case OPT_MODULES_LOAD:
		a->modules_load = true;
		break;
	case OPT_NODEV:
		a->nodev_path = arg;
		break;
	case 'd':
		a->opts.basedir = arg;
		break;
	case 'S':
		a->opts.kver = arg;
		break;
	case 'C':
		if (push(&c->mpconf, &c->nmpconf, arg) < 0)
			return MP_EXIT_NOTHING;
		break;
	case 'b':
		a->use_blacklist = true;
		break;
	case 'j':
		a->opts.jobs = (int)v;
		break;
	case OPT_WAVES:
		a->opts.waves = true;
		break;
	case OPT_ORDER:
		if (strcmp(arg, "critical") != 0 && strcmp(arg, "fifo") != 0)
			return bad_usage("--order: '%s' is not critical or fifo", arg);
		a->opts.fifo = strcmp(arg, "fifo") == 0;
		break;
	case OPT_POOL:
		if (strcmp(arg, "adaptive") != 0 && strcmp(arg, "fixed") != 0)
			return bad_usage("--pool: '%s' is not adaptive or fixed", arg);
		a->opts.pool = strcmp(arg, "adaptive") == 0 ? MP_POOL_ADAPTIVE : MP_POOL_FIXED;
		break;
	case OPT_PROFILE:
		a->opts.profile = arg;
		break;
	case OPT_PROFILE_OUT:
		a->opts.profile_out = arg;
		break;
	case OPT_LOOKUPS:
		a->opts.lookups = arg;
		break;
	case OPT_LOOKUPS_OUT:
		a->opts.lookups_out = arg;
		break;
	case 't':
		a->opts.timeout_ms = v * 1000u;
		break;
	case OPT_SETTLE:
		a->opts.settle_ms = v;
		break;
	case 'n':
		a->opts.dry_run = true;
		break;
	case 'r':
		a->report_path = arg;
		break;
	case OPT_KMSG:
		c->kmsg = true;
		break;
	case OPT_NO_KSTATS:
		a->opts.kstats = false;
		break;
	case OPT_ESTIMATE:
		a->opts.estimate = true;
		break;
	case 'q':
		c->lg.max_prio = MP_LOG_ERR;
		break;
	case 'v':
		c->lg.max_prio = c->lg.max_prio < MP_LOG_INFO ? MP_LOG_INFO : MP_LOG_DEBUG;
		break;
	case OPT_SYSFS:
		a->opts.sysfs = arg;
		break;
	case OPT_NO_FORK:
		a->fork_guard = false;
		break;
	case OPT_HANDOVER:
		a->handover = true;
		break;
	case OPT_HANDOVER_SOON:
		a->handover = a->handover_soon = true;
		break;
	case OPT_HANDOVER_EARLY:
		a->handover = a->handover_soon = a->handover_early = true;
		break;
	case OPT_HOLD_UDEV:
		a->handover = a->opts.hold_udev = true;
		break;
	case OPT_LEAVE_SINGLE:
		a->leave_single = true;
		break;
	case OPT_ROOT_FS:
		a->root_fs = true;
		break;
	case OPT_HOLD_DIR:
		a->opts.hold_dir = arg;
		break;
	case OPT_RELEASE_STALE:
		a->release_stale = true;
		break;
	case OPT_NAMES_GATE:
		a->names_gate = arg;
		break;
	case OPT_WAIT_NAMES:
		a->wait_names = arg;
		break;
	case OPT_WAIT_RUNS:
		a->wait_runs = true;
		break;
	case 'h':
		return put_usage();
	case 'V':
		return put_stdout("modpreload " MP_VERSION "\n");
	default:
		/* getopt's own message would quote the word raw */
		return bad_usage("'%s': an unknown option, or one without its argument", word);
	}
	return GO_ON;
}

/* Neither a name nor a list nor a device to ask for a module: a mistake. */
static bool nothing_asked(const struct cli *c)
{
	const struct mp_run_args *a = &c->a;

	return c->nnames == 0 && c->nconfigs == 0 && !a->opts.coldplug && !a->default_configs &&
	       !a->modules_load && !a->release_stale && !a->wait_names && !a->wait_runs &&
	       a->opts.cmdline && a->opts.cmdline[0] == '\0';
}

/* The command line into c: GO_ON to run, else the exit status. */
static int parse_options(int argc, char **argv, struct cli *c)
{
	struct option longopts[NOPTIONS + 1];
	char shortopts[2 * NOPTIONS + 1];
	unsigned v = 0;
	int key, r, i;

	opterr = 0;
	getopt_tables(longopts, shortopts);
	while ((key = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct cli_option *o = option_of(key);

		/* a number, within the limits the table names for it */
		if (o && o->lim >= 0 && parse_limit(o->name, o->lim, optarg, &v) != 0)
			return MP_EXIT_USAGE;
		/* musl's getopt leaves optind past argc when the last word is an
		 * option without its argument: that word is then argv[argc - 1] */
		r = set_option(c, key, optarg, v, argv[optind <= argc ? optind - 1 : argc - 1]);
		if (r != GO_ON)
			return r;
	}
	for (i = optind; i < argc; i++)
		if (push(&c->names, &c->nnames, argv[i]) < 0)
			return MP_EXIT_NOTHING;
	if (nothing_asked(c))
		return bad_usage("%s", "nothing to load: give modules, --config, --coldplug or a command line");
	return GO_ON;
}

/* The log where it was asked for (/dev/kmsg if it opens), and the run's
 * arguments completed from what the options gathered. */
static void finish_args(struct cli *c, char *argv0)
{
	struct mp_run_args *a = &c->a;

	if (c->kmsg) {
		int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);

		if (fd >= 0) {
			c->lg.fd = fd;
			c->lg.kmsg = true;
			a->opts.grouped = true;
		}
	}
	a->names = c->names;
	a->configs = c->configs;
	a->argv0 = argv0;
	a->opts.modprobe_config = c->mpconf;
	a->log = log_line;
	a->log_data = &c->lg;
	if (a->opts.dry_run && a->report_path == NULL)
		a->report_path = "-";
}

int main(int argc, char **argv)
{
	__attribute__((cleanup(cli_done))) struct cli c = {
		.a = {
			.opts = { .cmdline = "/proc/cmdline", .kstats = true },
			.default_configs = true,
			.fork_guard = true,
		},
		.lg = { .fd = STDERR_FILENO, .max_prio = MP_LOG_NOTICE },
		/* /dev/kmsg is the default when the parent is PID 1 (modpreload(8)) */
		.kmsg = getppid() == 1,
	};
	int r;

	if (argc > 1 && strcmp(argv[1], "analyze") == 0)
		return run_analyze(argv + 1);
	/* A reader that goes away (modpreload -n | head) makes write() fail
	 * with EPIPE, which the report says, instead of killing the loader
	 * with a signal that looks like a crash. */
	signal(SIGPIPE, SIG_IGN);
	r = parse_options(argc, argv, &c);
	if (r != GO_ON)
		return r;
	finish_args(&c, argv[0]);
	return mp_run(&c.a);
}
