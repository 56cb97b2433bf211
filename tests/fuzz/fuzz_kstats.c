// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer: /sys/kernel/debug/modules/stats. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static struct mp_kstats s;

	if (mp_kstats_parse((const char *)data, size, &s) == 0) {
		if (s.nfields < 1 || s.nfields > MP_KSTATS_MAX_FIELDS || s.ndups > MP_KSTATS_MAX_DUPS)
			abort();
		for (int i = 0; i < s.nfields; i++)
			if (strlen(s.fields[i].label) >= sizeof(s.fields[i].label))
				abort();
	}
	return 0;
}
