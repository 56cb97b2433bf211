/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the library's files share with each other and with nobody else. */
#ifndef MP_INTERNAL_H
#define MP_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>

#include "modpreload.h"
#include "cmdline.h"

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(mp_freep)
#define _cleanup_close_ _cleanup_(mp_closep)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MP_STR_(x) #x
#define MP_STR(x) MP_STR_(x)

static inline void mp_freep(void *p) { free(*(void **)p); }
void mp_closep(int *fd);

/* Hand ownership on: the cleanup attribute then frees NULL. */
#define TAKE_PTR(p) ({ __typeof__(p) _p = (p); (p) = NULL; _p; })

#define MP_JOBS_MAX 64
#define MP_TIMEOUT_DEFAULT_MS 60000u
#define MP_SETTLE_DEFAULT_MS 200u

/* A string -> int map (open addressing); keys are copied. */
struct mp_strmap;
struct mp_strmap *mp_strmap_new(void);
void mp_strmap_free(struct mp_strmap *m);
int mp_strmap_get(const struct mp_strmap *m, const char *key, int *val);
int mp_strmap_put(struct mp_strmap *m, const char *key, int val);
static inline void mp_strmap_freep(struct mp_strmap **m) { mp_strmap_free(*m); }

struct mp_ctx {
	struct mp_options opts;
	char moddir[PATH_MAX];
	int moddir_fd;          /* O_PATH: modules are opened beneath it */
	char kmod_dir[PATH_MAX]; /* what libkmod was given for moddir (ctx.c) */
	int kmod_dir_fd;        /* the N of /proc/self/fd/N there, or -1 */
	char shadow[PATH_MAX];  /* moddir without bad indexes, while it exists */
	char kver[256];
	char sysfs[PATH_MAX];
	char compression[16];   /* /sys/module/compression: in-kernel decompressor */
	struct kmod_ctx *kmod;
	mp_log_fn log;
	void *log_data;

	struct mp_plan plan;
	struct mp_strmap *byname;   /* module name -> index in plan.mods */
	struct mp_strmap *lookups;  /* normalised alias -> index in resolved[] */
	struct mp_lookup *resolved;
	int nresolved, capresolved;
	struct mp_cmdline cmdline;

	int jobs;
	uint64_t t0;          /* CLOCK_MONOTONIC ns when the context was made */
	uint64_t deadline;    /* when loading stops (opts.deadline_ms); 0: never */
	uint64_t elapsed;     /* ns the schedule took */
	int uevent_fd;        /* netlink, open while coldplug listens; -1 otherwise */
	bool fatal;           /* nothing could be done: no index, no module dir */
	bool live_state;      /* sysfs describes the kernel we plan for */
	unsigned mark_epoch;  /* for mp_module.mark */
	struct mp_strmap *devices; /* devpaths coldplug has asked for */

	struct mp_kstats *kstats_before, *kstats_after;

	struct mp_profile *profile; /* the last boot's times, when usable */
	const char *profile_state;  /* "used", "ignored", "none" */
	char profile_path[PATH_MAX];

	/* modules.dep.bin, mapped by its check: libkmod drops a dependency
	 * whose file is gone without telling its caller (plan.c) */
	void *depbin;
	size_t depbin_len;
};

/* The cached answer to one alias: the modules it stands for. */
struct mp_lookup {
	int *mods;
	int nmods;
	bool blacklisted;
};

/* ctx.c */
char *mp_ctx_real_path(const struct mp_ctx *ctx, const char *path);

