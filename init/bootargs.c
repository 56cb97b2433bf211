// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel command line as /init reads it: where the root is and how to
 * mount it, how long to wait for it, what to run on it. Words are split by
 * the preloader's mp_cmdline_foreach, so /init and the library agree on
 * quoting and on "--"; rd.modpreload= is decided by the library's own
 * parser, so both agree on what turns preloading off.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "cmdline.h"
#include "init.h"

static const char *const kind_names[] = {
	[ROOT_NONE] = "none", [ROOT_PATH] = "path", [ROOT_DEVNUM] = "device number",
	[ROOT_UUID] = "UUID", [ROOT_LABEL] = "LABEL", [ROOT_PARTUUID] = "PARTUUID",
	[ROOT_PARTLABEL] = "PARTLABEL",
};

const char *root_kind_name(enum root_kind k)
{
	return (unsigned)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : "?";
}

static int copy(char *out, size_t outsz, const char *s)
{
	size_t n = strlen(s);

	if (n >= outsz)
		return -ENAMETOOLONG;
	memcpy(out, s, n + 1);
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int unescape_udev(const char *in, char *out, size_t outsz)
{
	size_t n = 0;

	for (; *in; n++) {
		if (n + 1 >= outsz)
			return -ENAMETOOLONG;
		if (in[0] == '\\' && in[1] == 'x' && hexval(in[2]) >= 0 && hexval(in[3]) >= 0) {
			out[n] = (char)(hexval(in[2]) * 16 + hexval(in[3]));
			in += 4;
		} else {
			out[n] = *in++;
		}
	}
	if (outsz == 0)
		return -ENAMETOOLONG;
	out[n] = '\0';
	return 0;
}

/* "254:1", or a bare hex dev_t ("fe01") as the kernel's name_to_dev_t
 * reads it: major in bits 8-19, minor in bits 0-7 and 20-31. */
static int parse_devnum(const char *s, unsigned *major, unsigned *minor)
{
	unsigned long a, b, v;
	char *end;

	if (*s < '0' || (*s > '9' && hexval(*s) < 0))
		return -EINVAL;
	errno = 0;
	a = strtoul(s, &end, 10);
	if (*end == ':') {
		const char *m = end + 1;

		if (*m < '0' || *m > '9')
			return -EINVAL;
		b = strtoul(m, &end, 10);
		if (errno || *end != '\0' || a > 0xfff || b > 0xfffff)
			return -EINVAL;
		*major = (unsigned)a;
		*minor = (unsigned)b;
		return 0;
	}
	errno = 0;
	v = strtoul(s, &end, 16);
	if (errno || *end != '\0' || v == 0 || v > 0xffffffffUL)
		return -EINVAL;
	*major = (unsigned)((v & 0xfff00) >> 8);
	*minor = (unsigned)((v & 0xff) | ((v >> 12) & 0xfff00));
	return 0;
}

/* Without udev there are no /dev/disk/by-* links; they name a tag. */
static const struct { const char *prefix; enum root_kind kind; } by_links[] = {
	{ "/dev/disk/by-uuid/", ROOT_UUID },
	{ "/dev/disk/by-label/", ROOT_LABEL },
	{ "/dev/disk/by-partuuid/", ROOT_PARTUUID },
	{ "/dev/disk/by-partlabel/", ROOT_PARTLABEL },
};

static const struct { const char *prefix; enum root_kind kind; } tags[] = {
	{ "UUID=", ROOT_UUID },
	{ "LABEL=", ROOT_LABEL },
	{ "PARTUUID=", ROOT_PARTUUID },
	{ "PARTLABEL=", ROOT_PARTLABEL },
};

int root_spec_parse(const char *s, struct root_spec *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	if (s == NULL || *s == '\0')
		return -EINVAL;
	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		size_t n = strlen(tags[i].prefix), len;
		int r;

		if (strncmp(s, tags[i].prefix, n) != 0)
			continue;
		/* the kernel's PARTUUID=.../PARTNROFF=n picks a neighbour
		 * partition; we only find the one named */
		if (s[n] == '\0' || strchr(s + n, '/') != NULL)
			return -EINVAL;
		out->kind = tags[i].kind;
		r = copy(out->value, sizeof(out->value), s + n);
		/* LABEL="my root": the kernel leaves quotes after the tag's
		 * '=' in the value; blkid reads the tag without them */
		len = strlen(out->value);
		if (r == 0 && len >= 2 && out->value[0] == '"' && out->value[len - 1] == '"') {
			memmove(out->value, out->value + 1, len - 2);
			out->value[len - 2] = '\0';
		}
		return r;
	}
	for (i = 0; i < sizeof(by_links) / sizeof(by_links[0]); i++) {
		size_t n = strlen(by_links[i].prefix);

		if (strncmp(s, by_links[i].prefix, n) != 0)
			continue;
		if (s[n] == '\0' || strchr(s + n, '/') != NULL)
			return -EINVAL;
		out->kind = by_links[i].kind;
		return unescape_udev(s + n, out->value, sizeof(out->value));
	}
	if (strncmp(s, "/dev/", 5) == 0) {
		if (s[5] == '\0')
			return -EINVAL;
		out->kind = ROOT_PATH;
		return copy(out->value, sizeof(out->value), s);
	}
	if (parse_devnum(s, &out->major, &out->minor) == 0) {
		out->kind = ROOT_DEVNUM;
		return copy(out->value, sizeof(out->value), s);
	}
	return -EINVAL;
}

