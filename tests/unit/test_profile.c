// SPDX-License-Identifier: LGPL-2.1-or-later
/* profile.c: the profile's first line, as sscanf would have read it. */
#include <errno.h>
#include <stdio.h>

#include "internal.h"
#define T_SUITE "profile"
#include "t.h"

/*
 * A profile's first line is read as sscanf("modpreload-profile %u%c")
 * == 1 read it (the program no longer links scanf): the same lines are
 * taken, and the same refused.
 */
static void profile_header(void)
{
	static const char *const heads[] = {
		"modpreload-profile 1", "modpreload-profile\t 1", "modpreload-profile1",
		"modpreload-profile +1", "modpreload-profile 01", "modpreload-profile 2",
		"modpreload-profile 4294967297", "modpreload-profile 1 ", "modpreload-profile 1x",
		"modpreload-profile", "modpreload-profile ", "modpreload-profile x",
		"modpreload-profile -", "modpreload-profil 1", " modpreload-profile 1", "",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(heads); i++) {
		char buf[128], extra;
		unsigned version;
		struct mp_profile *p = NULL;
		int want, r, n = snprintf(buf, sizeof(buf), "%s\nkernel 1.0\nx 10\n", heads[i]);

		if (sscanf(heads[i], "modpreload-profile %u%c", &version, &extra) != 1)
			want = -EINVAL;
		else
			want = version == MP_PROFILE_VERSION ? 0 : -EPROTONOSUPPORT;
		r = mp_profile_parse(buf, (size_t)n, &p);
		if (r != want)
			fprintf(stderr, "\"%s\": %d, sscanf says %d\n", heads[i], r, want);
		CHECK(r == want);
		mp_profile_free(p);
	}
}

int main(void)
{
	RUN(profile_header);
	return t_failed ? 1 : 0;
}
