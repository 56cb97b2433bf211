// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer: the profile of the last boot (profile.c), read at every boot
 * from a file nobody checked. Whatever it holds, what the parser keeps
 * is a kernel version and safe, normalised, bounded names and times. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct mp_profile *p = NULL;
	uint32_t us;
	int i, r = mp_profile_parse((const char *)data, size, &p);

	if (r < 0) {
		if (p != NULL || (r != -EINVAL && r != -EPROTONOSUPPORT && r != -E2BIG && r != -ENOMEM))
			abort();
		return 0;
	}
	if (p == NULL || p->kver[0] == '\0' || strchr(p->kver, ' ') || p->n > MP_PROFILE_MAX_MODULES)
		abort();
	for (i = 0; i < p->n; i++) {
		const char *name = p->entries[i].name;

		if (!mp_name_is_safe(name) || strchr(name, '-') || strlen(name) >= MP_PROFILE_MAX_LINE ||
		    p->entries[i].us > MP_PROFILE_MAX_US)
			abort();
		if (mp_profile_get(p, name, &us) != 0 || us != p->entries[i].us)
			abort();
	}
	mp_profile_free(p);
	return 0;
}
