// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * modules-load.d syntax, as systemd-modules-load reads it: one module name
 * per line, surrounding blanks ignored, '#' and ';' start a comment line.
 * A line with blanks inside is not a module name: it is reported, so a
 * "foo bar" typo does not silently request "foo".
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

int mp_conf_parse(const char *buf, size_t len, mp_conf_cb cb, void *data)
{
	char name[256];
	size_t pos = 0;
	unsigned lineno = 0;

	while (pos < len) {
		size_t start = pos, end, i;
		int r;

		while (pos < len && buf[pos] != '\n')
			pos++;
		end = pos;
		pos++; /* past '\n' */
		lineno++;

		while (start < end && is_blank(buf[start]))
			start++;
		while (end > start && is_blank(buf[end - 1]))
			end--;
		if (start == end || buf[start] == '#' || buf[start] == ';')
			continue;

		if (end - start >= sizeof(name)) {
			r = cb(data, NULL, lineno);
		} else {
			bool ok = true;

			for (i = start; i < end; i++)
				if (is_blank(buf[i]) || buf[i] == '\0')
					ok = false;
			memcpy(name, buf + start, end - start);
			name[end - start] = '\0';
			r = cb(data, ok ? name : NULL, lineno);
		}
		if (r != 0)
			return r;
	}
	return 0;
}
