// SPDX-License-Identifier: LGPL-2.1-or-later
/* analyze/: the JSON reader on what a report holds and on what no JSON
 * is, the report's fields, and the escaping for the terminal and XML. The
 * CLI cases (tests/unit/cli/analyze.sh) read real reports. */
#define T_SUITE "analyze"
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "t.h"

static int parse(struct an_json *j, const char *text, char **buf)
{
	*buf = strdup(text);
	return an_json_parse(j, *buf, strlen(text));
}

static void values(void)
{
	struct an_json j;
	const struct an_jval *top, *a, *c;
	char *buf;

	CHECK(parse(&j, " {\"n\": -1.5e2, \"s\": \"x\\\"y\\\\z\\/\\n\", \"t\": true, \"f\": false,"
		  " \"z\": null, \"a\": [1, [2], {}], \"o\": {\"k\": \"v\"}} ", &buf) == 0);
	top = &j.v[0];
	CHECK(top->type == AN_JOBJ);
	CHECK(an_json_num(an_json_get(&j, top, "n"), 0) == -150);
	CHECK_STR(an_json_str(an_json_get(&j, top, "s"), NULL), "x\"y\\z/\n");
	CHECK(an_json_num(an_json_get(&j, top, "t"), 5) == 1);
	CHECK(an_json_num(an_json_get(&j, top, "f"), 5) == 0);
	CHECK(an_json_get(&j, top, "z")->type == AN_JNULL);
	CHECK(an_json_num(an_json_get(&j, top, "z"), 7) == 7);
	CHECK(an_json_get(&j, top, "missing") == NULL);
	CHECK(an_json_get(&j, NULL, "n") == NULL);
	a = an_json_get(&j, top, "a");
	c = an_json_first(&j, a);
	CHECK(c && an_json_num(c, 0) == 1);
	c = an_json_next(&j, c);
	CHECK(c && c->type == AN_JARR && an_json_num(an_json_first(&j, c), 0) == 2);
	c = an_json_next(&j, c);
	CHECK(c && c->type == AN_JOBJ && an_json_first(&j, c) == NULL);
	CHECK(an_json_next(&j, c) == NULL);
	CHECK_STR(an_json_str(an_json_get(&j, an_json_get(&j, top, "o"), "k"), NULL), "v");
	an_json_free(&j);
	free(buf);
}

/* \u escapes decoded to UTF-8, surrogate pairs joined */
static void unicode(void)
{
	struct an_json j;
	char *buf;

	CHECK(parse(&j, "[\"\\u00e9\\u20ac\\ud83d\\ude00\", \"caf\xc3\xa9\"]", &buf) == 0);
	CHECK_STR(an_json_first(&j, &j.v[0])->str, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	CHECK_STR(an_json_next(&j, an_json_first(&j, &j.v[0]))->str, "caf\xc3\xa9");
	an_json_free(&j);
	free(buf);
}

/* What is no JSON, or no JSON this reader takes, is refused where it goes wrong. */
static void refused(void)
{
	static const char *const bad[] = {
		"", "   ", "{", "[1, 2", "{\"a\" 1}", "{\"a\": 1,}", "[1 2]", "{1: 2}", "\"open",
		"\"\\x\"", "\"\\u12\"", "\"\\u0000\"", "\"\\udc00\"", "\"\\ud800\"", "\"\\ud800\\u0041\"",
		"\"a\tb\"", "+1", "nan", "inf", "0x10", "tru", "nul", "[1] 2", "1e999999999999999999999999999999",
		"[-]", "[1.5.5]",
	};
	char deep[200];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct an_json j;
		char *buf;
		int r = parse(&j, bad[i], &buf);

		if (r != -EBADMSG)
			fprintf(stderr, "  accepted: %s (%d)\n", bad[i], r);
		CHECK(r == -EBADMSG);
		an_json_free(&j);
		free(buf);
	}
	/* nesting: 64 deep is fine, 65 is not */
	for (i = 0; i < 2; i++) {
		struct an_json j;
		char *buf;
		int n = i ? 66 : 65;

		memset(deep, '[', (size_t)n);
		memset(deep + n, ']', (size_t)n);
		deep[2 * n] = '\0';
		CHECK(parse(&j, deep, &buf) == (i ? -EBADMSG : 0));
		an_json_free(&j);
		free(buf);
	}
}

