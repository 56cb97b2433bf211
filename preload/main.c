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

static const char usage[] =
	"Usage: modpreload [OPTION]... [MODULE|ALIAS]...\n"
	"       modpreload analyze [--svg FILE] [REPORT]   (modpreload analyze --help)\n"
	"Load kernel modules and what they need, each exactly once, in parallel as\n"
	"soon as their dependencies are live.\n"
	"\n"
	"Requests:\n"
	"      --coldplug           every device's modalias under /sys/devices, and the\n"
	"                           devices that appear while modules load\n"
	"  -c, --config FILE        a modules-load.d style list (repeatable)\n"
	"      --no-default-config  skip /etc/modpreload.d, /run/modpreload.d,\n"
	"                           /usr/lib/modpreload.d\n"
	"      --list-config-files ROOT\n"
	"                           print the modpreload.d lists read under ROOT\n"
	"                           (\"\" or /: this system's), one a line; exit\n"
	"      --modules-load       the lists systemd-modules-load reads: modules-load.d\n"
	"                           and modules_load= on the command line\n"
	"      --cmdline FILE       kernel command line to read (default /proc/cmdline,\n"
	"                           \"\" for none): rd.modpreload.modules=, rd.driver.pre=,\n"
	"                           modprobe.blacklist=, module_blacklist=, mod.param=\n"
	"Resolving:\n"
	"  -d, --basedir DIR        root under which lib/modules/KVER is\n"
	"  -S, --kernel-version V   kernel version (default: the running one)\n"
	"  -C, --modprobe-config P  modprobe.d file or directory to read instead of the\n"
	"                           default ones (repeatable)\n"
	"Loading:\n"
	"  -j, --jobs N             loads at once (default: CPUs, at most %u)\n"
	"      --waves              wait for each wave to finish before the next starts\n"
	"      --order ORDER        which ready module first: critical (the longest\n"
	"                           chain of expected load time, default) or fifo\n"
	"      --pool POOL          adaptive (workers asleep in init() do not count\n"
	"                           against -j; the default without -j) or fixed\n"
	"                           (-j workers; the default with -j)\n"
	"      --profile FILE       the last boot's load times (default\n"
	"                           /usr/lib/modpreload/profile if there; \"\": none)\n"
	"      --profile-out FILE   write this run's times there (default: \"profile\"\n"
	"                           beside the report; \"\": nowhere)\n"
	"  -t, --timeout SECONDS    give up on an init() after this long (default %u)\n"
	"      --settle-ms MS       coldplug: quiet time before the final rescan (%u)\n"
	"      --handover           return (0; READY=1 under systemd) once the plan is\n"
	"                           whole, holding what is left from udev until it is\n"
	"                           live or failed; a child loads it and reports\n"
	"                           (rd.modpreload.handover=0 or modpreload.handover=0\n"
	"                           disables)\n"
	"      --hold-dir DIR       where held modules are blacklisted (default\n"
	"                           " MP_HOLD_DIR ")\n"
	"  -n, --dry-run            print the plan and load nothing\n"
	"Reporting:\n"
	"  -r, --report FILE        write the JSON report to FILE (\"-\": stdout)\n"
	"      --nodev-blacklist FILE  append \"blacklist NAME\" to FILE for each driver a\n"
	"                           CPU's modalias matched whose init() said ENODEV,\n"
	"                           or that was skipped for a dependency that did\n"
	"                           (for /run/modprobe.d; modpreload.nodev=0 disables)\n"
	"      --kmsg               log to /dev/kmsg instead of stderr\n"
	"      --no-kstats          do not read /sys/kernel/debug/modules/stats\n"
	"      --estimate           estimate what the duplicates would have cost the\n"
	"                           kernel (the report's duplicate_cost; always with -n)\n"
	"  -q, --quiet              errors only\n"
	"  -v, --verbose            more (twice: debug)\n"
	"      --sysfs DIR          sysfs to read (default /sys)\n"
	"      --no-fork            load in this process (a hung init() then holds it)\n"
	"  -h, --help               this text\n"
	"  -V, --version            the version\n"
	"\n"
	"Exit status: 0 all loaded or already live, or handed over; 1 some failed, hung or were\n"
	"skipped; 2 usage; 3 nothing could be done (no module directory or index);\n"
	"4 the report (or -h, -V) could not be written.\n";

