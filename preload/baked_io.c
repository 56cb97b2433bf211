// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The baked plan in a run: baked at image build from libkmod's answers
 * for the image's tree, checked at boot against the tree's
 * modules.dep.bin, and used for every request it covers; what it does not
 * cover goes to libkmod, which is only then opened (ctx.c). The kernel
 * command line is never baked: its options and blacklists differ per
 * boot and are applied here on top, as plan.c applies them on libkmod's.
 * The format is baked.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <libkmod.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static const char *why_bad(int r)
{
	switch (r) {
	case -EINVAL:
		return "not a modpreload plan, or a damaged one";
	case -EFBIG:
		return "larger than a plan may be";
	default:
		return NULL;
	}
}

/*
 * The plan for this run: opts.plan, or MP_BAKED_PATH when it exists.
 * One made for another kernel or another module tree, or damaged, is a
 * warning: libkmod then resolves everything, as without one.
 */
int mp_baked_io_load(struct mp_ctx *ctx, struct mp_baked_use *use)
{
	const struct mp_options *opts = mp_ctx_opts(ctx);
	const char *kver = mp_ctx_env(ctx)->kver;
	const char *path = opts->plan ? opts->plan : MP_BAKED_PATH;
	_cleanup_free_ char *buf = NULL;
	struct mp_baked *b = NULL;
	const void *dep;
	size_t len = 0, deplen;
	int r;

	use->state = "none";
	if (path[0] == '\0')
		return 0;
	snprintf(use->path, sizeof(use->path), "%s", path);
	r = mp_read_file_alloc(path, MP_BAKED_MAX_BYTES, &buf, &len);
	if (r == -ENOENT && opts->plan == NULL)
		return 0;
	if (r == 0)
		r = mp_baked_parse(buf, len, &b);
	if (r == -ENOMEM)
		return r;
	use->state = "ignored";
	mp_ctx_depbin(ctx, &dep, &deplen);
	if (r < 0)
		snprintf(use->why, sizeof(use->why), "%s (%s)", why_bad(r) ? why_bad(r) : strerror(-r),
			 mp_errno_name(-r));
	else if (strcmp(b->kver, kver) != 0)
		snprintf(use->why, sizeof(use->why), "baked for kernel %.64s, not this one", b->kver);
	else if (b->key_size != deplen || b->key_hash != mp_baked_hash(dep, deplen))
		snprintf(use->why, sizeof(use->why), "baked for another modules.dep.bin (depmod ran since)");
	else
		use->state = "used";
	if (strcmp(use->state, "used") != 0) {
		mp_warn(ctx, "baked plan %s: %s; resolving with libkmod", path, use->why);
		mp_baked_free(b);
		return 0;
	}
	use->baked = b;
	return 0;
}

struct why {
	const char *what, *of;
};

/* plan.c's add_module(), from the plan instead of libkmod: the same
 * checks in the same order, so that the same modules come out in the
 * same order with the same edges. */
