// SPDX-License-Identifier: LGPL-2.1-or-later
/* The module directory and libkmod's view of it: found under the base
 * directory, its indexes checked before libkmod maps them (a bad one set
 * aside in a shadow directory), libkmod's messages through our log. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libkmod.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "ctx.h"

/* depmod's indexes libkmod maps; only modules.dep.bin is indispensable. */
const char *const mp_indexes[MP_NINDEXES] = {
	"modules.dep.bin", "modules.alias.bin", "modules.symbols.bin",
	"modules.builtin.bin", "modules.builtin.alias.bin",
};
/* libkmod reads modules.symbols.bin for "symbol:" names alone, which no
 * device asks for: its header is checked with the others (libkmod reads it
 * when it maps them), the rest of it before the first such lookup
 * (mp_moddir_symbols). It was a quarter of the bytes checked at every
 * start, on the booted system before udevd may start. */
#define SYMBOLS SYMBOLS_INDEX

static void kmod_log(void *data, int prio, const char *file, int line,
		     const char *fn, const char *fmt, va_list ap)
{
	struct mp_ctx *ctx = data;
	char text[512], shown[512];
	int n;

	(void)file;
	(void)line;
	(void)fn;
	n = vsnprintf(text, sizeof(text), fmt, ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(text))
		n = sizeof(text) - 1;
	while (n > 0 && text[n - 1] == '\n')
		n--;
	/* names in its messages come from files and requests */
	mp_escape(text, (size_t)n, shown, sizeof(shown));
	/* libkmod's errors are about lookups we report ourselves, better */
	mp_log(ctx, prio < MP_LOG_INFO ? MP_LOG_INFO : MP_LOG_DEBUG, "libkmod: %s", shown);
}

/* What libkmod wrote to the file fd while it had no log function. */
static void log_caught(struct mp_ctx *ctx, int fd)
{
	char buf[8192], shown[512];
	const char *p = buf, *nl;
	unsigned lines = 0;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return;
	buf[n] = '\0';
	for (; *p != '\0'; p = *nl ? nl + 1 : nl) {
		nl = strchrnul(p, '\n');
		/* a garbage file makes a line per line: enough to find it */
		if (++lines > 8) {
			mp_warn(ctx, "libkmod: more about modprobe.d left out");
			break;
		}
		mp_escape(p, (size_t)(nl - p), shown, sizeof(shown));
		mp_warn(ctx, "%s", shown);
	}
}

/*
 * libkmod parses modprobe.d inside kmod_new(), before a log function can
 * be set, and writes what it finds wrong to stderr as it is: a garbage
 * file sprays control bytes on the console. For that one call its stderr
 * is a memory file, and what it said goes through our log, escaped. No
 * other thread runs yet (the context is made before any worker).
 */
static struct kmod_ctx *kmod_new_logged(struct mp_ctx *ctx, const char *dir)
{
	int mem = memfd_create("modpreload-libkmod", MFD_CLOEXEC);
	int saved = mem >= 0 ? fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3) : -1;
	struct kmod_ctx *k;

	fflush(stderr);
	if (saved >= 0 && dup2(mem, STDERR_FILENO) < 0) {
		close(saved);
		saved = -1;
	}
	k = kmod_new(dir, ctx->opts.modprobe_config);
	if (saved >= 0) {
		fflush(stderr);
		(void)dup2(saved, STDERR_FILENO);
		close(saved);
		log_caught(ctx, mem);
	}
	if (mem >= 0)
		close(mem);
	return k;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The directory as the kernel sees it: libkmod gives absolute paths under
 * it, and load.c compares against it. */
static int set_moddir(struct mp_ctx *ctx, const char *path)
{
	char *abs;

	if (!is_dir(path))
		return -ENOENT;
	abs = realpath(path, NULL);
	if (abs == NULL)
		return -errno;
	snprintf(ctx->env.moddir, sizeof(ctx->env.moddir), "%s", abs);
	free(abs);
	return 0;
}

