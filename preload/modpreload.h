/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * modpreload: load every kernel module early boot will ask for, exactly
 * once, as soon as what it depends on is live.
 *
 * The work is a pipeline, and the types below follow it:
 *   requests -> plan (a DAG, resolved once with libkmod) -> schedule
 *   (a worker pool over the DAG) -> load (one syscall per module) -> report.
 *
 * Everything hangs off one struct mp_ctx, passed explicitly. Library calls
 * return 0 or -errno; a module that fails to load is a result recorded in
 * the plan, not an error of the call. The library never prints: it calls
 * the log function the caller installs.
 */
#ifndef MODPRELOAD_H
#define MODPRELOAD_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define MP_VERSION "0.1.0"

struct kmod_ctx;
struct mp_ctx;

/* Where a request came from; each has a counter in the report. */
enum mp_source {
	MP_SRC_ARGUMENT,
	MP_SRC_CONFIG,
	MP_SRC_CMDLINE,
	MP_SRC_COLDPLUG,
	MP_SRC_UEVENT, /* devices that appeared while we were loading */
	MP_SRC_MAX,
};

enum mp_state {
	MP_PENDING,  /* waiting for its dependencies */
	MP_QUEUED,   /* ready, waiting for a worker */
	MP_RUNNING,  /* a worker is in the syscall */
	MP_LOADED,   /* we loaded it */
	MP_LIVE,     /* it was already live (or someone else loaded it) */
	MP_BUILTIN,  /* built into the kernel: nothing to load */
	MP_FAILED,   /* the kernel or the file refused it: see err */
	MP_SKIPPED,  /* not attempted: see why_skipped */
	MP_HUNG,     /* its init() did not return within the timeout */
};

enum mp_log_prio { MP_LOG_ERR = 3, MP_LOG_WARNING = 4, MP_LOG_NOTICE = 5,
		   MP_LOG_INFO = 6, MP_LOG_DEBUG = 7 };

typedef void (*mp_log_fn)(void *data, int prio, const char *fmt, va_list ap);

/* An edge: this module must wait for dep. A soft edge (softdep) only
 * orders: its failure never fails the module. */
struct mp_edge {
	int dep;
	bool soft;
};

struct mp_module {
	char *name;      /* normalised: '-' is '_' */
	char *path;      /* absolute; NULL when builtin */
	char *options;   /* from modprobe.d and the kernel command line */
	char *why;       /* why it is in the plan: "coldplug", "dependency of x" */
	char *skip_why;  /* for MP_SKIPPED */
	char *fail_why;  /* for MP_FAILED before any syscall: what the index or
			    the file system said */
	off_t size;      /* file size on disk */
	unsigned requests; /* how many requests asked for it, directly or as a dependency */
	unsigned direct;   /* how many asked for it by its name or an alias of it */
	unsigned direct_cpu; /* of those, how many were a CPU's modalias
				(mp_nodev_cpu_alias) */
	unsigned sources;  /* 1 << enum mp_source, for every request that did */

	struct mp_edge *deps;
	int ndeps;
	int *users;      /* reverse edges: modules that wait for this one */
	int nusers;

	int wave;        /* 0 for modules without dependencies */
	enum mp_state state;
	int err;         /* positive errno for MP_FAILED */
	const char *how; /* "finit", "finit+compressed", "init (zstd)" */

	/* scheduler bookkeeping */
	bool excluded;   /* left out on purpose (module_blacklist=, install
			    command): skipped, but not a failure */
	int waiting;     /* dependencies not yet finished */
	int worker;
	bool read;       /* its file was read and handed to the kernel */
	unsigned mark;   /* graph walks */
	uint64_t t_start, t_end; /* ns since the run started */
};

struct mp_kstats; /* kstats.c */

struct mp_plan {
	struct mp_module *mods;
	int nmods;
	int cap;

	unsigned req_total;
	unsigned req_by_source[MP_SRC_MAX];
	unsigned req_unmatched;   /* aliases nothing matches (normal for coldplug) */
	unsigned req_blacklisted;
	unsigned req_refused;     /* malformed names */
	unsigned req_missing;     /* named modules that do not exist */

