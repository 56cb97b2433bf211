// SPDX-License-Identifier: LGPL-2.1-or-later
/* Every parser, the JSON writer, the index check and decompression. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#define T_SUITE "parse"
#include "t.h"

static const char *datadir;
static const char *tmpdir;

/* --- kernel command line --- */

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

	cmdline_long_names();

	CHECK(mp_cmdline_parse("quiet rd.modpreload=0", &c) == 0);
	CHECK(c.disabled);
	mp_cmdline_free(&c);
	CHECK(mp_cmdline_parse("rd.modpreload.timeout=0 rd.modpreload.jobs=65 rd.modpreload=maybe", &c) == 0);
	CHECK(c.nbad == 3 && c.jobs == 0 && c.timeout_s == 0 && !c.disabled);
	mp_cmdline_free(&c);
}

/* --- modules-load.d --- */

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

/* --- uevent --- */

static void uevent_modalias(void)
{
	static const char file[] = "DRIVER=processor\nMODALIAS=cpu:type:x86,ven0000fam0006mod003F:"
				   "feature:,0000,0001\nOF_NAME=x\n";
	static const char nl[] = "add@/devices/platform/mpt-dev.3\0ACTION=add\0"
				 "DEVPATH=/devices/platform/mpt-dev.3\0SUBSYSTEM=platform\0"
				 "MODALIAS=platform:mpt-dev\0SEQNUM=1234";
	char out[256];

	CHECK(mp_uevent_modalias(file, sizeof(file) - 1, out, sizeof(out)) == 0);
	CHECK_STR(out, "cpu:type:x86,ven0000fam0006mod003F:feature:,0000,0001");
	CHECK(mp_uevent_modalias(nl, sizeof(nl) - 1, out, sizeof(out)) == 0);
	CHECK_STR(out, "platform:mpt-dev");
	CHECK(mp_uevent_action(nl, sizeof(nl) - 1, out, sizeof(out)) == 0);
	CHECK_STR(out, "add");
	CHECK(mp_uevent_devpath(nl, sizeof(nl) - 1, out, sizeof(out)) == 0);
	CHECK_STR(out, "/devices/platform/mpt-dev.3");
	CHECK(mp_uevent_modalias("MODALIAS=\n", 10, out, sizeof(out)) < 0);
	CHECK(mp_uevent_modalias("XMODALIAS=a\n", 12, out, sizeof(out)) < 0);
	CHECK(mp_uevent_modalias("MODALIAS=abcdef", 15, out, 4) < 0);
}

/* --- kernel module stats --- */

static char *slurp(const char *name, size_t *len)
{
	char path[4096];
	char *buf = malloc(1 << 20);

	snprintf(path, sizeof(path), "%s/%s", datadir, name);
	if (buf == NULL || mp_read_file(path, buf, 1 << 20, len) < 0) {
		fprintf(stderr, "  cannot read %s\n", path);
		free(buf);
		return NULL;
	}
	return buf;
}

static void kstats_samples(void)
{
	struct mp_kstats *s = calloc(1, sizeof(*s));
	uint64_t v = 0;
	size_t len;
	char *buf;

	buf = slurp("kstats-storm.txt", &len);
	CHECK(buf && mp_kstats_parse(buf, len, s) == 0);
	CHECK(s->nfields == 16);
	CHECK(mp_kstats_get(s, "Mods failed on becoming", &v) == 0 && v == 8052);
	CHECK(mp_kstats_get(s, "Virtual mem wasted bytes", &v) == 0 && v == 20358550424ull);
	CHECK(mp_kstats_get(s, "Average fail load bytes", &v) == 0 && v == 2208272);
	CHECK(s->ndups > 30);
	CHECK_STR(s->dups[0].name, "intel_rapl_common");
	CHECK(s->dups[0].times == 447);
	CHECK_STR(s->dups[2].reason, "Becoming & Load");
	free(buf);

	buf = slurp("kstats-clean.txt", &len);
	CHECK(buf && mp_kstats_parse(buf, len, s) == 0);
	CHECK(s->nfields == 14 && s->ndups == 0);
	CHECK(mp_kstats_get(s, "Failed becoming bytes", &v) == 0 && v == 0);
	CHECK(mp_kstats_get(s, "Mods ever loaded", &v) == 0 && v == 66);
	free(buf);

	buf = slurp("kstats-kasan-patched.txt", &len);
	CHECK(buf && mp_kstats_parse(buf, len, s) == 0);
	CHECK(mp_kstats_get(s, "Failed becoming bytes", &v) == 0 && v == 6441296);
	CHECK(s->ndups == 7);
	free(buf);

	buf = slurp("kstats-tabs.txt", &len);
	CHECK(buf && mp_kstats_parse(buf, len, s) == 0);
	CHECK(mp_kstats_get(s, "Mods failed on becoming", &v) == 0 && v == 17);
	CHECK(s->ndups == 2 && strcmp(s->dups[1].reason, "Becoming & Load") == 0);
	free(buf);

	CHECK(mp_kstats_parse("", 0, s) < 0);
	CHECK(mp_kstats_parse("garbage here\n", 13, s) < 0);
	CHECK(mp_kstats_parse("Mods 99999999999999999999999\n", 29, s) < 0);
	free(s);
}

