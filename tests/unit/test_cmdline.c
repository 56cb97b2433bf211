// SPDX-License-Identifier: LGPL-2.1-or-later
/* cmdline.c: the kernel command line split into words as the kernel's
 * next_arg() splits them (which quotes go, which stay), and what modpreload
 * takes from it (modules, jobs, timeout, blacklists, module options, the
 * latter as libkmod takes them from /proc/cmdline). */

#include <stdlib.h>

#include "internal.h"
#define T_SUITE "cmdline"
#include "t.h"

struct seen { char keys[16][64]; char vals[16][128]; int n; };

static int collect(void *data, const char *key, const char *value)
{
	struct seen *s = data;

	if (s->n == 16)
		return 0;
	snprintf(s->keys[s->n], sizeof(s->keys[0]), "%s", key);
	snprintf(s->vals[s->n], sizeof(s->vals[0]), "%s", value ? value : "(none)");
	s->n++;
	return 0;
}

static void cmdline_words(void)
{
	struct seen s = { .n = 0 };

	CHECK(mp_cmdline_foreach(" root=/dev/vda1  ro quiet foo=\"a b\" \"bar=c d\" x.y=1\n"
				 " -- init_arg=1", collect, &s) == 0);
	CHECK(s.n == 6);
	CHECK_STR(s.keys[0], "root");
	CHECK_STR(s.vals[0], "/dev/vda1");
	CHECK_STR(s.keys[1], "ro");
	CHECK_STR(s.vals[1], "(none)");
	CHECK_STR(s.vals[3], "a b");
	CHECK_STR(s.keys[4], "bar");
	CHECK_STR(s.vals[4], "c d");
	CHECK_STR(s.keys[5], "x.y");
	s.n = 0;
	CHECK(mp_cmdline_foreach("", collect, &s) == 0 && s.n == 0);
	CHECK(mp_cmdline_foreach("a==b =c \"", collect, &s) == 0);
	CHECK(s.n == 3);
	CHECK_STR(s.vals[0], "=b");
	CHECK_STR(s.keys[1], "");
}

/* A name too long for any module is not dropped unseen: it is a bad
 * value, named (cut, escaped) in what the caller warns about. */
static void cmdline_long_names(void)
{
	struct mp_cmdline c;
	char text[1024], as[301], *bad;

	memset(as, 'a', 300);
	as[300] = '\0';
	snprintf(text, sizeof(text), "rd.modpreload.modules=ext4,\033%s,xfs module_blacklist=%.260s",
		 as, as);
	CHECK(mp_cmdline_parse(text, &c) == 0);
	CHECK(c.nmodules == 2 && strcmp(c.modules[1], "xfs") == 0);
	CHECK(c.nkblacklist == 0);
	CHECK(c.nbad == 2);
	bad = c.nbad == 2 ? c.bad[0] : "";
	CHECK(strncmp(bad, "rd.modpreload.modules", 21) == 0);
	CHECK(strstr(bad, "\\x1baaaa") != NULL);
	CHECK(strstr(bad, "...") != NULL);
	CHECK(strchr(bad, '\033') == NULL);
	CHECK(strlen(bad) < 160);
	CHECK(c.nbad == 2 && strncmp(c.bad[1], "module_blacklist", 16) == 0);
	mp_cmdline_free(&c);
}

static void cmdline_modpreload(void)
{
	struct mp_cmdline c;

	CHECK(mp_cmdline_parse("rd.modpreload.modules=ext4,virtio-blk rd.driver.pre=e1000 "
			       "rd.modpreload.jobs=4 rd.modpreload.timeout=9 "
			       "modprobe.blacklist=floppy,pcspkr module_blacklist=nouveau "
			       "rd.driver.blacklist=radeon rd.driver.post=mpt3sas mpt-params.value=7 "
			       "mpt_params.label=\"two words\" snd.index rd.modpreload.jobs=many "
			       "rd.break", &c) == 0);
	CHECK(!c.disabled);
	CHECK(c.jobs == 4);
	CHECK(c.timeout_s == 9);
	CHECK(c.nmodules == 3);
	CHECK(c.nmodules == 3 && strcmp(c.modules[1], "virtio_blk") == 0);
	CHECK(c.nblacklist == 4 && mp_cmdline_listed(c.blacklist, c.nblacklist, "radeon"));
	/* dracut blacklists rd.driver.post='s too, until it loads them after udev */
	CHECK(mp_cmdline_listed(c.blacklist, c.nblacklist, "mpt3sas"));
	CHECK(c.nkblacklist == 1 && strcmp(c.kblacklist[0], "nouveau") == 0);
	CHECK(c.noptions == 3);
	if (c.noptions == 3) {
		CHECK_STR(c.options[0].module, "mpt_params");
		CHECK_STR(c.options[0].param, "value=7");
		CHECK_STR(c.options[1].param, "label=\"two words\"");
		CHECK_STR(c.options[2].module, "snd");
		CHECK_STR(c.options[2].param, "index");
	}
	CHECK(c.nbad == 1 && strcmp(c.bad[0], "rd.modpreload.jobs") == 0);
	mp_cmdline_free(&c);

	CHECK(mp_cmdline_parse("quiet rd.modpreload=0", &c) == 0);
	CHECK(c.disabled);
	mp_cmdline_free(&c);
	CHECK(mp_cmdline_parse("rd.modpreload.timeout=0 rd.modpreload.jobs=65 rd.modpreload=maybe", &c) == 0);
	CHECK(c.nbad == 3 && c.jobs == 0 && c.timeout_s == 0 && !c.disabled);
	mp_cmdline_free(&c);

	/* root= and rootfstype=: the last of each, as the kernel takes them */
	CHECK(mp_cmdline_parse("root=/dev/sda1 rootfstype=xfs root=UUID=0f1e rootfstype root", &c) == 0);
	CHECK_STR(c.root, "UUID=0f1e");
	CHECK_STR(c.rootfstype, "xfs");
	CHECK(!c.rootfs_off && c.nbad == 0);
	mp_cmdline_free(&c);
	CHECK(mp_cmdline_parse("rd.modpreload.rootfs=0", &c) == 0);
	CHECK(c.rootfs_off && c.root == NULL && c.rootfstype == NULL);
	mp_cmdline_free(&c);
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
	RUN(cmdline_words);
	RUN(cmdline_modpreload);
	RUN(cmdline_long_names);
	RUN(next_arg_quotes);
	RUN(options_as_libkmod);
	RUN(options_not_taken);
	return t_failed ? 1 : 0;
}
