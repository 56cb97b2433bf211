// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A plan baked at image build (baked_io.c writes it): what libkmod would
 * answer for the image's own module tree, so that early boot can resolve
 * its requests without libkmod. This file only reads the text and answers
 * lookups; it knows nothing of the context, so a fuzzer can feed it.
 *
 *   modpreload-plan 1
 *   kernel KVER
 *   key SIZE HASH          modules.dep.bin's size and FNV-1a 64 (hex)
 *   module NAME PATH       PATH relative to the module directory; "-": built in
 *   deps NAME...           of the module above, as libkmod lists them
 *   pre NAME... / post NAME...   its softdeps (modules.softdep and modprobe.d)
 *   options TEXT           modprobe.d's, without the command line's
 *   install                modprobe.d has an install command for it
 *   alias PATTERN NAME     modules.alias; balias: the built-in ones
 *                          (modules.builtin.modinfo)
 *   blacklist NAME         modprobe.d's
 *   nocover PATTERN        a name modprobe.d's aliases or install commands
 *                          answer: left to libkmod
 *
 * The baker writes patterns normalised as libkmod's alias_normalize()
 * does, and sorted by their literal head; a lookup normalises its key the
 * same way.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* An alias's literal head: every key it matches starts with it, so a
 * key's own prefixes find every alias that may match it. (Not strcspn():
 * musl's builds a table at every call, and a plan has thousands.) */
static size_t literal_len(const char *pattern)
{
	const char *p = pattern;

	while (*p != '\0' && *p != '*' && *p != '?' && *p != '[')
		p++;
	return (size_t)(p - pattern);
}

