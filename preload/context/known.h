/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the last boot learned (known.c: its file; kinds.c: the kinds of
 * alias in modules.alias), for those two files and nobody else. */
#ifndef MP_KNOWN_H
#define MP_KNOWN_H

#include "ctx.h"

/* the file's lists of names: a driver that found no device for any CPU
 * (nodev.c); what its hand-over held, and waited for (handover.c); a name it
 * left to systemd-modules-load (leave.c) */
enum { NODEV, HELD, WAIT, LEFT, NLISTS };

struct mp_known {
	char *text;              /* the file, its lines cut in place */
	struct mp_strmap *keys;  /* key -> offset in text of its names */
	struct mp_index_id was[MP_NINDEXES];
	bool tree;               /* the file is for this kernel's directory */
	bool lookups;            /* and for this configuration */
	char digest[17];         /* this run's, once libkmod has read modprobe.d */
	char *out;               /* "= key names...\n" of this run's lookups */
	size_t len, cap;
	struct mp_strmap *learned;
	struct mp_strmap *options;   /* modprobe.d's options lines: their keys */
	struct mp_strmap *blacklist; /* modprobe.d's blacklist */
	bool broken;             /* out of memory while learning: write nothing */
	struct mp_index_id alias_was, alias_now; /* modules.alias: the file's, this run's */
	struct mp_strmap *kinds;          /* module -> MP_ALIAS_*, from the file */
	struct mp_strmap *kinds_learned;  /* this run's, written */
	struct listed { const char **names; int n; } list[NLISTS]; /* from the file, in its text */
	bool handover;                    /* it handed over: held says all */
	bool alias_counted, alias_read;   /* as an index not walked; walked after all */
};

/* ctx->known, made if need be (NULL: out of memory) */
struct mp_known *mp_known_of(struct mp_ctx *ctx);
bool mp_known_plain(const char *s, bool name);
bool mp_known_same_id(const struct mp_index_id *a, const struct mp_index_id *b);
/* room for need more bytes of lines to write, and key not written yet
 * (added to *learned); false with nothing to do, or out of memory */
bool mp_known_reserve(struct mp_known *k, struct mp_strmap **learned, const char *key, size_t need);

#endif
