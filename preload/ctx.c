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

struct mp_ctx {
	struct mp_options opts;
	struct mp_env env;
	mp_log_fn log;
	void *log_data;
	struct mp_cmdline cmdline;
	struct mp_cmdline kcmdline; /* /proc/cmdline, when cmdline is another file */
	struct mp_plan plan;
	struct mp_resolver *resolver;
	struct mp_coldplug coldplug;
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
};

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
		struct stat st;
		int r;

		snprintf(path, sizeof(path), "%s/%s", ctx->env.moddir, indexes[i]);
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
			mp_log(ctx, MP_LOG_ERR, "%s: %s (%s)%s%s", path, index_problem(r), mp_errno_name(-r),
			       index_rebuilt(r) ? ": run depmod " : "", index_rebuilt(r) ? ctx->env.kver : "");
			return r;
		}
		mp_warn(ctx, "%s: %s (%s): lookups through it will find nothing", path,
			index_problem(r), mp_errno_name(-r));
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
			r = shadow_entry(*dfd, ctx->env.moddir, indexes[i], true);
	dp = opendir(ctx->env.moddir);
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
		remove_shadow(ctx);
}

/* The module directory again by its path, in place of the one opened at
 * the start (after switch-root, that one's files are gone): the same fd
 * number, so a worker opening beneath it meanwhile sees one or the other. */
int mp_ctx_reopen_moddir(struct mp_ctx *ctx)
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
char *mp_ctx_real_path(const struct mp_ctx *ctx, const char *path)
{
	size_t n = strlen(ctx->kmod_dir);

	if (n > 0 && strcmp(ctx->kmod_dir, ctx->env.moddir) != 0 &&
	    strncmp(path, ctx->kmod_dir, n) == 0 && path[n] == '/')
		return mp_strdup_printf("%s%s", ctx->env.moddir, path + n);
	return strdup(path);
}

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

/* libkmod, on the module directory; bad indexes (but modules.dep.bin,
 * checked before) are kept out of its view. */
static int open_kmod(struct mp_ctx *ctx)
{
	unsigned bad;
	int r;

	(void)check_indexes(ctx, 1, ARRAY_SIZE(indexes), &bad);
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
	/* Without one of its indexes libkmod cannot map them all; it then
	 * opens the others one lookup at a time, and needs its directory. */
	if (kmod_load_resources(ctx->kmod) < 0)
		mp_warn(ctx, "%s: libkmod could not map the indexes; looking up without them",
			ctx->env.moddir);
	else if (bad)
		drop_shadow(ctx);
	return 0;
}

struct kmod_ctx *mp_ctx_kmod(struct mp_ctx *ctx)
{
	return ctx->kmod;
}

__attribute__((format(printf, 4, 5)))
static void log_direct(mp_log_fn log, void *data, int prio, const char *fmt, ...)
{
	va_list ap;

	if (log == NULL)
		return;
	va_start(ap, fmt);
	log(data, prio, fmt, ap);
	va_end(ap);
}

int mp_ctx_new(const struct mp_options *opts, mp_log_fn log, void *log_data,
	       struct mp_ctx **out)
{
	struct mp_ctx *ctx = calloc(1, sizeof(*ctx));
	unsigned bad;
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
	ctx->env.moddir_fd = -1;
	ctx->kmod_dir_fd = -1;
	ctx->env.t0 = mp_now_ns();
	snprintf(ctx->env.sysfs, sizeof(ctx->env.sysfs), "%s", opts->sysfs ? opts->sysfs : "/sys");
	r = read_cmdline(ctx);
	if (r < 0)
		goto fail;

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
	if (ctx->opts.settle_ms == 0)
		ctx->opts.settle_ms = mp_limits[MP_LIM_SETTLE_MS].def;
	read_compression(ctx);

