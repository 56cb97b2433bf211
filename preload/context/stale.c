// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The holds of a holder that is gone (base/holder.c), removed when the
 * context is made, before libkmod reads modprobe.d: kept, a file of a
 * killed holder would keep udev off its module for the rest of the boot,
 * and this run would count it as the administrator's blacklist and leave
 * the module (and the file) alone too. Removed, the module is planned and
 * loaded as any other; the report lists it (stale_holds), and the log says
 * so once. A hold whose holder may be alive is another run's, as before.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctx.h"

static int keep(struct mp_ctx *ctx, char *copy, int pid)
{
	struct mp_result *res = &ctx->result;

	if (mp_append(&res->stale, &res->nstale, &res->capstale, sizeof(*res->stale)) < 0) {
		free(copy);
		return -ENOMEM;
	}
	res->stale[res->nstale - 1] = (struct mp_stale_hold){ copy, pid };
	return 0;
}

/* one file of dir: removed and kept when its holder is gone */
static void sweep_one(struct mp_ctx *ctx, int dfd, const char *dir, const char *file)
{
	const char *name = file + strlen(MP_HELD_PREFIX);
	size_t len = strlen(name);
	_cleanup_free_ char *copy = len > 5 ? strndup(name, len - 5) : NULL;
	char buf[1024];
	int pid;

	/* only what handover.c writes: a module's name, ".conf" */
	if (copy == NULL || strcmp(name + len - 5, ".conf") != 0 || !mp_name_is_safe(copy) ||
	    mp_read_fileat(dfd, file, buf, sizeof(buf), NULL) < 0 || mp_holder_gone(buf, &pid) != 1)
		return;
	if (unlinkat(dfd, file, 0) < 0 && errno != ENOENT)
		mp_warn(ctx, "%s/%s: its holder is gone, but it cannot be removed: %s", dir, file,
			mp_errno_name(errno));
	else if (keep(ctx, copy, pid) == 0)
		copy = NULL;
}

/* the udev rule of --hold-udev (load/udevhold.c): gone with its holder,
 * udev would load no driver by MODALIAS in that initramfs */
static void sweep_rule(struct mp_ctx *ctx, const char *dir)
{
	char path[PATH_MAX], buf[1024];
	int pid;

	if (mp_holder_rule_path(path, sizeof(path), dir) < 0 || mp_read_file(path, buf, sizeof(buf), NULL) < 0 ||
	    mp_holder_gone(buf, &pid) != 1)
		return;
	if (unlink(path) < 0 && errno != ENOENT) {
		mp_warn(ctx, "%s: its holder is gone, but it cannot be removed: %s", path, mp_errno_name(errno));
		return;
	}
	ctx->result.stale_rule = true;
	mp_log(ctx, MP_LOG_NOTICE, "the loader that kept udev from loading drivers is gone (pid %d): %s removed",
	       pid, path);
}

int mp_stale_sweep(struct mp_ctx *ctx, const char *dir)
{
	const struct mp_result *res = &ctx->result;
	DIR *d = opendir(dir);
	struct dirent *e;
	char line[512];
	size_t n = 0;
	int i;

	sweep_rule(ctx, dir);
	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, MP_HELD_PREFIX, strlen(MP_HELD_PREFIX)) == 0)
			sweep_one(ctx, dirfd(d), dir, e->d_name);
	closedir(d);
	line[0] = '\0';
	for (i = 0; i < res->nstale && n < sizeof(line); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s (pid %d)", i ? ", " : "",
				      res->stale[i].name, res->stale[i].pid);
	if (res->nstale > 0)
		mp_log(ctx, MP_LOG_NOTICE, "the loader that held %s from udev is gone: %s removed, as if "
		       "never held", line, res->nstale == 1 ? "its hold" : "their holds");
	return res->nstale;
}
