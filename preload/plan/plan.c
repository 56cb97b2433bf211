// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Stage 5 of 8, plan: requests (request.c from names, lists and the
 * command line; coldplug.c from devices) resolved with libkmod into the
 * plan (this file; each module's parameters: modopts.c), and the last
 * boot's profile in use (profile_io.c). One thread; it may call every
 * stage before it, base to context.
 */
/*
 * Resolving requests into the plan, once, with libkmod: aliases, the full
 * dependency list from modules.dep.bin, softdeps, blacklists, options,
 * builtins and modules already live. Runs in one thread; libkmod is not
 * thread-safe and the workers never see it.
 */
#include <errno.h>
#include <libkmod.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

struct mp_resolver {
	const void *depbin;         /* modules.dep.bin, checked (moddir.c) */
	size_t depbin_len;
	struct mp_strmap *byname;   /* module name -> index in plan.mods */
	/* normalised alias -> index in resolved[], a map for each blacklist
	 * rule (a name one stops, the other loads) */
	struct mp_strmap *lookups[2];
	struct mp_strmap *softdeps; /* names with a softdep line; NULL: ask always */
	bool softdeps_read;         /* softdeps made, on first use */
	struct mp_lookup *resolved;
	int nresolved, capresolved;
	unsigned mark_epoch;        /* for mp_module.mark */
	int *stack;                 /* count_request()'s, kept between requests */
	size_t capstack;
};

/*
 * libkmod answers kmod_module_get_softdeps() by fnmatch()ing the module's
 * name against every softdep line (Debian's modules.softdep alone has
 * dozens): a ninth of planning a whole tree, for the few modules that
 * have one. A line whose name is no pattern matches only that name, so
 * the set of names says beforehand whom to ask; with any pattern among
 * them (or no memory), libkmod is asked for every module, as before.
 */
static struct mp_strmap *softdep_names(struct kmod_ctx *kmod)
{
	struct kmod_config_iter *it = kmod_config_get_softdeps(kmod);
	struct mp_strmap *names = it ? mp_strmap_new() : NULL;

	while (names && kmod_config_iter_next(it)) {
		const char *name = kmod_config_iter_get_key(it);

		if (name == NULL || name[strcspn(name, "*?[\\")] != '\0' ||
		    mp_strmap_put(names, name, 0) < 0) {
			mp_strmap_free(names);
			names = NULL;
		}
	}
	kmod_config_iter_free_iter(it);
	return names;
}

static void resolver_free(struct mp_resolver *r)
{
	int i;

	if (r == NULL)
		return;
	mp_strmap_free(r->byname);
	mp_strmap_free(r->lookups[MP_BL_ALIASES]);
	mp_strmap_free(r->lookups[MP_BL_NAMES]);
	mp_strmap_free(r->softdeps);
	free(r->stack);
	for (i = 0; i < r->nresolved; i++)
		free(r->resolved[i].mods);
	free(r->resolved);
	free(r);
}

int mp_plan_start(struct mp_ctx *ctx)
{
	struct mp_resolver *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return -ENOMEM;
	mp_ctx_depbin(ctx, &r->depbin, &r->depbin_len);
	r->byname = mp_strmap_new();
	r->lookups[MP_BL_ALIASES] = mp_strmap_new();
	r->lookups[MP_BL_NAMES] = mp_strmap_new();
	mp_ctx_set_resolver(ctx, r, resolver_free);
	return r->byname && r->lookups[MP_BL_ALIASES] && r->lookups[MP_BL_NAMES] ? 0 : -ENOMEM;
}

/* Answers from modules.builtin.bin, before /sys is looked at. */
static bool is_builtin(struct kmod_module *km)
{
	return kmod_module_get_initstate(km) == KMOD_MODULE_BUILTIN;
}

/* Why a module is in the plan, as three parts put together: "dependency
 * of ext4", "coldplug: pci:v...". Made into a string only for modules
 * that are new, without printf: a tenth of planning a whole tree was
 * musl's vasprintf() formatting these. */
struct why {
	const char *a, *b, *c;
};

static char *why_str(struct why why)
{
	size_t a = strlen(why.a), b = strlen(why.b), c = strlen(why.c);
	char *s = malloc(a + b + c + 1);

	if (s) {
		memcpy(s, why.a, a);
		memcpy(s + a, why.b, b);
		memcpy(s + a + b, why.c, c + 1);
	}
	return s;
}

static int add_module(struct mp_ctx *ctx, struct kmod_module *km, struct why why, int *out);
static int add_missing_deps(struct mp_ctx *ctx, int idx, struct kmod_list *deps);

static int add_list(struct mp_ctx *ctx, int idx, struct kmod_list *list, const char *what,
		    bool soft, bool reverse)
{
	struct mp_plan *p = mp_ctx_plan(ctx);
	struct kmod_list *l;
	int r = 0;

	kmod_list_foreach(l, list) {
		struct kmod_module *d = kmod_module_get_module(l);
		struct why why = { what, " ", p->mods[idx].name };
		int di;

		r = add_module(ctx, d, why, &di);
		kmod_module_unref(d);
		if (r < 0)
			break;
		r = reverse ? mp_graph_depend(p, di, idx, soft) : mp_graph_depend(p, idx, di, soft);
		if (r < 0)
			break;
	}
	return r;
}

/* The names with a softdep line, the first time a module is expanded (a
 * run whose modules are all live or built in never needs them). */
static const struct mp_strmap *softdeps_of(struct mp_ctx *ctx)
{
	struct mp_resolver *res = mp_ctx_resolver(ctx);

	if (!res->softdeps_read) {
		res->softdeps = softdep_names(mp_ctx_kmod(ctx));
		res->softdeps_read = true;
	}
	return res->softdeps;
}

static int expand(struct mp_ctx *ctx, struct kmod_module *km, int idx)
{
	const struct mp_strmap *softdeps = softdeps_of(ctx);
	struct kmod_list *deps, *pre = NULL, *post = NULL;
	int r, unused;

	deps = kmod_module_get_dependencies(km);
	r = add_list(ctx, idx, deps, "dependency of", false, false);
	if (r == 0)
		r = add_missing_deps(ctx, idx, deps);
	kmod_module_unref_list(deps);
	if (r < 0)
		return r;
	if (softdeps && mp_strmap_get(softdeps, kmod_module_get_name(km), &unused) < 0)
		return 0;
	if (kmod_module_get_softdeps(km, &pre, &post) == 0) {
		r = add_list(ctx, idx, pre, "softdep (pre) of", true, false);
		if (r == 0)
			r = add_list(ctx, idx, post, "softdep (post) of", true, true);
	}
	kmod_module_unref_list(pre);
	kmod_module_unref_list(post);
	return r;
}

/* The checks after a module's file is known: the kernel's
 * module_blacklist=, a modprobe.d install command, the options, a module
 * already live or built in. True when they settled M: no dependencies to
 * add. */
static bool settle(struct mp_ctx *ctx, struct mp_module *m, const char *name, bool install,
		   const char *options)
{
	const struct mp_env *env = mp_ctx_env(ctx);
	const struct mp_cmdline *cl = mp_ctx_cmdline(ctx);

	if (mp_cmdline_listed(cl->kblacklist, cl->nkblacklist, name)) {
		m->state = MP_SKIPPED;
		m->excluded = true;
		m->skip_why = strdup("module_blacklist= on the kernel command line");
		return true;
	}
	if (install) {
		m->state = MP_SKIPPED;
		m->excluded = true;
		m->skip_why = strdup("modprobe.d has an install command for it; not run, left to modprobe");
		mp_warn(ctx, "%s: modprobe.d install command not run; left to modprobe", name);
		return true;
	}
	m->options = mp_modopts_for(ctx, options, name);
	switch (env->live_state ? mp_initstate(env->sysfs_fd, name) : MP_INITSTATE_NONE) {
	case MP_INITSTATE_LIVE:
		m->state = MP_LIVE;
		return true;
	case MP_INITSTATE_BUILTIN:
		m->state = MP_BUILTIN;
		return true;
	default:
		return false;
	}
}

static int add_module(struct mp_ctx *ctx, struct kmod_module *km, struct why why, int *out)
{
	const struct mp_env *env = mp_ctx_env(ctx);
	struct mp_strmap *byname = mp_ctx_resolver(ctx)->byname;
	const char *name = kmod_module_get_name(km);
	const char *path;
	struct mp_module *m;
	int idx, r;

	if (mp_strmap_get(byname, name, out) == 0)
		return 0;
	r = mp_graph_add(mp_ctx_plan(ctx), name, &idx);
	if (r < 0 || (r = mp_strmap_put(byname, name, idx)) < 0)
		return r;
	*out = idx;
	m = &mp_ctx_plan(ctx)->mods[idx];
	m->why = why_str(why);
	if (m->why == NULL)
		return -ENOMEM;

	path = kmod_module_get_path(km);
	if (path == NULL) {
		if (is_builtin(km)) {
			m->state = MP_BUILTIN;
		} else {
			m->state = MP_FAILED;
			m->err = ENOENT;
			m->fail_why = mp_strdup_printf("not in %s/modules.dep", env->moddir);
			mp_log(ctx, MP_LOG_INFO, "%s: not in %s/modules.dep (ENOENT)", name, env->moddir);
		}
		return 0;
	}
	m->path = mp_moddir_real_path(ctx, path);
	if (m->path == NULL) {
		m->state = MP_FAILED;
		m->err = ENOMEM;
		return 0;
	}
	m->size = -1; /* looked at once it is to be loaded: mp_plan_files() */
	if (settle(ctx, m, name, kmod_module_get_install_commands(km) != NULL, kmod_module_get_options(km)))
		return 0;
	return expand(ctx, km, idx);
}

/*
 * The files of the modules still to load, before their waves: a size
 * for the expected load time, or, gone, the module fails here as it
 * would at its open. Not at planning: in the booted system most modules
 * asked for are live already (19 of 38 in a 16-vCPU bookworm boot), or
 * left to udev, and each stat() of a file the page cache does not hold
 * yet was a disk read before READY=1. with_all: every module's, for the
 * report (what duplicates did not read), after the boot went on.
 */
void mp_plan_files(struct mp_ctx *ctx, bool with_all)
{
	struct mp_plan *p = mp_ctx_plan(ctx);
	struct stat st;
	int i;

	for (i = 0; i < p->nmods; i++) {
		struct mp_module *m = &p->mods[i];

		if (m->size >= 0 || m->path == NULL || (!with_all && m->state != MP_PENDING))
			continue;
		if (stat(m->path, &st) == 0) {
			m->size = st.st_size;
			continue;
		}
		m->size = 0;
		if (m->state != MP_PENDING)
			continue;
		m->state = MP_FAILED;
		m->err = errno;
		m->fail_why = mp_strdup_printf("%s: %s", m->path, strerror(m->err));
		mp_log(ctx, MP_LOG_INFO, "%s: %s: %s", m->name, m->path, mp_errno_name(m->err));
	}
}

static bool in_list(struct kmod_list *list, const char *name)
{
	struct kmod_list *l;

	kmod_list_foreach(l, list) {
		struct kmod_module *km = kmod_module_get_module(l);
		bool same = strcmp(kmod_module_get_name(km), name) == 0;

		kmod_module_unref(km);
		if (same)
			return true;
	}
	return false;
}

/* A dependency libkmod left out although its file is there. */
static int add_by_name(struct mp_ctx *ctx, int idx, const char *name, int *di)
{
	struct kmod_module *km = NULL;
	struct why why = { "dependency of", " ", mp_ctx_plan(ctx)->mods[idx].name };
	int r = kmod_module_new_from_name(mp_ctx_kmod(ctx), name, &km);

	if (r < 0)
		return r;
	r = add_module(ctx, km, why, di);
	kmod_module_unref(km);
	return r;
}

/* A dependency whose file is gone: failed before any syscall. */
static int add_gone(struct mp_ctx *ctx, int idx, const char *name, const char *path, int e,
		    int *di)
{
	struct mp_plan *p = mp_ctx_plan(ctx);
	struct mp_module *d;
	int r = mp_graph_add(p, name, di);

	if (r < 0 || (r = mp_strmap_put(mp_ctx_resolver(ctx)->byname, name, *di)) < 0)
		return r;
	d = &p->mods[*di];
	d->why = mp_strdup_printf("dependency of %s", p->mods[idx].name);
	d->path = strdup(path);
	if (d->why == NULL || d->path == NULL)
		return -ENOMEM;
	d->state = MP_FAILED;
	d->err = e;
	d->fail_why = mp_strdup_printf("in modules.dep, but %s: %s", path, strerror(e));
	mp_log(ctx, MP_LOG_INFO, "%s: %s: %s", name, path, mp_errno_name(e));
	return 0;
}

/*
 * libkmod makes a module's dependency list from its modules.dep line, but
 * when one file on the line is gone it drops the whole list, with only a
 * log line: the module would then be loaded alone and fail in the kernel
 * with "unknown symbol". We walk the line ourselves: a dependency whose
 * file is there is planned as libkmod would have planned it, one whose
 * file is gone becomes a failed module of its own, so that only what
 * needs it is skipped, and the plan is the same in every request order.
 */
static int add_missing_deps(struct mp_ctx *ctx, int idx, struct kmod_list *deps)
{
	const struct mp_resolver *rs = mp_ctx_resolver(ctx);
	const char *line = rs->depbin ? mp_index_lookup(rs->depbin, rs->depbin_len,
							mp_ctx_plan(ctx)->mods[idx].name) : NULL;
	const char *p = line ? strchr(line, ':') : NULL;
	struct kmod_list *l;
	size_t listed = 0, got = 0;

	if (p == NULL)
		return 0;
	/* the usual case: libkmod kept every one */
	for (line = p + 1; *line != '\0'; line++)
		if (*line != ' ' && line[-1] == ' ')
			listed++;
	kmod_list_foreach(l, deps)
		got++;
	if (listed == got)
		return 0;
	for (p++;;) {
		char rel[PATH_MAX], path[PATH_MAX * 2], name[256], *ko;
		const char *base;
		struct stat st;
		size_t n;
		int di, r;

		p += strspn(p, " ");
		n = strcspn(p, " ");
		if (n == 0)
			return 0;
		if (n >= sizeof(rel)) {
			p += n;
			continue;
		}
		memcpy(rel, p, n);
		rel[n] = '\0';
		p += n;
		base = strrchr(rel, '/');
		if (mp_normalize_name(base ? base + 1 : rel, name, sizeof(name)) < 0)
			continue;
		ko = strstr(name, ".ko");
		if (ko)
			*ko = '\0';
		if (in_list(deps, name))
			continue;
		if (rel[0] == '/')
			snprintf(path, sizeof(path), "%s", rel);
		else
			snprintf(path, sizeof(path), "%s/%s", mp_ctx_env(ctx)->moddir, rel);
		if (mp_strmap_get(rs->byname, name, &di) == 0)
			r = 0;
		else if (stat(path, &st) == 0)
			r = add_by_name(ctx, idx, name, &di);
		else
			r = add_gone(ctx, idx, name, path, errno, &di);
		if (r == 0)
			r = mp_graph_depend(mp_ctx_plan(ctx), idx, di, false);
		if (r < 0)
			return r;
	}
}

static int note_missing(struct mp_plan *p, const char *name)
{
	char *copy = strdup(name);
	int cap = p->nmissing;

	if (copy == NULL || mp_append(&p->missing, &p->nmissing, &cap, sizeof(char *)) < 0) {
		free(copy);
		return -ENOMEM;
	}
	p->missing[p->nmissing - 1] = copy;
	return 0;
}

/* modprobe.d's blacklist, and ours of the command line */
static bool blacklisted(struct mp_ctx *ctx, const char *name)
{
	const struct mp_cmdline *cl = mp_ctx_cmdline(ctx);

	return mp_cmdline_listed(cl->blacklist, cl->nblacklist, name) || mp_known_blacklisted(ctx, name);
}

/* One request counts once on every module a per-request modprobe would
 * have gone through: the module and everything it waits for. The walk's
 * stack is kept: one the size of the plan per request was an mmap() and
 * a munmap() each in musl's malloc, 1,600 of them for a whole tree. */
static void count_request(struct mp_ctx *ctx, const struct mp_lookup *lk, enum mp_source src,
			  const char *modalias)
{
	bool cpu = modalias != NULL && mp_uevent_cpu_alias(modalias);
	bool grows = modalias != NULL && mp_uevent_class_alias(modalias);
	struct mp_plan *p = mp_ctx_plan(ctx);
	struct mp_resolver *rs = mp_ctx_resolver(ctx);
	size_t need = (size_t)p->nmods + 1;
	unsigned mark = ++rs->mark_epoch;
	int i, top = 0, *stack;

	if (rs->capstack < need) {
		stack = realloc(rs->stack, 2 * need * sizeof(int));
		if (stack == NULL)
			return;
		rs->stack = stack;
		rs->capstack = 2 * need;
	}
	stack = rs->stack;
	for (i = 0; i < lk->nmods; i++) {
		p->mods[lk->mods[i]].requests++;
		p->mods[lk->mods[i]].requests_cpu += cpu;
		p->mods[lk->mods[i]].requests_class += grows;
		if (p->mods[lk->mods[i]].mark == mark)
			continue;
		p->mods[lk->mods[i]].mark = mark;
		stack[top++] = lk->mods[i];
	}
	while (top > 0) {
		struct mp_module *m = &p->mods[stack[--top]];

		m->requests_with_dependents++;
		m->sources |= 1u << src | (p->modules_load_now ? MP_SRC_BIT_MODULES_LOAD : 0u);
		for (i = 0; i < m->ndeps; i++) {
			struct mp_module *d = &p->mods[m->deps[i].dep];

			if (d->mark != mark) {
				d->mark = mark;
				stack[top++] = m->deps[i].dep;
			}
		}
	}
}

static int new_lookup(struct mp_ctx *ctx, struct mp_strmap *lookups, const char *key,
		      struct mp_lookup **out)
{
	struct mp_resolver *rs = mp_ctx_resolver(ctx);
	int r = mp_append(&rs->resolved, &rs->nresolved, &rs->capresolved, sizeof(*rs->resolved));

	if (r < 0)
		return r;
	r = mp_strmap_put(lookups, key, rs->nresolved - 1);
	if (r < 0) {
		rs->nresolved--;
		return r;
	}
	*out = &rs->resolved[rs->nresolved - 1];
	return 0;
}

int mp_plan_resolve(struct mp_ctx *ctx, const char *alias, enum mp_source src, bool explicit_name,
		    enum mp_blacklist bl)
{
	struct mp_plan *p = mp_ctx_plan(ctx);
	struct mp_resolver *rs = mp_ctx_resolver(ctx);
	struct kmod_module **found = NULL;
	struct mp_lookup *lk;
	char key[PATH_MAX];
	int r, li, nfound = 0;

	if (mp_normalize_name(alias, key, sizeof(key)) < 0) {
		p->req_refused++;
		mp_warn(ctx, "refusing request \"%s\": not a module name or alias", alias);
		return 0;
	}
	if (mp_strmap_get(rs->lookups[bl], key, &li) == 0) {
		lk = &rs->resolved[li];
		goto counted;
	}

	r = new_lookup(ctx, rs->lookups[bl], key, &lk);
	if (r == 0)
		r = mp_plan_lookup(ctx, key, alias, &found, &nfound);
	if (r < 0)
		goto out;
	for (int i = 0; i < nfound; i++) {
		struct kmod_module *km = found[i];
		bool direct = strcmp(kmod_module_get_name(km), key) == 0;
		const char *src_name = mp_source_name(src);
		struct why why = { "requested (", src_name, ")" };
		int idx, *mods;

		/* As the loader the source stands in for: modprobe's
		 * blacklist stops aliases, not names; modprobe -b's,
		 * systemd-modules-load's and udev's stops names too. */
		if ((!direct || bl == MP_BL_NAMES) && blacklisted(ctx, kmod_module_get_name(km))) {
			if (direct)
				mp_log(ctx, MP_LOG_INFO, "%s: blacklisted, not loaded (%s)", key, src_name);
			continue;
		}
		if (!direct)
			why = (struct why){ src_name, ": ", alias };
		r = add_module(ctx, km, why, &idx);
		if (r < 0)
			goto out;
		mods = realloc(lk->mods, (size_t)(lk->nmods + 1) * sizeof(int));
		if (mods == NULL) {
			r = -ENOMEM;
			goto out;
		}
		lk->mods = mods;
		lk->mods[lk->nmods++] = idx;
	}
	lk->blacklisted = nfound > 0 && lk->nmods == 0;
	if (nfound == 0 && explicit_name) {
		mp_log(ctx, MP_LOG_INFO, "%s: module not found in %s (ENOENT)", alias, mp_ctx_env(ctx)->moddir);
		r = note_missing(p, alias);
		if (r < 0)
			goto out;
	}

counted:
	if (lk->blacklisted)
		p->req_blacklisted++;
	else if (lk->nmods == 0 && explicit_name)
		p->req_missing++;
	else if (lk->nmods == 0)
		p->req_unmatched++;
	/* a device's modalias, not a name someone wrote down */
	count_request(ctx, lk, src, explicit_name ? NULL : key);
	r = 0;
out:
	mp_plan_lookup_free(found, nfound);
	return r;
}