/* A number at the very end of the text: read no further than its length. */
static void bounds(void)
{
	struct an_json j;
	char buf[4] = { '1', '2', '3', '4' };

	CHECK(an_json_parse(&j, buf, 2) == 0);
	CHECK(j.v[0].num == 12);
	an_json_free(&j);
	CHECK(an_json_parse(&j, buf, 0) == -EBADMSG);
	an_json_free(&j);
}

static void report(void)
{
	struct an_report r;
	struct an_json j;
	char *buf;

	CHECK(parse(&j, "{\"modules\": []}", &buf) == 0);
	CHECK(an_report_read(&r, &j) == -EBADMSG);
	an_json_free(&j);
	free(buf);

	CHECK(parse(&j, "{\"modpreload\": \"0.2.0\", \"kernel\": \"6.1\", \"elapsed_ms\": 10.5,"
		  " \"handover\": {\"at_ms\": 3, \"held\": [\"b\", \"nosuch\"], \"replayed\": 2},"
		  " \"duplicate_cost\": null, \"critical_path\": {\"modules\": [\"a\", \"b\"], \"ms\": 9},"
		  " \"requests\": {\"total\": 4, \"missing_names\": [\"gone\"]}, \"warnings\": [\"w\", 3],"
		  " \"modules\": [{\"name\": \"a\", \"state\": \"loaded\", \"ms\": 2, \"start_ms\": 1,"
		  " \"end_ms\": 3, \"worker\": 0}, {\"name\": \"b\", \"state\": \"failed\", \"error\": \"ENODEV\","
		  " \"no_device\": true, \"start_ms\": 3, \"end_ms\": 12, \"worker\": 1,"
		  " \"duplicate_cost_bytes\": null}, {\"state\": \"x\"}, 5]}",
		  &buf) == 0);
	CHECK(an_report_read(&r, &j) == 0);
	CHECK_STR(r.version, "0.2.0");
	CHECK(r.nmods == 2);
	CHECK(r.nchain == 2 && r.chain[0] == 0 && r.chain[1] == 1 && r.chain_ms == 9);
	CHECK(r.mods[0].critical && r.mods[1].critical);
	CHECK(r.handover && r.handover_ms == 3 && r.replayed == 2);
	CHECK(!r.mods[0].held && r.mods[1].held);
	CHECK(!r.has_dupcost);
	CHECK(r.mods[1].dup_bytes < 0);
	CHECK(r.nmissing == 1 && strcmp(r.missing[0], "gone") == 0);
	CHECK(r.nwarnings == 1);
	CHECK(r.end_ms == 12);
	CHECK(r.requests == 4);
	CHECK_STR(an_report_problem(&r.mods[1]), "no device");
	CHECK(an_report_problem(&r.mods[0]) == NULL);
	an_report_free(&r);
	an_json_free(&j);
	free(buf);
}

/* A name twice: the chain and the held list name its first module, as
 * the look-up through the list did before the names were sorted; both
 * ways (a few look-ups go through the list, more sort it). */
static void same_name(void)
{
	struct an_report r;
	struct an_json j;
	char *buf, text[1024];
	int i, n, k;

	for (k = 0; k < 2; k++) {
		n = snprintf(text, sizeof(text), "{\"modpreload\": \"x\", \"critical_path\": {\"modules\": "
			     "[\"b\", \"a\", \"z\"");
		for (i = 0; i < k * 40; i++)
			n += snprintf(text + n, sizeof(text) - (size_t)n, ", \"c\"");
		snprintf(text + n, sizeof(text) - (size_t)n, "]}, \"handover\": {\"held\": [\"a\"]}, \"modules\":"
			 " [{\"name\": \"b\"}, {\"name\": \"a\"}, {\"name\": \"a\"}, {\"name\": \"c\"}]}");
		CHECK(parse(&j, text, &buf) == 0);
		CHECK(an_report_read(&r, &j) == 0);
		CHECK(r.nchain == 2 + k * 40 && r.chain[0] == 0 && r.chain[1] == 1);
		CHECK(k == 0 || r.chain[r.nchain - 1] == 3);
		CHECK(r.mods[1].held && !r.mods[2].held && r.mods[1].critical && !r.mods[2].critical);
		an_report_free(&r);
		an_json_free(&j);
		free(buf);
	}
}

