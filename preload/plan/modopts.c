// SPDX-License-Identifier: LGPL-2.1-or-later
/* A module's parameters, as modprobe would pass them: modprobe.d's, which
 * libkmod gives, and the kernel command line's (plan.c asks, for each
 * module it adds). */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/*
 * libkmod's options for a module are modprobe.d's, then those it read in
 * /proc/cmdline: how long the first part is. Should the end not be what
 * our reading of /proc/cmdline gives (an option named by an alias), all
 * of it is kept.
 */
static size_t config_len(const struct mp_ctx *ctx, const char *base, const char *name)
{
	const struct mp_cmdline *k = mp_ctx_kcmdline(ctx);
	size_t all = base ? strlen(base) : 0, len = all;
	int i;

	for (i = k->noptions; i-- > 0;) {
		const char *param = k->options[i].param;
		size_t n = strlen(param);

		if (strcmp(k->options[i].module, name) != 0)
			continue;
		if (n > len || memcmp(base + len - n, param, n) != 0 ||
		    (n < len && base[len - n - 1] != ' '))
			return all;
		len -= n < len ? n + 1 : n;
	}
	return len;
}

/*
 * A module's options as modprobe passes them: modprobe.d's, then the
 * kernel command line's. Those libkmod read in /proc/cmdline make way
 * for ours, read with the same rules from the file we were given (a copy
 * of /proc/cmdline in dracut and initramfs-tools, itself in mkinitcpio):
 * the same options whichever it was, each once.
 */
char *mp_modopts_for(struct mp_ctx *ctx, const char *base, const char *name)
{
	const struct mp_cmdline *cl = mp_ctx_cmdline(ctx);
	size_t len = config_len(ctx, base, name);
	char *opts = len ? strndup(base, len) : NULL;
	int i;

	for (i = 0; i < cl->noptions; i++) {
		char *more;

		if (strcmp(cl->options[i].module, name) != 0)
			continue;
		more = mp_strdup_printf("%s%s%s", opts ? opts : "", opts ? " " : "", cl->options[i].param);
		free(opts);
		opts = more;
	}
	return opts;
}