/* --- names --- */

static void names(void)
{
	char out[64];

	CHECK(mp_normalize_name("virtio-blk", out, sizeof(out)) == 0);
	CHECK_STR(out, "virtio_blk");
	CHECK(mp_normalize_name("pci:v00008086d-x*", out, sizeof(out)) == 0);
	CHECK_STR(out, "pci:v00008086d-x*");
	CHECK(mp_normalize_name("", out, sizeof(out)) < 0);
	CHECK(mp_normalize_name("abcdefgh", out, 4) < 0);
	CHECK(mp_name_is_safe("ext4"));
	CHECK(mp_name_is_safe("pci:v00008086d*"));
	CHECK(!mp_name_is_safe("../evil"));
	CHECK(!mp_name_is_safe("/tmp/evil.ko"));
	CHECK(!mp_name_is_safe("a..b"));
	CHECK(!mp_name_is_safe(".hidden"));
	CHECK(!mp_name_is_safe("two words"));
	CHECK(!mp_name_is_safe(""));
}

static void strmap(void)
{
	struct mp_strmap *m = mp_strmap_new();
	char key[32];
	int i, v, bad = 0;

	for (i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		CHECK(mp_strmap_put(m, key, i) == 0);
	}
	for (i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		if (mp_strmap_get(m, key, &v) != 0 || v != i)
			bad++;
	}
	CHECK(bad == 0);
	CHECK(mp_strmap_get(m, "nope", &v) < 0);
	CHECK(mp_strmap_put(m, "k7", 70) == 0 && mp_strmap_get(m, "k7", &v) == 0 && v == 70);
	mp_strmap_free(m);
}

/* --- JSON --- */

