// SPDX-License-Identifier: LGPL-2.1-or-later
/* Gathering requests: names from the caller, modules-load.d style files,
 * the kernel command line. Coldplug is in coldplug.c. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

/* far beyond any list of modules; a limit only so that -c /dev/zero ends */
#define CONFIG_MAX (16u << 20)

int mp_request(struct mp_ctx *ctx, const char *name, enum mp_source src, enum mp_blacklist bl)
{
	struct mp_plan *p = mp_ctx_plan(ctx);
	bool explicit_name = src == MP_SRC_ARGUMENT || src == MP_SRC_CONFIG || src == MP_SRC_CMDLINE;

	if (src >= MP_SRC_MAX)
		return -EINVAL;
	p->req_total++;
	p->req_by_source[src]++;
	/* A name is looked up in the indexes, never opened; still, nothing
	 * that looks like a path gets near them. Device modaliases are not
	 * names (a DMI one carries a date with slashes) and only ever match
	 * aliases. */
	if (explicit_name && !mp_name_is_safe(name)) {
		p->req_refused++;
		mp_warn(ctx, "refusing to load \"%s\" (%s): not a module name", name,
			mp_source_name(src));
		return 0;
	}
	return mp_plan_resolve(ctx, name, src, explicit_name, bl);
}

struct conf_walk {
	struct mp_ctx *ctx;
	const char *path;
};

static int on_conf_line(void *data, const char *name, unsigned line)
{
	struct conf_walk *w = data;

	if (name == NULL) {
		mp_warn(w->ctx, "%s:%u: not a module name, line ignored", w->path, line);
		return 0;
	}
	/* modules-load.d's syntax, and systemd-modules-load's rules: the
	 * lists it reads, mkinitcpio's MODULES.conf in a systemd image, and
	 * modpreload.d's, which stand in for such lists */
	return mp_request(w->ctx, name, MP_SRC_CONFIG, MP_BL_NAMES);
}

int mp_request_config_file(struct mp_ctx *ctx, const char *path)
{
	_cleanup_free_ char *buf = NULL;
	struct conf_walk w = { .ctx = ctx, .path = path };
	size_t len;
	int r;

	r = mp_read_file_alloc(path, CONFIG_MAX, &buf, &len);
	if (r == -ENOMEM)
		return r;
	if (r == -EFBIG) {
		mp_warn(ctx, "%s: larger than %u MiB, not read (EFBIG)", path, CONFIG_MAX >> 20);
		return 0;
	}
	if (r < 0) {
		mp_warn(ctx, "%s: cannot read: %s", path, mp_errno_name(-r));
		return 0;
	}
	return mp_conf_parse(buf, len, on_conf_line, &w);
}

static int cmp_basename(const void *a, const void *b)
{
	const char *x = strrchr(*(char *const *)a, '/');
	const char *y = strrchr(*(char *const *)b, '/');

	return strcmp(x, y);
}

/*
 * systemd's rules for *.d directories: files are read in the order of
 * their names across all directories, and a name in an earlier directory
 * hides the same name in a later one (/etc overrides /usr/lib).
 */
static int dir_files(const char *root, const char *what, char ***out, int *nout)
{
	static const char *const dirs[] = {
		"/etc", "/run", "/usr/local/lib", "/usr/lib", "/lib",
	};
	_cleanup_(mp_strmap_freep) struct mp_strmap *seen = mp_strmap_new();
	char **names = NULL;
	int n = 0, cap = 0, r = 0;
	size_t d;

	if (seen == NULL)
		return -ENOMEM;
	for (d = 0; d < ARRAY_SIZE(dirs) && r == 0; d++) {
		char dir[PATH_MAX];
		struct dirent *de;
		DIR *dp;

		snprintf(dir, sizeof(dir), "%s%s/%s", root ? root : "", dirs[d], what);
		dp = opendir(dir);
		if (dp == NULL)
			continue;
		while ((de = readdir(dp)) != NULL) {
			size_t len = strlen(de->d_name);
			int dummy;

			if (len < 6 || strcmp(de->d_name + len - 5, ".conf") != 0 ||
			    mp_strmap_get(seen, de->d_name, &dummy) == 0)
				continue;
			r = mp_strmap_put(seen, de->d_name, 0);
			if (r == 0)
				r = mp_append(&names, &n, &cap, sizeof(char *));
			if (r < 0)
				break;
			names[n - 1] = mp_strdup_printf("%s/%s", dir, de->d_name);
			if (names[n - 1] == NULL) {
				r = -ENOMEM;
				break;
			}
		}
		closedir(dp);
	}
	if (r == 0 && n > 1)
		qsort(names, (size_t)n, sizeof(char *), cmp_basename);
	*out = names;
	*nout = n;
	return r;
}

static int request_dirs(struct mp_ctx *ctx, const char *root, const char *what)
{
	char **names = NULL;
	int n = 0, i, r = dir_files(root, what, &names, &n);

	for (i = 0; i < n; i++) {
		if (r == 0)
			r = mp_request_config_file(ctx, names[i]);
		free(names[i]);
	}
	free(names);
	return r;
}

/* The modpreload.d lists a run reads under ROOT, for the image builders:
 * those a name hides, and masks (no regular file: a link to /dev/null),
 * left out. */
int mp_list_config_files(const char *root, FILE *f)
{
	char **names = NULL;
	int n = 0, i, r = dir_files(root, "modpreload.d", &names, &n);
	struct stat st;

	for (i = 0; i < n; i++) {
		if (r == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
			fprintf(f, "%s\n", names[i]);
		free(names[i]);
	}
	free(names);
	return r;
}

int mp_request_config_dirs(struct mp_ctx *ctx, const char *root)
{
	return request_dirs(ctx, root, "modpreload.d");
}

/*
 * On the booted system modpreload takes over what systemd-modules-load
 * would load: the same directories (Debian's /etc/modules is a link in
 * /etc/modules-load.d) and modules_load= on the command line, and its
 * blacklist: a blacklisted name is not loaded (it asks libkmod with
 * KMOD_PROBE_APPLY_BLACKLIST). That service still runs afterwards and
 * finds every module live, but for what only its names ask for, which
 * --leave-single leaves to it (leave.c): those requests are marked.
 */
int mp_request_modules_load(struct mp_ctx *ctx, const char *root)
{
	const struct mp_cmdline *c = mp_ctx_cmdline(ctx);
	int i, r;

	mp_ctx_plan(ctx)->modules_load_now = true;
	r = request_dirs(ctx, root, "modules-load.d");
	for (i = 0; r == 0 && i < c->nmodules_load; i++)
		r = mp_request(ctx, c->modules_load[i], MP_SRC_CMDLINE, MP_BL_NAMES);
	mp_ctx_plan(ctx)->modules_load_now = false;
	return r;
}

/* rd.modpreload.modules= and dracut's rd.driver.pre=, which dracut hands
 * to a plain modprobe each: a blacklist stops aliases only. */
int mp_request_cmdline(struct mp_ctx *ctx)
{
	const struct mp_cmdline *cl = mp_ctx_cmdline(ctx);
	int i, r;

	for (i = 0; i < cl->nmodules; i++) {
		r = mp_request(ctx, cl->modules[i], MP_SRC_CMDLINE, MP_BL_ALIASES);
		if (r < 0)
			return r;
	}
	return 0;
}
