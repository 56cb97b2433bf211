/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the library's files share with each other and with nobody else, a
 * section a stage, in the pipeline's order (scripts/layers.sh). */
#ifndef MP_INTERNAL_H
#define MP_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "modpreload.h"
#include "model.h"
#include "cmdline.h"
#include "util.h"

struct kmod_ctx;
struct mp_ctx;

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(mp_freep)
#define _cleanup_close_ _cleanup_(mp_closep)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MP_STR_(x) #x
#define MP_STR(x) MP_STR_(x)

static inline void mp_freep(void *p) { free(*(void **)p); }

/* Hand ownership on: the cleanup attribute then frees NULL. */
#define TAKE_PTR(p) ({ __typeof__(p) _p = (p); (p) = NULL; _p; })

/* How a stage that does not know the context warns (graph.c, kstats.c):
 * mp_warn_cb() with the context as data. */
typedef void (*mp_warn_fn)(void *data, const char *msg);

/* ====== 1. base/: what every stage may use ====== */
/* A string -> int map (open addressing); keys are copied. */
struct mp_strmap;
struct mp_strmap *mp_strmap_new(void);
void mp_strmap_free(struct mp_strmap *m);
int mp_strmap_get(const struct mp_strmap *m, const char *key, int *val);
int mp_strmap_put(struct mp_strmap *m, const char *key, int val);
static inline void mp_strmap_freep(struct mp_strmap **m) { mp_strmap_free(*m); }

/* json.c */
struct mp_json {
	int fd;
	int depth;
	bool need_comma;
	int err;
	char buf[4096];
	size_t len;
};
void mp_json_init(struct mp_json *j, int fd);
int mp_json_finish(struct mp_json *j);
void mp_json_obj_begin(struct mp_json *j, const char *key);
void mp_json_obj_end(struct mp_json *j);
void mp_json_arr_begin(struct mp_json *j, const char *key);
void mp_json_arr_end(struct mp_json *j);
void mp_json_str(struct mp_json *j, const char *key, const char *val);
void mp_json_u64(struct mp_json *j, const char *key, uint64_t val);
void mp_json_i64(struct mp_json *j, const char *key, int64_t val);
void mp_json_ms(struct mp_json *j, const char *key, uint64_t ns);
void mp_json_bool(struct mp_json *j, const char *key, bool val);
void mp_json_null(struct mp_json *j, const char *key);

/* sys.c: the only place that asks the kernel to load a module */
int mp_sys_finit_module(int fd, const char *params, int flags);
int mp_sys_init_module(const void *image, size_t len, const char *params);
/* what a load call costs or waits for depends on the kernel's version:
 * "6.12.117-amd64" -> 6 * 1000 + 12, -EINVAL if KVER is not one */
int mp_kernel_version(const char *kver);

/* initstate.c */
enum { MP_INITSTATE_NONE, MP_INITSTATE_LIVE, MP_INITSTATE_COMING,
       MP_INITSTATE_GOING, MP_INITSTATE_BUILTIN };
int mp_initstate(int sysfs_fd, const char *name);

/* holder.c: who holds a module after the hand-over (handover.c), in each
 * hold file, and whether that holder is gone (context/stale.c) */
#define MP_HELD_PREFIX "modpreload-held-"
int mp_holder_path(char *buf, size_t size, const char *dir, const char *name);
#define MP_HOLD_RULE "79-modpreload-hold.rules"
int mp_holder_rule_path(char *buf, size_t size, const char *dir); /* udevhold.c's */
int mp_holder_line(char *buf, size_t size); /* "# holder: ...\n" for this process */
/* 1: the holder TEXT names is gone (or, with no holder line, no other
 * modpreload runs); 0: it may be alive; -errno: a holder line unread */
int mp_holder_gone(const char *text, int *pid);
/* the hold file at PATH is another live run's (pid in *pid): not ours */
int mp_holder_elsewhere(const char *path, int *pid);
void mp_boot_id(char *buf, size_t size); /* "" when there is none */
/* until no other modpreload of root's runs (--wait-runs): 0 or -ETIMEDOUT */
int mp_wait_runs(unsigned timeout_ms);

