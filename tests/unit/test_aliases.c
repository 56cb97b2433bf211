// SPDX-License-Identifier: LGPL-2.1-or-later
/* aliases.c: mp_aliases_each() hands over every "alias PATTERN NAME" line
 * of modules.alias whose NAME is wanted (a '-' in it as a '_'), and only
 * those, the pattern whole; an over-long pattern keeps its start and ends
 * in '*', so that it is never taken for a plain name; nothing it reads is
 * lost to a failed allocation (it allocates nothing). */

#include <errno.h>
#include <stdlib.h>

#include "internal.h"
#define T_SUITE "aliases"
#include "t.h"

struct seen {
	char pats[8][600];
	int idx[8];
	int n;
};

static int note(void *data, const char *alias, int idx)
{
	struct seen *s = data;

	if (s->n < 8) {
		snprintf(s->pats[s->n], sizeof(s->pats[s->n]), "%s", alias);
		s->idx[s->n] = idx;
	}
	s->n++;
	return 0;
}

static int stop(void *data, const char *alias, int idx)
{
	(void)data;
	(void)alias;
	(void)idx;
	return -EIO;
}

/* WANT is a NULL-ended list of names, each its index in it */
static void each(const char *text, const char *const *want, struct seen *s, mp_alias_fn fn, int *r)
{
	struct mp_strmap *m = mp_strmap_new();
	struct mp_alias_filter f = { 0 };
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; want[i]; i++) {
		CHECK(mp_strmap_put(m, want[i], i) == 0);
		mp_alias_filter_add(&f, want[i]);
	}
	*r = mp_aliases_each(text, strlen(text), m, &f, fn, s);
	mp_strmap_free(m);
}

static void wanted_lines_only(void)
{
	static const char text[] =
		"# Aliases extracted from modules themselves.\n"
		"alias pci:v00008086d00007010sv*sd*bc*sc*i* ata_piix\n"
		"alias pci:v*d*sv*sd*bc01sc01i* pata_acpi\n"
		"alias cpu:type:x86,ven*fam*mod*:feature:*0081* acpi_cpufreq\n"
		"alias edac-mce-amd edac_mce_amd\n"
		"aliasnospace\n"
		"alias no-name-at-all\n"
		"alias trailing-space \n"
		"softdep ata_piix pre: x\n"
		"alias devname:fuse fuse";
	static const char *const want[] = { "ata_piix", "acpi_cpufreq", "edac_mce_amd", "fuse", NULL };
	struct seen s;
	int r;

	each(text, want, &s, note, &r);
	CHECK(r == 0);
	CHECK(s.n == 4);
	CHECK_STR(s.pats[0], "pci:v00008086d00007010sv*sd*bc*sc*i*");
	CHECK(s.idx[0] == 0);
	CHECK_STR(s.pats[1], "cpu:type:x86,ven*fam*mod*:feature:*0081*");
	CHECK(s.idx[1] == 1);
	CHECK_STR(s.pats[2], "edac-mce-amd");
	CHECK(s.idx[2] == 2);
	/* the last line, without its newline */
	CHECK_STR(s.pats[3], "devname:fuse");
	CHECK(s.idx[3] == 3);
}

/* depmod writes the name as the module has it: "-" where the map has "_" */
static void dashes_are_underscores(void)
{
	static const char *const want[] = { "snd_hda_intel", NULL };
	struct seen s;
	int r;

	each("alias pci:v*d*sv*sd*bc04sc03i* snd-hda-intel\n", want, &s, note, &r);
	CHECK(r == 0 && s.n == 1);
	CHECK_STR(s.pats[0], "pci:v*d*sv*sd*bc04sc03i*");
}

static void over_long_pattern(void)
{
	static const char *const want[] = { "big", NULL };
	char text[2048];
	struct seen s;
	size_t n;
	int r;

	/* all letters, as a plain name would be, but 1,000 of them */
	memcpy(text, "alias ", 6);
	memset(text + 6, 'x', 1000);
	memcpy(text + 1006, " big\n", 6);
	each(text, want, &s, note, &r);
	CHECK(r == 0 && s.n == 1);
	n = strlen(s.pats[0]);
	CHECK(n == 511);
	CHECK(s.pats[0][n - 1] == '*');
	CHECK(s.pats[0][0] == 'x');
}

static void error_stops(void)
{
	static const char *const want[] = { "a", NULL };
	struct seen s;
	int r;

	each("alias one a\nalias two a\n", want, &s, stop, &r);
	CHECK(r == -EIO);
}

int main(void)
{
	RUN(wanted_lines_only);
	RUN(dashes_are_underscores);
	RUN(over_long_pattern);
	RUN(error_stops);
	return t_failed ? 1 : 0;
}
