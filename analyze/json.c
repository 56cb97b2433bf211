// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A small JSON reader: enough for modpreload's report (preload/json.c
 * writes it), nothing more. The text is read into one array of values,
 * children linked by index; strings are decoded in place (a decoded
 * string is never longer than its escaped form), so nothing is copied.
 * The report may come from anywhere: nesting is bounded, every escape is
 * checked, and \u0000 (which would cut a string short) is refused.
 */
#include <errno.h>
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* deeper than any report; bounds the recursion on a hostile text */
#define AN_JSON_DEPTH 64

struct parser {
	struct an_json *j;
	char *p, *end;
	char *base;
};

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static int new_value(struct parser *ps, enum an_jtype type)
{
	struct an_json *j = ps->j;

	if (j->n == j->cap) {
		int cap = j->cap ? j->cap * 2 : 256;
		struct an_jval *v = realloc(j->v, (size_t)cap * sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		j->v = v;
		j->cap = cap;
	}
	j->v[j->n] = (struct an_jval){ .type = type, .first = -1, .next = -1 };
	return j->n++;
}

static int hex4(const char *s, unsigned *out)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -EBADMSG;
	}
	*out = v;
	return 0;
}

static char *put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xc0 | cp >> 6);
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xe0 | cp >> 12);
		*o++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*o++ = (char)(0xf0 | cp >> 18);
		*o++ = (char)(0x80 | (cp >> 12 & 0x3f));
		*o++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	}
	return o;
}

/* The string at ps->p (its opening quote), decoded in place; *out is it. */
static int string(struct parser *ps, const char **out)
{
	char *o, *s = ++ps->p;

	o = s;
	for (;;) {
		unsigned cp, lo;
		char c;

		if (ps->p >= ps->end)
			return -EBADMSG;
		c = *ps->p++;
		if (c == '"')
			break;
		if ((unsigned char)c < 0x20)
			return -EBADMSG;
		if (c != '\\') {
			*o++ = c;
			continue;
		}
		if (ps->p >= ps->end)
			return -EBADMSG;
		c = *ps->p++;
		switch (c) {
		case '"': case '\\': case '/': *o++ = c; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			if (ps->end - ps->p < 4 || hex4(ps->p, &cp) < 0 || cp == 0)
				return -EBADMSG;
			ps->p += 4;
			if (cp >= 0xdc00 && cp < 0xe000)
				return -EBADMSG;
			if (cp >= 0xd800 && cp < 0xdc00) {
				/* a surrogate pair: the low half must follow */
				if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u' ||
				    hex4(ps->p + 2, &lo) < 0 || lo < 0xdc00 || lo >= 0xe000)
					return -EBADMSG;
				ps->p += 6;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			o = put_utf8(o, cp);
			break;
		default:
			return -EBADMSG;
		}
	}
	/* o is at most the closing quote's place: the NUL overwrites nothing
	 * still to be read */
	*o = '\0';
	*out = s;
	return 0;
}

static int number(struct parser *ps, double *out)
{
	char tok[64], *e;
	size_t n = 0;

	/* JSON's numbers only: no "inf", "nan", hex or leading '+' */
	if (!(*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9')))
		return -EBADMSG;
	/* a copy for strtod, which would read on past the text */
	while (ps->p + n < ps->end && strchr("0123456789+-.eE", ps->p[n]) && ps->p[n] != '\0') {
		if (n == sizeof(tok) - 1)
			return -EBADMSG;
		tok[n] = ps->p[n];
		n++;
	}
	tok[n] = '\0';
	*out = strtod(tok, &e);
	/* and a finite one: 1e999 is no number to draw */
	if (e != tok + n || !(*out >= -DBL_MAX && *out <= DBL_MAX))
		return -EBADMSG;
	ps->p += n;
	return 0;
}

static int literal(struct parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return -EBADMSG;
	ps->p += n;
	return 0;
}

static int value(struct parser *ps, int depth);

/* The members of an array or object (ps->p at its opening bracket), linked
 * under parent. */
static int children(struct parser *ps, int parent, bool object, int depth)
{
	char close = object ? '}' : ']';
	int last = -1;

	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return 0;
	}
	for (;;) {
		const char *key = NULL;
		int r, v;

		skip_ws(ps);
		if (object) {
			if (ps->p >= ps->end || *ps->p != '"' || string(ps, &key) < 0)
				return -EBADMSG;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p++ != ':')
				return -EBADMSG;
		}
		v = value(ps, depth + 1);
		if (v < 0)
			return v;
		ps->j->v[v].key = key;
		if (last < 0)
			ps->j->v[parent].first = v;
		else
			ps->j->v[last].next = v;
		last = v;
		skip_ws(ps);
		if (ps->p >= ps->end)
			return -EBADMSG;
		r = *ps->p++;
		if (r == close)
			return 0;
		if (r != ',')
			return -EBADMSG;
	}
}

