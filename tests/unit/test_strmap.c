// SPDX-License-Identifier: LGPL-2.1-or-later
/* strmap.c: the string map, put, get and overwrite, 5000 keys. */

#include "internal.h"
#define T_SUITE "strmap"
#include "t.h"

static void strmap(void)
{
	struct mp_strmap *m = mp_strmap_new();
	char key[32];
	int i, v, bad = 0;

	for (i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		CHECK(mp_strmap_put(m, key, i) == 0);
	}
	for (i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		if (mp_strmap_get(m, key, &v) != 0 || v != i)
			bad++;
	}
	CHECK(bad == 0);
	CHECK(mp_strmap_get(m, "nope", &v) < 0);
	CHECK(mp_strmap_put(m, "k7", 70) == 0 && mp_strmap_get(m, "k7", &v) == 0 && v == 70);
	mp_strmap_free(m);
}

int main(void)
{
	RUN(strmap);
	return t_failed ? 1 : 0;
}
