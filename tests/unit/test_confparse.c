// SPDX-License-Identifier: LGPL-2.1-or-later
/* confparse.c: the modules-load.d syntax (comments, blanks, CRLF, a line
 * that is not a module name). */

#include "internal.h"
#define T_SUITE "confparse"
#include "t.h"

struct names { char v[8][64]; int n, bad; unsigned badline; };

static int on_name(void *data, const char *name, unsigned line)
{
	struct names *n = data;

	if (name == NULL) {
		n->bad++;
		n->badline = line;
		return 0;
	}
	if (n->n < 8)
		snprintf(n->v[n->n++], sizeof(n->v[0]), "%s", name);
	return 0;
}

static void conf_syntax(void)
{
	static const char text[] = "# comment\n  ext4  \n\n; also comment\nvirtio-blk\r\n"
				   "two words\n\t#indented comment\nlast";
	struct names n = { .n = 0 };

	CHECK(mp_conf_parse(text, sizeof(text) - 1, on_name, &n) == 0);
	CHECK(n.n == 3);
	CHECK_STR(n.v[0], "ext4");
	CHECK_STR(n.v[1], "virtio-blk");
	CHECK_STR(n.v[2], "last");
	CHECK(n.bad == 1 && n.badline == 6);
}

int main(void)
{
	RUN(conf_syntax);
	return t_failed ? 1 : 0;
}