static int find_moddir(struct mp_ctx *ctx)
{
	char path[PATH_MAX];
	const char *base = ctx->opts.basedir ? ctx->opts.basedir : "";
	struct utsname u;

	if (ctx->opts.kver) {
		snprintf(ctx->env.kver, sizeof(ctx->env.kver), "%s", ctx->opts.kver);
	} else {
		if (uname(&u) < 0)
			return -errno;
		snprintf(ctx->env.kver, sizeof(ctx->env.kver), "%s", u.release);
	}
	/* Another kernel's tree (-S) says nothing about what this kernel has
	 * live, unless a sysfs was named on purpose. */
	ctx->env.live_state = ctx->opts.sysfs != NULL || uname(&u) < 0 ||
			  strcmp(u.release, ctx->env.kver) == 0;
	snprintf(path, sizeof(path), "%s/lib/modules/%s", base, ctx->env.kver);
	if (set_moddir(ctx, path) == 0)
		return 0;
	/* merged-/usr trees (trixie's kernel packages) have only usr/lib */
	snprintf(path, sizeof(path), "%s/usr/lib/modules/%s", base, ctx->env.kver);
	if (set_moddir(ctx, path) == 0)
		return 0;
	snprintf(ctx->env.moddir, sizeof(ctx->env.moddir), "%s/lib/modules/%s", base, ctx->env.kver);
	mp_log(ctx, MP_LOG_ERR, "no module directory for kernel %s: neither %s nor %s/usr/lib/modules/%s "
	       "exists (ENOENT)", ctx->env.kver, ctx->env.moddir, base, ctx->env.kver);
	return -ENOENT;
}

/* What mp_index_check()'s error says of the file: depmod mends the first
 * two; the last (out of memory, an I/O error) is no fault of the file. */
static const char *index_problem(int r)
{
	return r == -ENOENT ? "missing" : r == -EBADMSG || r == -EPROTO ? "corrupt" : "unreadable";
}

static bool index_rebuilt(int r)
{
	return r == -ENOENT || r == -EBADMSG || r == -EPROTO;
}

/* Every index is checked; a bad modules.dep.bin is the end, any other bad
 * index is left out of libkmod's view and its lookups find nothing. */
static int check_indexes(struct mp_ctx *ctx, size_t from, size_t end, unsigned *bad)
{
	size_t i;

	*bad = 0;
	for (i = from; i < end; i++) {
		char path[PATH_MAX + 64];
		struct mp_index_id *id = &ctx->now[i];
		struct stat st;
		int r;

		snprintf(path, sizeof(path), "%s/%s", ctx->env.moddir, mp_indexes[i]);
		*id = (struct mp_index_id){ .present = false };
		if (stat(path, &st) == 0)
			mp_index_id_of(&st, id);
		/* modules.builtin.alias.bin is recent and optional, and depmod
		 * leaves it empty when there is nothing to put in it */
		if (i == MP_NINDEXES - 1 && (!id->present || st.st_size == 0)) {
			*id = (struct mp_index_id){ .checked = true };
			continue;
		}
		/* as it was when the last boot's check of it passed (known.c):
		 * modules.dep.bin is mapped all the same */
		if (i != SYMBOLS && mp_known_index_same(ctx, i, id)) {
			r = i == 0 ? mp_index_map(path, &ctx->depbin, &ctx->depbin_len, false) : 0;
			ctx->result.indexes_known++;
		} else if (i == 0)
			r = mp_index_map(path, &ctx->depbin, &ctx->depbin_len, true);
		else if (i == SYMBOLS)
			r = mp_index_check_head(path);
		else
			r = mp_index_check(path);
		/* the symbols' is not walked here: never the same as checked */
		id->checked = r == 0 && i != SYMBOLS;
		if (r == 0)
			continue;
		/* set aside: libkmod reads an empty one in its place */
		if (i == SYMBOLS)
			ctx->symbols_state = 1;
		*bad |= 1u << i;
		if (i == 0) {
			mp_log(ctx, MP_LOG_ERR, "%s: %s (%s)%s%s", path, index_problem(r), mp_errno_name(-r),
			       index_rebuilt(r) ? ": run depmod " : "", index_rebuilt(r) ? ctx->env.kver : "");
			return r;
		}
		mp_warn(ctx, "%s: %s (%s): lookups through it will find nothing", path,
			index_problem(r), mp_errno_name(-r));
	}
	return 0;
}