/* match.c: fnmatch(), '*' and '?' over ASCII without the C library's;
 * libkmod's calls in the static binary (--wrap=fnmatch) */
int mp_fnmatch(const char *pattern, const char *string, int flags);

/* ====== 2. parse/: readers of what comes from outside ====== */
/* confparse.c: modules-load.d syntax */
typedef int (*mp_conf_cb)(void *data, const char *name, unsigned line);
int mp_conf_parse(const char *buf, size_t len, mp_conf_cb cb, void *data);

/* aliases.c: depmod's modules.alias text, read in place; FN gets each
 * line's PATTERN whose NAME is one WANT maps (to IDX); the filter, made of
 * WANT's names, passes over most lines unread */
struct mp_alias_filter {
	uint64_t bits[16];
};
struct kmod_ctx;
int mp_aliases_map(struct kmod_ctx *kmod, const char *path, void **map, size_t *len);
void mp_alias_filter_add(struct mp_alias_filter *f, const char *name);
typedef int (*mp_alias_fn)(void *data, const char *alias, int idx);
int mp_aliases_each(const char *buf, size_t len, const struct mp_strmap *want,
		    const struct mp_alias_filter *f, mp_alias_fn fn, void *data);

/* uevent.c */
int mp_uevent_modalias(const char *buf, size_t len, char *out, size_t outsz);
bool mp_uevent_cpu_alias(const char *alias); /* cpu:, acpi:LNXCPU:, acpi:ACPI0007: */
bool mp_uevent_class_alias(const char *alias); /* input:, hid: */
int mp_uevent_action(const char *buf, size_t len, char *out, size_t outsz);
int mp_uevent_devpath(const char *buf, size_t len, char *out, size_t outsz);
int mp_uevent_listen(void);

/* index.c: depmod's .bin files, checked before libkmod trusts them */
int mp_index_check_buf(const void *buf, size_t len);
int mp_index_check(const char *path);
int mp_index_map(const char *path, void **map, size_t *len, bool check);
int mp_index_check_head(const char *path); /* magic, version, root: 12 bytes */
const char *mp_index_lookup(const void *buf, size_t len, const char *key);

/* kstats.c */
#define MP_KSTATS_MAX_FIELDS 32
#define MP_KSTATS_MAX_DUPS 256
struct mp_kstats_field { char label[32]; uint64_t value; };
struct mp_kstats_dup { char name[64]; uint64_t times; char reason[24]; };
struct mp_kstats {
	struct mp_kstats_field fields[MP_KSTATS_MAX_FIELDS];
	int nfields;
	struct mp_kstats_dup dups[MP_KSTATS_MAX_DUPS];
	int ndups;
};
int mp_kstats_parse(const char *buf, size_t len, struct mp_kstats *out);
int mp_kstats_get(const struct mp_kstats *s, const char *label, uint64_t *v);
bool mp_kstats_is_counter(const char *label);
int mp_kstats_snapshot(const char *sysfs, struct mp_kstats **out, mp_warn_fn warn, void *data);

/* profile.c: the last boot's load times */
#define MP_PROFILE_PATH "/usr/lib/modpreload/profile" /* in the image */
#define MP_RUN_DIR "/run/modpreload"              /* ours: reports, the profile */
#define MP_PROFILE_RUN_PATH MP_RUN_DIR "/profile"  /* written beside a report there */
#define MP_PROFILE_VERSION 1u
#define MP_PROFILE_MAX_BYTES (1u << 20)
#define MP_PROFILE_MAX_LINE 256
#define MP_PROFILE_MAX_MODULES 16384
#define MP_PROFILE_MAX_US 600000000u /* ten minutes: no init() takes longer */
/* the guess for a module the profile does not know (profile.c) */
#define MP_EXPECT_BASE_US 1000u
#define MP_EXPECT_US_PER_64K 1000u
struct mp_profile_entry {
	char *name;
	uint32_t us;
};
struct mp_profile {
	char kver[256];
	struct mp_profile_entry *entries;
	int n, cap;
	struct mp_strmap *byname; /* name -> index in entries */
	unsigned nbad;            /* lines skipped */
};
int mp_profile_parse(const char *buf, size_t len, struct mp_profile **out);
int mp_profile_get(const struct mp_profile *p, const char *name, uint32_t *us);
void mp_profile_free(struct mp_profile *p);
uint64_t mp_profile_expect_ns(const struct mp_profile *p, const struct mp_module *m, bool *known);