/* The report's boot id against this boot's: the same (or this boot's
 * unknown) says nothing; another, or none, is said. */
static void boot_id(void)
{
	static const struct {
		const char *text, *this_boot;
		enum an_boot want;
	} cases[] = {
		{ "\"boot_id\": \"b1\"", "b1", AN_BOOT_THIS },
		{ "\"boot_id\": \"b1\"", "b2", AN_BOOT_OTHER },
		{ "\"boot_id\": \"b1\"", NULL, AN_BOOT_THIS },
		{ "\"boot_id\": \"\"", "b1", AN_BOOT_NONE },
		{ "\"boot_id\": 7", "b1", AN_BOOT_NONE },
		{ "\"kernel\": \"6.1\"", "b1", AN_BOOT_NONE },
		{ "\"kernel\": \"6.1\"", NULL, AN_BOOT_NONE },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct an_report r;
		struct an_json j;
		char *buf, text[256];

		snprintf(text, sizeof(text), "{\"modpreload\": \"x\", %s, \"modules\": []}", cases[i].text);
		CHECK(parse(&j, text, &buf) == 0);
		CHECK(an_report_read(&r, &j) == 0);
		CHECK(an_report_boot(&r, cases[i].this_boot) == cases[i].want);
		an_report_free(&r);
		an_json_free(&j);
		free(buf);
	}
}

static char *rendered(int (*draw)(FILE *, const struct an_report *), const char *text);

/* Numbers no int holds are no worker and no wave: casting them would be
 * undefined behaviour, and 1.5 is no worker either. */
static void out_of_range(void)
{
	static const double workers[] = { 1e300, -1e300, 2147483648.0, -2147483649.0, 1.5, -2, 7 };
	struct an_report r;
	struct an_json j;
	char *buf, text[1024];
	size_t i, n;

	n = (size_t)snprintf(text, sizeof(text), "{\"modpreload\": \"x\", \"counts\": {\"loaded\": 1e300},"
			     " \"modules\": [");
	for (i = 0; i < sizeof(workers) / sizeof(workers[0]); i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s{\"name\": \"m%zu\", \"worker\": %.17g,"
				      " \"wave\": %.17g, \"start_ms\": 0, \"end_ms\": 1}", i ? ", " : "", i,
				      workers[i], -workers[i]);
	snprintf(text + n, sizeof(text) - n, "]}");
	CHECK(parse(&j, text, &buf) == 0);
	CHECK(an_report_read(&r, &j) == 0);
	CHECK(r.nmods == 7);
	for (i = 0; i + 1 < (size_t)r.nmods; i++)
		CHECK(r.mods[i].worker == -1);
	CHECK(r.mods[6].worker == 7);
	CHECK(r.mods[0].wave == 0 && r.mods[1].wave == 0 && r.mods[5].wave == 2);
	an_report_free(&r);
	an_json_free(&j);
	free(buf);
	free(rendered(an_svg, text));
}

static char *captured(void (*put)(FILE *, const char *), const char *s)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	put(f, s);
	fclose(f);
	return out;
}

