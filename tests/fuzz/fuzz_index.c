// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer: the bounds check of depmod's .bin indexes, and the lookup
 * of a module's dependency line, must never read outside the buffer,
 * whatever the offsets say. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	/* an exact-size copy, so ASan sees any read past the end */
	unsigned char *copy = malloc(size ? size : 1);

	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	mp_index_check_buf(copy, size);
	/* the lookup does not rely on the check having passed */
	mp_index_lookup(copy, size, "a");
	mp_index_lookup(copy, size, "ext4");
	mp_index_lookup(copy, size, "");
	free(copy);
	return 0;
}
