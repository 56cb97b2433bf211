// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A report's strings escaped for where they go. A report is a file people
 * attach to bug reports and open elsewhere: any string in it may hold
 * whatever JSON can. A terminal must get no control function from it (C0,
 * DEL and the C1 controls U+0080..U+009F: U+009B is CSI on the Linux
 * console and in VTE terminals), an SVG nothing XML 1.0 cannot hold and
 * no markup. modpreload(8), SECURITY, says which field goes where.
 */
#include "analyze.h"

/* The code point of the well-formed UTF-8 sequence at p (RFC 3629: no
 * overlong form, no surrogate, nothing past U+10FFFF) and its length, or
 * 0. ASCII is a sequence of one. A sequence cut short by the string's end
 * stops at its NUL, which is no continuation byte. */
static size_t utf8(const unsigned char *p, unsigned *cp)
{
	size_t n, i;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] < 0xc2 || p[0] > 0xf4)
		return 0;
	n = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;
	*cp = p[0] & (0x7fu >> n);
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (p[i] & 0x3fu);
	}
	if ((n == 3 && *cp < 0x800) || (n == 4 && (*cp < 0x10000 || *cp > 0x10ffff)) ||
	    (*cp >= 0xd800 && *cp < 0xe000))
		return 0;
	return n;
}

/* C0, DEL, C1: what a terminal acts on instead of showing */
static bool control(unsigned cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

/* Controls and bytes that are no UTF-8 as \xNN, each byte; the backslash
 * too, so that a name holding "\x1b" does not read as an escape. What
 * needs none goes out in runs. */
void an_put_text(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;

	if (s == NULL)
		return;
	while (*p) {
		unsigned cp = 0;
		size_t i, n = utf8(p, &cp);

		if (n > 0 && !control(cp) && cp != '\\') {
			p += n;
			continue;
		}
		fwrite(run, 1, (size_t)(p - run), out);
		for (i = 0; i < (n ? n : 1); i++)
			fprintf(out, "\\x%02x", p[i]);
		p += n ? n : 1;
		run = p;
	}
	fwrite(run, 1, (size_t)(p - run), out);
}

/* What XML gets for the character cp (n bytes; 0: a byte that is no
 * UTF-8), or NULL for the character itself. Markup as entities; what XML
 * 1.0 cannot hold (C0 but the blanks, the noncharacters U+FFFE and
 * U+FFFF, no UTF-8) and what it discourages and a terminal showing the
 * file would act on (DEL, C1) as '?'. The blanks too: a name has none. */
static const char *xml_for(unsigned cp, size_t n)
{
	if (n == 0 || control(cp) || cp == 0xfffe || cp == 0xffff)
		return "?";
	switch (cp) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&apos;";
	default: return NULL;
	}
}

void an_put_xml(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;

	if (s == NULL)
		return;
	while (*p) {
		unsigned cp = 0;
		size_t n = utf8(p, &cp);
		const char *esc = xml_for(cp, n);

		if (esc == NULL) {
			p += n;
			continue;
		}
		fwrite(run, 1, (size_t)(p - run), out);
		fputs(esc, out);
		p += n ? n : 1;
		run = p;
	}
	fwrite(run, 1, (size_t)(p - run), out);
}
