// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer: uevent files and netlink uevent messages. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char out[64];

	if (mp_uevent_modalias((const char *)data, size, out, sizeof(out)) == 0 &&
	    (strlen(out) == 0 || strlen(out) >= sizeof(out)))
		abort();
	mp_uevent_action((const char *)data, size, out, sizeof(out));
	mp_uevent_devpath((const char *)data, size, out, sizeof(out));
	return 0;
}
