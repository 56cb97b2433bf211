// SPDX-License-Identifier: LGPL-2.1-or-later
/* A small streaming JSON writer: enough for the report, nothing more. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static void flush(struct mp_json *j)
{
	size_t off = 0;

	while (off < j->len && j->err == 0) {
		ssize_t n = write(j->fd, j->buf + off, j->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			j->err = n < 0 ? -errno : -EIO;
		else
			off += (size_t)n;
	}
	j->len = 0;
}

static void put(struct mp_json *j, const char *s, size_t n)
{
	while (n > 0) {
		size_t room = sizeof(j->buf) - j->len, k = n < room ? n : room;

		memcpy(j->buf + j->len, s, k);
		j->len += k;
		s += k;
		n -= k;
		if (j->len == sizeof(j->buf))
			flush(j);
	}
}

static void puts_(struct mp_json *j, const char *s)
{
	put(j, s, strlen(s));
}

static void string(struct mp_json *j, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	put(j, "\"", 1);
	for (; *p; p++) {
		char esc[8];

		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			put(j, esc, 2);
		} else if (*p < 0x20 || *p == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
			put(j, esc, 6);
		} else {
			put(j, (const char *)p, 1);
		}
	}
	put(j, "\"", 1);
}

/* Comma, indentation and key before a value. */
static void key(struct mp_json *j, const char *k)
{
	int i;

	if (j->need_comma)
		put(j, ",", 1);
	if (j->depth > 0) {
		put(j, "\n", 1);
		for (i = 0; i < j->depth; i++)
			put(j, "  ", 2);
	}
	if (k) {
		string(j, k);
		put(j, ": ", 2);
	}
	j->need_comma = true;
}

void mp_json_init(struct mp_json *j, int fd)
{
	memset(j, 0, sizeof(*j));
	j->fd = fd;
}

int mp_json_finish(struct mp_json *j)
{
	put(j, "\n", 1);
	flush(j);
	return j->err;
}

static void open_(struct mp_json *j, const char *k, const char *c)
{
	key(j, k);
	puts_(j, c);
	j->depth++;
	j->need_comma = false;
}

static void close_(struct mp_json *j, const char *c)
{
	int i;

	j->depth--;
	if (j->need_comma) {
		put(j, "\n", 1);
		for (i = 0; i < j->depth; i++)
			put(j, "  ", 2);
	}
	puts_(j, c);
	j->need_comma = true;
}

void mp_json_obj_begin(struct mp_json *j, const char *k) { open_(j, k, "{"); }
void mp_json_obj_end(struct mp_json *j) { close_(j, "}"); }
void mp_json_arr_begin(struct mp_json *j, const char *k) { open_(j, k, "["); }
void mp_json_arr_end(struct mp_json *j) { close_(j, "]"); }

void mp_json_str(struct mp_json *j, const char *k, const char *v)
{
	if (v == NULL) {
		mp_json_null(j, k);
		return;
	}
	key(j, k);
	string(j, v);
}

void mp_json_u64(struct mp_json *j, const char *k, uint64_t v)
{
	char b[24];

	key(j, k);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	puts_(j, b);
}

void mp_json_i64(struct mp_json *j, const char *k, int64_t v)
{
	char b[24];

	key(j, k);
	snprintf(b, sizeof(b), "%lld", (long long)v);
	puts_(j, b);
}

/* Milliseconds with microsecond precision, from nanoseconds. */
void mp_json_ms(struct mp_json *j, const char *k, uint64_t ns)
{
	char b[32];

	key(j, k);
	snprintf(b, sizeof(b), "%llu.%03llu", (unsigned long long)(ns / 1000000u),
		 (unsigned long long)(ns / 1000u % 1000u));
	puts_(j, b);
}

void mp_json_bool(struct mp_json *j, const char *k, bool v)
{
	key(j, k);
	puts_(j, v ? "true" : "false");
}

void mp_json_null(struct mp_json *j, const char *k)
{
	key(j, k);
	puts_(j, "null");
}
