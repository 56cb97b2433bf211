// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One lookup of a name or an alias: the modules it finds, before any
 * blacklist, as modprobe's would. From the last boot's lookups where they
 * hold (known.c): on the booted system, before udevd may start, libkmod's
 * wildcard walk of modules.alias.bin for every device was two fifths of
 * the run's instructions, for the answer of the boot before. Every lookup,
 * from there or from libkmod, is kept for the next boot.
 */
#include <errno.h>
#include <libkmod.h>
#include <string.h>

#include "internal.h"

#define NAMES_MAX 64 /* a modalias matches a handful of modules */

void mp_plan_lookup_free(struct kmod_module **mods, int n)
{
	int i;

	for (i = 0; i < n; i++)
		kmod_module_unref(mods[i]);
	free(mods);
}

static int push(struct kmod_module ***mods, int *n, struct kmod_module *km)
{
	struct kmod_module **p = realloc(*mods, (size_t)(*n + 1) * sizeof(**mods));

	if (p == NULL) {
		kmod_module_unref(km);
		return -ENOMEM;
	}
	*mods = p;
	p[(*n)++] = km;
	return 0;
}

/* the last boot's names for key: a module each, by its name */
static int from_known(struct kmod_ctx *kmod, const char *names, struct kmod_module ***mods, int *n)
{
	char name[256];
	int r = 0;

	while (r == 0 && *names) {
		size_t len = strcspn(names, " ");
		struct kmod_module *km = NULL;

		if (len >= sizeof(name))
			return -EBADMSG; /* known.c let through module names alone */
		memcpy(name, names, len);
		name[len] = '\0';
		names += len + (names[len] == ' ');
		r = kmod_module_new_from_name(kmod, name, &km);
		if (r == 0)
			r = push(mods, n, km);
	}
	return r;
}

/*
 * The modules key finds: *mods holds *n references (mp_plan_lookup_free).
 * A failed lookup is said and finds nothing; -ENOMEM is the caller's.
 */
int mp_plan_lookup(struct mp_ctx *ctx, const char *key, const char *alias, struct kmod_module ***mods, int *n)
{
	struct kmod_ctx *kmod = mp_ctx_kmod(ctx);
	const char *known = mp_known_lookup(ctx, key), *names[NAMES_MAX];
	struct kmod_list *list = NULL, *l;
	int r, nn = 0;

	*mods = NULL;
	*n = 0;
	if (known) {
		r = from_known(kmod, known, mods, n);
		if (r == 0) {
			mp_ctx_result(ctx)->lookups_known++;
			goto learn;
		}
		mp_plan_lookup_free(*mods, *n);
		*mods = NULL;
		*n = 0;
		if (r == -ENOMEM)
			return r;
	}
	/* a bad modules.symbols.bin is libkmod's to read past, not ours */
	if (strncmp(key, "symbol:", 7) == 0 && mp_moddir_symbols(ctx) < 0)
		return 0;
	mp_ctx_result(ctx)->lookups_libkmod++;
	r = kmod_module_new_from_lookup(kmod, key, &list);
	if (r < 0) {
		mp_warn(ctx, "%s: lookup failed (%s)", alias, mp_errno_name(-r));
		return 0;
	}
	kmod_list_foreach(l, list) {
		r = push(mods, n, kmod_module_get_module(l));
		if (r < 0)
			break;
	}
	kmod_module_unref_list(list);
	if (r < 0)
		return r;
	/* symbols' lookups read an index not checked at the start */
	if (strncmp(key, "symbol:", 7) == 0)
		return 0;
learn:
	if (*n > NAMES_MAX)
		return 0;
	for (nn = 0; nn < *n; nn++)
		names[nn] = kmod_module_get_name((*mods)[nn]);
	mp_known_learn(ctx, key, names, nn);
	return 0;
}
