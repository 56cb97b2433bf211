// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel command line's quotes, as the kernel's next_arg() reads them
 * (a word may open with a quote around all of it, or have one right after
 * '='; only those and the word's last quote go), and module options as
 * libkmod takes them from /proc/cmdline, so that an option read from a
 * copy of the command line is the same text as libkmod's.
 */
#include <stdlib.h>

#include "internal.h"
#define T_SUITE "cmdline-rel"
#include "t.h"

struct seen {
	int n;
	char keys[12][64];
	char vals[12][64];
};

static int collect(void *data, const char *key, const char *value)
{
	struct seen *s = data;

	if (s->n >= 12)
		return 0;
	snprintf(s->keys[s->n], sizeof(s->keys[0]), "%s", key);
	snprintf(s->vals[s->n], sizeof(s->vals[0]), "%s", value ? value : "(none)");
	s->n++;
	return 0;
}

/* next_arg(): which quotes go, which stay, where a word ends */
static void next_arg_quotes(void)
{
	struct seen s = { .n = 0 };

	CHECK(mp_cmdline_foreach("a.p=x,\"y z\" b=\"c d\" \"e=f g\" h=i\"j k\"l "
				 "\"m=\"n\"\" o=\"p q\"r s\"t\"=u v\tw=\"\"\r\n\vx\f", collect, &s) == 0);
	CHECK(s.n == 10);
	CHECK_STR(s.keys[0], "a.p");
	CHECK_STR(s.vals[0], "x,\"y z\"");
	CHECK_STR(s.keys[1], "b");
	CHECK_STR(s.vals[1], "c d");
	CHECK_STR(s.keys[2], "e");
	CHECK_STR(s.vals[2], "f g");
	CHECK_STR(s.keys[3], "h");
	CHECK_STR(s.vals[3], "i\"j k\"l");
	/* a leading quote, one after '=': that one and the last go, no more */
	CHECK_STR(s.keys[4], "m");
	CHECK_STR(s.vals[4], "n\"");
	/* a quote after '=' and the last one go, one in between stays */
	CHECK_STR(s.keys[5], "o");
	CHECK_STR(s.vals[5], "p q\"r");
	CHECK_STR(s.keys[6], "s\"t\"");
	CHECK_STR(s.vals[6], "u");
	/* every blank the kernel's isspace() knows splits */
	CHECK_STR(s.keys[7], "v");
	CHECK_STR(s.keys[8], "w");
	CHECK_STR(s.vals[8], "");
	CHECK_STR(s.keys[9], "x");

	/* an open quote runs to the end, blanks and all */
	s.n = 0;
	CHECK(mp_cmdline_foreach("a=\"b c d=e", collect, &s) == 0);
	CHECK(s.n == 1);
	CHECK_STR(s.vals[0], "b c d=e");
	/* "--" ends the kernel's part, quoted or not */
	s.n = 0;
	CHECK(mp_cmdline_foreach("a \"--\" b", collect, &s) == 0);
	CHECK(s.n == 1);
}

/* each option as libkmod takes it from /proc/cmdline: the word's text after
 * "module.", a leading quote moved after '=' */
static void options_as_libkmod(void)
{
	struct mp_cmdline c;

	CHECK(mp_cmdline_parse("a.p=x,\"y z\" \"a.q=b c\" a.r=\"s t\" a-b.s=\"u\"v "
			       "a.t=\"tab\there\" a.u", &c) == 0);
	CHECK(c.noptions == 6);
	if (c.noptions == 6) {
		CHECK_STR(c.options[0].module, "a");
		CHECK_STR(c.options[0].param, "p=x,\"y z\"");
		CHECK_STR(c.options[1].param, "q=\"b c\"");
		CHECK_STR(c.options[2].param, "r=\"s t\"");
		CHECK_STR(c.options[3].module, "a_b");
		CHECK_STR(c.options[3].param, "s=\"u\"v");
		/* libkmod makes a tab in an option a space */
		CHECK_STR(c.options[4].param, "t=\"tab here\"");
		CHECK_STR(c.options[5].param, "u");
	}
	mp_cmdline_free(&c);
}

/* what libkmod does not take for an option is not one of ours either */
static void options_not_taken(void)
{
	struct mp_cmdline c;

	CHECK(mp_cmdline_parse("\"a.p b=3\" a.b.c=4 \"a.p\" a\"b\".p=5 a.p\"q\"=6 a.ok=7 "
			       "a.open=\"never closed", &c) == 0);
	CHECK(c.noptions == 1);
	if (c.noptions == 1)
		CHECK_STR(c.options[0].param, "ok=7");
	mp_cmdline_free(&c);
	/* module names still normalised; rd.* and modprobe.* are not modules */
	CHECK(mp_cmdline_parse("rd.x.y=1 modprobe.blacklist=\"a,b\" x-y.z=\"1 2\"", &c) == 0);
	CHECK(c.noptions == 1 && c.nblacklist == 2);
	if (c.noptions == 1) {
		CHECK_STR(c.options[0].module, "x_y");
		CHECK_STR(c.options[0].param, "z=\"1 2\"");
	}
	mp_cmdline_free(&c);
}

int main(void)
{
	RUN(next_arg_quotes);
	RUN(options_as_libkmod);
	RUN(options_not_taken);
	return t_failed ? 1 : 0;
}