/* util.c */
uint64_t mp_now_ns(void);
const char *mp_load_error(int err);
char *mp_strdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int mp_normalize_name(const char *in, char *out, size_t outsz);
bool mp_name_is_safe(const char *name);
void mp_escape(const char *in, size_t len, char *out, size_t outsz);
int mp_read_file(const char *path, char *buf, size_t size, size_t *len);
int mp_read_fileat(int dirfd, const char *path, char *buf, size_t size, size_t *len);
int mp_read_file_alloc(const char *path, size_t max, char **out, size_t *len);
int mp_append(void *arrayp, int *n, int *cap, size_t elemsz);
void mp_warn(struct mp_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mp_logv(struct mp_ctx *ctx, int prio, const char *fmt, va_list ap);

/* plan.c: libkmod resolution into the graph, single-threaded */
int mp_plan_resolve(struct mp_ctx *ctx, const char *alias, enum mp_source src, bool explicit_name);
int mp_request(struct mp_ctx *ctx, const char *name_or_alias, enum mp_source src);
int mp_plan_note_missing(struct mp_plan *p, const char *name);
const char *mp_source_name(enum mp_source s);

struct mp_profile;

/* graph.c: plan structure, independent of libkmod */
int mp_graph_add(struct mp_plan *p, const char *name, int *idx);
int mp_graph_depend(struct mp_plan *p, int mod, int dep, bool soft);
int mp_graph_waves(struct mp_plan *p, struct mp_ctx *ctx);
int mp_graph_critical_path(const struct mp_plan *p, int *chain, int *len, uint64_t *ns);
int mp_graph_finish(struct mp_plan *p, int idx, int *ready, int *nready);
int mp_graph_priorities(struct mp_plan *p, const struct mp_profile *prof);
void mp_plan_free(struct mp_plan *p);
bool mp_state_done(enum mp_state s);
bool mp_module_no_device(const struct mp_plan *p, const struct mp_module *m);
bool mp_state_ok(enum mp_state s);

/* load.c: one module, in a worker. The job holds copies of the pointers
 * it needs (the plan may grow while it runs); the result goes back to the
 * scheduler, which alone writes the plan. */
struct mp_job {
	int idx;
	const char *name, *path, *options;
	uint64_t deadline; /* mp_now_ns() when the scheduler gives up on it */
	uint64_t prio, seq; /* the ready queue's order (sched.c) */
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
void mp_load(const struct mp_ctx *ctx, const struct mp_job *job, struct mp_load_result *res);
int mp_module_initstate(const struct mp_ctx *ctx, const char *name);
enum { MP_INITSTATE_NONE, MP_INITSTATE_LIVE, MP_INITSTATE_COMING,
       MP_INITSTATE_GOING, MP_INITSTATE_BUILTIN };

/* decompress.c */
enum mp_compression { MP_COMP_NONE, MP_COMP_ZSTD, MP_COMP_XZ, MP_COMP_GZIP };
enum mp_compression mp_compression_of(const char *path);
const char *mp_compression_name(enum mp_compression c);
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
int mp_decompress(enum mp_compression c, int fd, struct mp_budget *b, uint64_t deadline,
		  void **out, size_t *outlen);

/* sys.c: the only place that asks the kernel to load a module */
int mp_sys_finit_module(int fd, const char *params, int flags);
int mp_sys_init_module(const void *image, size_t len, const char *params);

/* uevent.c */
int mp_uevent_modalias(const char *buf, size_t len, char *out, size_t outsz);
int mp_uevent_action(const char *buf, size_t len, char *out, size_t outsz);
int mp_uevent_devpath(const char *buf, size_t len, char *out, size_t outsz);
int mp_uevent_listen(void);

/* coldplug.c */
int mp_coldplug_drain(struct mp_ctx *ctx);

/* index.c: depmod's .bin files, checked before libkmod trusts them */
int mp_index_check_buf(const void *buf, size_t len);
int mp_index_check(const char *path);
int mp_index_check_map(const char *path, void **map, size_t *len);
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

/* confparse.c: modules-load.d syntax */
typedef int (*mp_conf_cb)(void *data, const char *name, unsigned line);
int mp_conf_parse(const char *buf, size_t len, mp_conf_cb cb, void *data);

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

/* profile.c: the last boot's load times */
#define MP_PROFILE_PATH "/usr/lib/modpreload/profile" /* in the image */
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
int mp_profile_load(struct mp_ctx *ctx);
uint64_t mp_profile_expect_ns(const struct mp_profile *p, const struct mp_module *m, bool *known);
int mp_profile_write(struct mp_ctx *ctx, const char *path);
const char *mp_profile_out(const struct mp_ctx *ctx, const char *report, char *buf, size_t size);
struct mp_json;
void mp_profile_json(const struct mp_ctx *ctx, struct mp_json *j);
void mp_profile_summary(struct mp_ctx *ctx);

#endif