int mp_moddir_symbols(struct mp_ctx *ctx)
{
	char path[PATH_MAX + 64];

	if (ctx->symbols_state != 0)
		return ctx->symbols_state < 0 ? ctx->symbols_state : 0;
	snprintf(path, sizeof(path), "%s/%s", ctx->env.moddir, mp_indexes[SYMBOLS]);
	ctx->symbols_state = mp_index_check(path);
	if (ctx->symbols_state == 0) {
		ctx->symbols_state = 1;
		return 0;
	}
	mp_warn(ctx, "%s: %s (%s): lookups through it will find nothing", path,
		index_problem(ctx->symbols_state), mp_errno_name(-ctx->symbols_state));
	return ctx->symbols_state;
}

/* What depmod writes for an index with nothing in it: lookups find nothing. */
static const unsigned char empty_index[12] = {
	0xB0, 0x07, 0xF4, 0x57, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x0C,
};

static int shadow_entry(int dfd, const char *moddir, const char *name, bool bad)
{
	char from[PATH_MAX * 2];
	_cleanup_close_ int fd = -1;

	if (!bad) {
		snprintf(from, sizeof(from), "%s/%s", moddir, name);
		return symlinkat(from, dfd, name) < 0 ? -errno : 0;
	}
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (fd < 0)
		return -errno;
	return write(fd, empty_index, sizeof(empty_index)) == sizeof(empty_index) ? 0 : -EIO;
}

void mp_moddir_remove_shadow(struct mp_ctx *ctx)
{
	struct dirent *de;
	DIR *dp;

	if (ctx->shadow[0] == '\0')
		return;
	dp = opendir(ctx->shadow);
	if (dp) {
		while ((de = readdir(dp)) != NULL)
			if (de->d_name[0] != '.')
				(void)unlinkat(dirfd(dp), de->d_name, 0);
		closedir(dp);
	}
	(void)rmdir(ctx->shadow);
	ctx->shadow[0] = '\0';
}

/*
 * libkmod reads a bad index anyway, and a truncated one can send it into
 * a loop. It gets a directory of its own instead: links to everything in
 * the module directory, and in place of each bad index an empty one, so
 * that it still maps every index at once and lookups through a bad one
 * find nothing.
 *
 * The directory must not outlive the few calls that need it: at boot it
 * is under /run, which moves on to the booted system, and a loader stuck
 * in an init() or dead of a signal never cleans up. So libkmod is given
 * it as /proc/self/fd/N; once the indexes are mapped, N is pointed at the
 * real module directory (where the links lead anyway: the paths libkmod
 * makes still resolve, and mp_moddir_real_path maps them back) and the
 * directory is removed before anything is loaded.
 */
static int make_shadow(struct mp_ctx *ctx, unsigned bad)
{
	char *dir = ctx->shadow;
	int *dfd = &ctx->kmod_dir_fd;
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : access("/run", W_OK) == 0 ? "/run" : "/tmp";
	struct dirent *de;
	DIR *dp;
	size_t i;
	int r = 0;

	snprintf(dir, sizeof(ctx->shadow), "%s/modpreload.XXXXXX", tmp);
	if (mkdtemp(dir) == NULL) {
		r = -errno;
		dir[0] = '\0';
		return r;
	}
	/* O_PATH: it serves as the *at() calls' directory and as /proc's link */
	*dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*dfd < 0)
		return -errno;
	/* every bad index, there or not: none may be read through a link */
	for (i = 0; i < MP_NINDEXES && r == 0; i++)
		if (bad & (1u << i))
			r = shadow_entry(*dfd, ctx->env.moddir, mp_indexes[i], true);
	dp = opendir(ctx->env.moddir);
	if (dp == NULL)
		return -errno;
	while (r == 0 && (de = readdir(dp)) != NULL) {
		bool is_bad = false;

		if (de->d_name[0] == '.')
			continue;
		for (i = 0; i < MP_NINDEXES; i++)
			if ((bad & (1u << i)) && strcmp(de->d_name, mp_indexes[i]) == 0)
				is_bad = true;
		if (!is_bad)
			r = shadow_entry(*dfd, ctx->env.moddir, de->d_name, false);
	}
	closedir(dp);
	snprintf(ctx->kmod_dir, sizeof(ctx->kmod_dir), "/proc/self/fd/%d", *dfd);
	/* without /proc, the directory itself: then it stays until the end */
	if (access(ctx->kmod_dir, X_OK) < 0) {
		snprintf(ctx->kmod_dir, sizeof(ctx->kmod_dir), "%s", dir);
		close(*dfd);
		*dfd = -1;
	}
	return r;
}

