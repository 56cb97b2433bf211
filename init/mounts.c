// SPDX-License-Identifier: LGPL-2.1-or-later
/* The API file systems /init needs, and the root file system. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "init.h"
#include "util.h"

static const struct {
	const char *source, *target, *type, *data;
	unsigned long flags;
} api_mounts[] = {
	{ "proc", "/proc", "proc", NULL, MS_NOSUID | MS_NODEV | MS_NOEXEC },
	{ "sysfs", "/sys", "sysfs", NULL, MS_NOSUID | MS_NODEV | MS_NOEXEC },
	{ "devtmpfs", "/dev", "devtmpfs", "mode=0755", MS_NOSUID },
	/* the preloader's report goes here and moves with it to the real
	 * root, where systemd finds /run already mounted and keeps it */
	{ "tmpfs", "/run", "tmpfs", "mode=0755", MS_NOSUID | MS_NODEV },
};

/* Returns the number of mounts that failed; each is logged. */
int early_mounts(struct init_log *l)
{
	size_t i;
	int failed = 0;

	for (i = 0; i < sizeof(api_mounts) / sizeof(api_mounts[0]); i++) {
		(void)mkdir(api_mounts[i].target, 0755);
		if (mount(api_mounts[i].source, api_mounts[i].target, api_mounts[i].type,
			  api_mounts[i].flags, api_mounts[i].data) == 0 || errno == EBUSY)
			continue;
		init_shout(l, "cannot mount %s on %s: %s", api_mounts[i].type,
			   api_mounts[i].target, strerror(errno));
		failed++;
	}
	return failed;
}


/* 1 when the kernel has a driver for type, 0 when not, -errno. */
int fs_registered(const char *type)
{
	char buf[8192], want[64];

	if (mp_read_file("/proc/filesystems", buf, sizeof(buf), NULL) < 0)
		return -ENOENT;
	snprintf(want, sizeof(want), "\t%s\n", type);
	return strstr(buf, want) != NULL;
}

/* "a,b,c" into buf as "a\0b\0c\0\0". */
static void split_list(const char *list, char *buf, size_t size)
{
	size_t n = 0;

	for (; *list && n + 2 < size; list++)
		buf[n++] = *list == ',' ? '\0' : *list;
	buf[n] = buf[n + 1] = '\0';
}

/* Every block file system the kernel has now, as the kernel itself
 * tries them when rootfstype= is not given. */
static void all_block_filesystems(char *buf, size_t size)
{
	char fs[8192], *line, *save = NULL;
	size_t n = 0;

	buf[0] = buf[1] = '\0';
	if (mp_read_file("/proc/filesystems", fs, sizeof(fs), NULL) < 0)
		return;
	for (line = strtok_r(fs, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t len;

		if (strncmp(line, "nodev", 5) == 0)
			continue;
		while (*line == '\t' || *line == ' ')
			line++;
		len = strlen(line);
		if (len == 0 || n + len + 2 >= size)
			continue;
		memcpy(buf + n, line, len + 1);
		n += len + 1;
		buf[n] = '\0';
	}
}

static void note(char *tried, size_t triedsz, const char *type, const char *what)
{
	size_t len = strlen(tried);

	snprintf(tried + len, triedsz - len, "%s%s: %s", len ? "; " : "", type, what);
}

/*
 * Mounts dev on INIT_NEWROOT. The types tried are rootfstype='s, else the
 * one libblkid read from the device, else every block file system the
 * kernel knows. A type the kernel lacks is asked for with need_fs (the
 * preloader, with the "fs-TYPE" alias the kernel itself requests). Each
 * failure is noted in tried, for the message that ends a failed boot.
 */
int mount_root(const char *dev, const char *fstypes, const char *fallback_type,
	       const struct boot_args *ba, int (*need_fs)(void *, const char *), void *data,
	       char *tried, size_t triedsz, struct init_log *l)
{
	char types[512], opts[256];
	unsigned long flags = ba->rw ? 0 : MS_RDONLY;
	const char *t;
	int r, err = -ENODEV;

	tried[0] = '\0';
	r = mount_options_split(ba->rootflags, &flags, opts, sizeof(opts));
	if (r < 0) {
		note(tried, triedsz, "rootflags", "too long");
		return r;
	}
	if (fstypes && *fstypes)
		split_list(fstypes, types, sizeof(types));
	else if (fallback_type && *fallback_type)
		split_list(fallback_type, types, sizeof(types));
	else
		all_block_filesystems(types, sizeof(types));
	(void)mkdir(INIT_NEWROOT, 0755);
	for (t = types; *t; t += strlen(t) + 1) {
		if (fs_registered(t) == 0 && need_fs != NULL)
			need_fs(data, t);
		if (mount(dev, INIT_NEWROOT, t, flags, opts[0] ? opts : NULL) == 0)
			return 0;
		err = -errno;
		/* the kernel does the same for write-protected media */
		if ((err == -EACCES || err == -EROFS) && !(flags & MS_RDONLY) &&
		    mount(dev, INIT_NEWROOT, t, flags | MS_RDONLY, opts[0] ? opts : NULL) == 0) {
			init_shout(l, "%s is write-protected: mounted read-only", dev);
			return 0;
		}
		note(tried, triedsz, t, err == -ENODEV ? "no driver for it in the kernel or the image"
			: strerror(-err));
	}
	if (types[0] == '\0')
		note(tried, triedsz, "types", "the kernel knows no block file system");
	return err;
}
