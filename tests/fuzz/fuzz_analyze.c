// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer: modpreload analyze (analyze/) on a report from anywhere: a
 * file people attach to bug reports and open elsewhere. Whatever it holds,
 * the reader takes it or refuses it; what the text says is for a terminal
 * (UTF-8, no control but the newline: no C0, DEL or C1); what the SVG
 * draws is XML a browser parses: UTF-8 of XML 1.0's characters, only the
 * elements analyze draws, nested as they open, no entity but the five. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* The code point of the UTF-8 sequence at p[0..n) into *cp, and its
 * length; 0 when it is none (RFC 3629). Written apart from analyze's
 * own, so that a mistake there is not made here too. */
static size_t utf8_at(const unsigned char *p, size_t n, unsigned *cp)
{
	static const unsigned min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t len, i;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	len = (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3 : (p[0] & 0xf8) == 0xf0 ? 4 : 0;
	if (len == 0 || len > n)
		return 0;
	*cp = p[0] & (0xffu >> (len + 1));
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (p[i] & 0x3fu);
	}
	if (*cp < min[len] || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return len;
}

/* Every character UTF-8 and allowed: for the terminal, no control but the
 * newline; for XML, also none of what 1.0 cannot hold. */
static void check_chars(const char *s, size_t n, bool xml)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, len;
	unsigned cp;

	while (i < n) {
		len = utf8_at(p + i, n - i, &cp);
		if (len == 0)
			abort();
		if ((cp < 0x20 && cp != '\n') || (cp >= 0x7f && cp <= 0x9f))
			abort();
		if (xml && (cp == 0xfffe || cp == 0xffff))
			abort();
		i += len;
	}
}

static bool drawn_element(const char *name, size_t n)
{
	static const char *const names[] = { "svg", "style", "rect", "title", "text", "line" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && memcmp(names[i], name, n) == 0)
			return true;
	return false;
}

/* What follows '&': one of XML's five entities, its length; else abort. */
static size_t entity(const char *p)
{
	static const char *const names[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&apos;" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(p, names[i], strlen(names[i])) == 0)
			return strlen(names[i]);
	abort();
}

struct open {
	const char *name;
	size_t n;
};

/* The tag at p ('<'): its name one analyze draws, closing the one open
 * last; its length. */
static size_t tag(const char *p, struct open *stack, size_t *depth)
{
	const char *q = p + 1, *name;
	bool closing = *q == '/';
	size_t n;

	q += closing;
	for (name = q; *q >= 'a' && *q <= 'z'; q++)
		;
	n = (size_t)(q - name);
	if (!drawn_element(name, n) || !(*q == ' ' || *q == '>' || *q == '/'))
		abort();
	/* the attributes: no markup, no entity but the five */
	for (; *q && *q != '>'; q++) {
		if (*q == '<')
			abort();
		if (*q == '&')
			q += entity(q) - 1;
	}
	if (*q != '>')
		abort();
	if (closing) {
		if (*depth == 0 || stack[*depth - 1].n != n || memcmp(stack[*depth - 1].name, name, n) != 0)
			abort();
		(*depth)--;
	} else if (q[-1] != '/') {
		if (*depth == 64)
			abort();
		stack[(*depth)++] = (struct open){ .name = name, .n = n };
	}
	return (size_t)(q - p) + 1;
}

/* The XML declaration, then one <svg> element and what nests in it, each
 * element closed in the order opened; nothing but newlines outside. */
static void check_svg(const char *s, size_t n)
{
	struct open stack[64];
	const char *p;
	size_t depth = 0;
	bool root = false;

	check_chars(s, n, true);
	if (strncmp(s, "<?xml ", 6) != 0 || (p = strstr(s, "?>")) == NULL)
		abort();
	for (p += 2; *p;) {
		if (*p == '<') {
			if (root && depth == 0)
				abort();
			p += tag(p, stack, &depth);
			if (!root && (depth != 1 || stack[0].n != 3 || memcmp(stack[0].name, "svg", 3) != 0))
				abort();
			root = true;
		} else if (*p == '&') {
			p += entity(p);
		} else {
			if (*p == '>' || (depth == 0 && *p != '\n'))
				abort();
			p++;
		}
	}
	if (!root || depth != 0)
		abort();
}

static char *render(int (*draw)(FILE *, const struct an_report *), const struct an_report *r, size_t *len)
{
	char *out = NULL;
	FILE *f = open_memstream(&out, len);
	int e;

	if (f == NULL)
		abort();
	e = draw(f, r);
	if (fclose(f) != 0 || (e != 0 && e != -ENOMEM))
		abort();
	return out;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *buf = malloc(size + 1), *out;
	struct an_report r;
	struct an_json j;
	size_t len;
	int e;

	if (buf == NULL)
		return 0;
	/* the parser decodes strings in place: a copy of its own */
	memcpy(buf, data, size);
	e = an_json_parse(&j, buf, size);
	if (e != 0 && e != -EBADMSG && e != -ENOMEM)
		abort();
	if (e == 0) {
		e = an_report_read(&r, &j);
		if (e != 0 && e != -EBADMSG && e != -ENOMEM)
			abort();
	}
	if (e == 0) {
		out = render(an_text, &r, &len);
		check_chars(out, len, false);
		free(out);
		out = render(an_svg, &r, &len);
		check_svg(out, len);
		free(out);
		an_report_free(&r);
	}
	an_json_free(&j);
	free(buf);
	return 0;
}