uint64_t mp_baked_hash(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* libkmod's alias_normalize(): '-' is '_' outside [...]. */
int mp_baked_normalize(const char *in, char *out, size_t outsz)
{
	size_t i;
	bool set = false;

	for (i = 0; in[i] != '\0'; i++) {
		if (i + 1 >= outsz)
			return -ENAMETOOLONG;
		if (in[i] == '[')
			set = true;
		else if (in[i] == ']' && !set)
			return -EINVAL;
		else if (in[i] == ']')
			set = false;
		out[i] = in[i] == '-' && !set ? '_' : in[i];
	}
	if (set || outsz == 0)
		return -EINVAL;
	out[i] = '\0';
	return 0;
}

void mp_baked_free(struct mp_baked *b)
{
	int i;

	if (b == NULL)
		return;
	for (i = 0; i < b->nmods; i++)
		free(b->mods[i].deps);
	free(b->mods);
	free(b->aliases);
	free(b->nocover);
	mp_strmap_free(b->byname);
	mp_strmap_free(b->blacklist);
	free(b->text);
	free(b);
}

/* The next word of a line, cut in place; words are short, so a plain
 * loop beats strchr()'s setup. */
static char *word(char **p)
{
	char *w = *p, *e = w;

	if (*w == '\0')
		return NULL;
	while (*e != '\0' && *e != ' ')
		e++;
	*p = *e ? e + 1 : e;
	*e = '\0';
	return w;
}

/* A path from the file must stay beneath the module directory. */
static bool path_ok(const char *path)
{
	return path[0] != '/' && strstr(path, "..") == NULL && strlen(path) < PATH_MAX / 2;
}

static bool name_ok(const char *name)
{
	char norm[256];

	return mp_name_is_safe(name) && mp_normalize_name(name, norm, sizeof(norm)) == 0 &&
	       strcmp(norm, name) == 0;
}

/* Dependency names, resolved once every module is known. */
struct pending {
	int mod;
	char *names;
	int kind; /* 0 deps, 1 pre, 2 post */
};

/* Compares an alias's head with the first n bytes of key, as strcmp().
 * Sorted neighbours share most of their heads: a plain loop. */
static int cmp_head(const struct mp_baked_alias *a, const char *key, size_t n)
{
	const unsigned char *x = (const unsigned char *)a->pattern, *y = (const unsigned char *)key;
	size_t i, m = a->head < n ? a->head : n;

	for (i = 0; i < m; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return (a->head > n) - (a->head < n);
}

/* The baker sorts each kind of alias by its head, so that a lookup can
 * halve its way to them; the file's order is checked, not trusted. */
static int put_alias(struct mp_baked *b, char *pattern, const char *name, int tier)
{
	struct mp_baked_alias *a, *prev = b->naliases ? &b->aliases[b->naliases - 1] : NULL;
	size_t n = literal_len(pattern);
	int mod, r;

	if (n == 0 || n >= PATH_MAX || mp_strmap_get(b->byname, name, &mod) < 0 ||
	    (prev && (prev->tier > tier || (prev->tier == tier && cmp_head(prev, pattern, n) > 0))))
		return -EINVAL;
	r = mp_append(&b->aliases, &b->naliases, &b->capaliases, sizeof(*b->aliases));
	if (r < 0)
		return r;
	a = &b->aliases[b->naliases - 1];
	a->pattern = pattern;
	a->head = (unsigned)n;
	a->mod = mod;
	a->tier = tier;
	if (tier == 0)
		b->ntier0 = b->naliases;
	return 0;
}

static int resolve_names(struct mp_baked *b, struct pending *pd, int npd)
{
	int i;

	for (i = 0; i < npd; i++) {
		struct mp_baked_mod *m = &b->mods[pd[i].mod];
		char *p = pd[i].names, *w;
		int *deps, di;

		if (pd[i].kind < m->nkinds)
			return -EINVAL; /* a kind twice, or out of order */
		while ((w = word(&p)) != NULL) {
			if (mp_strmap_get(b->byname, w, &di) < 0)
				return -EINVAL;
			deps = realloc(m->deps, (size_t)(m->ndeps[0] + m->ndeps[1] + m->ndeps[2] + 1) *
				       sizeof(int));
			if (deps == NULL)
				return -ENOMEM;
			m->deps = deps;
			m->deps[m->ndeps[0] + m->ndeps[1] + m->ndeps[2]] = di;
			m->ndeps[pd[i].kind]++;
		}
		m->nkinds = pd[i].kind + 1;
	}
	return 0;
}

static int parse_line(struct mp_baked *b, char *line, struct pending **pd, int *npd, int *cap)
{
	char *p = line, *kw = word(&p), *a, *c;
	struct mp_baked_mod *m = b->nmods ? &b->mods[b->nmods - 1] : NULL;
	int r, kind;

	if (kw == NULL)
		return 0;
	if (strcmp(kw, "kernel") == 0) {
		a = word(&p);
		if (a == NULL || *p || b->kver[0] || strlen(a) >= sizeof(b->kver))
			return -EINVAL;
		snprintf(b->kver, sizeof(b->kver), "%s", a);
		return 0;
	}
	if (strcmp(kw, "key") == 0) {
		/* "key SIZE HASH": decimal, then 16 hex digits (no sscanf():
		 * musl's scanf brings 10 KiB of float parsing along) */
		char *e1 = NULL, *e2 = NULL;

		a = word(&p);
		c = word(&p);
		if (b->have_key || a == NULL || c == NULL || *p || !isdigit((unsigned char)a[0]) ||
		    !isxdigit((unsigned char)c[0]) || strlen(c) > 16)
			return -EINVAL;
		errno = 0;
		b->key_size = strtoull(a, &e1, 10);
		b->key_hash = strtoull(c, &e2, 16);
		if (errno || *e1 || *e2)
			return -EINVAL;
		b->have_key = true;
		return 0;
	}
	if (strcmp(kw, "module") == 0) {
		a = word(&p);
		c = word(&p);
		if (a == NULL || c == NULL || *p || !name_ok(a) || (strcmp(c, "-") != 0 && !path_ok(c)) ||
		    mp_strmap_get(b->byname, a, &r) == 0)
			return -EINVAL;
		r = mp_append(&b->mods, &b->nmods, &b->capmods, sizeof(*b->mods));
		if (r < 0 || (r = mp_strmap_put(b->byname, a, b->nmods - 1)) < 0)
			return r;
		m = &b->mods[b->nmods - 1];
		memset(m, 0, sizeof(*m));
		m->name = a;
		m->path = strcmp(c, "-") == 0 ? NULL : c;
		return 0;
	}
	if (strcmp(kw, "alias") == 0 || strcmp(kw, "balias") == 0) {
		a = word(&p);
		c = word(&p);
		return a == NULL || c == NULL || *p ? -EINVAL : put_alias(b, a, c, kw[0] == 'b');
	}
	if (strcmp(kw, "blacklist") == 0) {
		a = word(&p);
		return a == NULL || *p ? -EINVAL : mp_strmap_put(b->blacklist, a, 0);
	}
	if (strcmp(kw, "nocover") == 0) {
		a = word(&p);
		if (a == NULL || *p || mp_baked_normalize(a, a, strlen(a) + 1) < 0)
			return -EINVAL;
		r = mp_append(&b->nocover, &b->nnocover, &b->capnocover, sizeof(char *));
		if (r == 0)
			b->nocover[b->nnocover - 1] = a;
		return r;
	}
	if (m == NULL || m->path == NULL)
		return -EINVAL; /* what follows is a loadable module's */
	if (strcmp(kw, "options") == 0) {
		if (m->options || *p == '\0')
			return -EINVAL;
		m->options = p;
		return 0;
	}
	if (strcmp(kw, "install") == 0) {
		if (*p || m->install)
			return -EINVAL;
		m->install = true;
		return 0;
	}
	kind = strcmp(kw, "deps") == 0 ? 0 : strcmp(kw, "pre") == 0 ? 1 : strcmp(kw, "post") == 0 ? 2 : -1;
	if (kind < 0)
		return -EINVAL;
	r = mp_append(pd, npd, cap, sizeof(**pd));
	if (r < 0)
		return r;
	(*pd)[*npd - 1] = (struct pending){ b->nmods - 1, p, kind };
	return 0;
}

int mp_baked_parse(const char *buf, size_t len, struct mp_baked **out)
{
	struct mp_baked *b = calloc(1, sizeof(*b));
	_cleanup_free_ struct pending *pd = NULL;
	int npd = 0, cap = 0, r = 0;
	char *line, *next;

	*out = NULL;
	if (b == NULL)
		return -ENOMEM;
	b->text = malloc(len + 1);
	b->byname = mp_strmap_new();
	b->blacklist = mp_strmap_new();
	if (b->text == NULL || b->byname == NULL || b->blacklist == NULL) {
		r = -ENOMEM;
		goto out;
	}
	memcpy(b->text, buf, len);
	b->text[len] = '\0';
	r = -EINVAL;
	if (len > MP_BAKED_MAX_BYTES || memchr(buf, '\0', len) != NULL ||
	    strncmp(b->text, "modpreload-plan 1\n", 18) != 0)
		goto out;
	for (line = b->text + 18; *line != '\0' && r != -ENOMEM; line = next) {
		next = strchr(line, '\n');
		if (next == NULL) {
			r = -EINVAL; /* cut short */
			goto out;
		}
		*next++ = '\0';
		r = parse_line(b, line, &pd, &npd, &cap);
		if (r < 0)
			goto out;
	}
	r = b->kver[0] && b->have_key ? resolve_names(b, pd, npd) : -EINVAL;
out:
	if (r < 0) {
		mp_baked_free(b);
		return r;
	}
	*out = b;
	return 0;
}

static bool nocover(const struct mp_baked *b, const char *key)
{
	int i;

	for (i = 0; i < b->nnocover; i++)
		if (fnmatch(b->nocover[i], key, 0) == 0)
			return true;
	return false;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The first in [lo, hi) whose head's byte n is above c (or, with
 * above false, not below c); all of them have more than n bytes of head. */
static int bound(const struct mp_baked *b, int lo, int hi, size_t n, unsigned char c, bool above)
{
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		unsigned char h = (unsigned char)b->aliases[mid].pattern[n];

		if (h < c || (above && h == c))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The modules whose aliases of one tier match key, in libkmod's order:
 * depmod's module order (the file's), once per alias as libkmod lists
 * them. The heads are sorted, so those that start with key's first n
 * bytes are a range, which narrows byte by byte; at its front are those
 * whose whole head is those n bytes: the ones to try.
 */
static int match_aliases(const struct mp_baked *b, const char *key, int tier, int **hits, int *nhits)
{
	size_t n, len = strlen(key);
	int cap = 0, r, lo = tier ? b->ntier0 : 0, hi = tier ? b->naliases : b->ntier0;

	for (n = 0; lo < hi; n++) {
		for (; lo < hi && b->aliases[lo].head == n; lo++) {
			if (fnmatch(b->aliases[lo].pattern, key, 0) != 0)
				continue;
			r = mp_append(hits, nhits, &cap, sizeof(int));
			if (r < 0)
				return r;
			(*hits)[*nhits - 1] = b->aliases[lo].mod;
		}
		if (n == len)
			break;
		lo = bound(b, lo, hi, n, (unsigned char)key[n], false);
		hi = bound(b, lo, hi, n, (unsigned char)key[n], true);
	}
	if (*nhits > 1)
		qsort(*hits, (size_t)*nhits, sizeof(int), cmp_int);
	return 0;
}

/*
 * What libkmod's kmod_module_new_from_lookup() would list for key, in its
 * order: a module of that name, the aliases, a built-in module's name,
 * the built-in aliases. 1 and the modules (none: nothing matches), or 0
 * when the answer is not baked in (modprobe.d aliases, symbols).
 */
int mp_baked_lookup(const struct mp_baked *b, const char *key, int **mods, int *nmods)
{
	char norm[PATH_MAX];
	int i, r;

	*mods = NULL;
	*nmods = 0;
	if (mp_baked_normalize(key, norm, sizeof(norm)) < 0 || strncmp(norm, "symbol:", 7) == 0 ||
	    nocover(b, norm))
		return 0;
	if (mp_strmap_get(b->byname, norm, &i) == 0 && b->mods[i].path != NULL) {
		*mods = malloc(sizeof(int));
		if (*mods == NULL)
			return -ENOMEM;
		**mods = i;
		*nmods = 1;
		return 1;
	}
	r = match_aliases(b, norm, 0, mods, nmods);
	if (r == 0 && *nmods == 0 && mp_strmap_get(b->byname, norm, &i) == 0) {
		r = mp_append(mods, nmods, &(int){ 0 }, sizeof(int));
		if (r == 0)
			(*mods)[0] = i;
	}
	if (r == 0 && *nmods == 0)
		r = match_aliases(b, norm, 1, mods, nmods);
	if (r < 0) {
		free(*mods);
		*mods = NULL;
		*nmods = 0;
		return r;
	}
	return 1;
}
