/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The context's layout, for its own files (context/) and nobody else: the
 * other stages get its parts through mp_ctx_*(). */
#ifndef MP_CTX_H
#define MP_CTX_H

#include "internal.h"

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
};

/* env.c: the options and the kernel command line, resolved into the env */
int mp_env_resolve(struct mp_ctx *ctx);

/* moddir.c: the module directory, its indexes checked, and libkmod on them */
int mp_moddir_open(struct mp_ctx *ctx);
int mp_moddir_kmod(struct mp_ctx *ctx);
void mp_moddir_remove_shadow(struct mp_ctx *ctx);

/* log.c: a line to the caller's log function, before there is a context */
void mp_log_direct(mp_log_fn log, void *data, int prio, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
