// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * switch_root as PID 1 must do it. The initramfs is the kernel's rootfs
 * and cannot be unmounted, so the new root is moved over it, and the
 * initramfs's files are deleted to give their memory back — every file on
 * the rootfs, but nothing on another file system mounted somewhere inside
 * it. /dev, /proc, /sys and /run move along, so the preloader's report in
 * /run stays for the booted system to read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "init.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *const moved[] = { "/dev", "/proc", "/sys", "/run" };

/*
 * Whether init would exec on the new root, asked before anything is torn
 * down: a child chroots and asks, so that absolute symlinks
 * (/sbin/init -> /lib/systemd/systemd) resolve inside the new root.
 * 0 when it is there and executable, -errno.
 */
int init_exists(const char *newroot, const char *init)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		struct stat st;

		if (chroot(newroot) < 0 || chdir("/") < 0)
			_exit(EIO);
		if (stat(init, &st) < 0)
			_exit(errno & 0xff);
		if (!S_ISREG(st.st_mode))
			_exit(EACCES);
		_exit(access(init, X_OK) < 0 ? errno & 0xff : 0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status))
		return -EIO;
	return -WEXITSTATUS(status);
}

/*
 * Deletes everything under dirfd that is on device dev, depth first, and
 * closes dirfd. Directories of another device are mount points: neither
 * entered nor removed. Returns the number of entries that could not be
 * removed.
 */
int purge_tree(int dirfd, dev_t dev)
{
	DIR *dp = fdopendir(dirfd);
	struct dirent *de;
	int left = 0;

	if (dp == NULL) {
		close(dirfd);
		return 1;
	}
	while ((de = readdir(dp)) != NULL) {
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			left++;
			continue;
		}
		if (st.st_dev != dev)
			continue;
		if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd, de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub < 0) {
				left++;
				continue;
			}
			left += purge_tree(sub, dev);
			if (unlinkat(dirfd, de->d_name, AT_REMOVEDIR) < 0)
				left++;
		} else if (unlinkat(dirfd, de->d_name, 0) < 0) {
			left++;
		}
	}
	closedir(dp);
	return left;
}

static void move_api_mounts(const char *newroot, const struct stat *rootst, bool done[],
			    struct init_log *l)
{
	char path[256];
	size_t i;

	for (i = 0; i < ARRAY_LEN(moved); i++) {
		struct stat st;

		done[i] = false;
		snprintf(path, sizeof(path), "%s%s", newroot, moved[i]);
		/* a directory of another device is already a mount point:
		 * leave it, ours goes */
		if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_dev != rootst->st_dev) {
			init_log(l, 4, "the new root has no %s to move ours to: detaching it%s",
				 moved[i], strcmp(moved[i], "/run") == 0 ?
				 " (the preloader's report goes with it)" : "");
			(void)umount2(moved[i], MNT_DETACH);
			continue;
		}
		if (mount(moved[i], path, NULL, MS_MOVE, NULL) < 0) {
			init_log(l, 4, "cannot move %s to %s: %s; detaching it", moved[i], path,
				 strerror(errno));
			(void)umount2(moved[i], MNT_DETACH);
			continue;
		}
		done[i] = true;
	}
}

/* Back where they were, so that a rescue shell has them. */
static void unmove_api_mounts(const char *newroot, const bool done[])
{
	char path[256];
	size_t i;

	for (i = 0; i < ARRAY_LEN(moved); i++) {
		if (!done[i])
			continue;
		snprintf(path, sizeof(path), "%s%s", newroot, moved[i]);
		(void)mount(path, moved[i], NULL, MS_MOVE, NULL);
	}
}

/*
 * Does not return once the new root is moved over /: it execs init or
 * halts. Before that point, a failure returns -errno with the initramfs
 * intact but for its API mounts, which may have moved already.
 */
int switch_root(const char *newroot, const char *init, char *const argv[], struct init_log *l)
{
	struct stat rootst, oldst;
	struct statfs sfs;
	bool done[ARRAY_LEN(moved)];
	char why[512];
	int oldroot, r, left;

	if (stat(newroot, &rootst) < 0 || stat("/", &oldst) < 0)
		return -errno;
	if (rootst.st_dev == oldst.st_dev)
		return -EINVAL; /* nothing is mounted on newroot */
	oldroot = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (oldroot < 0)
		return -errno;
	move_api_mounts(newroot, &rootst, done, l);
	if (chdir(newroot) < 0 || mount(newroot, "/", NULL, MS_MOVE, NULL) < 0) {
		r = -errno;
		init_shout(l, "cannot move %s to /: %s", newroot, strerror(-r));
		(void)chdir("/");
		unmove_api_mounts(newroot, done);
		close(oldroot);
		return r;
	}
	/* the point of no return: the new root is over the old one */
	if (chroot(".") < 0 || chdir("/") < 0) {
		snprintf(why, sizeof(why), "cannot chroot into the new root: %s", strerror(errno));
		init_halt(l, why);
	}
	/* Only an initramfs is emptied: were we started some other way, the
	 * old root is somebody's disk. */
	if (fstatfs(oldroot, &sfs) == 0 &&
	    (sfs.f_type == RAMFS_MAGIC || sfs.f_type == TMPFS_MAGIC)) {
		left = purge_tree(oldroot, oldst.st_dev);
		if (left)
			init_log(l, 4, "%d entries of the initramfs could not be removed", left);
	} else {
		init_log(l, 4, "the old root is not an initramfs: left as it is");
		close(oldroot);
	}
	execv(init, argv);
	/* init_exists said yes a moment ago; with the initramfs gone there
	 * is no shell left to offer */
	snprintf(why, sizeof(why), "cannot execute %s on the new root: %s", init, strerror(errno));
	init_halt(l, why);
}