/* ====== 3. model/: the plan without a context ====== */
/* graph.c: plan structure, independent of libkmod and of the context.
 * What it changes on its own (a cycle broken) it says through warn. */
int mp_graph_add(struct mp_plan *p, const char *name, int *idx);
int mp_graph_depend(struct mp_plan *p, int mod, int dep, bool soft);
int mp_graph_waves(struct mp_plan *p, mp_warn_fn warn, void *data);
int mp_graph_critical_path(const struct mp_plan *p, int *chain, int *len, uint64_t *ns);
int mp_graph_finish(struct mp_plan *p, int idx, int *ready, int *nready);
int mp_graph_priorities(struct mp_plan *p, const struct mp_profile *prof);
void mp_graph_free(struct mp_plan *p);
bool mp_state_done(enum mp_state s);
const char *mp_state_name(enum mp_state s, bool dry_run);
const char *mp_source_name(enum mp_source s);
bool mp_state_ok(enum mp_state s);
bool mp_module_named(const struct mp_module *m);
/* only the root's file system asks for it (rootfs.c), or for what needs it */
bool mp_module_rootfs(const struct mp_module *m);

/* ====== 4. context/: made once, read by every later stage ====== */
/*
 * The context (laid out in context/ctx.h, for context/ alone) is made of
 * parts, each with one owner; the other stages get the part they need.
 */

/* What every stage, and every worker, may read; written only while the
 * context is made, before any worker starts. Each option the stages act
 * on is resolved here once (env.c), its default and the kernel command
 * line's value applied: no stage reads the options for them. */
struct mp_env {
	char moddir[PATH_MAX];
	int moddir_fd;          /* O_PATH: modules are opened beneath it */
	char kver[256];
	char sysfs[PATH_MAX];
	int sysfs_fd;           /* O_PATH: sysfs as it was, wherever /init moves it */
	bool live_state;        /* sysfs describes the kernel we plan for */
	char compression[16];   /* /sys/module/compression: in-kernel decompressor */
	unsigned timeout_ms;    /* per module */
	unsigned settle_ms;     /* coldplug: quiet time before a rescan */
	int jobs;
	bool adaptive;          /* the pool grows by the workers asleep in init() */
	bool waves;             /* strict barriers instead of dataflow */
	bool fifo;              /* ready modules in arrival order */
	bool dry_run;           /* plan, load nothing */
	bool grouped;           /* the summary: one line per kind of problem */
	uint64_t t0;            /* CLOCK_MONOTONIC ns when the context was made */
	uint64_t deadline;      /* when loading stops (opts.deadline_ms); 0: never */
	/* the last boot's load times, as this run uses them (profile_io.c) */
	struct mp_profile_use {
		struct mp_profile *profile; /* NULL unless usable */
		const char *state;          /* "used", "ignored", "none" */
		char path[PATH_MAX];        /* "" when none was asked for */
	} profile;
};

/* rootfs.c: what root= names, while its device is still to be found:
 * how 'p' the path want, 'u' the uuid, 'l' the label want; 0 none (or
 * found) */
struct mp_rootfs {
	char how;
	unsigned char uuid[16];
	const char *want;
};

/* coldplug.c's own: the devices asked for, and the uevent socket. */
struct mp_coldplug {
	int uevent_fd;          /* netlink, open while coldplug listens; -1 otherwise */
	struct mp_strmap *devices; /* devpaths coldplug has asked for */
	/* the first scan's cost (a part of planning's requests step), for
	 * the report: directories opened, and ns in the scan, of which ns
	 * in the lookups of what it found; not a rescan's */
	unsigned dirs;
	uint64_t scan_ns, lookup_ns;
	struct mp_rootfs rootfs; /* root='s device, until it is found */
};

