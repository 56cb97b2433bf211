// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * /init without a VM: the kernel command line, root= in all its forms,
 * rootflags, finding a root by UUID/LABEL among file system images behind
 * a fake sysfs (libblkid reads image files as it reads disks), emptying a
 * tree without crossing a mount, and the init check inside a chroot.
 * Parts that need mkfs tools or root print SKIP lines when they cannot run.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "init.h"
#include "internal.h"
#define T_SUITE "init"
#include "t.h"

static char tmpdir[256];
static const char *unitdir; /* run.sh's, with a module tree in tree/ */

static void skip(const char *what, const char *why)
{
	printf("SKIP: %s/%s (%s)\n", T_SUITE, what, why);
	fflush(stdout);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* --- the kernel command line --- */

static void root_forms(void)
{
	struct root_spec r;

	CHECK(root_spec_parse("/dev/vda1", &r) == 0 && r.kind == ROOT_PATH);
	CHECK_STR(r.value, "/dev/vda1");
	CHECK(root_spec_parse("UUID=0e7a1111-2222-4333-8444-555566667777", &r) == 0 &&
	      r.kind == ROOT_UUID);
	CHECK_STR(r.value, "0e7a1111-2222-4333-8444-555566667777");
	CHECK(root_spec_parse("LABEL=my root", &r) == 0 && r.kind == ROOT_LABEL);
	CHECK_STR(r.value, "my root");
	CHECK(root_spec_parse("PARTUUID=1234abcd-02", &r) == 0 && r.kind == ROOT_PARTUUID);
	CHECK(root_spec_parse("PARTLABEL=root", &r) == 0 && r.kind == ROOT_PARTLABEL);
	/* udev's links name tags, with its \x escapes */
	CHECK(root_spec_parse("/dev/disk/by-label/my\\x20root", &r) == 0 && r.kind == ROOT_LABEL);
	CHECK_STR(r.value, "my root");
	CHECK(root_spec_parse("/dev/disk/by-uuid/abcd-1234", &r) == 0 && r.kind == ROOT_UUID);
	CHECK_STR(r.value, "abcd-1234");
	CHECK(root_spec_parse("/dev/disk/by-partuuid/x", &r) == 0 && r.kind == ROOT_PARTUUID);
	/* device numbers: MAJ:MIN, and the kernel's hex dev_t */
	CHECK(root_spec_parse("254:1", &r) == 0 && r.kind == ROOT_DEVNUM && r.major == 254 &&
	      r.minor == 1);
	CHECK(root_spec_parse("0801", &r) == 0 && r.kind == ROOT_DEVNUM && r.major == 8 &&
	      r.minor == 1);
	CHECK(root_spec_parse("fe01", &r) == 0 && r.major == 254 && r.minor == 1);
	/* refused */
	CHECK(root_spec_parse("", &r) == -EINVAL && r.kind == ROOT_NONE);
	CHECK(root_spec_parse(NULL, &r) == -EINVAL);
	CHECK(root_spec_parse("UUID=", &r) == -EINVAL);
	CHECK(root_spec_parse("PARTUUID=abc/PARTNROFF=1", &r) == -EINVAL);
	CHECK(root_spec_parse("/dev/", &r) == -EINVAL);
	CHECK(root_spec_parse("/dev/disk/by-uuid/", &r) == -EINVAL);
	CHECK(root_spec_parse("sda1", &r) == -EINVAL);
	CHECK(root_spec_parse("nfs", &r) == -EINVAL);
	CHECK(root_spec_parse("254:", &r) == -EINVAL);
	CHECK(root_spec_parse("0", &r) == -EINVAL);
	CHECK_STR(root_kind_name(ROOT_LABEL), "LABEL");
}

static void unescape(void)
{
	char out[8];

	CHECK(unescape_udev("a\\x2fb", out, sizeof(out)) == 0);
	CHECK_STR(out, "a/b");
	CHECK(unescape_udev("\\xzz\\x4", out, sizeof(out)) == 0);
	CHECK_STR(out, "\\xzz\\x4");
	CHECK(unescape_udev("12345678", out, sizeof(out)) == -ENAMETOOLONG);
	CHECK(unescape_udev("1234567", out, sizeof(out)) == 0);
}

static void defaults(void)
{
	struct boot_args a;

	CHECK(boot_args_parse("console=ttyS0 quiet", &a) == 0);
	CHECK(a.root.kind == ROOT_NONE && a.root_raw[0] == '\0');
	CHECK(!a.rw);                     /* the kernel mounts read-only by default */
	CHECK(!a.rootwait && a.wait_s == INIT_NOWAIT_S);
	CHECK(a.rootdelay_s == 0);
	CHECK(a.init[0] == '\0');
	CHECK(a.brk == BREAK_NONE);
	CHECK(a.preload);
	CHECK(a.nbad == 0);
}

static void full_line(void)
{
	struct boot_args a;

	CHECK(boot_args_parse("BOOT_IMAGE=/vmlinuz root=UUID=abc rootfstype=xfs,ext4 "
			      "rootflags=noatime,discard ro rw rootwait rootdelay=2 "
			      "init=/lib/systemd/systemd rd.break=pre-mount "
			      "rd.modpreload.jobs=4 -- single root=/dev/evil", &a) == 0);
	CHECK(a.root.kind == ROOT_UUID);
	CHECK_STR(a.root_raw, "UUID=abc");  /* what follows "--" is init's */
	CHECK_STR(a.fstypes, "xfs,ext4");
	CHECK_STR(a.rootflags, "noatime,discard");
	CHECK(a.rw);                        /* the last of ro/rw wins */
	CHECK(a.rootwait && a.wait_s == INIT_ROOTWAIT_S);
	CHECK(a.rootdelay_s == 2);
	CHECK_STR(a.init, "/lib/systemd/systemd");
	CHECK(a.brk == BREAK_PRE_MOUNT);
	CHECK(a.preload);
	CHECK(a.nbad == 0);

	CHECK(boot_args_parse("root=LABEL=\"my root\" rootwait=7 rd.break rd.modpreload=0", &a) == 0);
	CHECK(a.root.kind == ROOT_LABEL);
	CHECK_STR(a.root.value, "my root");
	CHECK(a.rootwait && a.wait_s == 7);
	CHECK(a.brk == BREAK_PRE_PIVOT);
	CHECK(!a.preload);
	CHECK(boot_args_parse("root=/dev/sda1 root=/dev/vda2 rd.break=pre-pivot rd.modpreload=1",
			      &a) == 0);
	CHECK_STR(a.root.value, "/dev/vda2");
	CHECK(a.brk == BREAK_PRE_PIVOT && a.preload);
}

static void bad_values(void)
{
	struct boot_args a;
	int i;
	bool root = false, init = false, delay = false, wait = false, brk = false;

	CHECK(boot_args_parse("root=sda1 init=sbin/init rootdelay=soon rootwait=0 "
			      "rd.break=later rootflags rootfstype", &a) == 0);
	CHECK(a.nbad == 7);
	for (i = 0; i < a.nbad; i++) {
		root |= strcmp(a.bad[i], "root") == 0;
		init |= strcmp(a.bad[i], "init") == 0;
		delay |= strcmp(a.bad[i], "rootdelay") == 0;
		wait |= strcmp(a.bad[i], "rootwait") == 0;
		brk |= strcmp(a.bad[i], "rd.break") == 0;
	}
	CHECK(root && init && delay && wait && brk);
	CHECK(a.root.kind == ROOT_NONE);
	CHECK_STR(a.root_raw, "sda1");      /* kept for the message */
	CHECK(a.init[0] == '\0' && !a.rootwait && a.brk == BREAK_NONE);
	/* more bad words than slots: kept to the first ones, no overflow */
	CHECK(boot_args_parse("init=a init=b init=c init=d init=e init=f init=g init=h init=i "
			      "init=j", &a) == 0);
	CHECK(a.nbad == BOOT_BAD_MAX);
	CHECK(boot_args_parse("rootdelay=301 rootwait=3601", &a) == 0 && a.nbad == 2);
}

static void rootflags(void)
{
	unsigned long f = MS_RDONLY;
	char data[64];

	CHECK(mount_options_split("noatime,discard,rw,nodev,errors=remount-ro,,defaults", &f,
				  data, sizeof(data)) == 0);
	CHECK(f == (MS_NOATIME | MS_NODEV));
	CHECK_STR(data, "discard,errors=remount-ro");
	f = 0;
	CHECK(mount_options_split("", &f, data, sizeof(data)) == 0 && f == 0 && data[0] == '\0');
	CHECK(mount_options_split("ro,subvol=@root,compress=zstd", &f, data, sizeof(data)) == 0);
	CHECK(f == MS_RDONLY);
	CHECK_STR(data, "subvol=@root,compress=zstd");
	CHECK(mount_options_split("aaaaaaaa,bbbbbbbb", &f, data, 12) == -ENAMETOOLONG);
	CHECK(mount_options_split("aaaaa,bbbbb", &f, data, 12) == 0);
	CHECK_STR(data, "aaaaa,bbbbb");
	/* a prefix of a flag is not the flag */
	f = 0;
	CHECK(mount_options_split("noatimes,r", &f, data, sizeof(data)) == 0 && f == 0);
	CHECK_STR(data, "noatimes,r");
}

/* --- finding the root among file system images --- */

/* A fake sysfs class/block entry whose /dev node is the image file. */
static void fake_device(const char *name, unsigned major, unsigned minor, const char *size)
{
	char path[512], text[256];

	snprintf(path, sizeof(path), "%s/sys/class/block/%s", tmpdir, name);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/class/block/%s/uevent", tmpdir, name);
	snprintf(text, sizeof(text), "MAJOR=%u\nMINOR=%u\nDEVNAME=%s\nDEVTYPE=disk\n", major,
		 minor, name);
	CHECK(write_file(path, text) == 0);
	snprintf(path, sizeof(path), "%s/sys/class/block/%s/size", tmpdir, name);
	CHECK(write_file(path, size) == 0);
}

static void find_by_tags(void)
{
	static struct blkdevs s;
	char sys[300], dev[300], path[400], desc[2048], btrfs_uuid[64], spec[128];
	struct root_spec r;
	bool have_xfs, have_btrfs, have_swap;
	int n, i;

	snprintf(sys, sizeof(sys), "%s/sys", tmpdir);
	snprintf(dev, sizeof(dev), "%s/dev", tmpdir);
	mkdir(sys, 0755);
	mkdir(dev, 0755);
	snprintf(path, sizeof(path), "%s/sys/class", tmpdir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/class/block", tmpdir);
	mkdir(path, 0755);
	if (sh("truncate -s 8M %s/vda && mkfs.ext4 -q -F -L mptroot "
	       "-U 0e7a1111-2222-4333-8444-555566667777 %s/vda >/dev/null 2>&1", dev, dev) != 0) {
		skip("find_by_tags", "mkfs.ext4 failed or missing");
		return;
	}
	fake_device("vda", 254, 0, "16384\n");
	have_xfs = sh("truncate -s 300M %s/vdb && mkfs.xfs -q -f -L xroot "
		      "-m uuid=11111111-2222-3333-4444-555555555555 %s/vdb >/dev/null 2>&1",
		      dev, dev) == 0;
	if (have_xfs)
		fake_device("vdb", 254, 16, "614400\n");
	/* mkfs.btrfs refuses a UUID it has seen before (in blkid's cache) */
	snprintf(btrfs_uuid, sizeof(btrfs_uuid), "11111111-2222-3333-4444-%012x",
		 (unsigned)getpid());
	have_btrfs = sh("truncate -s 128M %s/vdc && mkfs.btrfs -q -f -L broot -U %s %s/vdc "
			">/dev/null 2>&1", dev, btrfs_uuid, dev) == 0;
	if (have_btrfs)
		fake_device("vdc", 254, 32, "262144\n");
	/* swap: found, but its usage says it is no file system */
	have_swap = sh("truncate -s 1M %s/vde && mkswap -L mptswap %s/vde >/dev/null 2>&1",
		       dev, dev) == 0;
	if (have_swap)
		fake_device("vde", 254, 64, "2048\n");
	/* no media: not looked at; garbage: no file system */
	fake_device("sr0", 11, 0, "0\n");
	snprintf(path, sizeof(path), "%s/dev/vdd", tmpdir);
	CHECK(write_file(path, "not a file system, just some bytes\n") == 0);
	fake_device("vdd", 254, 48, "1\n");

	s.sysfs = sys;
	s.devdir = dev;
	n = blkdevs_scan(&s);
	CHECK(n == 2 + have_xfs + have_btrfs + have_swap);
	CHECK(blkdevs_scan(&s) == 0);     /* nothing new: nothing read again */
	CHECK(s.n == n);

	CHECK(root_spec_parse("UUID=0E7A1111-2222-4333-8444-555566667777", &r) == 0);
	i = blkdevs_find(&s, &r, &n);
	CHECK(i >= 0 && n == 1 && strcmp(s.dev[i].name, "vda") == 0);
	CHECK(i >= 0 && strcmp(s.dev[i].type, "ext4") == 0);
	CHECK(i >= 0 && strcmp(s.dev[i].usage, "filesystem") == 0);
	CHECK(root_spec_parse("LABEL=mptroot", &r) == 0);
	i = blkdevs_find(&s, &r, &n);
	CHECK(i >= 0 && strcmp(s.dev[i].name, "vda") == 0);
	CHECK(root_spec_parse("LABEL=MPTROOT", &r) == 0);   /* labels are exact */
	CHECK(blkdevs_find(&s, &r, &n) == -ENODEV && n == 0);
	CHECK(root_spec_parse("254:48", &r) == 0);
	i = blkdevs_find(&s, &r, &n);
	CHECK(i >= 0 && strcmp(s.dev[i].name, "vdd") == 0 && s.dev[i].type[0] == '\0');
	if (have_xfs) {
		CHECK(root_spec_parse("UUID=11111111-2222-3333-4444-555555555555", &r) == 0);
		i = blkdevs_find(&s, &r, &n);
		CHECK(i >= 0 && strcmp(s.dev[i].type, "xfs") == 0);
		CHECK(i >= 0 && strcmp(s.dev[i].label, "xroot") == 0);
	} else {
		skip("find_by_tags_xfs", "mkfs.xfs failed or missing");
	}
	if (have_btrfs) {
		snprintf(spec, sizeof(spec), "/dev/disk/by-uuid/%s", btrfs_uuid);
		CHECK(root_spec_parse(spec, &r) == 0);
		i = blkdevs_find(&s, &r, &n);
		CHECK(i >= 0 && strcmp(s.dev[i].type, "btrfs") == 0);
	} else {
		skip("find_by_tags_btrfs", "mkfs.btrfs failed or missing");
	}
	if (have_swap) {
		CHECK(root_spec_parse("LABEL=mptswap", &r) == 0);
		i = blkdevs_find(&s, &r, &n);
		CHECK(i >= 0 && strcmp(s.dev[i].type, "swap") == 0);
		CHECK(i >= 0 && strcmp(s.dev[i].usage, "other") == 0);
	} else {
		skip("find_by_tags_swap", "mkswap failed or missing");
	}
	CHECK(root_spec_parse("UUID=00000000-0000-0000-0000-000000000000", &r) == 0);
	CHECK(blkdevs_find(&s, &r, &n) == -ENODEV);
	blkdevs_describe(&s, desc, sizeof(desc));
	CHECK(strstr(desc, "vda (ext4 UUID=0e7a1111-2222-4333-8444-555566667777 LABEL=mptroot)") != NULL);
	CHECK(strstr(desc, "vdd (no file system)") != NULL);
	CHECK(strstr(desc, "sr0") == NULL);
	/* a short buffer is cut, never overrun */
	blkdevs_describe(&s, desc, 10);
	CHECK(strlen(desc) == 9);
	blkdevs_free(&s);
}

static void describe_empty(void)
{
	static struct blkdevs s;
	char desc[64];

	blkdevs_describe(&s, desc, sizeof(desc));
	CHECK_STR(desc, "no block devices at all");
	s.sysfs = "/nonexistent";
	s.devdir = "/nonexistent";
	CHECK(blkdevs_scan(&s) == -ENOENT);
}

/* A big storage server has more block devices than any fixed table: the
 * root is the 300th. Their /dev nodes do not exist, so each is listed as
 * unreadable; a root named by number is found all the same. */
static void many_devices(void)
{
	static struct blkdevs s;
	char sys[300], path[400], text[128];
	struct root_spec r;
	int i, n;

	snprintf(sys, sizeof(sys), "%s/many/sys", tmpdir);
	CHECK(sh("mkdir -p %s/class/block", sys) == 0);
	for (i = 0; i < 300; i++) {
		snprintf(path, sizeof(path), "%s/class/block/sd%d", sys, i);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/class/block/sd%d/uevent", sys, i);
		snprintf(text, sizeof(text), "MAJOR=259\nMINOR=%d\nDEVNAME=sd%d\n", i, i);
		CHECK(write_file(path, text) == 0);
		snprintf(path, sizeof(path), "%s/class/block/sd%d/size", sys, i);
		CHECK(write_file(path, "2048\n") == 0);
	}
	s.sysfs = sys;
	s.devdir = "/nonexistent";
	CHECK(blkdevs_scan(&s) == 300);
	CHECK(s.n == 300);
	CHECK(root_spec_parse("259:299", &r) == 0);
	i = blkdevs_find(&s, &r, &n);
	CHECK(i >= 0 && n == 1 && strcmp(s.dev[i].name, "sd299") == 0);
	CHECK(blkdevs_scan(&s) == 0 && s.n == 300);
	blkdevs_free(&s);
	CHECK(s.n == 0);
}

/* --- waiting for the root --- */

static void quiet_log(void *data, int prio, const char *fmt, va_list ap)
{
}

/*
 * The root never appears, and the rescan's coldplug finds a device whose
 * driver someone else is still loading ("coming" for good). The wait
 * still ends at its bound: the rescan gets what is left of it, not the
 * preloader's per-module timeout (60 s).
 */
static void root_wait_bound(void)
{
	static struct blkdevs s;
	char sys[300], tree[300], report[300], buf[4096];
	struct mp_run_args a = {
		.opts = { .cmdline = "", .coldplug = true, .settle_ms = 10 },
		.fork_guard = true,
		.log = quiet_log,
	};
	struct root_spec r;
	uint64_t t0, took;
	int n;

	if (unitdir == NULL) {
		skip("root_wait_bound", "no module tree (run by tests/unit/run.sh)");
		return;
	}
	snprintf(sys, sizeof(sys), "%s/rw/sys", tmpdir);
	snprintf(tree, sizeof(tree), "%s/tree", unitdir);
	snprintf(report, sizeof(report), "%s/rw/report.json", tmpdir);
	CHECK(sh("mkdir -p %s/class/block %s/devices/x %s/module/a %s/module/b %s/module/c",
		 sys, sys, sys, sys, sys) == 0);
	CHECK(sh("echo MODALIAS=foo-bar >%s/devices/x/uevent && echo live >%s/module/a/initstate "
		 "&& echo live >%s/module/b/initstate && echo coming >%s/module/c/initstate",
		 sys, sys, sys, sys) == 0);
	a.opts.basedir = tree;
	a.opts.kver = "1.0";
	a.opts.sysfs = sys;
	a.report_path = report;
	s.sysfs = sys;
	s.devdir = "/nonexistent";
	CHECK(root_spec_parse("LABEL=nowhere", &r) == 0);
	t0 = mp_now_ns();
	CHECK(root_wait(&s, &r, 4000, &a, &n) == -ENODEV);
	took = (mp_now_ns() - t0) / 1000000u;
	/* not the 60 s of a per-module timeout; slack for a loaded host.
	 * root_wait() counts whole milliseconds from a floored start, so
	 * its 4000 can end up to 1 ms before ours. */
	CHECK(took >= 3999 && took < 7000);
	if (took < 3999 || took >= 7000)
		fprintf(stderr, "  root_wait_bound: the wait took %llu ms\n", (unsigned long long)took);
	/* the rescan did run, and found the device's module coming */
	CHECK(mp_read_file(report, buf, sizeof(buf), NULL) == 0);
	CHECK(strstr(buf, "\"name\": \"c\"") != NULL);
	blkdevs_free(&s);
}

/* --- emptying the initramfs --- */

static void purge(void)
{
	char top[300], path[400], outside[300];
	struct stat st;
	bool mounted;
	int fd;

	snprintf(top, sizeof(top), "%s/purge", tmpdir);
	snprintf(outside, sizeof(outside), "%s/outside", tmpdir);
	mkdir(top, 0755);
	mkdir(outside, 0755);
	snprintf(path, sizeof(path), "%s/keep", outside);
	CHECK(write_file(path, "x") == 0);
	snprintf(path, sizeof(path), "%s/a/b/c", top);
	CHECK(sh("mkdir -p %s", path) == 0);
	snprintf(path, sizeof(path), "%s/a/b/c/file", top);
	CHECK(write_file(path, "x") == 0);
	snprintf(path, sizeof(path), "%s/a/link", top);
	CHECK(symlink(outside, path) == 0);   /* never followed */
	snprintf(path, sizeof(path), "%s/init", top);
	CHECK(write_file(path, "x") == 0);
	snprintf(path, sizeof(path), "%s/mnt", top);
	mkdir(path, 0755);
	mounted = mount("none", path, "tmpfs", 0, NULL) == 0;
	if (mounted) {
		snprintf(path, sizeof(path), "%s/mnt/on-another-fs", top);
		CHECK(write_file(path, "x") == 0);
	} else {
		skip("purge_mount", "cannot mount a tmpfs here");
	}

	CHECK(stat(top, &st) == 0);
	fd = open(top, O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0);
	CHECK(purge_tree(fd, st.st_dev) == 0);   /* a mount point is not an error */
	snprintf(path, sizeof(path), "%s/a", top);
	CHECK(access(path, F_OK) < 0 && errno == ENOENT);
	snprintf(path, sizeof(path), "%s/init", top);
	CHECK(access(path, F_OK) < 0);
	snprintf(path, sizeof(path), "%s/keep", outside);
	CHECK(access(path, F_OK) == 0);
	if (mounted) {
		snprintf(path, sizeof(path), "%s/mnt/on-another-fs", top);
		CHECK(access(path, F_OK) == 0);
		snprintf(path, sizeof(path), "%s/mnt", top);
		CHECK(umount(path) == 0);
	}
}

/* --- is there an init on the new root? --- */

static void init_check(void)
{
	char root[300], path[400];

	if (geteuid() != 0) {
		skip("init_check", "chroot needs root");
		return;
	}
	snprintf(root, sizeof(root), "%s/newroot", tmpdir);
	snprintf(path, sizeof(path), "%s/lib/systemd", root);
	CHECK(sh("mkdir -p %s %s/sbin", path, root) == 0);
	snprintf(path, sizeof(path), "%s/lib/systemd/systemd", root);
	CHECK(write_file(path, "#!/bin/sh\n") == 0);
	CHECK(chmod(path, 0755) == 0);
	/* absolute: resolves inside the new root only */
	snprintf(path, sizeof(path), "%s/sbin/init", root);
	CHECK(symlink("/lib/systemd/systemd", path) == 0);
	snprintf(path, sizeof(path), "%s/sbin/not-exec", root);
	CHECK(write_file(path, "x") == 0);
	snprintf(path, sizeof(path), "%s/sbin/dangling", root);
	CHECK(symlink("/nowhere", path) == 0);

	CHECK(init_exists(root, "/sbin/init") == 0);
	CHECK(init_exists(root, "/lib/systemd/systemd") == 0);
	CHECK(init_exists(root, "/sbin/not-exec") == -EACCES);
	CHECK(init_exists(root, "/sbin/dangling") == -ENOENT);
	CHECK(init_exists(root, "/sbin") == -EACCES);
	CHECK(init_exists(root, "/bin/sh") == -ENOENT);
}

/* log.c: control bytes from the command line go out escaped */
static void log_escaped(void)
{
	struct init_log l = { .kmsg = -1, .console = -1, .max_prio = 7, .lib_max_prio = 7 };
	char buf[256];
	ssize_t n;
	int fds[2];

	CHECK(pipe(fds) == 0);
	l.console = fds[1];
	init_log(&l, 3, "root=%s not found", "UUID=\033[2Jx\a");
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	CHECK(n > 0);
	buf[n > 0 ? n : 0] = '\0';
	CHECK_STR(buf, "init: root=UUID=\\x1b[2Jx\\x07 not found\n");
}

int main(int argc, char **argv)
{
	unitdir = argc > 1 ? argv[1] : NULL;
	snprintf(tmpdir, sizeof(tmpdir), "%s/mp-init.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	RUN(log_escaped);
	RUN(root_forms);
	RUN(unescape);
	RUN(defaults);
	RUN(full_line);
	RUN(bad_values);
	RUN(rootflags);
	RUN(find_by_tags);
	RUN(describe_empty);
	RUN(many_devices);
	RUN(root_wait_bound);
	RUN(purge);
	RUN(init_check);
	sh("rm -rf %s", tmpdir);
	return t_failed ? 1 : 0;
}