	r = find_moddir(ctx);
	if (r < 0)
		goto fatal;
	ctx->env.moddir_fd = open(ctx->env.moddir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ctx->env.moddir_fd < 0) {
		r = -errno;
		mp_log(ctx, MP_LOG_ERR, "%s: %s", ctx->env.moddir, strerror(-r));
		goto fatal;
	}
	/* modules.dep.bin, the one index nothing works without; the others
	 * are libkmod's */
	r = check_indexes(ctx, 0, 1, &bad);
	if (r < 0)
		goto fatal;
	snprintf(ctx->kmod_dir, sizeof(ctx->kmod_dir), "%s", ctx->env.moddir);
	r = mp_plan_resolver_new(ctx->depbin, ctx->depbin_len, &ctx->resolver);
	if (r < 0)
		goto fail;
	/* part of the env: every stage may read it, nobody changes it. Not
	 * when rd.modpreload=0: that run loads nothing to order. */
	if (!ctx->cmdline.disabled) {
		r = mp_profile_io_load(ctx, &ctx->env.profile);
		if (r < 0)
			goto fail;
	} else {
		ctx->env.profile.state = "none";
	}
	r = open_kmod(ctx);
	if (r == -ENOMEM)
		goto fail;
	if (r < 0)
		goto fatal;
	*out = ctx;
	return 0;

fatal:
	remove_shadow(ctx);
	ctx->result.fatal = true;
	*out = ctx;
	return r;
fail:
	/* no context for the caller to report through: say it here */
	log_direct(log, log_data, MP_LOG_ERR, "cannot start: %s", strerror(-r));
	mp_ctx_free(ctx);
	return r;
}

void mp_ctx_free(struct mp_ctx *ctx)
{
	if (ctx == NULL)
		return;
	mp_plan_resolver_free(ctx->resolver);
	if (ctx->kmod)
		kmod_unref(ctx->kmod);
	remove_shadow(ctx);
	if (ctx->kmod_dir_fd >= 0)
		close(ctx->kmod_dir_fd);
	if (ctx->coldplug.uevent_fd >= 0)
		close(ctx->coldplug.uevent_fd);
	mp_strmap_free(ctx->coldplug.devices);
	if (ctx->env.moddir_fd >= 0)
		close(ctx->env.moddir_fd);
	if (ctx->depbin)
		munmap(ctx->depbin, ctx->depbin_len);
	mp_graph_free(&ctx->plan);
	mp_cmdline_free(&ctx->cmdline);
	mp_cmdline_free(&ctx->kcmdline);
	free(ctx->result.kstats_before);
	free(ctx->result.kstats_after);
	mp_profile_free(ctx->env.profile.profile);
	free(ctx);
}

/* Like strchr(): a const context's plan is the caller's to write or not. */
struct mp_plan *mp_ctx_plan(const struct mp_ctx *ctx)
{
	return (struct mp_plan *)&ctx->plan;
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

struct mp_resolver *mp_ctx_resolver(struct mp_ctx *ctx)
{
	return ctx->resolver;
}

struct mp_coldplug *mp_ctx_coldplug(struct mp_ctx *ctx)
{
	return &ctx->coldplug;
}

struct mp_result *mp_ctx_result(const struct mp_ctx *ctx)
{
	return (struct mp_result *)&ctx->result;
}

/* Every line the library logs quotes input somewhere (a name, an alias,
 * a path, an option): its control bytes go out escaped, whatever the
 * caller's log function does with the line. */
void mp_logv(struct mp_ctx *ctx, int prio, const char *fmt, va_list ap)
{
	char text[1024], shown[1024];

	if (ctx->log == NULL)
		return;
	vsnprintf(text, sizeof(text), fmt, ap);
	mp_escape_ctl(text, shown, sizeof(shown));
	log_direct(ctx->log, ctx->log_data, prio, "%s", shown);
}

void mp_log(struct mp_ctx *ctx, int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mp_logv(ctx, prio, fmt, ap);
	va_end(ap);
}

/* A warning is logged and kept for the report. */
void mp_warn(struct mp_ctx *ctx, const char *fmt, ...)
{
	struct mp_plan *p = &ctx->plan;
	va_list ap;
	char *s = NULL;
	int cap = p->nwarnings;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (s == NULL)
		return;
	mp_log(ctx, MP_LOG_WARNING, "%s", s);
	/* warnings are few: grow one at a time */
	if (mp_append(&p->warnings, &p->nwarnings, &cap, sizeof(char *)) < 0) {
		free(s);
		return;
	}
	p->warnings[p->nwarnings - 1] = s;
}

/* mp_warn for the stages that do not know the context (graph.c). */
void mp_warn_cb(void *ctx, const char *msg)
{
	mp_warn(ctx, "%s", msg);
}