/* libkmod has mapped its indexes: the directory made for it can go. */
static void drop_shadow(struct mp_ctx *ctx)
{
	/* without /proc, or if N cannot be pointed elsewhere, libkmod's
	 * paths lead through it: it stays until the end */
	if (ctx->kmod_dir_fd >= 0 && dup3(ctx->env.moddir_fd, ctx->kmod_dir_fd, O_CLOEXEC) >= 0)
		mp_moddir_remove_shadow(ctx);
}

/* The module directory again by its path, in place of the one opened at
 * the start (after switch-root, that one's files are gone): the same fd
 * number, so a worker opening beneath it meanwhile sees one or the other. */
int mp_moddir_reopen(struct mp_ctx *ctx)
{
	int fd = open(ctx->env.moddir, O_PATH | O_DIRECTORY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (dup3(fd, ctx->env.moddir_fd, O_CLOEXEC) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* A path libkmod gave, under the module directory it knows. */
char *mp_moddir_real_path(const struct mp_ctx *ctx, const char *path)
{
	size_t n = strlen(ctx->kmod_dir);

	if (n > 0 && strcmp(ctx->kmod_dir, ctx->env.moddir) != 0 &&
	    strncmp(path, ctx->kmod_dir, n) == 0 && path[n] == '/')
		return mp_strdup_printf("%s%s", ctx->env.moddir, path + n);
	return strdup(path);
}

/* The module directory: found, opened, and its modules.dep.bin checked,
 * the one index nothing works without; the others are libkmod's. */
int mp_moddir_open(struct mp_ctx *ctx)
{
	unsigned bad;
	int r;

	r = find_moddir(ctx);
	if (r < 0)
		return r;
	ctx->env.moddir_fd = open(ctx->env.moddir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ctx->env.moddir_fd < 0) {
		r = -errno;
		mp_log(ctx, MP_LOG_ERR, "%s: %s", ctx->env.moddir, strerror(-r));
		return r;
	}
	mp_known_read(ctx);
	r = check_indexes(ctx, 0, 1, &bad);
	if (r < 0)
		return r;
	snprintf(ctx->kmod_dir, sizeof(ctx->kmod_dir), "%s", ctx->env.moddir);
	return 0;
}

/* libkmod, on the module directory; bad indexes (but modules.dep.bin,
 * checked before) are kept out of its view. */
int mp_moddir_kmod(struct mp_ctx *ctx)
{
	unsigned bad;
	int r;

	(void)check_indexes(ctx, 1, MP_NINDEXES, &bad);
	if (bad) {
		r = make_shadow(ctx, bad);
		if (r < 0) {
			mp_log(ctx, MP_LOG_ERR, "cannot set the bad indexes aside: %s", strerror(-r));
			return r == -ENOMEM ? -EIO : r;
		}
	}
	ctx->kmod = kmod_new_logged(ctx, ctx->kmod_dir);
	if (ctx->kmod == NULL) {
		mp_log(ctx, MP_LOG_ERR, "%s: libkmod could not start (out of memory or its configuration)",
		       ctx->env.moddir);
		return -ENOMEM;
	}
	kmod_set_log_priority(ctx->kmod, MP_LOG_DEBUG);
	kmod_set_log_fn(ctx->kmod, kmod_log, ctx);
	if (mp_known_config(ctx) < 0)
		return -ENOMEM;
	/* Without one of its indexes libkmod cannot map them all; it then
	 * opens the others one lookup at a time, and needs its directory. */
	if (kmod_load_resources(ctx->kmod) < 0)
		mp_warn(ctx, "%s: libkmod could not map the indexes; looking up without them",
			ctx->env.moddir);
	else if (bad)
		drop_shadow(ctx);
	return 0;
}
