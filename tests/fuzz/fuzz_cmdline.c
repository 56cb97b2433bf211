// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer: the kernel command line, as the preloader and /init read it. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = malloc(size + 1);
	struct mp_cmdline c;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (mp_cmdline_parse(text, &c) == 0) {
		/* what came out is well formed */
		for (int i = 0; i < c.noptions; i++)
			if (strlen(c.options[i].module) == 0 || strchr(c.options[i].module, '-'))
				abort();
		mp_cmdline_free(&c);
	}
	free(text);
	return 0;
}
