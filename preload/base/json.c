// SPDX-License-Identifier: LGPL-2.1-or-later
/* A small streaming JSON writer: enough for the report, nothing more. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static void flush(struct mp_json *j)
{
	if (j->err == 0)
		j->err = mp_write_full(j->fd, j->buf, j->len);
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

/* Room for n bytes written in place (n fits the buffer), or NULL. The
 * report is a hundred thousand short pieces: one copy each, not five. */
static char *reserve(struct mp_json *j, size_t n)
{
	if (n > sizeof(j->buf))
		return NULL;
	if (sizeof(j->buf) - j->len < n)
		flush(j);
	return j->buf + j->len;
}

static void puts_(struct mp_json *j, const char *s)
{
	put(j, s, strlen(s));
}

/* The bytes that go into a JSON string as they are: printable ASCII but
 * the quote and the backslash. A table: the report is mostly names. */
static const unsigned char plain[256] = {
	[0x20 ... 0x21] = 1, [0x23 ... 0x5b] = 1, [0x5d ... 0x7e] = 1,
};

/* The length of the run at s that needs no escaping. */
static size_t plain_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (plain[*p])
		p++;
	return (size_t)(p - (const unsigned char *)s);
}

/*
 * Names and warnings carry bytes from config files and the command line,
 * which need not be UTF-8, and JSON must be. Valid UTF-8 goes out as it
 * is; each byte that is not part of a valid sequence is *replaced* by
 * U+FFFD (not escaped: JSON has no way to say "byte 0xff"), so a strict
 * parser takes the report and a reader still sees where the bytes were.
 */
static void string(struct mp_json *j, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = plain_len(s);
	char *o;

	/* the usual case: nothing to escape, one copy with its quotes */
	if (s[n] == '\0' && (o = reserve(j, n + 2)) != NULL) {
		o[0] = '"';
		memcpy(o + 1, s, n);
		o[n + 1] = '"';
		j->len += n + 2;
		return;
	}
	put(j, "\"", 1);
	while (*p) {
		const unsigned char *run = p;
		char esc[8];

		/* a run that needs no escaping goes in one copy */
		for (;;) {
			if (plain[*p])
				p++;
			else if (*p >= 0x80 && (n = mp_utf8_len(p)) > 0)
				p += n;
			else
				break;
		}
		put(j, (const char *)run, (size_t)(p - run));
		if (*p == '\0')
			break;
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			put(j, esc, 2);
		} else if (*p >= 0x80) {
			put(j, "\\ufffd", 6);
		} else {
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
			put(j, esc, 6);
		}
		p++;
	}
	put(j, "\"", 1);
}

/* ",", a newline and the indentation, as far as each is due. */
static const char sep[] = ",\n                                ";

static size_t sep_len(const struct mp_json *j)
{
	int n = 2 * j->depth;

	return (j->depth > 0 ? (size_t)(n < 32 ? n : 32) + 1 : 0) + j->need_comma;
}

static void indent(struct mp_json *j)
{
	int n = 2 * j->depth;

	put(j, sep + 1, (size_t)(n < 32 ? n : 32) + 1);
}

/* Comma, indentation and key before a value. */
static void key(struct mp_json *j, const char *k)
{
	size_t n = sep_len(j), kn;
	const char *from = sep + !j->need_comma;
	char *o;

	j->need_comma = true;
	if (k == NULL) {
		put(j, from, n);
		return;
	}
	/* a key is nearly always a word: all of it in one copy */
	kn = plain_len(k);
	if (k[kn] == '\0' && (o = reserve(j, n + kn + 4)) != NULL) {
		memcpy(o, from, n);
		o += n;
		*o++ = '"';
		memcpy(o, k, kn);
		o += kn;
		memcpy(o, "\": ", 3);
		j->len += n + kn + 4;
		return;
	}
	put(j, from, n);
	string(j, k);
	put(j, ": ", 2);
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
