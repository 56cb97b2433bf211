/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The context's layout, for its own files (context/) and nobody else: the
 * other stages get its parts through mp_ctx_*(). */
#ifndef MP_CTX_H
#define MP_CTX_H

#include "internal.h"

/* depmod's indexes libkmod maps (moddir.c); only the first is indispensable */
#define MP_NINDEXES 5
#define SYMBOLS_INDEX 2 /* modules.symbols.bin: checked before its first use */
extern const char *const mp_indexes[MP_NINDEXES];

struct mp_known;

/* the run's own output directories: holds, report, blacklist, profile, lookups */
#define MP_KEPT_DIRS 6

/* An index file as stat() saw it before its check (known.c) */
struct mp_index_id {
	bool checked;   /* its check passed (or it was the same as when one did) */
	bool present;   /* there and not empty (the optional one may be neither) */
	unsigned long long dev, ino;
	long long size;
	struct timespec mtime, ctime;
};

struct mp_ctx {
	struct mp_options opts;
	struct mp_env env;
	mp_log_fn log;
	void *log_data;
	struct mp_cmdline cmdline;
	struct mp_cmdline kcmdline; /* /proc/cmdline, when cmdline is another file */
	struct mp_plan plan;
	struct mp_resolver *resolver;   /* the planner's (plan.c), which set it */
	void (*resolver_free)(struct mp_resolver *);
	struct mp_coldplug coldplug;
	struct mp_handover handover;
	struct mp_result result;

	/* libkmod's view of the module directory (see make_shadow) */
	struct kmod_ctx *kmod;
	char kmod_dir[PATH_MAX];
	int kmod_dir_fd;        /* the N of /proc/self/fd/N there, or -1 */
	char shadow[PATH_MAX];  /* moddir without bad indexes, while it exists */
	/* modules.dep.bin, mapped by its check: libkmod drops a dependency
	 * whose file is gone without telling its caller (plan.c) */
	void *depbin;
	size_t depbin_len;
	/* modules.symbols.bin past its header: 0 not yet checked, 1 good,
	 * -errno bad (mp_moddir_symbols) */
	int symbols_state;
	/* what the last boot learned, and this run's indexes (known.c) */
	struct mp_known *known;
	struct mp_index_id now[MP_NINDEXES];
	/* the directories written into after a hand-over, open (mp_ctx_keep_dir) */
	int nkept;
	int kept_fd[MP_KEPT_DIRS];
	char *kept_dir[MP_KEPT_DIRS];
};

/* env.c: the options and the kernel command line, resolved into the env */
int mp_env_resolve(struct mp_ctx *ctx);

/* moddir.c: the module directory, its indexes checked, and libkmod on them */
int mp_moddir_open(struct mp_ctx *ctx);
int mp_moddir_kmod(struct mp_ctx *ctx);
void mp_moddir_remove_shadow(struct mp_ctx *ctx);

/* known.c: the last boot's index identities and lookups */
void mp_known_read(struct mp_ctx *ctx);
int mp_known_config(struct mp_ctx *ctx);
bool mp_known_index_same(struct mp_ctx *ctx, size_t i, const struct mp_index_id *now);
void mp_index_id_of(const struct stat *st, struct mp_index_id *id);
void mp_known_free(struct mp_known *k);

/* log.c: a line to the caller's log function, before there is a context */
void mp_log_direct(mp_log_fn log, void *data, int prio, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
