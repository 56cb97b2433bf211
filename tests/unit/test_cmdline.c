// SPDX-License-Identifier: LGPL-2.1-or-later
/* cmdline.c: the kernel command line split into words, and what modpreload
 * takes from it (modules, jobs, timeout, blacklists, module options). */

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
			       "rd.driver.blacklist=radeon mpt-params.value=7 "
			       "mpt_params.label=\"two words\" snd.index rd.modpreload.jobs=many "
			       "rd.break", &c) == 0);
	CHECK(!c.disabled);
	CHECK(c.jobs == 4);
	CHECK(c.timeout_s == 9);
	CHECK(c.nmodules == 3);
	CHECK(c.nmodules == 3 && strcmp(c.modules[1], "virtio_blk") == 0);
	CHECK(c.nblacklist == 3 && mp_cmdline_listed(c.blacklist, c.nblacklist, "radeon"));
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
}

int main(void)
{
	RUN(cmdline_words);
	RUN(cmdline_modpreload);
	RUN(cmdline_long_names);
	return t_failed ? 1 : 0;
}
