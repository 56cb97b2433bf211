// SPDX-License-Identifier: LGPL-2.1-or-later
/* json.c: the JSON writer: escaping, UTF-8 repair, and the same bytes
 * whether a string goes out in one piece or in several.
 * Usage: test_json TMPDIR (where it writes its files). */
#include <fcntl.h>
#include <unistd.h>

#include "internal.h"
#define T_SUITE "json"
#include "t.h"

static const char *tmpdir;

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

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s TMPDIR\n", argv[0]);
		return 2;
	}
	tmpdir = argv[1];
	RUN(json_escaping);
	RUN(json_pieces);
	RUN(json_utf8);
	return t_failed ? 1 : 0;
}
