// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Coldplug: one request per device that has a modalias, the way udev's
 * "trigger" makes one per device — so duplicates are seen and counted —
 * then the devices that appear while modules load (a bus driver's
 * children), heard as kernel uevents on netlink or found by a rescan.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

#define UEVENT_MAX 8192
#define SYSFS_DEPTH_MAX 64

/* devpath is relative to sysfs ("devices/..."), as in uevents' DEVPATH. */
static int device_seen(struct mp_ctx *ctx, const char *devpath, bool *was)
{
	struct mp_coldplug *cp = mp_ctx_coldplug(ctx);
	int dummy;

	if (cp->devices == NULL) {
		cp->devices = mp_strmap_new();
		if (cp->devices == NULL)
			return -ENOMEM;
	}
	*was = mp_strmap_get(cp->devices, devpath, &dummy) == 0;
	return *was ? 0 : mp_strmap_put(cp->devices, devpath, 0);
}

struct visit {
	mp_device_fn fn;
	void *data;
	unsigned dirs;          /* opened, for the report */
};

/* A device's MODALIAS, to the visitor; a device without one is no error.
 * *is_device: the directory has a uevent file, so it is a device's. */
static int device(int dirfd, const char *devpath, const struct visit *v, bool *is_device)
{
	char buf[UEVENT_MAX], alias[4096];
	_cleanup_close_ int fd = openat(dirfd, "uevent", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	*is_device = fd >= 0;
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return 0;
	if (mp_uevent_modalias(buf, (size_t)n, alias, sizeof(alias)) < 0)
		return 0;
	return v->fn(dirfd, devpath, alias, v->data);
}

struct scan {
	struct mp_ctx *ctx;
	enum mp_source src;
};

static int request_device(int dirfd, const char *devpath, const char *alias, void *data)
{
	struct scan *sc = data;
	struct mp_coldplug *cp = mp_ctx_coldplug(sc->ctx);
	uint64_t t;
	bool was;
	int r;

	(void)dirfd;
	r = device_seen(sc->ctx, devpath, &was);
	if (r < 0 || was)
		return r;
	/* udev's kmod builtin: KMOD_PROBE_APPLY_BLACKLIST (a modalias is
	 * never a name: only aliases are stopped) */
	t = mp_now_ns();
	r = mp_request(sc->ctx, alias, sc->src, MP_BL_NAMES);
	if (sc->src == MP_SRC_COLDPLUG)
		cp->lookup_ns += mp_now_ns() - t;
	return r;
}

/* The kernel's struct linux_dirent64: getdents64(2) on the directory's own
 * descriptor, a chunk at a time into the caller's stack. fdopendir() and
 * readdir() cost five more calls a directory (dup, fstat, fcntl, close, and
 * musl's malloc mapped and unmapped the DIR every other time): on a
 * 16-vCPU guest's /sys/devices, thousands of directories, the most of the
 * booted run's planning under TCG. */
struct dent64 {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

#define DENTS_CHUNK 4096

static int walk(int dirfd, char *devpath, size_t len, int depth, struct visit *v);

/* One entry: a real directory (sysfs links, subsystem, driver,
 * firmware_node, lead back into the tree) is walked. A device's "power"
 * is its power-management attributes (every device has them with
 * CONFIG_PM; no child device can take that name then): not walked, which
 * left out two directories in five of a machine's /sys/devices. */
static int walk_entry(int dirfd, const struct dent64 *de, char *devpath, size_t len, int depth,
		      bool in_device, struct visit *v)
{
	size_t nlen = strlen(de->name);
	struct stat st;
	int sub, r;

	if (de->name[0] == '.' || (in_device && strcmp(de->name, "power") == 0))
		return 0;
	if (de->type == DT_UNKNOWN) {
		if (fstatat(dirfd, de->name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			return 0;
	} else if (de->type != DT_DIR) {
		return 0;
	}
	if (len + 1 + nlen + 1 > PATH_MAX)
		return 0;
	sub = openat(dirfd, de->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0)
		return 0;
	devpath[len] = '/';
	memcpy(devpath + len + 1, de->name, nlen + 1);
	r = walk(sub, devpath, len + 1 + nlen, depth + 1, v);
	devpath[len] = '\0';
	return r;
}

static int walk(int dirfd, char *devpath, size_t len, int depth, struct visit *v)
{
	_cleanup_close_ int self = dirfd;
	union {
		struct dent64 d;
		char bytes[DENTS_CHUNK];
	} chunk;
	bool is_device;
	long n;
	int r;

	v->dirs++;
	r = device(dirfd, devpath, v, &is_device);
	if (r < 0 || depth >= SYSFS_DEPTH_MAX)
		return r;
	while (r == 0 && (n = syscall(SYS_getdents64, dirfd, chunk.bytes, sizeof(chunk.bytes))) > 0) {
		long off;

		for (off = 0; r == 0 && off < n; off += ((struct dent64 *)(chunk.bytes + off))->reclen)
			r = walk_entry(dirfd, (struct dent64 *)(chunk.bytes + off), devpath, len, depth,
				       is_device, v);
	}
	return r;
}

/* *dirs: the directories opened, added to */
static int foreach(struct mp_ctx *ctx, mp_device_fn fn, void *data, unsigned *dirs)
{
	char root[PATH_MAX + 16], devpath[PATH_MAX];
	struct visit v = { .fn = fn, .data = data };
	int fd, r;

	snprintf(root, sizeof(root), "%s/devices", mp_ctx_env(ctx)->sysfs);
	/* beneath sysfs's fd: a replay after a hand-over may come while
	 * /init has moved /sys (kept.c) */
	fd = openat(mp_ctx_env(ctx)->sysfs_fd, "devices", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		mp_warn(ctx, "%s: cannot scan for devices: %s", root, mp_errno_name(errno));
		return 0;
	}
	snprintf(devpath, sizeof(devpath), "/devices");
	r = walk(fd, devpath, strlen(devpath), 0, &v);
	*dirs += v.dirs;
	return r;
}

int mp_coldplug_foreach(struct mp_ctx *ctx, mp_device_fn fn, void *data)
{
	unsigned dirs = 0;

	return foreach(ctx, fn, data, &dirs);
}

/* the first scan's cost goes to the report's planning line: a rescan
 * comes after the planning */
int mp_coldplug_scan(struct mp_ctx *ctx, enum mp_source src)
{
	struct scan sc = { .ctx = ctx, .src = src };
	struct mp_coldplug *cp = mp_ctx_coldplug(ctx);
	unsigned dirs = 0;
	uint64_t t = mp_now_ns();
	int r = foreach(ctx, request_device, &sc, src == MP_SRC_COLDPLUG ? &cp->dirs : &dirs);

	if (src == MP_SRC_COLDPLUG)
		cp->scan_ns += mp_now_ns() - t;
	return r;
}

/*
 * Reads what the kernel announced since the last call. Returns the number
 * of new requests, or -ENOBUFS when announcements were lost and the
 * caller must rescan.
 */
int mp_coldplug_drain(struct mp_ctx *ctx)
{
	char buf[UEVENT_MAX], alias[4096], action[32], devpath[PATH_MAX];
	const struct mp_plan *p = mp_ctx_plan_const(ctx);
	unsigned before = p->req_total;
	int fd = mp_ctx_coldplug(ctx)->uevent_fd;
	bool lost = false;

	if (fd < 0)
		return 0;
	for (;;) {
		struct sockaddr_nl sa;
		struct iovec iov = { buf, sizeof(buf) - 1 };
		struct msghdr msg = { .msg_name = &sa, .msg_namelen = sizeof(sa),
				      .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT);
		bool was;
		int r;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				lost = true;
				continue;
			}
			break;
		}
		/* only the kernel speaks on this group; ignore anyone else */
		if (sa.nl_pid != 0 || n == 0)
			continue;
		buf[n] = '\0';
		if (mp_uevent_action(buf, (size_t)n, action, sizeof(action)) < 0 ||
		    strcmp(action, "add") != 0)
			continue;
		if (mp_uevent_modalias(buf, (size_t)n, alias, sizeof(alias)) < 0)
			continue;
		if (mp_uevent_devpath(buf, (size_t)n, devpath, sizeof(devpath)) < 0)
			continue;
		r = device_seen(ctx, devpath, &was);
		if (r < 0)
			return r;
		if (was)
			continue;
		r = mp_request(ctx, alias, MP_SRC_UEVENT, MP_BL_NAMES);
		if (r < 0)
			return r;
	}
	if (lost)
		return -ENOBUFS;
	return (int)(p->req_total - before);
}
