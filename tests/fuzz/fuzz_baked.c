// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer: the plan baked at image build (baked.c), read at every boot
 * from a file the image carries. Whatever it holds, what the parser keeps
 * is safe names, paths beneath the module directory, edges and aliases
 * that name modules of the plan, and lookups that answer within it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void lookup(const struct mp_baked *b, const char *key)
{
	int *mods, n, i;

	if (mp_baked_lookup(b, key, &mods, &n) < 0)
		return;
	for (i = 0; i < n; i++)
		if (mods[i] < 0 || mods[i] >= b->nmods)
			abort();
	free(mods);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct mp_baked *b = NULL;
	int i, j, r = mp_baked_parse((const char *)data, size, &b);

	if (r < 0) {
		if (b != NULL || (r != -EINVAL && r != -ENOMEM))
			abort();
		return 0;
	}
	if (b == NULL || b->kver[0] == '\0' || !b->have_key)
		abort();
	for (i = 0; i < b->nmods; i++) {
		const struct mp_baked_mod *m = &b->mods[i];
		int n = m->ndeps[0] + m->ndeps[1] + m->ndeps[2];

		if (!mp_name_is_safe(m->name) || (m->path && (m->path[0] == '/' || strstr(m->path, ".."))))
			abort();
		for (j = 0; j < n; j++)
			if (m->deps[j] < 0 || m->deps[j] >= b->nmods)
				abort();
		lookup(b, m->name);
	}
	for (i = 0; i < b->naliases; i++) {
		const struct mp_baked_alias *a = &b->aliases[i];

		if (a->mod < 0 || a->mod >= b->nmods || a->head == 0 || a->head > strlen(a->pattern))
			abort();
		lookup(b, a->pattern);
	}
	lookup(b, "pci:v00001234d00005678");
	mp_baked_free(b);
	return 0;
}
