// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The root's file system module (--root-fs, the initramfs's run). Without
 * it, the kernel asks for fs-TYPE only when the root is mounted: after
 * udev found the root device and fsck ran, the mount waits while the
 * kernel's modprobe loads crc32c, jbd2, mbcache, crc16 and ext4 one after
 * the other (11 s of a 16-vCPU boot under TCG). Here it is planned as soon
 * as its type is known: from rootfstype= at once, or from the superblock of
 * the device root= names, read when that device appears while our loads
 * make it. Our load then runs beside the others; the mount finds it live,
 * or its modprobe waits in the kernel for ours (handover.c: such a module
 * is joined, not waited for).
 *
 * Read like blkid, for the types a root is made of: ext2/3/4, XFS, Btrfs,
 * F2FS, SquashFS. root= may be /dev/NAME (as the kernel names it, or a
 * /dev/disk/by-uuid or by-label link udev will make), UUID= or LABEL=;
 * anything else (PARTUUID=, a number, NFS) is left to the mount.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "internal.h"

#define SB_EXT 1024        /* ext2/3/4's and F2FS's superblock */
#define SB_BTRFS 65536

static unsigned le16(const unsigned char *p)
{
	return p[0] | (unsigned)p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
	return le16(p) | (uint32_t)le16(p + 2) << 16;
}

/* blkid's line between ext3 and ext4: what ext3 knows of the incompat
 * (filetype, recover, meta_bg) and ro_compat (sparse_super, large_file,
 * btree_dir) features; anything else is ext4's */
static const char *ext_type(const unsigned char *sb)
{
	uint32_t incompat = le32(sb + 0x60), ro_compat = le32(sb + 0x64);

	if ((incompat & ~0x16u) || (ro_compat & ~0x7u))
		return "ext4";
	return le32(sb + 0x5c) & 0x4 ? "ext3" : "ext2";
}

int mp_rootfs_identify(int fd, struct mp_fsid *id)
{
	unsigned char b[4096], *sb = b + SB_EXT;

	memset(id, 0, sizeof(*id));
	if (pread(fd, b, sizeof(b), 0) != (ssize_t)sizeof(b))
		return -EIO;
	if (le16(sb + 0x38) == 0xef53) {
		id->type = ext_type(sb);
		memcpy(id->uuid, sb + 0x68, 16);
		memcpy(id->label, sb + 0x78, 16);
	} else if (memcmp(b, "XFSB", 4) == 0) {
		id->type = "xfs";
		memcpy(id->uuid, b + 32, 16);
		memcpy(id->label, b + 108, 12);
	} else if (le32(sb) == 0xf2f52010) {
		id->type = "f2fs";
		memcpy(id->uuid, sb + 0x6c, 16);
	} else if (memcmp(b, "hsqs", 4) == 0) {
		id->type = "squashfs";
	} else if (pread(fd, b, sizeof(b), SB_BTRFS) == (ssize_t)sizeof(b) &&
		   memcmp(b + 0x40, "_BHRfS_M", 8) == 0) {
		id->type = "btrfs";
		memcpy(id->uuid, b + 0x20, 16);
		memcpy(id->label, b + 0x12b, sizeof(id->label) - 1);
	}
	return id->type ? 0 : -ENOENT;
}

/* "0a1b...-..." into 16 bytes, dashes anywhere; 0 when it is one */
static int parse_uuid(const char *s, unsigned char *out)
{
	int n = 0;

	for (; *s && n < 32; s++) {
		int v;

		if (*s == '-')
			continue;
		if (!isxdigit((unsigned char)*s))
			return -EINVAL;
		v = isdigit((unsigned char)*s) ? *s - '0' : (tolower((unsigned char)*s) - 'a' + 10);
		out[n / 2] = (unsigned char)(n % 2 ? out[n / 2] | v : v << 4);
		n++;
	}
	return n == 32 && *s == '\0' ? 0 : -EINVAL;
}

