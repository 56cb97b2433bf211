// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer: modules-load.d syntax. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static int check(void *data, const char *name, unsigned line)
{
	size_t *lines = data;

	/* a name never has blanks, never starts a comment, is never empty */
	if (name && (name[0] == '\0' || name[0] == '#' || name[0] == ';' || strpbrk(name, " \t\n")))
		abort();
	if (line == 0 || line > *lines)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	size_t lines = 1, i;

	for (i = 0; i < size; i++)
		if (data[i] == '\n')
			lines++;
	mp_conf_parse((const char *)data, size, check, &lines);
	return 0;
}