/* One value at ps->p: its index in j->v, or -errno. */
static int value(struct parser *ps, int depth)
{
	int v, r = 0;

	if (depth > AN_JSON_DEPTH)
		return -EBADMSG;
	skip_ws(ps);
	if (ps->p >= ps->end)
		return -EBADMSG;
	switch (*ps->p) {
	case '{':
	case '[':
		v = new_value(ps, *ps->p == '{' ? AN_JOBJ : AN_JARR);
		if (v >= 0)
			r = children(ps, v, ps->j->v[v].type == AN_JOBJ, depth);
		break;
	case '"':
		v = new_value(ps, AN_JSTR);
		if (v >= 0)
			r = string(ps, &ps->j->v[v].str);
		break;
	case 't':
	case 'f':
		v = new_value(ps, AN_JBOOL);
		if (v >= 0) {
			ps->j->v[v].num = *ps->p == 't';
			r = literal(ps, *ps->p == 't' ? "true" : "false");
		}
		break;
	case 'n':
		v = new_value(ps, AN_JNULL);
		if (v >= 0)
			r = literal(ps, "null");
		break;
	default:
		v = new_value(ps, AN_JNUM);
		if (v >= 0)
			r = number(ps, &ps->j->v[v].num);
		break;
	}
	return v < 0 ? v : r < 0 ? r : v;
}

int an_json_parse(struct an_json *j, char *buf, size_t len)
{
	struct parser ps = { .j = j, .p = buf, .end = buf + len, .base = buf };
	int r;

	*j = (struct an_json){ 0 };
	r = value(&ps, 0);
	if (r >= 0) {
		skip_ws(&ps);
		if (ps.p != ps.end)
			r = -EBADMSG;
	}
	if (r < 0) {
		j->err_at = (size_t)(ps.p - ps.base);
		return r;
	}
	return 0;
}

void an_json_free(struct an_json *j)
{
	free(j->v);
	*j = (struct an_json){ 0 };
}

const struct an_jval *an_json_first(const struct an_json *j, const struct an_jval *v)
{
	if (v == NULL || (v->type != AN_JARR && v->type != AN_JOBJ) || v->first < 0)
		return NULL;
	return &j->v[v->first];
}

const struct an_jval *an_json_next(const struct an_json *j, const struct an_jval *v)
{
	return v == NULL || v->next < 0 ? NULL : &j->v[v->next];
}

const struct an_jval *an_json_get(const struct an_json *j, const struct an_jval *obj, const char *key)
{
	const struct an_jval *c;

	if (obj == NULL || obj->type != AN_JOBJ)
		return NULL;
	for (c = an_json_first(j, obj); c; c = an_json_next(j, c))
		if (strcmp(c->key, key) == 0)
			return c;
	return NULL;
}

double an_json_num(const struct an_jval *v, double def)
{
	return v && (v->type == AN_JNUM || v->type == AN_JBOOL) ? v->num : def;
}

const char *an_json_str(const struct an_jval *v, const char *def)
{
	return v && v->type == AN_JSTR ? v->str : def;
}
