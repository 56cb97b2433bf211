// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kinds of alias that lead to each module in modules.alias (a device's,
 * the kernel's own request), as the last boot's hand-over read them, kept
 * in the lookups file (known.c) with the text's identity: with the same
 * file, the hand-over need not read its 1.3 MB again to know what it may
 * hold (holdable.c).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "known.h"

/*
 * The kinds of alias (MP_ALIAS_*) that lead to name in modules.alias, as
 * the last boot read them from a file with the identity st has; -1: read it.
 */
int mp_known_alias_kinds(const struct mp_ctx *ctx, const struct stat *st, const char *name)
{
	int kinds;

	if (!mp_known_alias_same(ctx, st) || mp_strmap_get(ctx->known->kinds, name, &kinds) < 0)
		return -1;
	return kinds;
}

/* modules.alias (identity st) is the one the last boot's kinds are of */
bool mp_known_alias_same(const struct mp_ctx *ctx, const struct stat *st)
{
	const struct mp_known *k = ctx->known;
	struct mp_index_id now;

	if (k == NULL || !k->tree || k->kinds == NULL)
		return false;
	mp_index_id_of(st, &now);
	return mp_known_same_id(&k->alias_was, &now);
}

/* What this run knows of name's aliases in modules.alias (identity st),
 * for the next boot. */
void mp_known_learn_kinds(struct mp_ctx *ctx, const struct stat *st, const char *name, int kinds)
{
	struct mp_known *k = mp_known_of(ctx);

	if (k == NULL || k->broken || ctx->opts.lookups_out == NULL || !mp_known_plain(name, true) ||
	    !mp_known_reserve(k, &k->kinds_learned, name, strlen(name) + 24))
		return;
	mp_index_id_of(st, &k->alias_now);
	k->len += (size_t)sprintf(k->out + k->len, "kinds %s%s%s\n", name, kinds & MP_ALIAS_DEVICE ? " device" : "",
				  kinds & MP_ALIAS_KERNEL ? " kernel" : "");
}

/* modules.alias counted as an index not walked (walked: false, once), or
 * not after all, as it was walked for a module the file did not have */
void mp_known_alias_used(struct mp_ctx *ctx, bool walked)
{
	struct mp_known *k = ctx->known;

	if (k == NULL || k->alias_read)
		return;
	if (walked) {
		k->alias_read = true;
		if (k->alias_counted)
			ctx->result.indexes_known--;
	} else if (!k->alias_counted) {
		k->alias_counted = true;
		ctx->result.indexes_known++;
	}
}
