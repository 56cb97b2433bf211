// SPDX-License-Identifier: LGPL-2.1-or-later
/* kstats.c: the kernel's module statistics (debugfs modules/stats), from
 * real samples in tests/data.
 * Usage: test_kstats DATADIR (tests/data: kstats-*.txt). */
#include <stdlib.h>

#include "internal.h"
#define T_SUITE "kstats"
#include "t.h"

static const char *datadir;

static char *slurp(const char *name, size_t *len)
{
	char path[4096];
	char *buf = malloc(1 << 20);

	snprintf(path, sizeof(path), "%s/%s", datadir, name);
	if (buf == NULL || mp_read_file(path, buf, 1 << 20, len) < 0) {
		fprintf(stderr, "  cannot read %s\n", path);
		free(buf);
		return NULL;
	}
	return buf;
}

static void kstats_samples(void)
{
	struct mp_kstats *s = calloc(1, sizeof(*s));
	uint64_t v = 0;
	size_t len;
	char *buf;

	buf = slurp("kstats-storm.txt", &len);
	CHECK(buf && mp_kstats_parse(buf, len, s) == 0);
	CHECK(s->nfields == 16);
	CHECK(mp_kstats_get(s, "Mods failed on becoming", &v) == 0 && v == 8052);
	CHECK(mp_kstats_get(s, "Virtual mem wasted bytes", &v) == 0 && v == 20358550424ull);
	CHECK(mp_kstats_get(s, "Average fail load bytes", &v) == 0 && v == 2208272);
	CHECK(s->ndups > 30);
	CHECK_STR(s->dups[0].name, "intel_rapl_common");
	CHECK(s->dups[0].times == 447);
	CHECK_STR(s->dups[2].reason, "Becoming & Load");
	free(buf);

	buf = slurp("kstats-clean.txt", &len);
	CHECK(buf && mp_kstats_parse(buf, len, s) == 0);
	CHECK(s->nfields == 14 && s->ndups == 0);
	CHECK(mp_kstats_get(s, "Failed becoming bytes", &v) == 0 && v == 0);
	CHECK(mp_kstats_get(s, "Mods ever loaded", &v) == 0 && v == 66);
	free(buf);

	buf = slurp("kstats-kasan-patched.txt", &len);
	CHECK(buf && mp_kstats_parse(buf, len, s) == 0);
	CHECK(mp_kstats_get(s, "Failed becoming bytes", &v) == 0 && v == 6441296);
	CHECK(s->ndups == 7);
	free(buf);

	buf = slurp("kstats-tabs.txt", &len);
	CHECK(buf && mp_kstats_parse(buf, len, s) == 0);
	CHECK(mp_kstats_get(s, "Mods failed on becoming", &v) == 0 && v == 17);
	CHECK(s->ndups == 2 && strcmp(s->dups[1].reason, "Becoming & Load") == 0);
	free(buf);

	CHECK(mp_kstats_parse("", 0, s) < 0);
	CHECK(mp_kstats_parse("garbage here\n", 13, s) < 0);
	CHECK(mp_kstats_parse("Mods 99999999999999999999999\n", 29, s) < 0);
	free(s);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DATADIR\n", argv[0]);
		return 2;
	}
	datadir = argv[1];
	RUN(kstats_samples);
	return t_failed ? 1 : 0;
}
