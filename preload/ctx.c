// SPDX-License-Identifier: LGPL-2.1-or-later
/* The context: options, the module directory, libkmod, the kernel's
 * abilities, the command line. Made once, in one thread. */
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

#include "internal.h"

/* depmod's indexes libkmod maps; only modules.dep.bin is indispensable. */
static const char *const indexes[] = {
	"modules.dep.bin", "modules.alias.bin", "modules.symbols.bin",
	"modules.builtin.bin", "modules.builtin.alias.bin",
};

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
	snprintf(ctx->moddir, sizeof(ctx->moddir), "%s", abs);
	free(abs);
	return 0;
}

static int find_moddir(struct mp_ctx *ctx)
{
	char path[PATH_MAX];
	const char *base = ctx->opts.basedir ? ctx->opts.basedir : "";
	struct utsname u;

	if (ctx->opts.kver) {
		snprintf(ctx->kver, sizeof(ctx->kver), "%s", ctx->opts.kver);
	} else {
		if (uname(&u) < 0)
			return -errno;
		snprintf(ctx->kver, sizeof(ctx->kver), "%s", u.release);
	}
	/* Another kernel's tree (-S) says nothing about what this kernel has
	 * live, unless a sysfs was named on purpose. */
	ctx->live_state = ctx->opts.sysfs != NULL || uname(&u) < 0 ||
			  strcmp(u.release, ctx->kver) == 0;
	snprintf(path, sizeof(path), "%s/lib/modules/%s", base, ctx->kver);
	if (set_moddir(ctx, path) == 0)
		return 0;
	/* merged-/usr trees (trixie's kernel packages) have only usr/lib */
	snprintf(path, sizeof(path), "%s/usr/lib/modules/%s", base, ctx->kver);
	if (set_moddir(ctx, path) == 0)
		return 0;
	snprintf(ctx->moddir, sizeof(ctx->moddir), "%s/lib/modules/%s", base, ctx->kver);
	mp_log(ctx, MP_LOG_ERR, "no module directory for kernel %s: neither %s nor %s/usr/lib/modules/%s "
	       "exists (ENOENT)", ctx->kver, ctx->moddir, base, ctx->kver);
	return -ENOENT;
}

/* Every index is checked; a bad modules.dep.bin is the end, any other bad
 * index is left out of libkmod's view and its lookups find nothing. */
static int check_indexes(struct mp_ctx *ctx, unsigned *bad)
{
	size_t i;

	*bad = 0;
	for (i = 0; i < ARRAY_SIZE(indexes); i++) {
		char path[PATH_MAX + 64];
		struct stat st;
		int r;

		snprintf(path, sizeof(path), "%s/%s", ctx->moddir, indexes[i]);
		/* modules.builtin.alias.bin is recent and optional, and depmod
		 * leaves it empty when there is nothing to put in it */
		if (i == ARRAY_SIZE(indexes) - 1 && (stat(path, &st) < 0 || st.st_size == 0))
			continue;
		r = i == 0 ? mp_index_check_map(path, &ctx->depbin, &ctx->depbin_len)
			   : mp_index_check(path);
		if (r == 0)
			continue;
		*bad |= 1u << i;
		if (i == 0) {
			mp_log(ctx, MP_LOG_ERR, "%s: %s (%s): run depmod %s", path,
			       r == -ENOENT ? "missing" : "corrupt", mp_errno_name(-r), ctx->kver);
			return r;
		}
		mp_warn(ctx, "%s: %s (%s): lookups through it will find nothing", path,
			r == -ENOENT ? "missing" : "corrupt", mp_errno_name(-r));
	}
	return 0;
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

static void remove_shadow(struct mp_ctx *ctx)
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
 * makes still resolve, and mp_ctx_real_path maps them back) and the
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
	for (i = 0; i < ARRAY_SIZE(indexes) && r == 0; i++)
		if (bad & (1u << i))
			r = shadow_entry(*dfd, ctx->moddir, indexes[i], true);
	dp = opendir(ctx->moddir);
	if (dp == NULL)
		return -errno;
	while (r == 0 && (de = readdir(dp)) != NULL) {
		bool is_bad = false;

		if (de->d_name[0] == '.')
			continue;
		for (i = 0; i < ARRAY_SIZE(indexes); i++)
			if ((bad & (1u << i)) && strcmp(de->d_name, indexes[i]) == 0)
				is_bad = true;
		if (!is_bad)
			r = shadow_entry(*dfd, ctx->moddir, de->d_name, false);
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
	if (ctx->kmod_dir_fd >= 0 && dup3(ctx->moddir_fd, ctx->kmod_dir_fd, O_CLOEXEC) >= 0)
		remove_shadow(ctx);
}

/* A path libkmod gave, under the module directory it knows. */
char *mp_ctx_real_path(const struct mp_ctx *ctx, const char *path)
{
	size_t n = strlen(ctx->kmod_dir);

	if (n > 0 && strcmp(ctx->kmod_dir, ctx->moddir) != 0 &&
	    strncmp(path, ctx->kmod_dir, n) == 0 && path[n] == '/')
		return mp_strdup_printf("%s%s", ctx->moddir, path + n);
	return strdup(path);
}

static void read_compression(struct mp_ctx *ctx)
{
	char path[PATH_MAX + 32];
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/module/compression", ctx->sysfs);
	if (mp_read_file(path, ctx->compression, sizeof(ctx->compression), &len) < 0)
		len = 0;
	while (len > 0 && (ctx->compression[len - 1] == '\n' || ctx->compression[len - 1] == ' '))
		len--;
	ctx->compression[len] = '\0';
}

