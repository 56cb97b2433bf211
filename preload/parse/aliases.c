// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * depmod's modules.alias as text, "alias PATTERN NAME" a line, read in
 * place: the caller maps the file (1.3 MB and 30,000 lines for Debian's
 * 6.1 tree) and this copies nothing of it, where the hand-over's first
 * reader copied it into fresh memory and made a module name of every
 * line's NAME. It wants the lines of a few dozen modules: a line's NAME is
 * looked at only when its bit in a filter of theirs is set
 * (mp_alias_filter), which 24 lines in 25 it is not.
 */
#include <errno.h>
#include <fcntl.h>
#include <libkmod.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define NAME_MAX_LEN 255

/* depmod's modules.alias, or where an image keeps only the binary indexes
 * (mkinitcpio removes the text ones) libkmod's dump of modules.alias.bin,
 * which is the same list; an empty one maps nothing */
int mp_aliases_map(struct kmod_ctx *kmod, const char *path, void **map, size_t *len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	*map = NULL;
	if (fd < 0 && errno == ENOENT) {
		fd = memfd_create("modpreload-aliases", MFD_CLOEXEC);
		if (fd < 0 || kmod_dump_index(kmod, KMOD_INDEX_MODULES_ALIAS, fd) < 0)
			return -ENOENT;
	}
	if (fd < 0 || fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size > (64 << 20))
		return -EFBIG;
	*len = (size_t)st.st_size;
	if (*len == 0)
		return 0;
	*map = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (*map != MAP_FAILED)
		return 0;
	*map = NULL;
	return -errno;
}

/* NAME's bit in the filter: FNV-1a over it, '-' read as '_' (a module
 * name's), into 1024 bits; a few dozen names leave 1 line in 25 to read */
static unsigned bit_of(const char *name, size_t n)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)(name[i] == '-' ? '_' : name[i])) * 16777619u;
	return (h ^ h >> 16) % (64 * ARRAY_SIZE(((struct mp_alias_filter *)0)->bits));
}

void mp_alias_filter_add(struct mp_alias_filter *f, const char *name)
{
	unsigned b = bit_of(name, strlen(name));

	f->bits[b / 64] |= 1ull << (b % 64);
}

static bool maybe(const struct mp_alias_filter *f, const char *name, size_t n)
{
	unsigned b;

	if (n > NAME_MAX_LEN)
		return false;
	b = bit_of(name, n);
	return f->bits[b / 64] >> (b % 64) & 1;
}

int mp_aliases_each(const char *buf, size_t len, const struct mp_strmap *want,
		    const struct mp_alias_filter *f, mp_alias_fn fn, void *data)
{
	const char *line, *end = buf + len, *nl;

	for (line = buf; line < end; line = nl + 1) {
		const char *alias, *name;
		char raw[NAME_MAX_LEN + 1], norm[NAME_MAX_LEN + 1], pat[512];
		bool alias_trunc = false;
		size_t n;
		int idx, r;

		nl = memchr(line, '\n', (size_t)(end - line));
		if (nl == NULL)
			nl = end;
		if (nl - line < 6 || memcmp(line, "alias ", 6) != 0)
			continue;
		alias = line + 6;
		name = memchr(alias, ' ', (size_t)(nl - alias));
		if (name == NULL)
			continue;
		name++;
		n = (size_t)(nl - name);
		if (n == 0 || !maybe(f, name, n))
			continue;
		memcpy(raw, name, n);
		raw[n] = '\0';
		if (mp_normalize_name(raw, norm, sizeof(norm)) < 0 || mp_strmap_get(want, norm, &idx) < 0)
			continue;
		/* on the stack, as nothing may be lost to ENOMEM here: an
		 * over-long pattern keeps its start (what says a device
		 * alias) and ends in a '*', which no plain name has */
		n = (size_t)(name - 1 - alias);
		if (n >= sizeof(pat)) {
			n = sizeof(pat) - 1;
			alias_trunc = true;
		}
		memcpy(pat, alias, n);
		pat[n] = '\0';
		if (alias_trunc)
			pat[n - 1] = '*';
		r = fn(data, pat, idx);
		if (r < 0)
			return r;
	}
	return 0;
}
