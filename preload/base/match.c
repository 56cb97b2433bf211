// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fnmatch() for libkmod's alias lookups, in the static binary.
 *
 * A device's modalias is looked up in modules.alias.bin by walking every
 * branch below the first wildcard and calling fnmatch(pattern, modalias, 0)
 * on each pattern there: some 5,000 calls for one machine's devices, a
 * third of what the booted run executes before udev may start, and musl's
 * fnmatch() reads the pattern one multibyte character at a time. Nearly
 * every pattern depmod writes uses '*' and '?' alone (pci:v00008086d*sv*),
 * over ASCII: those are matched here a byte at a time. A pattern with a
 * bracket or a backslash, a byte above 0x7f on either side, or any flag
 * goes to the C library's fnmatch(), so the answer is always the one it
 * would give.
 *
 * The static link (Makefile, STATIC_LIBS) passes --wrap=fnmatch and builds
 * this with MP_WRAP_FNMATCH: libkmod's calls come here, __real_fnmatch is
 * the C library's. Other builds link
 * libkmod as a shared library, whose calls this does not see; the unit
 * test calls mp_fnmatch() against the C library's fnmatch() directly.
 */
#include <fnmatch.h>
#include <stddef.h>

#include "internal.h"

#define SLOW (-2)

/* Only '*', '?' and plain ASCII; SLOW for anything else. */
static int simple(const unsigned char *p, const unsigned char *s)
{
	const unsigned char *star = NULL, *resume = NULL, *q;

	for (q = p; *q; q++)
		if (*q == '[' || *q == '\\' || *q > 0x7f)
			return SLOW;
	for (q = s; *q; q++)
		if (*q > 0x7f)
			return SLOW;
	for (;;) {
		if (*p == '*') {
			while (*p == '*')
				p++;
			if (*p == '\0')
				return 0;
			star = p;
			resume = s;
			continue;
		}
		if (*s == '\0')
			return *p == '\0' ? 0 : FNM_NOMATCH;
		if (*p == '?' || *p == *s) {
			p++;
			s++;
			continue;
		}
		/* the last star takes one more character, and the rest of
		 * the pattern after it starts again one further on */
		if (star == NULL)
			return FNM_NOMATCH;
		p = star;
		s = ++resume;
	}
}

#ifdef MP_WRAP_FNMATCH
/* the static link's --wrap=fnmatch turns a call of fnmatch() here into
 * one of __wrap_fnmatch(): the C library's is __real_fnmatch */
int __real_fnmatch(const char *pattern, const char *string, int flags);
#define libc_fnmatch __real_fnmatch
#else
#define libc_fnmatch fnmatch
#endif

int mp_fnmatch(const char *pattern, const char *string, int flags)
{
	if (flags == 0) {
		int r = simple((const unsigned char *)pattern, (const unsigned char *)string);

		if (r != SLOW)
			return r;
	}
	return libc_fnmatch(pattern, string, flags);
}

int __wrap_fnmatch(const char *pattern, const char *string, int flags);

int __wrap_fnmatch(const char *pattern, const char *string, int flags)
{
	return mp_fnmatch(pattern, string, flags);
}
