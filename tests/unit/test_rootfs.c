// SPDX-License-Identifier: LGPL-2.1-or-later
/* rootfs.c: a file system's type, UUID and label read from the images
 * the real tools make (mkfs.ext2/3/4, mkfs.xfs, mkfs.btrfs: the project's
 * dependencies), and from superblocks written by hand after the on-disk
 * formats for F2FS and SquashFS, whose tools it does not install; root=
 * understood as the mount will look for it. */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"
#define T_SUITE "rootfs"
#include "t.h"

static const char uuid_text[] = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
static const unsigned char uuid_bin[16] = { 0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78,
					    0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0 };
static char dir[] = "/tmp/mpt-rootfs-XXXXXX";

/* IMG made by the shell command CMD (%s: the image); its identity */
static int made(const char *cmd, off_t size, struct mp_fsid *id)
{
	char img[64], sh[512];
	int fd, r;

	snprintf(img, sizeof(img), "%s/img", dir);
	unlink(img);
	fd = open(img, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, size) < 0)
		return -errno;
	close(fd);
	snprintf(sh, sizeof(sh), cmd, img);
	if (system(sh) != 0) {
		fprintf(stderr, "  %s failed\n", sh);
		return -EIO;
	}
	fd = open(img, O_RDONLY);
	r = mp_rootfs_identify(fd, id);
	close(fd);
	return r;
}

static bool found(const char *root, const struct mp_fsid *id)
{
	struct mp_rootfs rf;

	return mp_rootfs_want(&rf, root) == 0 && mp_rootfs_match(&rf, id);
}

static void ext_family(void)
{
	static const char *const types[] = { "ext2", "ext3", "ext4" };
	struct mp_fsid id;
	char cmd[256];
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(cmd, sizeof(cmd), "mkfs.%s -q -F -U %s -L rootlbl %%s >/dev/null 2>&1", types[i],
			 uuid_text);
		CHECK(made(cmd, 16 << 20, &id) == 0);
		CHECK_STR(id.type, types[i]);
		CHECK(memcmp(id.uuid, uuid_bin, 16) == 0);
		CHECK_STR(id.label, "rootlbl");
		CHECK(found("UUID=0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0", &id));
		CHECK(found("/dev/disk/by-uuid/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", &id));
		CHECK(!found("UUID=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f1", &id));
		CHECK(found("LABEL=rootlbl", &id));
		CHECK(found("/dev/disk/by-label/rootlbl", &id));
		CHECK(!found("LABEL=rootlb", &id));
	}
}

static void xfs_and_btrfs(void)
{
	struct mp_fsid id;

	CHECK(made("mkfs.xfs -q -f -m uuid=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 -L xlbl %s >/dev/null 2>&1",
		   (off_t)320 << 20, &id) == 0);
	CHECK_STR(id.type, "xfs");
	CHECK(found("UUID=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", &id));
	CHECK(found("LABEL=xlbl", &id));
	CHECK(made("mkfs.btrfs -q -f -U 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 -L blbl %s >/dev/null 2>&1",
		   (off_t)128 << 20, &id) == 0);
	CHECK_STR(id.type, "btrfs");
	CHECK(found("UUID=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", &id));
	CHECK(found("LABEL=blbl", &id));
}

/* superblocks by hand: F2FS's magic at 1024 and its UUID at 1024 + 0x6c;
 * SquashFS's "hsqs" at 0; zeros are nothing; a file shorter than a page
 * cannot be read */
static void by_hand(void)
{
	unsigned char b[8192] = { 0 };
	char img[64];
	struct mp_fsid id;
	int fd;

	snprintf(img, sizeof(img), "%s/hand", dir);
	fd = open(img, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK(pwrite(fd, b, sizeof(b), 0) == (ssize_t)sizeof(b));
	CHECK(mp_rootfs_identify(fd, &id) == -ENOENT);
	b[1024] = 0x10, b[1025] = 0x20, b[1026] = 0xf5, b[1027] = 0xf2;
	memcpy(b + 1024 + 0x6c, uuid_bin, 16);
	CHECK(pwrite(fd, b, sizeof(b), 0) == (ssize_t)sizeof(b));
	CHECK(mp_rootfs_identify(fd, &id) == 0);
	CHECK_STR(id.type, "f2fs");
	CHECK(found("UUID=0f1e2d3c4b5a69788796a5b4c3d2e1f0", &id));
	memset(b, 0, sizeof(b));
	memcpy(b, "hsqs", 4);
	CHECK(pwrite(fd, b, sizeof(b), 0) == (ssize_t)sizeof(b));
	CHECK(mp_rootfs_identify(fd, &id) == 0);
	CHECK_STR(id.type, "squashfs");
	CHECK(ftruncate(fd, 100) == 0);
	CHECK(mp_rootfs_identify(fd, &id) == -EIO);
	close(fd);
	unlink(img);
}

/* what root= the mount will look for, and what is left to it */
static void root_words(void)
{
	struct mp_rootfs rf;

	CHECK(mp_rootfs_want(&rf, "/dev/vda") == 0 && rf.how == 'p');
	CHECK_STR(rf.want, "/dev/vda");
	CHECK(mp_rootfs_want(&rf, "/dev/mapper/root") == 0 && rf.how == 'p');
	CHECK(mp_rootfs_want(&rf, "UUID=0f1e") == -EINVAL);
	CHECK(mp_rootfs_want(&rf, "UUID=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0ff") == -EINVAL);
	CHECK(mp_rootfs_want(&rf, "UUID=zz1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0") == -EINVAL);
	CHECK(mp_rootfs_want(&rf, "LABEL=") == -EINVAL);
	CHECK(mp_rootfs_want(&rf, "PARTUUID=0f1e2d3c-01") == -ENOENT);
	CHECK(mp_rootfs_want(&rf, "fe01") == -ENOENT);
	CHECK(mp_rootfs_want(&rf, "/dev/") == -ENOENT);
	CHECK(mp_rootfs_want(&rf, "/dev/../etc/shadow") == -ENOENT);
	CHECK(mp_rootfs_want(&rf, NULL) == -ENOENT);
}

int main(void)
{
	char img[64];

	if (mkdtemp(dir) == NULL)
		return 2;
	RUN(ext_family);
	RUN(xfs_and_btrfs);
	RUN(by_hand);
	RUN(root_words);
	snprintf(img, sizeof(img), "%s/img", dir);
	unlink(img);
	rmdir(dir);
	return t_failed ? 1 : 0;
}