static void escapes(void)
{
	char *s;

	s = captured(an_put_text, "a\033[31m\x7f\tb\xc3\xa9");
	CHECK_STR(s, "a\\x1b[31m\\x7f\\x09b\xc3\xa9");
	free(s);
	s = captured(an_put_xml, "<a href=\"x\">&'\x01\xff\xc3\xa9\xed\xa0\x80\xf4\x90\x80\x80");
	CHECK_STR(s, "&lt;a href=&quot;x&quot;&gt;&amp;&apos;??\xc3\xa9???????");
	free(s);
	/* C1 controls (U+009B: CSI on the Linux console and in VTE), encoded
	 * or as a lone byte, and bytes that are no UTF-8: \xNN each; a
	 * backslash too, so that \x1b in a name is not an escape */
	s = captured(an_put_text, "a\xc2\x9b" "1m\x9b\xc2\x85|\xc2\xa0|\xc0\xaf|\\x1b|\xe2\x82");
	CHECK_STR(s, "a\\xc2\\x9b" "1m\\x9b\\xc2\\x85|\xc2\xa0|\\xc0\\xaf|\\x5cx1b|\\xe2\\x82");
	free(s);
	/* what XML 1.0 cannot hold: U+FFFE, U+FFFF; the C1 controls, which it
	 * discourages; U+FFFD and U+10FFFF are characters */
	s = captured(an_put_xml, "\xef\xbf\xbe|\xef\xbf\xbf|\xc2\x9b|\xef\xbf\xbd|\xf4\x8f\xbf\xbf");
	CHECK_STR(s, "?|?|?|\xef\xbf\xbd|\xf4\x8f\xbf\xbf");
	free(s);
}

/* The report's text and drawing of a report that was made up to harm: its
 * strings as the terminal and XML need them, wherever they go. */
static const char hostile[] =
	"{\"modpreload\": \"0\\u009b2J\", \"kernel\": \"k\\u001b]0;t\\u0007\","
	" \"mode\": \"\\u001b[2J\\u0007\\u009b" "1m<m>\", \"elapsed_ms\": 5,"
	" \"critical_path\": {\"modules\": [\"a\\ufffe\"]}, \"handover\": {\"held\": [\"a\\ufffe\"]},"
	" \"warnings\": [\"w\\u009b\"], \"requests\": {\"missing_names\": [\"<x>\\uffff\"]},"
	" \"modules\": [{\"name\": \"a\\ufffe\", \"state\": \"<script>alert(1)</script>\\u009b\\u0085\","
	" \"error\": \"E\\u001b\", \"start_ms\": 1, \"end_ms\": 3, \"ms\": 2, \"worker\": 0},"
	" {\"name\": \"b\", \"state\": \"failed\", \"message\": \"\\u009b\", \"why\": \"\\u0007\","
	" \"start_ms\": 1, \"end_ms\": 2, \"worker\": 1}]}";

static char *rendered(int (*draw)(FILE *, const struct an_report *), const char *text)
{
	struct an_report r;
	struct an_json j;
	char *buf, *out = NULL;
	size_t n = 0;
	FILE *f;

	if (parse(&j, text, &buf) != 0 || an_report_read(&r, &j) != 0) {
		an_json_free(&j);
		free(buf);
		return strdup("(no report)");
	}
	f = open_memstream(&out, &n);
	CHECK(draw(f, &r) == 0);
	fclose(f);
	an_report_free(&r);
	an_json_free(&j);
	free(buf);
	return out;
}

/* no C0 control but the newline, no DEL, no C1 control, encoded or not */
static bool terminal_safe(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++)
		if ((*p < 0x20 && *p != '\n') || (*p >= 0x7f && *p <= 0x9f) ||
		    (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return false;
	return true;
}

static void hostile_report(void)
{
	char *s = rendered(an_text, hostile);

	CHECK(terminal_safe(s));
	CHECK(strstr(s, " (\\x1b[2J\\x07\\xc2\\x9b" "1m<m>, 0 jobs)") != NULL);
	CHECK(strstr(s, "<script>alert(1)</script>\\xc2\\x9b\\xc2\\x85") != NULL);
	free(s);
	s = rendered(an_svg, hostile);
	CHECK(terminal_safe(s));
	CHECK(strstr(s, "<script") == NULL);
	CHECK(strstr(s, "&lt;script&gt;alert(1)&lt;/script&gt;??") != NULL);
	CHECK(strstr(s, "\xef\xbf\xbe") == NULL);
	free(s);
}

int main(void)
{
	RUN(values);
	RUN(unicode);
	RUN(refused);
	RUN(bounds);
	RUN(report);
	RUN(out_of_range);
	RUN(same_name);
	RUN(boot_id);
	RUN(escapes);
	RUN(hostile_report);
	return 0;
}