	char **missing;           /* the names of req_missing */
	int nmissing;
	char **warnings;
	int nwarnings;
};

struct mp_options {
	const char *basedir;     /* -d: root under which lib/modules/KVER is */
	const char *kver;        /* -S */
	const char *sysfs;       /* default "/sys" */
	const char *cmdline;     /* default "/proc/cmdline"; NULL or "" to ignore */
	const char *const *modprobe_config; /* NULL: libkmod's defaults */
	int jobs;                /* 0: number of CPUs, capped */
	unsigned timeout_ms;     /* per module; 0: default 60 s */
	unsigned settle_ms;      /* coldplug: quiet time before we stop listening */
	unsigned deadline_ms;    /* 0, or mp_run() returns within this: loads still
				    running near its end are given up on as hung,
				    what has not started is skipped */
	bool waves;              /* strict barriers instead of dataflow */
	bool dry_run;
	bool coldplug;
	bool kstats;             /* read /sys/kernel/debug/modules/stats */
	bool grouped;            /* the summary says one line per kind of problem,
				    not one per module: /dev/kmsg drops a writer's
				    records past 10 in 5 s */
};

/* --- context (ctx.c) --- */
int mp_ctx_new(const struct mp_options *opts, mp_log_fn log, void *log_data,
	       struct mp_ctx **out);
void mp_ctx_free(struct mp_ctx *ctx);
struct mp_plan *mp_ctx_plan(struct mp_ctx *ctx);
const char *mp_ctx_moddir(const struct mp_ctx *ctx);
const char *mp_ctx_kver(const struct mp_ctx *ctx);
void mp_log(struct mp_ctx *ctx, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* --- requests (request.c) --- */
int mp_request(struct mp_ctx *ctx, const char *name_or_alias, enum mp_source src);
int mp_request_config_file(struct mp_ctx *ctx, const char *path);
int mp_request_config_dirs(struct mp_ctx *ctx, const char *root);
int mp_request_modules_load(struct mp_ctx *ctx, const char *root);
int mp_request_cmdline(struct mp_ctx *ctx);

/* --- coldplug (coldplug.c) --- */
int mp_coldplug_scan(struct mp_ctx *ctx, enum mp_source src);

/* --- scheduling and loading (sched.c) --- */
int mp_sched_run(struct mp_ctx *ctx);

/* --- kernel statistics (kstats.c) --- */
int mp_kstats_snapshot(struct mp_ctx *ctx, bool after);

/* --- drivers that found no device for any CPU (nodev.c) --- */
#define MP_NODEV_PATH "/run/modprobe.d/modpreload-nodev.conf"
bool mp_nodev_cpu_alias(const char *alias);
bool mp_nodev_blacklistable(const struct mp_plan *p, const struct mp_module *m);
int mp_nodev_write(struct mp_ctx *ctx, const char *path);

/* --- report (report.c) --- */
int mp_report_json(struct mp_ctx *ctx, int fd);
void mp_report_summary(struct mp_ctx *ctx);
int mp_exit_status(const struct mp_ctx *ctx);

/* --- the whole pipeline (run.c) --- */
struct mp_run_args {
	struct mp_options opts;
	const char *const *names;   /* modules/aliases from the caller */
	const char *const *configs; /* modules-load.d style files */
	bool default_configs;       /* /etc/modpreload.d, /usr/lib/modpreload.d */
	bool modules_load;          /* modules-load.d and modules_load=, as
				       systemd-modules-load reads them */
	const char *nodev_path;     /* append "blacklist NAME" there (nodev.c) */
	const char *report_path;
	bool fork_guard;            /* run in a child so a hung init() cannot hold us */
	mp_log_fn log;
	void *log_data;
};
int mp_run(const struct mp_run_args *args);

/* Exit statuses, shared by the CLI and /init. */
enum {
	MP_EXIT_OK = 0,
	MP_EXIT_SOME_FAILED = 1,
	MP_EXIT_USAGE = 2,
	MP_EXIT_NOTHING = 3,
	MP_EXIT_OUTPUT = 4, /* the report could not be written; wins over 0 and 1 */
};

const char *mp_state_name(enum mp_state s);
const char *mp_errno_name(int err);

#endif