/* What the run measured, beside the plan, for the report. */
struct mp_result {
	bool fatal;             /* nothing could be done: no index, no module dir */
	uint64_t elapsed;       /* ns the schedule took */
	/* ns from the context's start (env.t0) to the end of each step before
	 * the first load: the context (indexes, config, stale holds), the
	 * requests (lists, command line, the coldplug scan), the waves */
	uint64_t planned_ctx, planned_req, planned;
	/* lookups answered from the last boot's file (--lookups) and by
	 * libkmod; indexes not walked, as the same as when checked (known.c) */
	unsigned lookups_known, lookups_libkmod, indexes_known;
	struct mp_kstats *kstats_before, *kstats_after;
	/* what duplicates would cost the kernel if each reached it (dupcost.c),
	 * when estimated (opts.estimate) */
	bool estimated;
	uint64_t dupcost_bytes, dupcost_dups;
	/* the hand-over (handover.c): when the caller went on, ns since t0
	 * (0: it waited for the end), and the devices whose "add" was replayed
	 * for a held module that failed */
	uint64_t handover_at;
	unsigned replayed;
	/* holds of a holder that was gone, removed before the plan (stale.c) */
	struct mp_stale_hold {
		char *name;
		int pid; /* 0: a hold file without a holder line */
	} *stale;
	int nstale, capstale;
	bool stale_rule; /* and the udev rule of one (udevhold.c) */
	/* a unit's main process whose loader died after the hand-over
	 * (run.c): the signal it died of, -1 for none; 0: it did not */
	int loader_died;
};

/* plan.c's own: libkmod and what it has resolved so far. */
struct mp_resolver;

/* The hand-over's own (handover.c, gate.c), kept to the end of the run */
struct mp_handover {
	int procfd;          /* /proc as it was at the hand-over, or -1 */
	struct stat root_st; /* our root then, which was PID 1's */
	bool may_rejoin;     /* we were in PID 1's root: follow it */
	int gate_fd;         /* the names gate (gate.c), locked while held, or -1 */
	const char *gate;    /* ... its file, unlinked as it opens */
	bool udev_seen;      /* udev's queue was there: its coldplug began */
	const char **early;  /* held before the walk (early.c), the last boot's */
	bool *early_used;    /* ... and held for a module of the plan since */
	int nearly;
	bool let_go;         /* the caller went on before the walk (early.c) */
	bool rule, cpu_rule, rule_written; /* --hold-udev: udev loads no driver, or no CPU's; it is there */
	bool switched;       /* the root was switched since the hand-over */
};

/* --- the context (context/) --- */
int mp_ctx_new(const struct mp_options *opts, mp_log_fn log, void *log_data,
	       struct mp_ctx **out);
void mp_ctx_free(struct mp_ctx *ctx);
struct mp_plan *mp_ctx_plan(struct mp_ctx *ctx);
const struct mp_plan *mp_ctx_plan_const(const struct mp_ctx *ctx);
/* the options as the caller gave them: the stages read the env instead,
 * where each is resolved; only profile_io.c asks whether a path was given */
const struct mp_options *mp_ctx_opts(const struct mp_ctx *ctx);
const struct mp_env *mp_ctx_env(const struct mp_ctx *ctx);
const struct mp_cmdline *mp_ctx_cmdline(const struct mp_ctx *ctx);
/* /proc/cmdline, where libkmod takes options from, parsed as ours is */
const struct mp_cmdline *mp_ctx_kcmdline(const struct mp_ctx *ctx);
struct mp_resolver *mp_ctx_resolver(struct mp_ctx *ctx);
void mp_ctx_set_resolver(struct mp_ctx *ctx, struct mp_resolver *r, void (*free_fn)(struct mp_resolver *));
struct mp_profile_use *mp_ctx_profile_use(struct mp_ctx *ctx);
void mp_ctx_depbin(const struct mp_ctx *ctx, const void **buf, size_t *len);
struct kmod_ctx *mp_ctx_kmod(struct mp_ctx *ctx);
struct mp_coldplug *mp_ctx_coldplug(struct mp_ctx *ctx);
const struct mp_coldplug *mp_ctx_coldplug_const(const struct mp_ctx *ctx);
struct mp_handover *mp_ctx_handover(struct mp_ctx *ctx);
const struct mp_handover *mp_ctx_handover_const(const struct mp_ctx *ctx);
struct mp_result *mp_ctx_result(struct mp_ctx *ctx);
/* directories written into after a hand-over, kept open across a switch-root (kept.c) */
int mp_ctx_keep_dir(struct mp_ctx *ctx, const char *dir, size_t len);
int mp_ctx_at(const struct mp_ctx *ctx, const char *path, const char **name);
const struct mp_result *mp_ctx_result_const(const struct mp_ctx *ctx);
char *mp_moddir_real_path(const struct mp_ctx *ctx, const char *path);
int mp_moddir_reopen(struct mp_ctx *ctx);
/* known.c: what the last boot's lookups found (--lookups), and this run's
 * for the next (--lookups-out) */
