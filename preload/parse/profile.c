// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The profile: what each module's load took at the last boot, so that
 * this boot can hand out the longest chains first (graph.c) instead of
 * guessing from file sizes.
 *
 * A small text file, written after every run next to the report and read
 * at the start of the next one:
 *
 *   modpreload-profile 1
 *   kernel 6.1.0-28-amd64
 *   ahci 1830
 *   libahci 950
 *
 * one "NAME MICROSECONDS" line a module, sorted by name. It is a hint and
 * nothing more: a profile that is missing, cut, corrupt, of another
 * version or for another kernel changes the order of loads, never what is
 * loaded, so every problem with it is a warning and the run goes on
 * without it (or without the lines it could not read).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

void mp_profile_free(struct mp_profile *p)
{
	int i;

	if (p == NULL)
		return;
	for (i = 0; i < p->n; i++)
		free(p->entries[i].name);
	free(p->entries);
	mp_strmap_free(p->byname);
	free(p);
}

static int add(struct mp_profile *p, const char *name, uint32_t us)
{
	int idx;
	char *copy;

	if (mp_strmap_get(p->byname, name, &idx) == 0) {
		p->entries[idx].us = us; /* the last line for a name wins */
		return 0;
	}
	if (p->n >= MP_PROFILE_MAX_MODULES)
		return -E2BIG;
	copy = strdup(name);
	if (copy == NULL || mp_append(&p->entries, &p->n, &p->cap, sizeof(*p->entries)) < 0) {
		free(copy);
		return -ENOMEM;
	}
	p->entries[p->n - 1] = (struct mp_profile_entry){ .name = copy, .us = us };
	if (mp_strmap_put(p->byname, copy, p->n - 1) < 0) {
		p->n--;
		free(copy);
		return -ENOMEM;
	}
	return 0;
}

/* One "NAME US" line; false if it is not one. name gets the normalised name. */
static bool parse_entry(const char *line, char *name, size_t namesz, uint32_t *us)
{
	char raw[MP_PROFILE_MAX_LINE], *sp, *end;
	unsigned long v;

	snprintf(raw, sizeof(raw), "%s", line);
	sp = strchr(raw, ' ');
	if (sp == NULL)
		return false;
	*sp++ = '\0';
	if (*sp < '0' || *sp > '9')
		return false;
	errno = 0;
	v = strtoul(sp, &end, 10);
	if (errno || *end != '\0' || v > MP_PROFILE_MAX_US)
		return false;
	/* a module's name: what the kernel's own names are made of */
	if (raw[0] == '\0' || raw[strspn(raw, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					 "0123456789_-")] != '\0' ||
	    mp_normalize_name(raw, name, namesz) < 0)
		return false;
	*us = (uint32_t)v;
	return true;
}

/*
 * buf need not be NUL-terminated. Lines longer than MP_PROFILE_MAX_LINE,
 * unknown lines and bad names or numbers are counted in nbad and skipped.
 * -EINVAL: not a profile (no header, or no kernel line before the first
 * module); -EPROTONOSUPPORT: a version we do not know; -E2BIG: more
 * modules than any kernel has.
 */
int mp_profile_parse(const char *buf, size_t len, struct mp_profile **out)
{
	struct mp_profile *p = calloc(1, sizeof(*p));
	size_t pos = 0;
	unsigned lineno = 0;
	int r = 0;

	*out = NULL;
	if (p == NULL || (p->byname = mp_strmap_new()) == NULL) {
		free(p);
		return -ENOMEM;
	}
	while (pos < len && r == 0) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		char line[MP_PROFILE_MAX_LINE], name[MP_PROFILE_MAX_LINE];
		unsigned version;
		uint32_t us;

		lineno++;
		if (n >= sizeof(line) || memchr(buf + pos, '\0', n)) {
			line[0] = '\0';
			n = SIZE_MAX; /* a bad line, whatever it says */
		} else {
			memcpy(line, buf + pos, n);
			line[n] = '\0';
		}
		pos += (nl ? (size_t)(nl - (buf + pos)) + 1 : len - pos);
		if (lineno == 1) {
			const char *num = line + 18;
			char *end = NULL;

			/* what sscanf(line, "modpreload-profile %u%c") == 1 took
			 * (strtoul() skips the same blanks), without sscanf():
			 * musl's scanf brings 10 KiB of float parsing along */
			if (n != SIZE_MAX && strncmp(line, "modpreload-profile", 18) == 0)
				version = (unsigned)strtoul(num, &end, 10);
			if (end == NULL || end == num || *end != '\0')
				r = -EINVAL;
			else if (version != MP_PROFILE_VERSION)
				r = -EPROTONOSUPPORT;
			continue;
		}
		if (n == 0)
			continue;
		if (n != SIZE_MAX && strncmp(line, "kernel ", 7) == 0 && p->kver[0] == '\0' &&
		    line[7] != '\0' && strlen(line + 7) < sizeof(p->kver) && !strchr(line + 7, ' ')) {
			snprintf(p->kver, sizeof(p->kver), "%s", line + 7);
			continue;
		}
		if (n != SIZE_MAX && parse_entry(line, name, sizeof(name), &us)) {
			if (p->kver[0] == '\0')
				r = -EINVAL;
			else
				r = add(p, name, us);
			continue;
		}
		p->nbad++;
	}
	if (r == 0 && (lineno == 0 || p->kver[0] == '\0'))
		r = -EINVAL;
	if (r < 0) {
		mp_profile_free(p);
		return r;
	}
	*out = p;
	return 0;
}

int mp_profile_get(const struct mp_profile *p, const char *name, uint32_t *us)
{
	int idx;

	if (p == NULL || mp_strmap_get(p->byname, name, &idx) < 0)
		return -ENOENT;
	*us = p->entries[idx].us;
	return 0;
}

/*
 * What a module is expected to take, in ns: the profile's figure, or a
 * guess from its size when the profile does not know it. The guess is
 * MP_EXPECT_BASE_US plus MP_EXPECT_US_PER_64K for every 64 KiB of file:
 * a module's load is mostly reading, checking and relocating its image,
 * and an init() that waits for hardware is what the profile is for.
 */
uint64_t mp_profile_expect_ns(const struct mp_profile *p, const struct mp_module *m, bool *known)
{
	uint32_t us;

	*known = mp_profile_get(p, m->name, &us) == 0;
	if (*known)
		return (uint64_t)us * 1000u;
	/* a final module's file may not have been looked at (size -1) */
	return ((uint64_t)MP_EXPECT_BASE_US +
		(uint64_t)(m->size > 0 ? m->size : 0) / 65536u * MP_EXPECT_US_PER_64K) * 1000u;
}
