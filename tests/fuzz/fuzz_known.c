// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer: the lookups file of the last boot (known.c), which the booted
 * run reads before udevd may start, from /var, that nobody checked. Its
 * parser is static: the file is compiled in here. Whatever the file holds,
 * either it is refused whole or every name it gives is one word of a
 * module name's characters (never a path), every key one word, every kinds
 * value one the hand-over knows, and each index's identity a plain one. */
#include "../../preload/context/known.c"

#include <stdarg.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* what known.c calls beyond base/: the log (nothing), the kept directories
 * (none), the index names (moddir.c's), the model's (for the writer, which
 * is not fuzzed) */
const char *const mp_indexes[MP_NINDEXES] = {
	"modules.dep.bin", "modules.alias.bin", "modules.symbols.bin",
	"modules.builtin.bin", "modules.builtin.alias.bin",
};
void mp_log(struct mp_ctx *ctx, int prio, const char *fmt, ...)
{
	(void)ctx, (void)prio, (void)fmt;
}
void mp_warn(struct mp_ctx *ctx, const char *fmt, ...)
{
	(void)ctx, (void)fmt;
}
bool mp_module_named(const struct mp_module *m)
{
	(void)m;
	return false;
}
int mp_ctx_at(const struct mp_ctx *ctx, const char *path, const char **name)
{
	(void)ctx;
	*name = path;
	return AT_FDCWD;
}

/* each word of NAMES (space-separated, to its end) is a module name */
static void check_names(const char *names)
{
	const char *w = names, *e;

	while (*w) {
		e = strchrnul(w, ' ');
		if (e == w)
			abort(); /* two spaces, or one at an end */
		for (const char *c = w; c < e; c++)
			if (!(*c == '_' || *c == '-' || (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') ||
			      (*c >= 'A' && *c <= 'Z')))
				abort();
		w = *e ? e + 1 : e;
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static struct mp_ctx ctx;
	struct mp_known *k = calloc(1, sizeof(*k));
	const char *digest = NULL, *names, *const *held, *const *waits;
	int r, kinds, nwaits;

	if (k == NULL || size > KNOWN_MAX)
		goto out;
	snprintf(ctx.env.kver, sizeof(ctx.env.kver), "6.1.0-57-amd64");
	snprintf(ctx.env.moddir, sizeof(ctx.env.moddir), "/lib/modules/6.1.0-57-amd64");
	k->text = malloc(size + 1);
	if (k->text == NULL)
		goto out;
	memcpy(k->text, data, size);
	k->text[size] = '\0';
	r = parse(&ctx, k, size, &digest);
	if (r < 0) {
		if (r != -EBADMSG && r != -EPROTO && r != -ENOMEM)
			abort();
		goto out;
	}
	if (digest && (digest < k->text || digest >= k->text + size))
		abort();
	/* as mp_known_config() leaves it with the same indexes and digest */
	k->options = mp_strmap_new();
	k->lookups = k->tree && k->keys && k->options;
	ctx.known = k;
	for (const char *key = "pci:v00008086d00001237sv*"; k->lookups && key; key = NULL) {
		names = mp_known_lookup(&ctx, key);
		if (names)
			check_names(names);
	}
	/* every line of the file (its starts, from the data: parse() cut
	 * words apart in place): each key's names, each no-device name, each name left */
	for (size_t off = 0; off < size; off++) {
		const char *line = k->text + off;

		if (off > 0 && data[off - 1] != '\n')
			continue;
		if (strncmp(line, "= ", 2) == 0 && k->lookups) {
			names = mp_known_lookup(&ctx, line + 2);
			if (names == NULL || names < k->text || names > k->text + size)
				abort();
			check_names(names);
		}
		if (strncmp(line, "nodev ", 6) == 0) {
			if (k->lookups && !mp_known_nodev(&ctx, line + 6))
				abort();
			check_names(line + 6);
		}
		if (strncmp(line, "left ", 5) == 0) {
			if (k->lookups && !mp_known_left(&ctx, line + 5))
				abort();
			check_names(line + 5);
		}
		if (strncmp(line, "kinds ", 6) == 0 && k->kinds &&
		    mp_strmap_get(k->kinds, line + 6, &kinds) == 0 && (kinds & ~(MP_ALIAS_DEVICE | MP_ALIAS_KERNEL)))
			abort();
	}
	/* what the last hand-over held and waited for: names, each once */
	if (k->lookups && mp_known_held(&ctx, &held, &waits, &nwaits) >= 0) {
		for (int i = 0; i < k->list[HELD].n; i++)
			for (int j = 0; j < i + 1; j++)
				if (j == i ? (check_names(held[i]), 0) : strcmp(held[i], held[j]) == 0)
					abort();
		for (int i = 0; i < nwaits; i++)
			check_names(waits[i]);
	}
	for (size_t i = 0; i < MP_NINDEXES; i++)
		if (k->was[i].present && (k->was[i].size < 0 || k->was[i].mtime.tv_nsec >= 1000000000 ||
					  k->was[i].ctime.tv_nsec >= 1000000000))
			abort();
out:
	ctx.known = NULL;
	mp_known_free(k);
	return 0;
}
