// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The profile in a run: which one is used (and why not), the new one
 * written after the loads, and what the report says of it. The format
 * itself is profile.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static const char *why_bad(int r)
{
	switch (r) {
	case -EINVAL:
		return "not a modpreload profile (no 'modpreload-profile 1' and 'kernel' lines)";
	case -EPROTONOSUPPORT:
		return "a profile version this modpreload does not know";
	case -E2BIG:
		return "more modules than a profile may hold";
	case -EFBIG:
		return "larger than a profile may be";
	default:
		return NULL;
	}
}

/*
 * The profile for this run: opts.profile, or MP_PROFILE_PATH when it
 * exists (an image built without one has none, and that is no news).
 * Whatever is wrong with it is said and the run goes on without it.
 * Called by run.c once the context is made: use is part of the env.
 */
int mp_profile_io_load(struct mp_ctx *ctx, struct mp_profile_use *use)
{
	const struct mp_options *opts = mp_ctx_opts(ctx);
	const char *kver = mp_ctx_env(ctx)->kver;
	const char *path = opts->profile ? opts->profile : MP_PROFILE_PATH;
	_cleanup_free_ char *buf = NULL;
	struct mp_profile *p = NULL;
	size_t len = 0;
	int r;

	use->state = "none";
	if (path[0] == '\0')
		return 0;
	snprintf(use->path, sizeof(use->path), "%s", path);
	r = mp_read_file_alloc(path, MP_PROFILE_MAX_BYTES, &buf, &len);
	if (r == -ENOENT && opts->profile == NULL)
		return 0;
	if (r == 0)
		r = mp_profile_parse(buf, len, &p);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		use->state = "ignored";
		mp_warn(ctx, "profile %s: %s (%s); loading in the order the sizes suggest", path,
			why_bad(r) ? why_bad(r) : strerror(-r), mp_errno_name(-r));
		return 0;
	}
	if (strcmp(p->kver, kver) != 0) {
		use->state = "ignored";
		/* The image builders copy the booted system's last profile
		 * whatever its kernel (this is the one place that judges it):
		 * after a kernel upgrade the image holds the old kernel's until
		 * it is built again, which is no news at every boot. */
		if (opts->profile == NULL)
			mp_log(ctx, MP_LOG_INFO, "profile %s: made on kernel %s, not %s: ignored", path,
			       p->kver, kver);
		else
			mp_warn(ctx, "profile %s: made on kernel %s, not %s: ignored", path, p->kver, kver);
		mp_profile_free(p);
		return 0;
	}
	if (p->nbad)
		mp_warn(ctx, "profile %s: %u lines not understood, skipped", path, p->nbad);
	use->profile = p;
	use->state = "used";
	return 0;
}

