/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * modpreload: load every kernel module early boot will ask for, exactly
 * once, as soon as what it depends on is live.
 *
 * What a caller needs: the options, the arguments of one run, mp_run()
 * and its exit statuses, and the log levels its log function is called
 * with. The library never prints: it calls the log function the caller
 * installs. How the pipeline works inside is in internal.h.
 */
#ifndef MODPRELOAD_H
#define MODPRELOAD_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

/* The version is the VERSION file's, which the Makefile passes as -D. */
#ifndef MP_VERSION
#error "MP_VERSION is not defined: build with make, which reads it from VERSION"
#endif

enum mp_log_prio { MP_LOG_ERR = 3, MP_LOG_WARNING = 4, MP_LOG_NOTICE = 5,
		   MP_LOG_INFO = 6, MP_LOG_DEBUG = 7 };

typedef void (*mp_log_fn)(void *data, int prio, const char *fmt, va_list ap);

/* The numeric options' bounds and defaults (limits.c), for every face. */
enum { MP_LIM_JOBS, MP_LIM_TIMEOUT_S, MP_LIM_SETTLE_MS, MP_LIM_MAX };
struct mp_limit {
	unsigned min, max, def;
	const char *what; /* "a number of ms (%u-%u)": min, max */
};
extern const struct mp_limit mp_limits[MP_LIM_MAX];

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
	bool fifo;               /* ready modules in arrival order, not by
				    the longest chain they start */
	enum mp_pool {           /* how many loads at once: */
		MP_POOL_AUTO,    /* adaptive, unless a job count is given
				    (jobs, or rd.modpreload.jobs=): fixed */
		MP_POOL_FIXED,   /* jobs workers, whatever they do */
		MP_POOL_ADAPTIVE /* jobs, and one more for each worker asleep
				    in an init() (pool.c) */
	} pool;
	const char *profile;     /* NULL: MP_PROFILE_PATH if there; "": none */
	const char *profile_out; /* NULL: "profile" beside the report; "": none */
	const char *lookups;     /* the last boot's index identities and lookups
				    (known.c); NULL or "": none */
	const char *lookups_out; /* where this run's go; NULL or "": nowhere */
	bool dry_run;
	bool coldplug;
	bool kstats;             /* read /sys/kernel/debug/modules/stats */
	bool estimate;           /* what the duplicates would cost the kernel
				    (dupcost.c): each module asked for twice is
				    opened again; always with dry_run */
	bool grouped;            /* the summary says one line per kind of problem,
				    not one per module: /dev/kmsg drops a writer's
				    records past 10 in 5 s */
	const char *hold_dir;    /* where held modules are blacklisted (handover.c),
				    and the holds of a holder that is gone are
				    removed (stale.c); NULL: MP_HOLD_DIR */
	bool hold_udev;          /* udev loads no device's driver while the run
				    does: a rule beside hold_dir (udevhold.c) */
};

/* --- the whole pipeline (run.c) --- */
struct mp_run_args {
	struct mp_options opts;
	const char *const *names;   /* modules/aliases from the caller */
	bool use_blacklist;         /* the blacklist stops names too, as
				       modprobe -b's (else aliases only) */
	const char *const *configs; /* modules-load.d style files */
	bool default_configs;       /* /etc/modpreload.d, /usr/lib/modpreload.d */
	bool modules_load;          /* modules-load.d and modules_load=, as
				       systemd-modules-load reads them */
	const char *nodev_path;     /* append "blacklist NAME" there (nodev.c) */
	const char *report_path;
	bool fork_guard;            /* run in a child so a hung init() cannot hold us */
	bool handover;              /* with fork_guard: return once the plan is
				       whole, a child loading the rest (handover.c) */
	bool handover_soon;         /* and sooner: what the hand-over waits for
				       first, a kernel alias joined before 6.5 */
	bool handover_early;        /* and before the plan, from --lookups (early.c) */
	bool leave_single;          /* leave to udev what one device alone asks
				       for (leave.c): the booted system */
	bool root_fs;               /* plan the root's file system module
				       (rootfs.c): the initramfs */
	bool release_stale;         /* only remove the holds of a holder that is
				       gone and replay their devices' add */
	const char *names_gate;     /* with handover_soon: locked until the names
				       are final (gate.c) */
	const char *wait_names;     /* only wait until that gate is open */
	bool wait_runs;             /* only wait until no other run of root's is left */
	char *argv0;                /* made '@...' in an initrd: systemd spares it */
	mp_log_fn log;
	void *log_data;
};
int mp_run(const struct mp_run_args *args);
/* The modpreload.d lists a run reads under ROOT ("": /), each path on a
 * line to F, less those a name hides and masks (not a regular file). */
int mp_list_config_files(const char *root, FILE *f);

#define MP_HOLD_DIR "/run/modprobe.d"

/* Exit statuses, shared by the CLI and /init. */
enum {
	MP_EXIT_OK = 0,
	MP_EXIT_SOME_FAILED = 1,
	MP_EXIT_USAGE = 2,
	MP_EXIT_NOTHING = 3,
	MP_EXIT_OUTPUT = 4, /* the report could not be written; wins over 0 and 1 */
};

#endif
