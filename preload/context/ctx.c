// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Stage 4 of 8, context: what one run is given and finds, made once in one
 * thread before any worker starts: the options resolved into the
 * environment every later stage reads, the kernel command line, the module
 * directory and libkmod over checked indexes, and the log. It may call
 * base, parse and model; the stages after it get the part they need.
 */
/* The context's life, and its parts for the other stages: made once, in one
 * thread, from the options (env.c), the module directory and libkmod
 * (moddir.c); the log is log.c's. */
#include <errno.h>
#include <libkmod.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ctx.h"

int mp_ctx_new(const struct mp_options *opts, mp_log_fn log, void *log_data,
	       struct mp_ctx **out)
{
	struct mp_ctx *ctx = calloc(1, sizeof(*ctx));
	int r;

	*out = NULL;
	if (ctx == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	ctx->opts = *opts;
	ctx->log = log;
	ctx->log_data = log_data;
	ctx->coldplug.uevent_fd = -1;
	ctx->handover.procfd = -1;
	ctx->handover.gate_fd = -1;
	ctx->env.moddir_fd = -1;
	ctx->env.sysfs_fd = -1;
	ctx->kmod_dir_fd = -1;
	ctx->env.t0 = mp_now_ns();
	r = mp_env_resolve(ctx);
	if (r < 0)
		goto fail;
	/* before libkmod reads modprobe.d, where they are */
	if (!opts->dry_run)
		(void)mp_stale_sweep(ctx, opts->hold_dir ? opts->hold_dir : MP_HOLD_DIR);

	r = mp_moddir_open(ctx);
	if (r < 0)
		goto fatal;
	ctx->env.profile.state = "none";
	r = mp_moddir_kmod(ctx);
	if (r == -ENOMEM)
		goto fail;
	if (r < 0)
		goto fatal;
	*out = ctx;
	return 0;

fatal:
	mp_moddir_remove_shadow(ctx);
	ctx->result.fatal = true;
	*out = ctx;
	return r;
fail:
	/* no context for the caller to report through: say it here */
	mp_log_direct(log, log_data, MP_LOG_ERR, "cannot start: %s", strerror(-r));
	mp_ctx_free(ctx);
	return r;
}

void mp_ctx_free(struct mp_ctx *ctx)
{
	if (ctx == NULL)
		return;
	if (ctx->resolver)
		ctx->resolver_free(ctx->resolver);
	if (ctx->kmod)
		kmod_unref(ctx->kmod);
	mp_known_free(ctx->known);
	mp_moddir_remove_shadow(ctx);
	if (ctx->kmod_dir_fd >= 0)
		close(ctx->kmod_dir_fd);
	if (ctx->coldplug.uevent_fd >= 0)
		close(ctx->coldplug.uevent_fd);
	if (ctx->handover.procfd >= 0)
		close(ctx->handover.procfd);
	if (ctx->handover.gate_fd >= 0)
		close(ctx->handover.gate_fd);
	free(ctx->handover.early);
	free(ctx->handover.early_used);
	for (int i = 0; i < ctx->nkept; i++) {
		close(ctx->kept_fd[i]);
		free(ctx->kept_dir[i]);
	}
	mp_strmap_free(ctx->coldplug.devices);
	if (ctx->env.moddir_fd >= 0)
		close(ctx->env.moddir_fd);
	if (ctx->env.sysfs_fd >= 0)
		close(ctx->env.sysfs_fd);
	if (ctx->depbin)
		munmap(ctx->depbin, ctx->depbin_len);
	mp_graph_free(&ctx->plan);
	mp_cmdline_free(&ctx->cmdline);
	mp_cmdline_free(&ctx->kcmdline);
	free(ctx->result.kstats_before);
	free(ctx->result.kstats_after);
	mp_profile_free(ctx->env.profile.profile);
	for (int i = 0; i < ctx->result.nstale; i++)
		free(ctx->result.stale[i].name);
	free(ctx->result.stale);
	free(ctx);
}

struct kmod_ctx *mp_ctx_kmod(struct mp_ctx *ctx)
{
	return ctx->kmod;
}

/* The plan and the result, each twice: a stage that writes them holds the
 * context itself, one that only reads (the outcome, the report) may hold it
 * const and gets them const, so that no cast hides a write. */
struct mp_plan *mp_ctx_plan(struct mp_ctx *ctx)
{
	return &ctx->plan;
}

const struct mp_plan *mp_ctx_plan_const(const struct mp_ctx *ctx)
{
	return &ctx->plan;
}

const struct mp_options *mp_ctx_opts(const struct mp_ctx *ctx)
{
	return &ctx->opts;
}

const struct mp_env *mp_ctx_env(const struct mp_ctx *ctx)
{
	return &ctx->env;
}

const struct mp_cmdline *mp_ctx_cmdline(const struct mp_ctx *ctx)
{
	return &ctx->cmdline;
}

const struct mp_cmdline *mp_ctx_kcmdline(const struct mp_ctx *ctx)
{
	const char *f = ctx->opts.cmdline;

	return f && strcmp(f, "/proc/cmdline") == 0 ? &ctx->cmdline : &ctx->kcmdline;
}

/* The planner's state, made by the planner (mp_plan_start()) and freed
 * with the context: the context knows no more of it than how to free it. */
void mp_ctx_set_resolver(struct mp_ctx *ctx, struct mp_resolver *r, void (*free_fn)(struct mp_resolver *))
{
	ctx->resolver = r;
	ctx->resolver_free = free_fn;
}

/* The profile as the run uses it: the conductor loads it (profile_io.c);
 * for every other stage it is part of the env, read-only. */
struct mp_profile_use *mp_ctx_profile_use(struct mp_ctx *ctx)
{
	return &ctx->env.profile;
}

/* modules.dep.bin, mapped and checked (moddir.c) */
void mp_ctx_depbin(const struct mp_ctx *ctx, const void **buf, size_t *len)
{
	*buf = ctx->depbin;
	*len = ctx->depbin_len;
}

struct mp_resolver *mp_ctx_resolver(struct mp_ctx *ctx)
{
	return ctx->resolver;
}

struct mp_coldplug *mp_ctx_coldplug(struct mp_ctx *ctx)
{
	return &ctx->coldplug;
}

const struct mp_coldplug *mp_ctx_coldplug_const(const struct mp_ctx *ctx)
{
	return &ctx->coldplug;
}

/* the hand-over's state: handover.c and gate.c write it, the report reads it */
struct mp_handover *mp_ctx_handover(struct mp_ctx *ctx)
{
	return &ctx->handover;
}

const struct mp_handover *mp_ctx_handover_const(const struct mp_ctx *ctx)
{
	return &ctx->handover;
}

struct mp_result *mp_ctx_result(struct mp_ctx *ctx)
{
	return &ctx->result;
}

const struct mp_result *mp_ctx_result_const(const struct mp_ctx *ctx)
{
	return &ctx->result;
}