static int read_cmdline(struct mp_ctx *ctx)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r, i;

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

	/* Loads serialise on the kernel's module locks well before this: more
	 * threads than this only cost memory on a 448-CPU machine. */
	if (n < 1)
		n = 1;
	return n > 16 ? 16 : (int)n;
}

int mp_ctx_new(const struct mp_options *opts, mp_log_fn log, void *log_data,
	       struct mp_ctx **out)
{
	struct mp_ctx *ctx = calloc(1, sizeof(*ctx));
	unsigned bad;
	int r;

	*out = NULL;
	if (ctx == NULL)
		return -ENOMEM;
	ctx->opts = *opts;
	ctx->log = log;
	ctx->log_data = log_data;
	ctx->uevent_fd = -1;
	ctx->moddir_fd = -1;
	ctx->kmod_dir_fd = -1;
	ctx->t0 = mp_now_ns();
	snprintf(ctx->sysfs, sizeof(ctx->sysfs), "%s", opts->sysfs ? opts->sysfs : "/sys");
	ctx->byname = mp_strmap_new();
	ctx->lookups = mp_strmap_new();
	if (ctx->byname == NULL || ctx->lookups == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	r = read_cmdline(ctx);
	if (r < 0)
		goto fail;

	ctx->jobs = opts->jobs > 0 ? opts->jobs : ctx->cmdline.jobs > 0 ? ctx->cmdline.jobs : default_jobs();
	if (ctx->jobs > MP_JOBS_MAX)
		ctx->jobs = MP_JOBS_MAX;
	if (ctx->opts.timeout_ms == 0)
		ctx->opts.timeout_ms = ctx->cmdline.timeout_s ? ctx->cmdline.timeout_s * 1000u
							      : MP_TIMEOUT_DEFAULT_MS;
	/* Loading stops a little before the caller's bound, so that the
	 * report and the status still reach it in time (run.c). */
	if (opts->deadline_ms)
		ctx->deadline = ctx->t0 + (uint64_t)(opts->deadline_ms -
			(opts->deadline_ms / 4 < 500 ? opts->deadline_ms / 4 : 500)) * 1000000u;
	if (ctx->opts.settle_ms == 0)
		ctx->opts.settle_ms = MP_SETTLE_DEFAULT_MS;
	read_compression(ctx);

	r = find_moddir(ctx);
	if (r < 0)
		goto fatal;
	ctx->moddir_fd = open(ctx->moddir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ctx->moddir_fd < 0) {
		r = -errno;
		mp_log(ctx, MP_LOG_ERR, "%s: %s", ctx->moddir, strerror(-r));
		goto fatal;
	}
	r = check_indexes(ctx, &bad);
	if (r < 0)
		goto fatal;
	snprintf(ctx->kmod_dir, sizeof(ctx->kmod_dir), "%s", ctx->moddir);
	if (bad) {
		r = make_shadow(ctx, bad);
		if (r < 0) {
			mp_log(ctx, MP_LOG_ERR, "cannot set the bad indexes aside: %s", strerror(-r));
			goto fatal;
		}
	}
	ctx->kmod = kmod_new_logged(ctx, ctx->kmod_dir);
	if (ctx->kmod == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	kmod_set_log_priority(ctx->kmod, MP_LOG_DEBUG);
	kmod_set_log_fn(ctx->kmod, kmod_log, ctx);
	/* Without one of its indexes libkmod cannot map them all; it then
	 * opens the others one lookup at a time, and needs its directory. */
	if (kmod_load_resources(ctx->kmod) < 0)
		mp_warn(ctx, "%s: libkmod could not map the indexes; looking up without them",
			ctx->moddir);
	else if (bad)
		drop_shadow(ctx);
	*out = ctx;
	return 0;

fatal:
	remove_shadow(ctx);
	ctx->fatal = true;
	*out = ctx;
	return r;
fail:
	mp_ctx_free(ctx);
	return r;
}

void mp_ctx_free(struct mp_ctx *ctx)
{
	int i;

	if (ctx == NULL)
		return;
	if (ctx->kmod)
		kmod_unref(ctx->kmod);
	remove_shadow(ctx);
	if (ctx->kmod_dir_fd >= 0)
		close(ctx->kmod_dir_fd);
	if (ctx->uevent_fd >= 0)
		close(ctx->uevent_fd);
	if (ctx->moddir_fd >= 0)
		close(ctx->moddir_fd);
	if (ctx->depbin)
		munmap(ctx->depbin, ctx->depbin_len);
	mp_plan_free(&ctx->plan);
	mp_strmap_free(ctx->byname);
	mp_strmap_free(ctx->lookups);
	for (i = 0; i < ctx->nresolved; i++)
		free(ctx->resolved[i].mods);
	free(ctx->resolved);
	mp_cmdline_free(&ctx->cmdline);
	free(ctx->kstats_before);
	free(ctx->kstats_after);
	mp_profile_free(ctx->profile);
	free(ctx);
}

struct mp_plan *mp_ctx_plan(struct mp_ctx *ctx)
{
	return &ctx->plan;
}

const char *mp_ctx_moddir(const struct mp_ctx *ctx)
{
	return ctx->moddir;
}

const char *mp_ctx_kver(const struct mp_ctx *ctx)
{
	return ctx->kver;
}
