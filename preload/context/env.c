// SPDX-License-Identifier: LGPL-2.1-or-later
/* The options, the kernel command line's and the caller's, resolved once
 * into the environment every stage reads, with the defaults and bounds of
 * limits.c; and the kernel's own decompressor, from sysfs. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctx.h"

static void read_compression(struct mp_ctx *ctx)
{
	char path[PATH_MAX + 32];
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/module/compression", ctx->env.sysfs);
	if (mp_read_file(path, ctx->env.compression, sizeof(ctx->env.compression), &len) < 0)
		len = 0;
	while (len > 0 && (ctx->env.compression[len - 1] == '\n' || ctx->env.compression[len - 1] == ' '))
		len--;
	ctx->env.compression[len] = '\0';
}

static int read_cmdline(struct mp_ctx *ctx)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r, i;

	/* what libkmod reads for options, to tell them apart (plan.c) */
	if ((ctx->opts.cmdline == NULL || strcmp(ctx->opts.cmdline, "/proc/cmdline") != 0) &&
	    mp_read_file_alloc("/proc/cmdline", 1u << 20, &buf, &len) == 0) {
		r = mp_cmdline_parse(buf, &ctx->kcmdline);
		free(buf);
		buf = NULL;
		if (r < 0)
			return r;
	}
	if (ctx->opts.cmdline == NULL || ctx->opts.cmdline[0] == '\0')
		return 0;
	/* whole: a word cut at a buffer's end would be another module name */
	r = mp_read_file_alloc(ctx->opts.cmdline, 1u << 20, &buf, &len);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		mp_warn(ctx, "%s: cannot read the kernel command line: %s",
			ctx->opts.cmdline, mp_errno_name(-r));
		return 0;
	}
	r = mp_cmdline_parse(buf, &ctx->cmdline);
	if (r < 0)
		return r;
	for (i = 0; i < ctx->cmdline.nbad; i++)
		mp_warn(ctx, "kernel command line: bad value for %s, ignored", ctx->cmdline.bad[i]);
	return 0;
}

static int default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		n = 1;
	return n > mp_limits[MP_LIM_JOBS].def ? (int)mp_limits[MP_LIM_JOBS].def : (int)n;
}

/* Called once, as the context is made, before anything reads the env: the
 * kernel command line's values count where the caller gave none. */
int mp_env_resolve(struct mp_ctx *ctx)
{
	const struct mp_options *opts = &ctx->opts;
	int r;

	snprintf(ctx->env.sysfs, sizeof(ctx->env.sysfs), "%s", opts->sysfs ? opts->sysfs : "/sys");
	/* read beneath this fd: after a hand-over the holder may be reading
	 * while /init has moved /sys into the new root (kept.c) */
	ctx->env.sysfs_fd = open(ctx->env.sysfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	r = read_cmdline(ctx);
	if (r < 0)
		return r;

	ctx->env.jobs = opts->jobs > 0 ? opts->jobs : ctx->cmdline.jobs > 0 ? ctx->cmdline.jobs : default_jobs();
	/* a count someone chose is a cap; the CPUs' count is only a start */
	ctx->env.adaptive = opts->pool == MP_POOL_ADAPTIVE ||
			    (opts->pool == MP_POOL_AUTO && opts->jobs <= 0 && ctx->cmdline.jobs <= 0);
	if (ctx->env.jobs > (int)mp_limits[MP_LIM_JOBS].max)
		ctx->env.jobs = (int)mp_limits[MP_LIM_JOBS].max;
	ctx->env.timeout_ms = opts->timeout_ms ? opts->timeout_ms :
			      (ctx->cmdline.timeout_s ? ctx->cmdline.timeout_s :
			       mp_limits[MP_LIM_TIMEOUT_S].def) * 1000u;
	/* Loading stops a little before the caller's bound, so that the
	 * report and the status still reach it in time (run.c). */
	if (opts->deadline_ms)
		ctx->env.deadline = ctx->env.t0 + (uint64_t)(opts->deadline_ms -
			(opts->deadline_ms / 4 < 500 ? opts->deadline_ms / 4 : 500)) * 1000000u;
	ctx->env.settle_ms = opts->settle_ms ? opts->settle_ms : mp_limits[MP_LIM_SETTLE_MS].def;
	ctx->env.waves = opts->waves;
	ctx->env.fifo = opts->fifo;
	ctx->env.dry_run = opts->dry_run;
	ctx->env.grouped = opts->grouped;
	read_compression(ctx);
	return 0;
}