static int add(struct mp_ctx *ctx, const struct mp_baked *b, int bi, struct why why, int *out)
{
	const struct mp_env *env = mp_ctx_env(ctx);
	const struct mp_baked_mod *bm = &b->mods[bi];
	struct mp_plan *p = mp_ctx_plan(ctx);
	struct mp_module *m;
	struct stat st;
	int idx, r, i, k, n = 0;

	if (mp_strmap_get(mp_plan_byname(ctx), bm->name, out) == 0)
		return 0;
	r = mp_graph_add(p, bm->name, &idx);
	if (r < 0 || (r = mp_strmap_put(mp_plan_byname(ctx), bm->name, idx)) < 0)
		return r;
	*out = idx;
	m = &p->mods[idx];
	m->why = mp_strdup_printf("%s%s%s", why.what, why.of ? " " : "", why.of ? why.of : "");
	if (m->why == NULL)
		return -ENOMEM;
	if (bm->path == NULL) {
		m->state = MP_BUILTIN;
		return 0;
	}
	m->path = mp_strdup_printf("%s/%s", env->moddir, bm->path);
	if (m->path == NULL)
		return -ENOMEM;
	if (stat(m->path, &st) < 0) {
		m->state = MP_FAILED;
		m->err = errno;
		m->fail_why = mp_strdup_printf("%s: %s", m->path, strerror(m->err));
		mp_log(ctx, MP_LOG_INFO, "%s: %s: %s", bm->name, m->path, mp_errno_name(m->err));
		return 0;
	}
	m->size = st.st_size;
	if (mp_plan_settle(ctx, m, bm->name, bm->install, bm->options, false))
		return 0;
	/* m may move from here on: the plan grows */
	for (k = 0; k < 3; k++) {
		static const char *const what[] = { "dependency of", "softdep (pre) of",
						    "softdep (post) of" };

		for (i = 0; i < bm->ndeps[k]; i++, n++) {
			struct why w = { what[k], p->mods[idx].name };
			int di;

			r = add(ctx, b, bm->deps[n], w, &di);
			if (r == 0)
				r = k == 2 ? mp_graph_depend(p, di, idx, true)
					   : mp_graph_depend(p, idx, di, k == 1);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* 1: the plan answered key into lk; 0: libkmod must. As plan.c's loop
 * over libkmod's list: a blacklist entry stops aliases, not names. */
int mp_baked_io_resolve(struct mp_ctx *ctx, const char *key, const char *alias,
			enum mp_source src, struct mp_lookup *lk, int *nfound)
{
	struct mp_baked_use *use = mp_ctx_baked(ctx);
	const struct mp_cmdline *cl = mp_ctx_cmdline(ctx);
	const struct mp_baked *b = use->baked;
	_cleanup_free_ int *hits = NULL;
	int nhits, i, r;

	if (b == NULL)
		return 0;
	r = mp_baked_lookup(b, key, &hits, &nhits);
	if (r == 0) {
		use->fell_back++;
		mp_log(ctx, MP_LOG_INFO, "%s: not in the baked plan; asking libkmod", alias);
	}
	if (r <= 0)
		return r;
	use->covered++;
	*nfound = nhits;
	for (i = 0; i < nhits; i++) {
		const char *name = b->mods[hits[i]].name;
		bool direct = strcmp(name, key) == 0;
		char what[32];
		struct why why = { what, NULL };
		int idx, cap = lk->nmods;

		if (!direct && (mp_cmdline_listed(cl->blacklist, cl->nblacklist, name) ||
				mp_strmap_get(b->blacklist, name, &idx) == 0))
			continue;
		if (direct) {
			snprintf(what, sizeof(what), "requested (%s)", mp_request_source_name(src));
		} else {
			snprintf(what, sizeof(what), "%s:", mp_request_source_name(src));
			why.of = alias;
		}
		r = add(ctx, b, hits[i], why, &idx);
		if (r == 0)
			r = mp_append(&lk->mods, &lk->nmods, &cap, sizeof(int));
		if (r < 0)
			return r;
		lk->mods[lk->nmods - 1] = idx;
	}
	return 1;
}

void mp_baked_io_json(struct mp_ctx *ctx, struct mp_json *j)
{
	const struct mp_baked_use *use = mp_ctx_baked(ctx);

	mp_json_obj_begin(j, "baked");
	mp_json_str(j, "path", use->path[0] ? use->path : NULL);
	mp_json_str(j, "state", use->state ? use->state : "none");
	mp_json_str(j, "why", use->why[0] ? use->why : NULL);
	mp_json_u64(j, "covered", use->covered);
	mp_json_u64(j, "fell_back", use->fell_back);
	mp_json_obj_end(j);
}

/* --- baking, at image build ------------------------------------------- */

struct bake {
	struct mp_ctx *ctx;
	struct kmod_ctx *kmod;
	FILE *f;
	struct mp_strmap *known;  /* the tree's modules and the built-in ones */
	const struct mp_cmdline *host; /* libkmod mixed the build host's command line in */
	char **aliases;           /* "PATTERN NAME" of one kind, to sort */
	int naliases, capaliases;
	int err;
};

/* The module name in a modules.dep or modules.builtin path. */
static int name_of(const char *path, size_t n, char *name, size_t size)
{
	char rel[PATH_MAX], *ko;
	const char *base;

	if (n >= sizeof(rel))
		return -ENAMETOOLONG;
	memcpy(rel, path, n);
	rel[n] = '\0';
	base = strrchr(rel, '/');
	if (mp_normalize_name(base ? base + 1 : rel, name, size) < 0)
		return -EINVAL;
	ko = strstr(name, ".ko");
	if (ko)
		*ko = '\0';
	return name[0] ? 0 : -EINVAL;
}

/* Each line's first path (up to stop) as a module name, to cb. */
static int each_name(struct bake *k, const char *file, char stop,
		     int (*cb)(struct bake *k, const char *name))
{
	_cleanup_free_ char *buf = NULL;
	char path[PATH_MAX + 32], name[256];
	const char *line;
	size_t len;
	int r;

	snprintf(path, sizeof(path), "%s/%s", mp_ctx_env(k->ctx)->moddir, file);
	r = mp_read_file_alloc(path, MP_BAKED_MAX_BYTES, &buf, &len);
	if (r == -ENOENT && stop == '\n')
		return 0; /* no modules.builtin: nothing built in to tell */
	if (r < 0) {
		mp_log(k->ctx, MP_LOG_ERR, "%s: %s (%s)", path, strerror(-r), mp_errno_name(-r));
		return r;
	}
	for (line = buf; line < buf + len; line += strcspn(line, "\n") + 1) {
		size_t n = strcspn(line, stop == ':' ? ":\n" : "\n");

		if (n == 0 || name_of(line, n, name, sizeof(name)) < 0)
			continue;
		r = cb(k, name);
		if (r < 0)
			return r;
	}
	return 0;
}

static int know(struct bake *k, const char *name)
{
	int v;

	return mp_strmap_get(k->known, name, &v) == 0 ? 0 : mp_strmap_put(k->known, name, 0);
}

static void put_list(struct bake *k, const char *kw, struct kmod_list *list)
{
	struct kmod_list *l;
	bool any = false;

	kmod_list_foreach(l, list) {
		struct kmod_module *d = kmod_module_get_module(l);
		const char *name = kmod_module_get_name(d);
		int v;

		if (mp_strmap_get(k->known, name, &v) == 0) {
			fprintf(k->f, "%s%s", any ? " " : kw, name);
			any = true;
		} else {
			mp_warn(k->ctx, "%s: not in the tree: left out of the baked plan", name);
		}
		kmod_module_unref(d);
	}
	if (any)
		fputc('\n', k->f);
}

/* modprobe.d's options, without those libkmod took from the build host's
 * command line: the boot's own are added at boot. */
static void put_options(struct bake *k, const char *name, const char *opts)
{
	size_t len = mp_plan_config_len(k->ctx, opts, name);

	if (len > 0)
		fprintf(k->f, "options %.*s\n", (int)len, opts);
}

static int put_module(struct bake *k, const char *name)
{
	const char *moddir = mp_ctx_env(k->ctx)->moddir;
	struct kmod_list *deps, *pre = NULL, *post = NULL;
	struct kmod_module *km = NULL;
	const char *path;
	char *real;
	size_t n = strlen(moddir);
	int r = kmod_module_new_from_name(k->kmod, name, &km);

	if (r < 0)
		return r;
	path = kmod_module_get_path(km);
	real = path ? mp_ctx_real_path(k->ctx, path) : NULL;
	if (real == NULL || strncmp(real, moddir, n) != 0 || real[n] != '/') {
		mp_warn(k->ctx, "%s: no file under %s: left out of the baked plan", name, moddir);
		free(real);
		kmod_module_unref(km);
		return 0;
	}
	fprintf(k->f, "module %s %s\n", name, real + n + 1);
	free(real);
	deps = kmod_module_get_dependencies(km);
	put_list(k, "deps ", deps);
	kmod_module_unref_list(deps);
	if (kmod_module_get_softdeps(km, &pre, &post) == 0) {
		put_list(k, "pre ", pre);
		put_list(k, "post ", post);
	}
	kmod_module_unref_list(pre);
	kmod_module_unref_list(post);
	put_options(k, name, kmod_module_get_options(km));
	if (kmod_module_get_install_commands(km) != NULL)
		fputs("install\n", k->f);
	kmod_module_unref(km);
	return 0;
}

static int put_builtin(struct bake *k, const char *name)
{
	int v;

	/* a name both built in and in the tree: libkmod finds the file */
	if (mp_strmap_get(k->known, name, &v) == 0 && v == 1)
		return 0;
	fprintf(k->f, "module %s -\n", name);
	return 0;
}

static int mark_file(struct bake *k, const char *name)
{
	return mp_strmap_put(k->known, name, 1);
}

static void put_alias(struct bake *k, const char *kw, char *pat, const char *name)
{
	char norm[256];
	int v;

	if (mp_normalize_name(name, norm, sizeof(norm)) < 0 || mp_strmap_get(k->known, norm, &v) < 0 ||
	    mp_baked_normalize(pat, pat, strlen(pat) + 1) < 0)
		return;
	/* no literal head to find it by: left to libkmod */
	if (strcspn(pat, "*?[") == 0) {
		fprintf(k->f, "nocover %s\n", pat);
		return;
	}
	if (mp_append(&k->aliases, &k->naliases, &k->capaliases, sizeof(char *)) < 0 ||
	    (k->aliases[k->naliases - 1] = mp_strdup_printf("%s %s", pat, norm)) == NULL)
		k->err = -ENOMEM;
}

/* By the literal head of the pattern, as baked.c looks them up. */
static int cmp_alias(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t hx = strcspn(x, "*?[ "), hy = strcspn(y, "*?[ ");
	int c = strncmp(x, y, hx < hy ? hx : hy);

	return c ? c : (hx > hy) - (hx < hy);
}

static int put_sorted(struct bake *k, const char *kw)
{
	int i, r = k->err;

	/* a tree without aliases has none to sort: qsort() takes no NULL */
	if (r == 0 && k->naliases > 1)
		qsort(k->aliases, (size_t)k->naliases, sizeof(char *), cmp_alias);
	for (i = 0; i < k->naliases; i++) {
		if (r == 0)
			fprintf(k->f, "%s %s\n", kw, k->aliases[i]);
		free(k->aliases[i]);
	}
	free(k->aliases);
	k->aliases = NULL;
	k->naliases = k->capaliases = 0;
	return r;
}

/*
 * The aliases, as depmod put them in modules.alias.bin ("alias PATTERN
 * NAME" lines of modules.alias) and modules.builtin.alias.bin (the
 * "NAME.alias=PATTERN" strings of modules.builtin.modinfo).
 */
static int put_aliases(struct bake *k, const char *file, const char *kw)
{
	_cleanup_free_ char *buf = NULL;
	char path[PATH_MAX + 32], *s, *next, sep = kw[0] == 'b' ? '\0' : '\n';
	size_t len;
	int r;

	snprintf(path, sizeof(path), "%s/%s", mp_ctx_env(k->ctx)->moddir, file);
	r = mp_read_file_alloc(path, MP_BAKED_MAX_BYTES, &buf, &len);
	if (r < 0)
		return r == -ENOENT ? 0 : r;
	for (s = buf; s < buf + len; s = next) {
		char pat[PATH_MAX], name[256], *dot;

		next = memchr(s, sep, (size_t)(buf + len - s));
		if (next == NULL)
			break;
		*next++ = '\0';
		if (sep == '\n' && strncmp(s, "alias ", 6) == 0) {
			/* "alias PATTERN NAME", as depmod writes it */
			char *save = NULL, *a = strtok_r(s + 6, " \t", &save);
			char *n = a ? strtok_r(NULL, " \t", &save) : NULL;

			if (n && strlen(a) < sizeof(pat) && strlen(n) < sizeof(name))
				put_alias(k, kw, a, n);
		} else if (sep == '\0' && (dot = strstr(s, ".alias=")) != NULL &&
			   (size_t)(dot - s) < sizeof(name) && strlen(dot + 7) < sizeof(pat)) {
			snprintf(name, sizeof(name), "%.*s", (int)(dot - s), s);
			snprintf(pat, sizeof(pat), "%s", dot + 7);
			put_alias(k, kw, pat, name);
		}
	}
	return put_sorted(k, kw);
}

static void put_config(struct bake *k)
{
	struct kmod_config_iter *it;
	int v;

	it = kmod_config_get_blacklists(k->kmod);
	while (it && kmod_config_iter_next(it)) {
		const char *name = kmod_config_iter_get_key(it);

		if (!mp_cmdline_listed(k->host->blacklist, k->host->nblacklist, name))
			fprintf(k->f, "blacklist %s\n", name);
	}
	kmod_config_iter_free_iter(it);
	/* libkmod asks modprobe.d's aliases first; whatever they answer
	 * is left to it */
	it = kmod_config_get_aliases(k->kmod);
	while (it && kmod_config_iter_next(it))
		fprintf(k->f, "nocover %s\n", kmod_config_iter_get_key(it));
	kmod_config_iter_free_iter(it);
	it = kmod_config_get_install_commands(k->kmod);
	while (it && kmod_config_iter_next(it))
		if (mp_strmap_get(k->known, kmod_config_iter_get_key(it), &v) < 0)
			fprintf(k->f, "nocover %s\n", kmod_config_iter_get_key(it));
	kmod_config_iter_free_iter(it);
}

static int bake(struct bake *k, const void *dep, size_t deplen)
{
	int r;

	fprintf(k->f, "modpreload-plan 1\nkernel %s\nkey %zu %016" PRIx64 "\n",
		mp_ctx_env(k->ctx)->kver, deplen, mp_baked_hash(dep, deplen));
	r = each_name(k, "modules.dep", ':', mark_file);
	if (r == 0)
		r = each_name(k, "modules.builtin", '\n', know);
	if (r == 0)
		r = each_name(k, "modules.dep", ':', put_module);
	if (r == 0)
		r = each_name(k, "modules.builtin", '\n', put_builtin);
	if (r == 0)
		r = put_aliases(k, "modules.alias", "alias");
	if (r == 0)
		r = put_aliases(k, "modules.builtin.modinfo", "balias");
	if (r == 0)
		put_config(k);
	return r;
}

/* At image build: the plan for the module tree the options name, written
 * to path through a temporary file beside it. */
int mp_baked_io_write(struct mp_ctx *ctx, const char *path)
{
	struct bake k = { .ctx = ctx, .kmod = mp_ctx_kmod(ctx), .known = mp_strmap_new(),
			  .host = mp_ctx_kcmdline(ctx) };
	_cleanup_free_ char *tmp = mp_strdup_printf("%s.tmp", path);
	const void *dep;
	size_t deplen;
	int r;

	mp_ctx_depbin(ctx, &dep, &deplen);
	if (k.kmod == NULL || k.known == NULL || tmp == NULL) {
		mp_strmap_free(k.known);
		return -ENOMEM;
	}
	k.f = fopen(tmp, "we");
	r = k.f ? bake(&k, dep, deplen) : -errno;
	if (k.f && ferror(k.f) && r == 0)
		r = -EIO;
	if (k.f && fclose(k.f) != 0 && r == 0)
		r = -EIO;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		mp_log(ctx, MP_LOG_ERR, "%s: cannot bake the plan: %s (%s)", path, strerror(-r),
		       mp_errno_name(-r));
		(void)unlink(tmp);
	}
	mp_strmap_free(k.known);
	return r;
}