const char *mp_known_lookup(const struct mp_ctx *ctx, const char *key);
void mp_known_learn(struct mp_ctx *ctx, const char *key, const char *const *names, int n);
bool mp_known_blacklisted(const struct mp_ctx *ctx, const char *name);
bool mp_known_nodev(const struct mp_ctx *ctx, const char *name); /* it found no device for any CPU */
bool mp_known_left(const struct mp_ctx *ctx, const char *name);  /* a name left to systemd-modules-load */
/* what the last boot's hand-over held (*names) and waited for (*waits):
 * how many held, -1 unknown */
int mp_known_held(const struct mp_ctx *ctx, const char *const **names, const char *const **waits, int *nwaits);
/* the kinds of alias that lead to a module in modules.alias */
#define MP_ALIAS_DEVICE 1 /* a device's (udev may ask) */
#define MP_ALIAS_KERNEL 2 /* the kernel's own request (fs-*, crypto-*, ...) */
int mp_known_alias_kinds(const struct mp_ctx *ctx, const struct stat *st, const char *name);
bool mp_known_alias_same(const struct mp_ctx *ctx, const struct stat *st);
void mp_known_learn_kinds(struct mp_ctx *ctx, const struct stat *st, const char *name, int kinds);
void mp_known_alias_used(struct mp_ctx *ctx, bool walked);
void mp_known_write(struct mp_ctx *ctx);
/* before a "symbol:" lookup: 0 when modules.symbols.bin is whole */
int mp_moddir_symbols(struct mp_ctx *ctx);
void mp_log(struct mp_ctx *ctx, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void mp_logv(struct mp_ctx *ctx, int prio, const char *fmt, va_list ap);
void mp_warn(struct mp_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mp_warn_cb(void *ctx, const char *msg);
/* stale.c: before libkmod reads modprobe.d, the hold files in dir whose
 * holder is gone are removed and kept in the result; how many */
int mp_stale_sweep(struct mp_ctx *ctx, const char *dir);

/* ====== 5. plan/: requests resolved into the plan ====== */
/* --- requests (request.c) --- */
int mp_request_config_file(struct mp_ctx *ctx, const char *path);
int mp_request_config_dirs(struct mp_ctx *ctx, const char *root);
int mp_request_modules_load(struct mp_ctx *ctx, const char *root);
int mp_request_cmdline(struct mp_ctx *ctx);

/* --- coldplug (coldplug.c) --- */
int mp_coldplug_scan(struct mp_ctx *ctx, enum mp_source src);
/* Every device under sysfs/devices with a MODALIAS: fn(dirfd, devpath,
 * alias, data); a non-zero return stops the walk and is returned. */
typedef int (*mp_device_fn)(int dirfd, const char *devpath, const char *alias, void *data);
int mp_coldplug_foreach(struct mp_ctx *ctx, mp_device_fn fn, void *data);
int mp_coldplug_drain(struct mp_ctx *ctx);

/* The cached answer to one alias: the modules it stands for. */
struct mp_lookup {
	int *mods;
	int nmods;
	bool blacklisted;
};

/* plan.c: libkmod resolution into the graph, single-threaded */
/* The planner's state in the context, from its modules.dep.bin: before the
 * first request. */
int mp_plan_start(struct mp_ctx *ctx);
/* Which names modprobe.d's blacklist and modprobe.blacklist= stop: those
 * of the loader the request's source stands in for (modpreload(8), SOURCES).
 * Never a dependency or a softdep of what is loaded, as with kmod. */
enum mp_blacklist {
	MP_BL_ALIASES, /* modprobe NAME: modules an alias leads to, not names */
	MP_BL_NAMES,   /* modprobe -b, systemd-modules-load, udev: names too */
};
int mp_plan_resolve(struct mp_ctx *ctx, const char *alias, enum mp_source src, bool explicit_name,
		    enum mp_blacklist bl);
int mp_request(struct mp_ctx *ctx, const char *name_or_alias, enum mp_source src, enum mp_blacklist bl);
/* lookup.c: the modules a name or an alias finds, before any blacklist */
struct kmod_module;
int mp_plan_lookup(struct mp_ctx *ctx, const char *key, const char *alias, struct kmod_module ***mods, int *n);
void mp_plan_lookup_free(struct kmod_module **mods, int n);
/* leave.c: what one device alone asks for, with all it needs, skipped
 * and marked to_udev, and what only names ask for, to_names
 * (--leave-single); how many */
int mp_plan_leave_single(struct mp_ctx *ctx);
/* rootfs.c: the root's file system module (--root-fs), from rootfstype=
 * or, once root='s device is there, its superblock (probe: again, as
 * devices appear; 1 when it was found) */
struct mp_fsid {
	const char *type;         /* "ext4", as the kernel's fs-TYPE names it */
	unsigned char uuid[16];
	char label[257];
};
int mp_rootfs_identify(int fd, struct mp_fsid *id);
int mp_rootfs_want(struct mp_rootfs *rf, const char *root);
bool mp_rootfs_match(const struct mp_rootfs *rf, const struct mp_fsid *id);
int mp_rootfs_plan(struct mp_ctx *ctx);
int mp_rootfs_probe(struct mp_ctx *ctx);
/* the files of the modules still to load (with_all: of every module) */
void mp_plan_files(struct mp_ctx *ctx, bool with_all);
/* modopts.c: modprobe.d's options for NAME (BASE, libkmod's, which ends
 * with those it read in /proc/cmdline), then the command line's; NULL: none */
char *mp_modopts_for(struct mp_ctx *ctx, const char *base, const char *name);

/* profile_io.c: the profile in a run, read when the context is made and
 * written after the loads */
int mp_profile_io_load(struct mp_ctx *ctx, struct mp_profile_use *use);
int mp_profile_io_write(struct mp_ctx *ctx, const char *path);
const char *mp_profile_io_out(const struct mp_ctx *ctx, const char *report, char *buf,
			      size_t size);
bool mp_profile_io_measured(const struct mp_module *m);

/* ====== 6. load/: loading the plan ====== */
/* decompress.c */
struct mp_sink;
struct mp_format {
	const char *suffix, *name, *how;
	int (*decode)(const void *in, size_t inlen, struct mp_sink *o, size_t *outlen);
	/* the decompressed size from the file's own header or index (dupcost.c) */
	int (*size)(int fd, off_t len, uint64_t *out);
};
const struct mp_format *mp_decompress_format(const char *path);
/* What all workers' decompressed images may hold at once, and so the
 * largest module that can be decompressed at all (EFBIG beyond it). */
#define MP_DECOMPRESS_MAX_MIB 256
#define MP_DECOMPRESS_MAX ((size_t)MP_DECOMPRESS_MAX_MIB << 20)
/* xz's decoder state, whose size the file's header chooses: presets up
 * to -7 need at most 17 MiB, the kernel's own build (dict=1MiB) 2 MiB. */
#define MP_XZ_MEMLIMIT (32u << 20)
struct mp_budget {
	pthread_mutex_t lock;
	pthread_cond_t freed;
	size_t limit, used;
};
void mp_budget_init(struct mp_budget *b, size_t limit);
void mp_budget_destroy(struct mp_budget *b);
void mp_budget_give(struct mp_budget *b, size_t n);
int mp_decompress(const struct mp_format *f, int fd, struct mp_budget *b, uint64_t deadline,
		  void **out, size_t *outlen);

/* load.c: one module, in a worker. The job holds copies of the pointers
 * it needs (the plan may grow while it runs); the result goes back to the
 * scheduler, which alone writes the plan. */
struct mp_job {
	int idx;
	const char *name, *path, *options;
	uint64_t deadline; /* mp_now_ns() when the scheduler gives up on it */
	uint64_t prio, seq; /* the ready queue's order (pool.c) */
	struct mp_budget *budget; /* for userspace decompression */
};
struct mp_load_result {
	int idx;
	enum mp_state state;
	int err;
	const char *how;
	int worker;
	bool read;        /* the file went to the kernel (or was decompressed) */
	uint64_t t_start, t_end;
};
void mp_load(const struct mp_env *env, const struct mp_job *job, struct mp_load_result *res);
int mp_open_beneath(const struct mp_env *env, const char *path);

/* --- scheduling and loading (sched.c, pool.c) --- */
/* Where the scheduler gets more work (run.c gives it). more() is asked on
 * every turn while fd is open (rescan false), and with rescan true once the
 * plan is done and settle_ms were quiet; NULL: never. It returns how many
 * modules joined the plan, their waves computed, or -errno. */
struct mp_feed {
	int fd;
	int (*more)(void *data, bool rescan);
	void *data;
	/* Asked, once the plan is whole and loads are left, whether to let the
	 * caller go: 1 it was, and the feed is closed from then on (udev owns
	 * new devices); 2 it was, the feed still ours; 0 not now; -1 never in
	 * this run. NULL: never. */
	int (*handover)(void *data);
	/* every turn after the hand-over, before and after the results that
	 * came in are applied (before: true closes the feed); may be NULL */
	bool (*before_results)(void *data);
	void (*after_results)(void *data);
	/* after the hand-over, what was not started yet waits until this file
	 * (udev's queue: its coldplug has begun) is there, or for the run's
	 * timeout (env.timeout_ms); NULL: it does not wait */
	const char *after;
};
int mp_sched_run(struct mp_ctx *ctx, const struct mp_feed *feed);

/* --- outcome (outcome.c): what the run came to, decided once --- */
enum mp_problem {
	MP_PB_NONE = -1, MP_PB_NODEV, MP_PB_FAILED, MP_PB_HUNG, MP_PB_SKIPPED,
	MP_PB_LEFT_OUT, MP_PB_MISSING, MP_PB_MAX,
};
struct mp_totals {
	unsigned by_state[MP_HUNG + 1];
	unsigned no_device;
	unsigned to_udev, to_names; /* of by_state[MP_SKIPPED] */
	uint64_t dup, dup_deps, bytes_read, bytes_not_read, bytes_not_read_deps;
	int nwaves;
};
bool mp_outcome_no_device(const struct mp_plan *p, const struct mp_module *m);
enum mp_problem mp_outcome_problem(const struct mp_plan *p, const struct mp_module *m);
void mp_outcome_totals(const struct mp_ctx *ctx, struct mp_totals *t);
int mp_outcome_exit_status(const struct mp_ctx *ctx, int run_err, int report_err);

/* --- the hand-over (handover.c) --- */
/* Whether every module not final yet may be held from udev (device aliases
 * only: the kernel's requests and a modprobe by name pass a blacklist by),
 * or left to the kernel, which joins others' loads to ours (dir: holds). */
bool mp_handover_possible(struct mp_ctx *ctx, const char *dir, bool soon);
void mp_handover_mark_urgent(struct mp_ctx *ctx); /* what must be final, first */
void mp_handover_prefetch(const struct mp_ctx *ctx); /* modules.alias, read soon */
/* holdable.c: which modules may be held (mp_module ho.holdable, ho.udev_alias) */
void mp_handover_mark_holdable(struct mp_ctx *ctx);
int mp_handover_udev_queue(const char *dir, char *path, size_t size); /* udevd's queue file, beside dir */
bool mp_handover_device_alias(const char *alias); /* "bus:...", not fs-*, devname: */
/* Holds the holdable: a "blacklist NAME" file each in dir, and the process
 * made ready to outlive its caller. 1: done; 0: not (nothing left held). */
int mp_handover_hold(struct mp_ctx *ctx, const char *dir, char *argv0);
/* NAME's hold in dir: 1 written, 0 another live run's, -errno; and gone */
int mp_handover_hold_one(struct mp_ctx *ctx, const char *dir, const char *name);
void mp_handover_unhold_one(struct mp_ctx *ctx, const char *dir, const char *name);
void mp_handover_begin(struct mp_ctx *ctx, char *argv0); /* ready to outlive the caller */
/* early.c: before the walk, what the last boot's hand-over held is held
 * again (--lookups): 1, and the caller may go on; 0: not (nothing held) */
int mp_handover_early(struct mp_ctx *ctx, const char *dir, char *argv0);
/* after switch-root, into PID 1's root and the module directory, once (after a hand-over) */
void mp_handover_rejoin(struct mp_ctx *ctx);
/* After a hand-over, the end waits for udev's queue to empty (bounded); then
 * the holds go, and devices of a held module that failed are replayed. */
void mp_handover_settle(struct mp_ctx *ctx, const char *dir);
void mp_handover_release(struct mp_ctx *ctx, const char *dir);
/* replay.c: NAMES' devices (NULL: any owed a module) replayed: how many */
unsigned mp_handover_replay(struct mp_ctx *ctx, const char *const *names, int n);
/* a gone holder's holds (stale.c): their devices replayed, not loaded */
void mp_handover_replay_stale(struct mp_ctx *ctx);
/* udevhold.c (--hold-udev): udev's kmod off every device, or every CPU; 0, -errno (said) */
int mp_udevhold_write(struct mp_ctx *ctx, const char *dir);
void mp_udevhold_remove(struct mp_ctx *ctx, const char *dir);
/* what the hand-over did with M, for the report: held, or joined */
static inline bool mp_handover_held(const struct mp_module *m) { return m->ho.held; }
static inline bool mp_handover_joined(const struct mp_module *m) { return m->ho.joined; }

/* --- the names gate (gate.c): systemd-modules-load waits behind it ---
 * Locks PATH (made if need be) while a module asked for by name is not
 * final, so that a hand-over need not wait for those: 0, or -errno (not
 * held: it waits for them). Early: not for names the last run left. */
int mp_gate_take(struct mp_ctx *ctx, const char *path, bool early);
bool mp_gate_held(const struct mp_ctx *ctx);
/* Opens the gate (its file goes) once no module asked for by name is left
 * to load, or (end) at the end of the run, whatever is left. */
void mp_gate_check(struct mp_ctx *ctx, bool end);
/* The waiting side (--wait-names): 0 once PATH is not locked or is not
 * there, -ETIMEDOUT after timeout_ms, -errno. No context. */
int mp_gate_wait(const char *path, unsigned timeout_ms);
/* READY=1 to $NOTIFY_SOCKET: 1 sent, 0 none to send to, -errno. */
int mp_notify_ready(const char *status);

/* ====== 7. report/: the outcome rendered ====== */
/* --- drivers that found no device for any CPU (nodev.c), from the outcome --- */
int mp_nodev_write(struct mp_ctx *ctx, const char *path);
int mp_nodev_append(int dirfd, const char *path, const char *lines, size_t len);

/* --- report (report.c): renders the outcome --- */
int mp_report_json(struct mp_ctx *ctx, int fd);
void mp_report_summary(struct mp_ctx *ctx);

/* dupcost.c: what the kernel allocates for a duplicate it refuses */
struct mp_dupcost {
	uint64_t file;   /* the file's size: what finit_module() reads */
	uint64_t image;  /* the ELF image: the decompressed size */
	uint64_t layout; /* module memory, where the kernel gets that far (< 6.4) */
	uint64_t bytes;  /* all of it, for one refused load */
};
int mp_dupcost_image_size(int fd, const struct mp_format *f, uint64_t *out);
int mp_dupcost_layout(const void *image, size_t len, uint64_t *out);
int mp_dupcost_file(int fd, const struct mp_format *f, int kernel, const char *kcomp,
		    struct mp_budget *budget, struct mp_dupcost *out);
int mp_dupcost_plan(struct mp_ctx *ctx, uint64_t *total, uint64_t *dups);
const char *mp_dupcost_model(const struct mp_ctx *ctx); /* "file and decompressed copy (6.4+)", ... */

#endif