enum {
	OPT_COLDPLUG = 256, OPT_NO_DEFAULT_CONFIG, OPT_CMDLINE, OPT_WAVES, OPT_SETTLE,
	OPT_KMSG, OPT_NO_KSTATS, OPT_SYSFS, OPT_NO_FORK, OPT_ORDER, OPT_POOL, OPT_PROFILE,
	OPT_PROFILE_OUT, OPT_MODULES_LOAD, OPT_NODEV, OPT_LIST_CONFIG,
	OPT_HANDOVER, OPT_HOLD_DIR, OPT_ESTIMATE,
};

static const struct option longopts[] = {
	{ "coldplug", no_argument, NULL, OPT_COLDPLUG },
	{ "config", required_argument, NULL, 'c' },
	{ "no-default-config", no_argument, NULL, OPT_NO_DEFAULT_CONFIG },
	{ "list-config-files", required_argument, NULL, OPT_LIST_CONFIG },
	{ "cmdline", required_argument, NULL, OPT_CMDLINE },
	{ "modules-load", no_argument, NULL, OPT_MODULES_LOAD },
	{ "nodev-blacklist", required_argument, NULL, OPT_NODEV },
	{ "basedir", required_argument, NULL, 'd' },
	{ "kernel-version", required_argument, NULL, 'S' },
	{ "modprobe-config", required_argument, NULL, 'C' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "waves", no_argument, NULL, OPT_WAVES },
	{ "order", required_argument, NULL, OPT_ORDER },
	{ "pool", required_argument, NULL, OPT_POOL },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "profile-out", required_argument, NULL, OPT_PROFILE_OUT },
	{ "timeout", required_argument, NULL, 't' },
	{ "settle-ms", required_argument, NULL, OPT_SETTLE },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "report", required_argument, NULL, 'r' },
	{ "kmsg", no_argument, NULL, OPT_KMSG },
	{ "no-kstats", no_argument, NULL, OPT_NO_KSTATS },
	{ "estimate", no_argument, NULL, OPT_ESTIMATE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "sysfs", required_argument, NULL, OPT_SYSFS },
	{ "no-fork", no_argument, NULL, OPT_NO_FORK },
	{ "handover", no_argument, NULL, OPT_HANDOVER },
	{ "hold-dir", required_argument, NULL, OPT_HOLD_DIR },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

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
	if (fputs(s, stdout) < 0 || fflush(stdout) != 0) {
		fprintf(stderr, "modpreload: standard output: %s\n", strerror(errno));
		return MP_EXIT_OUTPUT;
	}
	return MP_EXIT_OK;
}

