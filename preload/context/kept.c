// SPDX-License-Identifier: LGPL-2.1-or-later
/* The run's output directories, kept open from the hand-over on (ctx.c
 * closes them with the context). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctx.h"

/*
 * A run that hands over writes after its caller went on: its holds go, its
 * report, blacklist, profile and lookups are written, maybe while the
 * initramfs's /init switches to the root. /init moves /run into the new
 * root first (initramfs-tools: seconds before run-init chroots; dracut and
 * systemd: before switch-root), and until PID 1 is in the new root
 * (handover.c's rejoin) the path /run/... names an empty directory of the
 * initramfs's, about to be deleted: what was written there was lost, and
 * the holds stayed. So those directories are opened at the hand-over and
 * written through (mp_ctx_at): an open directory follows its mount
 * wherever it is moved. The directory is dir's first len bytes, made if
 * missing (one level, as the writers would). 0 or -errno (then its paths
 * are used as given).
 */
int mp_ctx_keep_dir(struct mp_ctx *ctx, const char *dir, size_t len)
{
	int i, fd;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	for (i = 0; i < ctx->nkept; i++)
		if (strlen(ctx->kept_dir[i]) == len && strncmp(ctx->kept_dir[i], dir, len) == 0)
			return 0;
	if (ctx->nkept == MP_KEPT_DIRS)
		return -ENOSPC;
	ctx->kept_dir[ctx->nkept] = strndup(dir, len);
	if (ctx->kept_dir[ctx->nkept] == NULL)
		return -ENOMEM;
	(void)mkdir(ctx->kept_dir[ctx->nkept], 0755); /* if it fails, the open below says why */
	fd = open(ctx->kept_dir[ctx->nkept], O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int r = -errno;

		free(ctx->kept_dir[ctx->nkept]);
		ctx->kept_dir[ctx->nkept] = NULL;
		return r;
	}
	ctx->kept_fd[ctx->nkept++] = fd;
	return 0;
}

/*
 * path's directory if kept, *name then its last component; else AT_FDCWD
 * and path itself. "a//b" is a's too. A kept directory that was deleted
 * (on a mount /init did not move, emptied with the initramfs) is not used:
 * the path, in the root there is by then, is.
 */
int mp_ctx_at(const struct mp_ctx *ctx, const char *path, const char **name)
{
	const char *slash = strrchr(path, '/'), *end = slash;
	struct stat st;
	int i;

	*name = path;
	if (slash == NULL)
		return AT_FDCWD;
	while (end > path && end[-1] == '/')
		end--;
	if (end == path)
		return AT_FDCWD;
	for (i = 0; i < ctx->nkept; i++)
		if (strlen(ctx->kept_dir[i]) == (size_t)(end - path) &&
		    strncmp(ctx->kept_dir[i], path, (size_t)(end - path)) == 0) {
			if (fstat(ctx->kept_fd[i], &st) == 0 && st.st_nlink == 0)
				return AT_FDCWD;
			*name = slash + 1;
			return ctx->kept_fd[i];
		}
	return AT_FDCWD;
}