/* What this run measured: a load that reached the kernel and came back. */
bool mp_profile_io_measured(const struct mp_module *m)
{
	return (m->state == MP_LOADED || (m->state == MP_FAILED && m->how != NULL)) &&
	       m->t_end > m->t_start;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of the new profile: what was measured now, and for modules
 * not loaded this time (already live, say) what the old profile knew. */
static int collect(struct mp_ctx *ctx, char ***lines, int *n)
{
	const struct mp_plan *pl = mp_ctx_plan_const(ctx);
	const struct mp_profile *prof = mp_ctx_env(ctx)->profile.profile;
	_cleanup_free_ bool *now = NULL; /* the old profile's entries measured again */
	int i, cap = 0, r = 0;

	*lines = NULL;
	*n = 0;
	if (prof && prof->n > 0 && (now = calloc((size_t)prof->n, sizeof(*now))) == NULL)
		return -ENOMEM;
	for (i = 0; i < pl->nmods && r == 0 && *n < MP_PROFILE_MAX_MODULES; i++) {
		const struct mp_module *m = &pl->mods[i];
		uint64_t us;
		int idx;

		if (!mp_profile_io_measured(m))
			continue;
		if (now && mp_strmap_get(prof->byname, m->name, &idx) == 0)
			now[idx] = true;
		us = (m->t_end - m->t_start) / 1000u;
		r = mp_append(lines, n, &cap, sizeof(char *));
		if (r == 0 && ((*lines)[*n - 1] = mp_strdup_printf("%s %llu", m->name,
				(unsigned long long)(us > MP_PROFILE_MAX_US ? MP_PROFILE_MAX_US : us))) == NULL)
			r = -ENOMEM;
	}
	for (i = 0; now && i < prof->n && r == 0 && *n < MP_PROFILE_MAX_MODULES; i++) {
		if (now[i])
			continue;
		r = mp_append(lines, n, &cap, sizeof(char *));
		if (r == 0 && ((*lines)[*n - 1] = mp_strdup_printf("%s %u", prof->entries[i].name,
				prof->entries[i].us)) == NULL)
			r = -ENOMEM;
	}
	if (r == 0 && *n > 1)
		qsort(*lines, (size_t)*n, sizeof(char *), by_name);
	return r;
}

/* The new profile's text, as mp_write_atomic() fills the file. */
struct profile_text {
	char **lines;
	int n;
	const char *kver;
};

/* In 4 KiB writes: a line is a name and a number, far shorter. */
static int fill_profile(int fd, void *data)
{
	const struct profile_text *t = data;
	char buf[4096];
	int len, i, r = 0;

	len = snprintf(buf, sizeof(buf), "modpreload-profile %u\nkernel %s\n", MP_PROFILE_VERSION, t->kver);
	for (i = 0; i < t->n && r == 0; i++) {
		size_t n = strlen(t->lines[i]);

		if ((size_t)len + n + 1 > sizeof(buf)) {
			r = mp_write_full(fd, buf, (size_t)len);
			len = 0;
		}
		if (r == 0 && n + 1 > sizeof(buf))
			r = -E2BIG;
		if (r == 0) {
			memcpy(buf + len, t->lines[i], n);
			len += (int)n;
			buf[len++] = '\n';
		}
	}
	return r == 0 ? mp_write_full(fd, buf, (size_t)len) : r;
}

/*
 * What may be replaced by a profile: nothing at all, or a regular file
 * that starts as a profile does. A file of someone else's (a report in
 * /etc once meant /etc/profile), a symlink, a fifo or a device stays as
 * it is: -EEXIST.
 */
static int replaceable(int dirfd, const char *path)
{
	static const char magic[] = "modpreload-profile ";
	char head[sizeof(magic) - 1];
	_cleanup_close_ int fd = mp_open_regular(dirfd, path, O_RDONLY, 0);
	ssize_t n;

	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd == -EINVAL ? -EEXIST : fd;
	n = read(fd, head, sizeof(head));
	if (n != (ssize_t)sizeof(head) || memcmp(head, magic, sizeof(head)) != 0)
		return -EEXIST;
	return 0;
}

/*
 * Replaced whole (mp_write_atomic), as the report is: the next boot's
 * image builder copies a whole profile or none. Only over an older
 * profile (replaceable()).
 */
int mp_profile_io_write(struct mp_ctx *ctx, const char *path)
{
	struct profile_text t = { .kver = mp_ctx_env(ctx)->kver };
	const char *name;
	int dirfd = mp_ctx_at(ctx, path, &name);
	int r, i;

	r = replaceable(dirfd, name);
	if (r == -EEXIST) {
		mp_log(ctx, MP_LOG_WARNING, "%s: not a modpreload profile: left as it is, and this "
		       "run's profile not written", path);
		return r;
	}
	if (r == 0)
		r = collect(ctx, &t.lines, &t.n);
	/* /run/modpreload may not be there yet (dracut reports elsewhere):
	 * the helper makes it */
	if (r == 0)
		r = mp_write_atomic(dirfd, name, NULL, 0644, fill_profile, &t);
	for (i = 0; i < t.n; i++)
		free(t.lines[i]);
	free(t.lines);
	if (r < 0)
		mp_log(ctx, MP_LOG_WARNING, "%s: cannot write the profile: %s (%s)", path,
		       strerror(-r), mp_errno_name(-r));
	return r;
}

/*
 * Where this run's profile goes: opts.profile_out, or MP_PROFILE_RUN_PATH
 * when the report went to a file in MP_RUN_DIR, the directory that is
 * ours. A report elsewhere (-r /etc/x.json) is no reason to write beside
 * it. NULL: nowhere.
 */
const char *mp_profile_io_out(const struct mp_ctx *ctx, const char *report, char *buf,
			      size_t size)
{
	const struct mp_options *opts = mp_ctx_opts(ctx);
	char dir[PATH_MAX];
	const char *name;
	struct stat st;
	int dirfd;

	if (opts->profile_out)
		return opts->profile_out[0] ? opts->profile_out : NULL;
	if (report == NULL || strcmp(report, "-") == 0)
		return NULL;
	dirfd = mp_ctx_at(ctx, report, &name);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	snprintf(dir, sizeof(dir), "%s", report);
	if (strcmp(dirname(dir), MP_RUN_DIR) != 0)
		return NULL;
	snprintf(buf, size, "%s", MP_PROFILE_RUN_PATH);
	return buf;
}
