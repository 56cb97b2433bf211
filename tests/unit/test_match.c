// SPDX-License-Identifier: LGPL-2.1-or-later
/* match.c: mp_fnmatch() gives the C library's fnmatch() answer: for
 * depmod's own patterns against real modaliases, and for 400,000 random
 * patterns and strings over an alphabet that has every character it
 * treats apart ('*', '?', '[', ']', '!', '\', bytes above 0x7f). */

#include <fnmatch.h>

#include "internal.h"
#define T_SUITE "match"
#include "t.h"

static int same(const char *pat, const char *str, int flags)
{
	int want = fnmatch(pat, str, flags), got = mp_fnmatch(pat, str, flags);

	if ((want == 0) != (got == 0)) {
		fprintf(stderr, "  fnmatch(\"%s\", \"%s\", %d): libc %d, ours %d\n", pat, str, flags, want,
			got);
		return 0;
	}
	return 1;
}

static void depmod_patterns(void)
{
	static const char *pats[] = {
		"pci:v00008086d00007010sv*sd*bc*sc*i*",
		"pci:v*d*sv*sd*bc01sc01i*",
		"cpu:type:x86,ven*fam*mod*:feature:*0081*",
		"acpi*:PNP0A0[38]:*",
		"dmi*:svn*ASUSTeK*:pn*[Uu][Xx]*",
		"virtio:d00000002v*",
		"input:b0011v0002p0013e*-e0,1,2,k*,ra*",
		"of:N*T*Cfsl,imx*",
		"platform:pcspkr",
		"*",
		"",
		"a\\*b",
	};
	static const char *strs[] = {
		"pci:v00008086d00007010sv00001AF4sd00001100bc01sc01i80",
		"cpu:type:x86,ven0002fam0019mod0001:feature:,0000,0001,0081,00E0",
		"acpi:PNP0A03:",
		"acpi:PNP0A08:PNP0A03:",
		"dmi:bvnSeaBIOS:svnASUSTeK:pnUX305:",
		"virtio:d00000002v00001AF4",
		"input:b0011v0002p0013e0000-e0,1,2,k110,111,r0,1,8,ram4,lsfw",
		"platform:pcspkr",
		"",
		"a*b",
		"axb",
	};
	size_t i, j;
	int bad = 0;

	for (i = 0; i < ARRAY_SIZE(pats); i++)
		for (j = 0; j < ARRAY_SIZE(strs); j++)
			bad += !same(pats[i], strs[j], 0);
	CHECK(bad == 0);
	/* and the matches that matter, spelled out */
	CHECK(mp_fnmatch(pats[0], strs[0], 0) == 0);
	CHECK(mp_fnmatch(pats[2], strs[1], 0) == 0);
	CHECK(mp_fnmatch("cpu:type:x86,ven*fam*mod*:feature:*0082*", strs[1], 0) == FNM_NOMATCH);
	CHECK(mp_fnmatch("pci:v00008086d00007011sv*sd*bc*sc*i*", strs[0], 0) == FNM_NOMATCH);
}

static void random_pairs(void)
{
	static const char alpha[] = { 'a', 'b', 'c', ':', '*', '?', '[', ']', '!', '\\', '-', '/', '.',
				      (char)0xc3, (char)0xa9 };
	static const char salpha[] = { 'a', 'b', 'c', ':', '-', '/', '.', '*', (char)0xc3, (char)0xa9 };
	unsigned long seed = 12345;
	char pat[16], str[16];
	int n, i, len, bad = 0;

	for (n = 0; n < 400000 && bad < 10; n++) {
		len = (int)((seed = seed * 6364136223846793005ul + 1442695040888963407ul) >> 33) % 12;
		for (i = 0; i < len; i++) {
			seed = seed * 6364136223846793005ul + 1442695040888963407ul;
			/* mostly the characters it handles itself */
			pat[i] = alpha[(seed >> 33) % (n % 4 ? 6 : ARRAY_SIZE(alpha))];
		}
		pat[len] = '\0';
		len = (int)((seed = seed * 6364136223846793005ul + 1442695040888963407ul) >> 33) % 12;
		for (i = 0; i < len; i++) {
			seed = seed * 6364136223846793005ul + 1442695040888963407ul;
			str[i] = salpha[(seed >> 33) % (n % 8 ? 4 : ARRAY_SIZE(salpha))];
		}
		str[len] = '\0';
		bad += !same(pat, str, 0);
		bad += !same(pat, str, n % 2 ? FNM_PATHNAME : FNM_PERIOD);
	}
	CHECK(bad == 0);
}

int main(void)
{
	RUN(depmod_patterns);
	RUN(random_pairs);
	return t_failed ? 1 : 0;
}
