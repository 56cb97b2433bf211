// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Loading one module, in a worker thread. Nothing here touches libkmod (it
 * is not thread-safe) or any module but the one given: the plan was made
 * before, and the scheduler owns the bookkeeping.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

#ifndef MODULE_INIT_COMPRESSED_FILE
#define MODULE_INIT_COMPRESSED_FILE 4
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#define MP_RESOLVE_NO_MAGICLINKS 0x02
#define MP_RESOLVE_BENEATH 0x08

struct mp_open_how {
	uint64_t flags, mode, resolve;
};

/*
 * Only files beneath the module directory are ever opened. The index
 * gives absolute paths; a corrupt or hostile one could name anything, so
 * the path must be the module directory plus a relative part without
 * "..", and the kernel resolves it beneath that directory (openat2,
 * 5.6+). Older kernels get the lexical check and O_NOFOLLOW.
 */
int mp_open_beneath(const struct mp_env *env, const char *path)
{
	size_t n = strlen(env->moddir);
	struct mp_open_how how = {
		.flags = O_RDONLY | O_CLOEXEC,
		.resolve = MP_RESOLVE_BENEATH | MP_RESOLVE_NO_MAGICLINKS,
	};
	const char *rel;
	int fd;

	if (strncmp(path, env->moddir, n) != 0 || path[n] != '/')
		return -EXDEV;
	rel = path + n + 1;
	if (rel[0] == '\0' || rel[0] == '/' || strstr(rel, "../") || strcmp(rel, "..") == 0 ||
	    (strlen(rel) >= 3 && strcmp(rel + strlen(rel) - 3, "/..") == 0))
		return -EXDEV;
	if (env->moddir_fd < 0)
		return -EBADF;
	fd = (int)syscall(SYS_openat2, env->moddir_fd, rel, &how, sizeof(how));
	if (fd >= 0)
		return fd;
	if (errno != ENOSYS)
		return -errno;
	fd = openat(env->moddir_fd, rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	return fd < 0 ? -errno : fd;
}

/*
 * Someone else (udev, a modprobe) is loading the same module: wait for
 * it to become live. If their load fails the module disappears, and ours
 * is tried by the caller. The wait ends at the job's deadline, when the
 * scheduler gives up on the module: nothing is tried after that.
 */
static int wait_other_load(const struct mp_env *env, const char *name, uint64_t deadline)
{
	while (mp_now_ns() < deadline) {
		switch (mp_initstate(env->sysfs_fd, name)) {
		case MP_INITSTATE_LIVE:
			return 0;
		case MP_INITSTATE_NONE:
			return -EAGAIN;
		default:
			mp_sleep_ms(5);
			break;
		}
	}
	return -ETIMEDOUT;
}

/* The file named FILE (STEM bytes before ".ko") where modules.dep keeps
 * it now: the root's index after a switch-root, which may have it in
 * another directory than the image's did */
static int open_moved(const struct mp_env *env, const char *file, size_t stem, char *found, size_t size)
{
	_cleanup_free_ char *buf = NULL;
	char dep[PATH_MAX + 16], *line, *save = NULL;
	size_t len;
	int fd = -ENOENT;

	snprintf(dep, sizeof(dep), "%s/modules.dep", env->moddir);
	if (mp_read_file_alloc(dep, 64u << 20, &buf, &len) < 0)
		return -ENOENT;
	for (line = strtok_r(buf, "\n", &save); line && fd == -ENOENT; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *b;

		if (colon == NULL)
			continue;
		*colon = '\0';
		b = strrchr(line, '/');
		b = b ? b + 1 : line;
		if (strncmp(b, file, stem + 3) == 0 && (b[stem + 3] == '\0' || b[stem + 3] == '.') &&
		    snprintf(found, size, "%s/%s", env->moddir, line) < (int)size)
			fd = mp_open_beneath(env, found);
	}
	return fd;
}

/*
 * PATH, or after a switch-root the same module under another compression
 * or in another directory: the root's tree may keep it otherwise than the
 * image did (mkinitcpio's MODULES_DECOMPRESS: foo.ko in the image,
 * foo.ko.zst in the root). The same name in the same directory, with each
 * suffix the kernel's loaders know, then the root's modules.dep; FOUND is
 * what was opened. Still missing: ENOENT, and the module's devices go back
 * to udev (handover.c).
 */
static int open_module(const struct mp_env *env, const char *path, char *found, size_t size)
{
	static const char *const suffixes[] = { "", ".zst", ".xz", ".gz" };
	const struct mp_format *f = mp_decompress_format(path);
	size_t base = strlen(path) - (f ? strlen(f->suffix) : 0), i;
	int fd = mp_open_beneath(env, path);
	const char *file;

	snprintf(found, size, "%s", path);
	if (fd != -ENOENT || base < 3 || strncmp(path + base - 3, ".ko", 3) != 0)
		return fd;
	for (i = 0; i < ARRAY_SIZE(suffixes); i++) {
		int alt;

		if (snprintf(found, size, "%.*s%s", (int)base, path, suffixes[i]) >= (int)size ||
		    strcmp(found, path) == 0)
			continue;
		alt = mp_open_beneath(env, found);
		if (alt != -ENOENT)
			return alt;
	}
	file = strrchr(path, '/') + 1;
	fd = open_moved(env, file, (size_t)(path + base - 3 - file), found, size);
	if (fd == -ENOENT)
		snprintf(found, size, "%s", path);
	return fd;
}

static int do_load(const struct mp_env *env, const struct mp_job *job, const char *path,
		   struct mp_load_result *res, int fd)
{
	const struct mp_format *f = mp_decompress_format(path);
	const char *opts = job->options ? job->options : "";
	void *image = NULL;
	size_t len = 0;
	int r;

	if (f == NULL) {
		res->how = "finit";
		return mp_sys_finit_module(fd, opts, 0);
	}
	if (strcmp(env->compression, f->name) == 0) {
		res->how = "finit+compressed";
		return mp_sys_finit_module(fd, opts, MODULE_INIT_COMPRESSED_FILE);
	}
	res->how = f->how;
	r = mp_decompress(f, fd, job->budget, job->deadline, &image, &len);
	if (r < 0)
		return r;
	r = mp_sys_init_module(image, len, opts);
	free(image);
	mp_budget_give(job->budget, len);
	return r;
}

void mp_load(const struct mp_env *env, const struct mp_job *job, struct mp_load_result *res)
{
	int r = 0;

	res->idx = job->idx;
	res->err = 0;
	res->state = MP_FAILED;
	for (;;) {
		_cleanup_close_ int fd = -1;
		char path[PATH_MAX];

		switch (mp_initstate(env->sysfs_fd, job->name)) {
		case MP_INITSTATE_LIVE:
			res->state = MP_LIVE;
			return;
		case MP_INITSTATE_BUILTIN:
			res->state = MP_BUILTIN;
			return;
		case MP_INITSTATE_COMING:
		case MP_INITSTATE_GOING:
			r = wait_other_load(env, job->name, job->deadline);
			if (r == 0) {
				res->state = MP_LIVE;
				return;
			}
			if (r == -ETIMEDOUT) {
				/* someone else's init() that has not returned: hung,
				 * as ours would be, not a failure to replay for */
				res->state = MP_HUNG;
				res->err = ETIMEDOUT;
				return;
			}
			if (r != -EAGAIN)
				goto fail;
			break;
		default:
			break;
		}
		if (mp_now_ns() >= job->deadline) {
			/* its time was up before it could start: not a failure of
			 * its own, and never loaded after it was given up on */
			res->state = MP_SKIPPED;
			res->err = ETIMEDOUT;
			return;
		}

		fd = open_module(env, job->path, path, sizeof(path));
		if (fd < 0) {
			r = fd;
			goto fail;
		}
		r = do_load(env, job, path, res, fd);
		res->read = true;
		if (r == 0) {
			res->state = MP_LOADED;
			return;
		}
		/* EEXIST is a duplicate's answer only if the module is there:
		 * an init() may say it too (acpi_cpufreq, pcc_cpufreq while
		 * another cpufreq driver is registered), and then nothing is
		 * loaded. Coming or going again: someone else's load, above. */
		if (r == -EEXIST) {
			int st = mp_initstate(env->sysfs_fd, job->name);

			if (st == MP_INITSTATE_NONE)
				goto fail;
			continue;
		}
		/* EBUSY is the kernel refusing a second load of a name that is
		 * still coming: someone else's load, which we wait for above.
		 * With nothing coming it is the module's own answer (its init(),
		 * or a module it needs that stayed coming): a result, not a
		 * reason to call again. */
		if (r != -EBUSY || mp_initstate(env->sysfs_fd, job->name) != MP_INITSTATE_COMING)
			goto fail;
	}
fail:
	res->state = MP_FAILED;
	res->err = -r;
}