static void json_escaping(void)
{
	char path[4096], buf[4096];
	struct mp_json j;
	size_t len;
	int fd;

	snprintf(path, sizeof(path), "%s/out.json", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	mp_json_init(&j, fd);
	mp_json_obj_begin(&j, NULL);
	mp_json_str(&j, "s", "a\"b\\c\n\x01");
	mp_json_u64(&j, "u", 18446744073709551615ull);
	mp_json_i64(&j, "i", -5);
	mp_json_ms(&j, "ms", 1234567);
	mp_json_arr_begin(&j, "a");
	mp_json_bool(&j, NULL, true);
	mp_json_null(&j, NULL);
	mp_json_arr_end(&j);
	mp_json_arr_begin(&j, "empty");
	mp_json_arr_end(&j);
	mp_json_obj_end(&j);
	CHECK(mp_json_finish(&j) == 0);
	close(fd);
	CHECK(mp_read_file(path, buf, sizeof(buf), &len) == 0);
	CHECK_STR(buf, "{\n  \"s\": \"a\\\"b\\\\c\\u000a\\u0001\",\n  \"u\": 18446744073709551615,\n"
		       "  \"i\": -5,\n  \"ms\": 1.234,\n  \"a\": [\n    true,\n    null\n  ],\n"
		       "  \"empty\": []\n}\n");
}

/* Strings are valid UTF-8 whatever bytes come in: each byte of an invalid
 * sequence (stray continuation, overlong, surrogate, past U+10FFFF, cut
 * short) becomes one U+FFFD, valid 2-, 3- and 4-byte forms pass. */
static void json_utf8(void)
{
	char path[4096], buf[4096];
	struct mp_json j;
	size_t len;
	int fd;

	snprintf(path, sizeof(path), "%s/utf8.json", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	mp_json_init(&j, fd);
	mp_json_arr_begin(&j, NULL);
	mp_json_str(&j, NULL, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\x7f");
	mp_json_str(&j, NULL, "a\x80" "b\xff" "c\xc0\xaf" "d\xed\xa0\x80" "e\xf4\x90\x80\x80" "f\xe2\x82");
	mp_json_arr_end(&j);
	CHECK(mp_json_finish(&j) == 0);
	close(fd);
	CHECK(mp_read_file(path, buf, sizeof(buf), &len) == 0);
	CHECK_STR(buf, "[\n  \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\\u007f\",\n"
		       "  \"a\\ufffdb\\ufffdc\\ufffd\\ufffdd\\ufffd\\ufffd\\ufffd"
		       "e\\ufffd\\ufffd\\ufffd\\ufffdf\\ufffd\\ufffd\"\n]\n");
}

/*
 * Keys and values are written in one piece when they need no escaping,
 * in pieces otherwise; the bytes must be the same either way, across the
 * buffer's flushes and past the deepest indentation.
 */
static void json_pieces(void)
{
	static char buf[65536], want[65536];
	char path[4096];
	struct mp_json j;
	size_t len, w = 0;
	int fd, i;

	snprintf(path, sizeof(path), "%s/pieces.json", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	mp_json_init(&j, fd);
	mp_json_obj_begin(&j, NULL);
	w += (size_t)snprintf(want + w, sizeof(want) - w, "{");
	mp_json_u64(&j, "k\"ey", 1);
	w += (size_t)snprintf(want + w, sizeof(want) - w, "\n  \"k\\\"ey\": 1");
	for (i = 0; i < 20; i++) {
		mp_json_arr_begin(&j, NULL);
		w += (size_t)snprintf(want + w, sizeof(want) - w, "%s\n%*s[", i ? "" : ",",
				      2 * (i + 1) < 32 ? 2 * (i + 1) : 32, "");
	}
	for (i = 0; i < 1000; i++) {
		mp_json_str(&j, NULL, "a-module-name");
		w += (size_t)snprintf(want + w, sizeof(want) - w, "%s\n%32s\"a-module-name\"",
				      i ? "," : "", "");
	}
	for (i = 20; i > 0; i--) {
		mp_json_arr_end(&j);
		w += (size_t)snprintf(want + w, sizeof(want) - w, "\n%*s]",
				      2 * i < 32 ? 2 * i : 32, "");
	}
	mp_json_obj_end(&j);
	w += (size_t)snprintf(want + w, sizeof(want) - w, "\n}\n");
	CHECK(mp_json_finish(&j) == 0);
	close(fd);
	CHECK(mp_read_file(path, buf, sizeof(buf), &len) == 0);
	CHECK(len == w);
	CHECK_STR(buf, want);
}

/*
 * A profile's first line is read as sscanf("modpreload-profile %u%c")
 * == 1 read it (the program no longer links scanf): the same lines are
 * taken, and the same refused.
 */
static void profile_header(void)
{
	static const char *const heads[] = {
		"modpreload-profile 1", "modpreload-profile\t 1", "modpreload-profile1",
		"modpreload-profile +1", "modpreload-profile 01", "modpreload-profile 2",
		"modpreload-profile 4294967297", "modpreload-profile 1 ", "modpreload-profile 1x",
		"modpreload-profile", "modpreload-profile ", "modpreload-profile x",
		"modpreload-profile -", "modpreload-profil 1", " modpreload-profile 1", "",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(heads); i++) {
		char buf[128], extra;
		unsigned version;
		struct mp_profile *p = NULL;
		int want, r, n = snprintf(buf, sizeof(buf), "%s\nkernel 1.0\nx 10\n", heads[i]);

		if (sscanf(heads[i], "modpreload-profile %u%c", &version, &extra) != 1)
			want = -EINVAL;
		else
			want = version == MP_PROFILE_VERSION ? 0 : -EPROTONOSUPPORT;
		r = mp_profile_parse(buf, (size_t)n, &p);
		if (r != want)
			fprintf(stderr, "\"%s\": %d, sscanf says %d\n", heads[i], r, want);
		CHECK(r == want);
		mp_profile_free(p);
	}
}

/* --- depmod's indexes --- */

/* A root node with children first..last, every child offset 0 (none). */
static size_t children_node(unsigned char *buf, unsigned first, unsigned last)
{
	size_t n = 14 + 4 * (last >= first ? last - first + 1 : 0);

	memset(buf, 0, n);
	memcpy(buf, "\xB0\x07\xF4\x57\x00\x02\x00\x01\x20\x00\x00\x0C", 12);
	buf[12] = (unsigned char)first;
	buf[13] = (unsigned char)last;
	return n;
}

/*
 * libkmod reads a node's first and last child as (signed) char and takes
 * last - first + 1 children: where that differs from what we read, it
 * computes a negative count and copies gigabytes. Refused exactly there.
 */
static void index_signed_children(void)
{
	unsigned char buf[14 + 4 * 256];

	CHECK(mp_index_check_buf(buf, children_node(buf, 'a', 'z')) == 0);
	CHECK(mp_index_check_buf(buf, children_node(buf, 0x00, 0x7f)) == 0);
	CHECK(mp_index_check_buf(buf, children_node(buf, 0x80, 0xff)) == 0);
	CHECK(mp_index_check_buf(buf, children_node(buf, 0x90, 0x91)) == 0);
	CHECK(mp_index_check_buf(buf, children_node(buf, 'a', 0x80)) == -EBADMSG);
	CHECK(mp_index_check_buf(buf, children_node(buf, 0x7f, 0x80)) == -EBADMSG);
	CHECK(mp_index_check_buf(buf, children_node(buf, 0x00, 0xff)) == -EBADMSG);
	CHECK(mp_index_check_buf(buf, children_node(buf, 'z', 'a')) == -EBADMSG);
}

/* A chain of nodes n deep, each with one child '*', the last without
 * children. */
static size_t chain(unsigned char *buf, size_t n)
{
	size_t i, off = 12;

	memcpy(buf, "\xB0\x07\xF4\x57\x00\x02\x00\x01\x20\x00\x00\x0C", 12);
	for (i = 0; i < n; i++, off += 6) {
		uint32_t next = (uint32_t)(off + 6) | (i + 1 < n ? 0x20000000u : 0);

		buf[off] = buf[off + 1] = '*';
		buf[off + 2] = (unsigned char)(next >> 24);
		buf[off + 3] = (unsigned char)(next >> 16);
		buf[off + 4] = (unsigned char)(next >> 8);
		buf[off + 5] = (unsigned char)next;
	}
	return off;
}

/*
 * libkmod walks the trie recursively (a wildcard lookup goes down every
 * child of a '*'): a trie deeper than any key makes it overflow its
 * stack. Keys are short; a deep trie is refused.
 */
static void index_depth(void)
{
	unsigned char *buf = malloc(12 + 6 * 100000);

	CHECK(mp_index_check_buf(buf, chain(buf, 1000)) == 0);
	CHECK(mp_index_check_buf(buf, chain(buf, 100000)) == -EBADMSG);
	free(buf);
}

static void index_check(void)
{
	char path[4096];
	unsigned char bad[64] = { 0xB0, 0x07, 0xF4, 0x57, 0x00, 0x02, 0x00, 0x01 };
	size_t len;
	char *buf = malloc(1 << 22);
	int fd;

	snprintf(path, sizeof(path), "%s/tree/lib/modules/1.0/modules.dep.bin", tmpdir);
	CHECK(mp_index_check(path) == 0);
	snprintf(path, sizeof(path), "%s/tree/lib/modules/1.0/modules.alias.bin", tmpdir);
	CHECK(mp_index_check(path) == 0);
	CHECK(mp_read_file(path, buf, 1 << 22, &len) == 0);
	/* every truncation of a real index is refused, never read past */
	for (size_t cut = 0; cut < len; cut++)
		if (mp_index_check_buf(buf, cut) == 0 && cut < len) {
			fprintf(stderr, "  truncated at %zu accepted\n", cut);
			t_failed++;
			break;
		}
	/* root pointing at itself: a loop */
	bad[8] = 0x20;
	bad[11] = 12;
	bad[12] = 'a';
	bad[13] = 'a';
	bad[14] = 0x20;
	bad[17] = 12;
	CHECK(mp_index_check_buf(bad, 18) < 0);
	CHECK(mp_index_check_buf("nonsense-nonsense", 17) == -EBADMSG);
	bad[5] = 9;
	CHECK(mp_index_check_buf(bad, 18) == -EPROTO);
	snprintf(path, sizeof(path), "%s/none.bin", tmpdir);
	CHECK(mp_index_check(path) == -ENOENT);
	(void)fd;
	index_signed_children();
	free(buf);
}

/* --- decompression --- */

static void decompress_one(const char *suffix, const char *c, bool good)
{
	char path[4096], orig[4096];
	void *out = NULL;
	size_t outlen = 0, olen = 0;
	char *expect = malloc(1 << 20);
	struct mp_budget b;
	int fd, r;

	snprintf(orig, sizeof(orig), "%s/payload", tmpdir);
	CHECK(mp_read_file(orig, expect, 1 << 20, &olen) == 0);
	snprintf(path, sizeof(path), "%s/payload%s", tmpdir, suffix);
	CHECK(strcmp(mp_decompress_format(path)->name, c) == 0 || !good);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	mp_budget_init(&b, MP_DECOMPRESS_MAX);
	r = mp_decompress(mp_decompress_format(path), fd, &b, mp_now_ns() + 1000000000u, &out, &outlen);
	close(fd);
	if (good) {
		CHECK(r == 0);
		CHECK(outlen == olen && out && memcmp(out, expect, olen) == 0);
		CHECK(b.used == outlen);     /* held until the kernel has it */
		mp_budget_give(&b, outlen);
	} else {
		CHECK(r == -EBADMSG);
	}
	CHECK(b.used == 0);
	mp_budget_destroy(&b);
	free(out);
	free(expect);
}

/* name in tmpdir through a budget of limit bytes, waiting up to wait_ms */
static int decompress_file(const char *name, struct mp_budget *b, unsigned wait_ms,
			   void **out, size_t *outlen)
{
	char path[4096];
	int fd, r;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	*out = NULL;
	*outlen = 0;
	r = mp_decompress(mp_decompress_format(path), fd, b, mp_now_ns() + wait_ms * 1000000ull,
			  out, outlen);
	close(fd);
	return r;
}

/* Zeros that decompress to more than the budget fail with EFBIG in every
 * format and leave the budget as they found it; the budget's size
 * exactly is fine; what finds no room in time fails with ENOMEM; an xz
 * header that asks for more decoder memory than allowed too. */
static void bombs(void)
{
	static const char *const nine[] = { "bomb9.zst", "bomb9.xz", "bomb9.gz" };
	struct mp_budget b;
	void *out, *held;
	size_t len, heldlen;
	uint64_t t;
	size_t i;

	mp_budget_init(&b, 8u << 20);
	for (i = 0; i < ARRAY_SIZE(nine); i++) {
		CHECK(decompress_file(nine[i], &b, 1000, &out, &len) == -EFBIG);
		CHECK(out == NULL && b.used == 0);
	}
	/* 6 MiB held (a load in the kernel): another 6 MiB waits, then fails */
	CHECK(decompress_file("bomb6.zst", &b, 1000, &held, &heldlen) == 0);
	CHECK(heldlen == 6u << 20 && b.used == heldlen);
	t = mp_now_ns();
	CHECK(decompress_file("bomb6.zst", &b, 200, &out, &len) == -ENOMEM);
	CHECK(mp_now_ns() - t >= 190000000u);
	CHECK(b.used == heldlen);
	free(held);
	mp_budget_give(&b, heldlen);
	CHECK(decompress_file("bomb6.zst", &b, 200, &out, &len) == 0 && len == 6u << 20);
	free(out);
	mp_budget_give(&b, len);
	mp_budget_destroy(&b);

	mp_budget_init(&b, MP_DECOMPRESS_MAX);
	CHECK(decompress_file("bomb256.zst", &b, 1000, &out, &len) == 0);
	CHECK(len == MP_DECOMPRESS_MAX && b.used == len);
	free(out);
	mp_budget_give(&b, len);
	CHECK(decompress_file("bomb256+1.zst", &b, 1000, &out, &len) == -EFBIG);
	CHECK(decompress_file("payload.dict64.xz", &b, 1000, &out, &len) == -ENOMEM);
	CHECK(decompress_file("payload.wlog27.zst", &b, 1000, &out, &len) == -ENOMEM);
	CHECK(b.used == 0);
	mp_budget_destroy(&b);
}

static void decompress(void)
{
	decompress_one(".zst", "zstd", true);
	decompress_one(".xz", "xz", true);
	decompress_one(".gz", "gzip", true);
	decompress_one(".cut.zst", "zstd", false);
	decompress_one(".cut.xz", "xz", false);
	decompress_one(".cut.gz", "gzip", false);
	decompress_one(".bad.zst", "zstd", false);
	CHECK(mp_decompress_format("/a/b.ko") == NULL);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s DATADIR TMPDIR\n", argv[0]);
		return 2;
	}
	datadir = argv[1];
	tmpdir = argv[2];
	RUN(cmdline_words);
	RUN(cmdline_modpreload);
	RUN(conf_syntax);
	RUN(uevent_modalias);
	RUN(kstats_samples);
	RUN(names);
	RUN(strmap);
	RUN(json_escaping);
	RUN(json_pieces);
	RUN(json_utf8);
	RUN(profile_header);
	RUN(index_check);
	RUN(index_depth);
	RUN(decompress);
	RUN(bombs);
	return t_failed ? 1 : 0;
}
