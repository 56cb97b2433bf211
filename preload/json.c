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

static bool plain(unsigned char c)
{
	return c >= 0x20 && c != 0x7f && c != '"' && c != '\\';
}

static void string(struct mp_json *j, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	put(j, "\"", 1);
	while (*p) {
		const unsigned char *run = p;
		char esc[8];

		/* a run that needs no escaping goes in one copy */
		while (*p && plain(*p))
			p++;
		put(j, (const char *)run, (size_t)(p - run));
		if (*p == '\0')
			break;
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			put(j, esc, 2);
		} else {
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
			put(j, esc, 6);
		}
		p++;
	}
	put(j, "\"", 1);
}

static void indent(struct mp_json *j)
{
	static const char spaces[] = "\n                                ";
	int n = 2 * j->depth;

	put(j, spaces, (size_t)(n < 32 ? n : 32) + 1);
}

/* Comma, indentation and key before a value. */
static void key(struct mp_json *j, const char *k)
{
	if (j->need_comma)
		put(j, ",", 1);
	if (j->depth > 0)
		indent(j);
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
	j->depth--;
	if (j->need_comma)
		indent(j);
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

/* Decimal digits of v, written backwards from end; returns the start.
 * (snprintf was a tenth of planning Debian's whole tree.) */
static char *digits(uint64_t v, char *end)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

void mp_json_u64(struct mp_json *j, const char *k, uint64_t v)
{
	char b[24], *p = digits(v, b + sizeof(b));

	key(j, k);
	put(j, p, (size_t)(b + sizeof(b) - p));
}

void mp_json_i64(struct mp_json *j, const char *k, int64_t v)
{
	char b[24], *p = digits(v < 0 ? -(uint64_t)v : (uint64_t)v, b + sizeof(b));

	if (v < 0)
		*--p = '-';
	key(j, k);
	put(j, p, (size_t)(b + sizeof(b) - p));
}

/* Milliseconds with microsecond precision, from nanoseconds. */
void mp_json_ms(struct mp_json *j, const char *k, uint64_t ns)
{
	char b[32], *end = b + sizeof(b), *p;
	uint64_t us = ns / 1000u;
	int i;

	p = end;
	for (i = 0; i < 3; i++) {
		*--p = (char)('0' + us % 10);
		us /= 10;
	}
	*--p = '.';
	p = digits(us, p);
	key(j, k);
	put(j, p, (size_t)(end - p));
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