static int parse_seconds(const char *s, unsigned max, unsigned *out)
{
	unsigned long v;
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end != '\0' || v > max)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

static int bad(struct boot_args *a, const char *key)
{
	if (a->nbad < BOOT_BAD_MAX)
		snprintf(a->bad[a->nbad++], sizeof(a->bad[0]), "%s", key);
	return 0;
}

static int on_word(void *data, const char *key, const char *value)
{
	struct boot_args *a = data;

	if (strcmp(key, "root") == 0) {
		if (value == NULL || copy(a->root_raw, sizeof(a->root_raw), value) < 0)
			return bad(a, key);
	} else if (strcmp(key, "rootfstype") == 0) {
		if (value == NULL || copy(a->fstypes, sizeof(a->fstypes), value) < 0)
			return bad(a, key);
	} else if (strcmp(key, "rootflags") == 0) {
		if (value == NULL || copy(a->rootflags, sizeof(a->rootflags), value) < 0)
			return bad(a, key);
	} else if (strcmp(key, "ro") == 0 && value == NULL) {
		a->rw = false;
	} else if (strcmp(key, "rw") == 0 && value == NULL) {
		a->rw = true;
	} else if (strcmp(key, "rootwait") == 0) {
		unsigned s = INIT_ROOTWAIT_S;

		/* 6.4+ kernels take rootwait=SECONDS */
		if (value != NULL && (parse_seconds(value, INIT_ROOTWAIT_MAX_S, &s) < 0 || s == 0))
			return bad(a, key);
		a->rootwait = true;
		a->wait_s = s;
	} else if (strcmp(key, "rootdelay") == 0) {
		if (parse_seconds(value, INIT_ROOTDELAY_MAX_S, &a->rootdelay_s) < 0)
			return bad(a, key);
	} else if (strcmp(key, "init") == 0) {
		if (value == NULL || value[0] != '/' ||
		    copy(a->init, sizeof(a->init), value) < 0)
			return bad(a, key);
	} else if (strcmp(key, "rd.break") == 0) {
		if (value == NULL || strcmp(value, "pre-pivot") == 0)
			a->brk = BREAK_PRE_PIVOT;
		else if (strcmp(value, "pre-mount") == 0)
			a->brk = BREAK_PRE_MOUNT;
		else
			return bad(a, key);
	}
	return 0;
}

int boot_args_parse(const char *cmdline, struct boot_args *out)
{
	struct mp_cmdline mc;
	int r;

	memset(out, 0, sizeof(*out));
	out->wait_s = INIT_NOWAIT_S;
	r = mp_cmdline_foreach(cmdline, on_word, out);
	if (r < 0)
		return r;
	if (out->root_raw[0] != '\0' && root_spec_parse(out->root_raw, &out->root) < 0)
		bad(out, "root");
	r = mp_cmdline_parse(cmdline, &mc);
	if (r < 0)
		return r;
	out->preload = !mc.disabled;
	mp_cmdline_free(&mc);
	return 0;
}

static const struct {
	const char *name;
	unsigned long flag;
	bool clear;
} flag_words[] = {
	{ "ro", MS_RDONLY, false },        { "rw", MS_RDONLY, true },
	{ "nosuid", MS_NOSUID, false },    { "suid", MS_NOSUID, true },
	{ "nodev", MS_NODEV, false },      { "dev", MS_NODEV, true },
	{ "noexec", MS_NOEXEC, false },    { "exec", MS_NOEXEC, true },
	{ "sync", MS_SYNCHRONOUS, false }, { "async", MS_SYNCHRONOUS, true },
	{ "dirsync", MS_DIRSYNC, false },
	{ "noatime", MS_NOATIME, false },  { "atime", MS_NOATIME, true },
	{ "nodiratime", MS_NODIRATIME, false }, { "diratime", MS_NODIRATIME, true },
	{ "relatime", MS_RELATIME, false }, { "norelatime", MS_RELATIME, true },
	{ "strictatime", MS_STRICTATIME, false },
	{ "lazytime", MS_LAZYTIME, false }, { "nolazytime", MS_LAZYTIME, true },
	{ "silent", MS_SILENT, false },    { "loud", MS_SILENT, true },
	{ "defaults", 0, false },
};

/*
 * mount(2) takes the VFS's options as flags and passes the rest to the
 * file system, which refuses words it does not know ("noatime" makes ext4
 * fail): split them the way mount(8) does.
 */
int mount_options_split(const char *opts, unsigned long *flags, char *data, size_t datasz)
{
	size_t n = 0;
	const char *p = opts;

	if (datasz == 0)
		return -ENAMETOOLONG;
	data[0] = '\0';
	while (p && *p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		size_t i;
		bool known = false;

		for (i = 0; len && i < sizeof(flag_words) / sizeof(flag_words[0]); i++) {
			if (strlen(flag_words[i].name) != len || strncmp(p, flag_words[i].name, len) != 0)
				continue;
			if (flag_words[i].clear)
				*flags &= ~flag_words[i].flag;
			else
				*flags |= flag_words[i].flag;
			known = true;
			break;
		}
		if (!known && len > 0) {
			if (n + (n ? 1 : 0) + len + 1 > datasz)
				return -ENAMETOOLONG;
			if (n)
				data[n++] = ',';
			memcpy(data + n, p, len);
			n += len;
			data[n] = '\0';
		}
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}