/* -h: the usage text, with the limits' defaults. */
static int put_usage(void)
{
	char buf[sizeof(usage) + 32];

	snprintf(buf, sizeof(buf), usage, mp_limits[MP_LIM_JOBS].def,
		 mp_limits[MP_LIM_TIMEOUT_S].def, mp_limits[MP_LIM_SETTLE_MS].def);
	return put_stdout(buf);
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

/* The lists go on every way out of main(), a usage error's too. */
static void free_list(const char ***list)
{
	free(*list);
}
#define _cleanup_list_ __attribute__((cleanup(free_list)))

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

int main(int argc, char **argv)
{
	struct mp_run_args a = {
		.opts = { .cmdline = "/proc/cmdline", .kstats = true },
		.default_configs = true,
		.fork_guard = true,
	};
	struct logger lg = { .fd = STDERR_FILENO, .max_prio = MP_LOG_NOTICE };
	_cleanup_list_ const char **configs = NULL;
	_cleanup_list_ const char **mpconf = NULL;
	_cleanup_list_ const char **names = NULL;
	int nconfigs = 0, nmpconf = 0, nnames = 0, c, i;
	bool kmsg = getppid() == 1;

	if (argc > 1 && strcmp(argv[1], "analyze") == 0)
		return run_analyze(argv + 1);
	unsigned v;

	/* A reader that goes away (modpreload -n | head) makes write() fail
	 * with EPIPE, which the report says, instead of killing the loader
	 * with a signal that looks like a crash. */
	signal(SIGPIPE, SIG_IGN);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:d:S:C:j:t:nr:qvhV", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_COLDPLUG:
			a.opts.coldplug = true;
			break;
		case 'c':
			if (push(&configs, &nconfigs, optarg) < 0)
				return MP_EXIT_NOTHING;
			break;
		case OPT_NO_DEFAULT_CONFIG:
			a.default_configs = false;
			break;
		case OPT_LIST_CONFIG:
			if (mp_list_config_files(strcmp(optarg, "/") == 0 ? "" : optarg, stdout) < 0)
				return MP_EXIT_NOTHING;
			return put_stdout("");
		case OPT_CMDLINE:
			a.opts.cmdline = optarg;
			break;
		case OPT_MODULES_LOAD:
			a.modules_load = true;
			break;
		case OPT_NODEV:
			a.nodev_path = optarg;
			break;
		case 'd':
			a.opts.basedir = optarg;
			break;
		case 'S':
			a.opts.kver = optarg;
			break;
		case 'C':
			if (push(&mpconf, &nmpconf, optarg) < 0)
				return MP_EXIT_NOTHING;
			break;
		case 'j':
			if (parse_limit("jobs", MP_LIM_JOBS, optarg, &v) != 0)
				return MP_EXIT_USAGE;
			a.opts.jobs = (int)v;
			break;
		case OPT_WAVES:
			a.opts.waves = true;
			break;
		case OPT_ORDER:
			if (strcmp(optarg, "critical") != 0 && strcmp(optarg, "fifo") != 0)
				return bad_usage("--order: '%s' is not critical or fifo", optarg);
			a.opts.fifo = strcmp(optarg, "fifo") == 0;
			break;
		case OPT_POOL:
			if (strcmp(optarg, "adaptive") != 0 && strcmp(optarg, "fixed") != 0)
				return bad_usage("--pool: '%s' is not adaptive or fixed", optarg);
			a.opts.pool = strcmp(optarg, "adaptive") == 0 ? MP_POOL_ADAPTIVE : MP_POOL_FIXED;
			break;
		case OPT_PROFILE:
			a.opts.profile = optarg;
			break;
		case OPT_PROFILE_OUT:
			a.opts.profile_out = optarg;
			break;
		case 't':
			if (parse_limit("timeout", MP_LIM_TIMEOUT_S, optarg, &v) != 0)
				return MP_EXIT_USAGE;
			a.opts.timeout_ms = v * 1000u;
			break;
		case OPT_SETTLE:
			if (parse_limit("settle-ms", MP_LIM_SETTLE_MS, optarg, &v) != 0)
				return MP_EXIT_USAGE;
			a.opts.settle_ms = v;
			break;
		case 'n':
			a.opts.dry_run = true;
			break;
		case 'r':
			a.report_path = optarg;
			break;
		case OPT_KMSG:
			kmsg = true;
			break;
		case OPT_NO_KSTATS:
			a.opts.kstats = false;
			break;
		case OPT_ESTIMATE:
			a.opts.estimate = true;
			break;
		case 'q':
			lg.max_prio = MP_LOG_ERR;
			break;
		case 'v':
			lg.max_prio = lg.max_prio < MP_LOG_INFO ? MP_LOG_INFO : MP_LOG_DEBUG;
			break;
		case OPT_SYSFS:
			a.opts.sysfs = optarg;
			break;
		case OPT_NO_FORK:
			a.fork_guard = false;
			break;
		case OPT_HANDOVER:
			a.handover = true;
			break;
		case OPT_HOLD_DIR:
			a.hold_dir = optarg;
			break;
		case 'h':
			return put_usage();
		case 'V':
			return put_stdout("modpreload " MP_VERSION "\n");
		default:
			/* getopt's own message would quote the word raw */
			return bad_usage("'%s': an unknown option, or one without its argument",
					 argv[optind - 1]);
		}
	}
	for (i = optind; i < argc; i++)
		if (push(&names, &nnames, argv[i]) < 0)
			return MP_EXIT_NOTHING;
	if (nnames == 0 && nconfigs == 0 && !a.opts.coldplug && !a.default_configs && !a.modules_load &&
	    a.opts.cmdline && a.opts.cmdline[0] == '\0')
		return bad_usage("%s", "nothing to load: give modules, --config, --coldplug or a command line");

	if (kmsg) {
		int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);

		if (fd >= 0) {
			lg.fd = fd;
			lg.kmsg = true;
			a.opts.grouped = true;
		}
	}
	a.names = names;
	a.configs = configs;
	a.argv0 = argv[0];
	a.opts.modprobe_config = mpconf;
	a.log = log_line;
	a.log_data = &lg;
	if (a.opts.dry_run && a.report_path == NULL)
		a.report_path = "-";
	return mp_run(&a);
}
