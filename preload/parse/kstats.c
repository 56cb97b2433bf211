// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel's own account of module loading,
 * /sys/kernel/debug/modules/stats (CONFIG_MODULE_STATS, 6.4+): lines of a
 * label right-aligned to 25 columns, a TAB and a number, then optionally a
 * "Duplicate failed modules:" table. It tells what duplicates cost the
 * kernel, which is what we are here to remove.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define KSTATS_READ_MAX (1024 * 1024)

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static bool parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0 || n > 20)
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

static void copy_field(char *dst, size_t dstsz, const char *src, size_t n)
{
	if (n >= dstsz)
		n = dstsz - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* One "label<blanks>number" line. */
static int parse_counter(struct mp_kstats *out, const char *s, size_t n)
{
	size_t numstart = n, labelend;
	uint64_t v;

	while (numstart > 0 && !is_space(s[numstart - 1]))
		numstart--;
	labelend = numstart;
	while (labelend > 0 && is_space(s[labelend - 1]))
		labelend--;
	if (labelend == 0 || !parse_u64(s + numstart, n - numstart, &v))
		return -EBADMSG;
	if (out->nfields == MP_KSTATS_MAX_FIELDS)
		return 0;
	copy_field(out->fields[out->nfields].label, sizeof(out->fields[0].label), s, labelend);
	out->fields[out->nfields].value = v;
	out->nfields++;
	return 0;
}

/* One "name<blanks>times<blanks>reason" row; the reason may have blanks. */
static int parse_dup(struct mp_kstats *out, const char *s, size_t n)
{
	size_t a = 0, b, c, d;
	uint64_t times;
	struct mp_kstats_dup *dup;

	while (a < n && !is_space(s[a]))
		a++;
	b = a;
	while (b < n && is_space(s[b]))
		b++;
	c = b;
	while (c < n && !is_space(s[c]))
		c++;
	d = c;
	while (d < n && is_space(s[d]))
		d++;
	if (a == 0 || !parse_u64(s + b, c - b, &times) || d == n)
		return -EBADMSG;
	if (out->ndups == MP_KSTATS_MAX_DUPS)
		return 0;
	dup = &out->dups[out->ndups++];
	copy_field(dup->name, sizeof(dup->name), s, a);
	dup->times = times;
	copy_field(dup->reason, sizeof(dup->reason), s + d, n - d);
	return 0;
}

int mp_kstats_parse(const char *buf, size_t len, struct mp_kstats *out)
{
	bool dups = false;
	size_t pos = 0;

	memset(out, 0, sizeof(*out));
	while (pos < len) {
		size_t start = pos, end;
		int r;

		while (pos < len && buf[pos] != '\n')
			pos++;
		end = pos++;
		while (start < end && is_space(buf[start]))
			start++;
		while (end > start && is_space(buf[end - 1]))
			end--;
		if (start == end)
			continue;
		if (end - start == 25 && memcmp(buf + start, "Duplicate failed modules:", 25) == 0) {
			dups = true;
			continue;
		}
		if (dups && end - start >= 11 && memcmp(buf + start, "Module-name", 11) == 0)
			continue;
		r = dups ? parse_dup(out, buf + start, end - start)
			 : parse_counter(out, buf + start, end - start);
		if (r < 0)
			return r;
	}
	return out->nfields > 0 ? 0 : -ENODATA;
}

/* The Average lines are not counters: a delta means nothing for them. */
bool mp_kstats_is_counter(const char *label)
{
	return strncmp(label, "Av", 2) != 0;
}

int mp_kstats_get(const struct mp_kstats *s, const char *label, uint64_t *v)
{
	int i;

	for (i = 0; i < s->nfields; i++)
		if (strcmp(s->fields[i].label, label) == 0) {
			*v = s->fields[i].value;
			return 0;
		}
	return -ENOENT;
}

/* The file is regenerated on every read(): take it in one. */
static int read_once(const char *path, char *buf, size_t size, size_t *len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = read(fd, buf, size - 1);
	if (r < 0)
		return -errno;
	buf[r] = '\0';
	*len = (size_t)r;
	return 0;
}

/* What sysfs/kernel/debug/modules/stats says now, in a new *out; a file
 * that is there but cannot be parsed is said through warn. */
int mp_kstats_snapshot(const char *sysfs, struct mp_kstats **out, mp_warn_fn warn, void *data)
{
	_cleanup_free_ char *buf = malloc(KSTATS_READ_MAX);
	_cleanup_free_ struct mp_kstats *st = calloc(1, sizeof(*st));
	char dir[PATH_MAX + 16], path[PATH_MAX + 32];
	bool mounted = false;
	size_t len = 0;
	int r;

	if (buf == NULL || st == NULL)
		return -ENOMEM;
	snprintf(dir, sizeof(dir), "%s/kernel/debug", sysfs);
	snprintf(path, sizeof(path), "%s/modules/stats", dir);
	r = read_once(path, buf, KSTATS_READ_MAX, &len);
	if (r == -ENOENT && access(dir, F_OK) == 0 &&
	    mount("debugfs", dir, "debugfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0) {
		/* debugfs was not mounted: mount it for this read only */
		mounted = true;
		r = read_once(path, buf, KSTATS_READ_MAX, &len);
	}
	if (mounted)
		(void)umount2(dir, MNT_DETACH);
	if (r < 0)
		return r;
	r = mp_kstats_parse(buf, len, st);
	if (r < 0) {
		char msg[PATH_MAX + 128];

		snprintf(msg, sizeof(msg), "%s: cannot parse the kernel's module statistics: %s",
			 path, mp_errno_name(-r));
		warn(data, msg);
		return r;
	}
	*out = TAKE_PTR(st);
	return 0;
}