int mp_rootfs_want(struct mp_rootfs *rf, const char *root)
{
	static const char by_uuid[] = "/dev/disk/by-uuid/", by_label[] = "/dev/disk/by-label/";

	memset(rf, 0, sizeof(*rf));
	if (root == NULL)
		return -ENOENT;
	if (strncmp(root, "UUID=", 5) == 0 || strncmp(root, by_uuid, sizeof(by_uuid) - 1) == 0) {
		rf->how = 'u';
		return parse_uuid(root + (root[0] == 'U' ? 5 : sizeof(by_uuid) - 1), rf->uuid);
	}
	if (strncmp(root, "LABEL=", 6) == 0 || strncmp(root, by_label, sizeof(by_label) - 1) == 0) {
		rf->how = 'l';
		rf->want = root + (root[0] == 'L' ? 6 : sizeof(by_label) - 1);
		return rf->want[0] && strlen(rf->want) < sizeof(((struct mp_fsid *)0)->label) ? 0 : -EINVAL;
	}
	if (strncmp(root, "/dev/", 5) == 0 && root[5] && strstr(root, "/../") == NULL) {
		rf->how = 'p';
		rf->want = root;
		return 0;
	}
	return -ENOENT;
}

bool mp_rootfs_match(const struct mp_rootfs *rf, const struct mp_fsid *id)
{
	switch (rf->how) {
	case 'p':
		return true;
	case 'u':
		return memcmp(rf->uuid, id->uuid, 16) == 0;
	case 'l':
		return strcmp(rf->want, id->label) == 0;
	}
	return false;
}

static int request_type(struct mp_ctx *ctx, const char *type, const char *where)
{
	char alias[64];

	if ((size_t)snprintf(alias, sizeof(alias), "fs-%s", type) >= sizeof(alias))
		return 0;
	mp_log(ctx, MP_LOG_INFO, "the root's file system: %s (%s); %s planned", type, where, alias);
	return mp_request(ctx, alias, MP_SRC_ROOT, MP_BL_ALIASES);
}

/* a device that may be the root: not one that reading would spin up or
 * stall (floppy, CD-ROM) and not one that cannot be (RAM, loop, zram) */
static bool candidate(const char *name)
{
	static const char skip[][5] = { "fd", "sr", "loop", "ram", "zram", "nbd" };
	size_t i;

	if (name[0] == '.')
		return false;
	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (strncmp(name, skip[i], strlen(skip[i])) == 0)
			return false;
	return true;
}

/* DEV's file system, when it is the root's: requested, 1 */
static int try_device(struct mp_ctx *ctx, struct mp_rootfs *rf, const char *dev)
{
	_cleanup_close_ int fd = open(dev, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct mp_fsid id;
	int r;

	if (fd < 0 || mp_rootfs_identify(fd, &id) < 0 || !mp_rootfs_match(rf, &id))
		return 0;
	rf->how = 0;
	r = request_type(ctx, id.type, dev);
	return r < 0 ? r : 1;
}

int mp_rootfs_probe(struct mp_ctx *ctx)
{
	struct mp_rootfs *rf = &mp_ctx_coldplug(ctx)->rootfs;
	char path[PATH_MAX + 16];
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (rf->how == 'p')
		return try_device(ctx, rf, rf->want);
	if (rf->how == 0)
		return 0;
	snprintf(path, sizeof(path), "%s/class/block", mp_ctx_env(ctx)->sysfs);
	d = opendir(path);
	while (d && r == 0 && (de = readdir(d)) != NULL)
		if (candidate(de->d_name) && snprintf(path, sizeof(path), "/dev/%s", de->d_name) < (int)sizeof(path))
			r = try_device(ctx, rf, path);
	if (d)
		closedir(d);
	return r;
}

int mp_rootfs_plan(struct mp_ctx *ctx)
{
	/* the command line the hook gave (dracut's has /etc/cmdline.d, where
	 * a host-only image keeps root= and rootfstype=), else the kernel's */
	const struct mp_cmdline *k = mp_ctx_cmdline(ctx);
	struct mp_rootfs *rf = &mp_ctx_coldplug(ctx)->rootfs;
	char *types, *t, *save = NULL;
	int r = 0;

	if (k->rootfs_off)
		return 0;
	if (k->root == NULL && k->rootfstype == NULL)
		k = mp_ctx_kcmdline(ctx);
	/* the types the kernel will try, in its order */
	if (k->rootfstype && k->rootfstype[0]) {
		types = strdup(k->rootfstype);
		if (types == NULL)
			return -ENOMEM;
		for (t = strtok_r(types, ",", &save); t && r >= 0; t = strtok_r(NULL, ",", &save))
			r = request_type(ctx, t, "rootfstype=");
		free(types);
		return r < 0 ? r : 0;
	}
	if (mp_rootfs_want(rf, k->root) < 0) {
		rf->how = 0;
		mp_log(ctx, MP_LOG_DEBUG, "root=%s: its file system is left to the mount", k->root ? k->root : "");
		return 0;
	}
	r = mp_rootfs_probe(ctx);
	return r < 0 ? r : 0;
}
