// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * /init: PID 1 of a minimal initramfs, with the preloader in-process.
 * main() is the boot sequence, top to bottom:
 *
 *   mount /proc, /sys, /dev, /run  ->  read the kernel command line  ->
 *   preload (coldplug + /etc/modpreload.d, report in /run/modpreload)  ->
 *   wait for the root device (bounded)  ->  mount it on /sysroot  ->
 *   switch_root: move the API mounts, empty the initramfs, exec init.
 *
 * Every failure ends in a message on the console saying what failed and
 * what was tried, then busybox's shell if the image has one (exiting it
 * tries again), else a few more tries and a halt. PID 1 never exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "init.h"
#include "modpreload.h"
#include "util.h"

static const char usage[] =
	"Usage: /init   (as PID 1, started by the kernel from an initramfs)\n"
	"modpreload's init for minimal systems: mounts the API file systems, loads\n"
	"the modules early boot needs with modpreload (coldplug and /etc/modpreload.d),\n"
	"finds and mounts the root file system and switches to its init.\n"
	"\n"
	"Kernel command line:\n"
	"  root=/dev/NAME | UUID=U | LABEL=L | PARTUUID=U | PARTLABEL=L | MAJ:MIN\n"
	"       (/dev/disk/by-uuid/U and the other by-* names are read as tags)\n"
	"  rootfstype=T[,T...]  rootflags=OPTS  ro | rw  rootdelay=SECONDS\n"
	"  rootwait[=SECONDS]   wait for the root device (bare: 30 s; without: 5 s)\n"
	"  init=PATH            default /sbin/init, /etc/init, /bin/init, /bin/sh\n"
	"  rd.break[=pre-mount|pre-pivot]  a shell before mounting the root, or\n"
	"                       with the root mounted on /sysroot (default)\n"
	"  rd.modpreload=0      load no modules; rd.modpreload.jobs=, .timeout=,\n"
	"                       .modules= are read by the preloader itself\n"
	"Report: /run/modpreload/report.json, kept on the booted system.\n";

/* PID 1's state; the steps in the other files get what they need. */
static struct init_log lg = {
	.kmsg = -1, .console = STDERR_FILENO,
	.max_prio = MP_LOG_INFO, .lib_max_prio = MP_LOG_NOTICE,
};
static struct blkdevs devs = { .sysfs = "/sys", .devdir = "/dev" };
static int preload_status = -1;

struct failure {
	char what[1024];
	char tried[2048];
	char hint[256];
};

/* Without /dev/console in the image the kernel starts us with no stdio;
 * devtmpfs has one. */
static void console_setup(void)
{
	int fd;

	if (fcntl(STDIN_FILENO, F_GETFD) >= 0)
		return;
	fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

static void read_cmdline(char *buf, size_t size)
{
	if (mp_read_file("/proc/cmdline", buf, size, NULL) < 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/*
 * One run of the preloader. The first loads what coldplug and the image's
 * lists ask for and writes the report; later ones (a rescan while waiting,
 * a file system driver) say only what went wrong.
 */
static struct mp_run_args preload_args(const char *const *names, bool first)
{
	return (struct mp_run_args){
		.opts = { .cmdline = "/proc/cmdline", .coldplug = names == NULL, .kstats = true,
			  .grouped = true },
		.names = names,
		.default_configs = first,
		.report_path = first ? INIT_REPORT : NULL,
		.fork_guard = true,
		/* the root is mounted while slow init()s finish; a child of
		 * ours finishes them and reports, in the new root */
		.handover = true,
		.log = init_log_lib,
		.log_data = &lg,
	};
}

static int preload(const char *const *names, bool first)
{
	struct mp_run_args a = preload_args(names, first);

	lg.lib_max_prio = first ? MP_LOG_NOTICE : MP_LOG_ERR;
	return mp_run(&a);
}

/* mount_root's callback: the kernel asks for "fs-TYPE" too. */
static int need_fs(void *data, const char *type)
{
	const struct boot_args *ba = data;
	char alias[64];
	const char *names[] = { alias, NULL };

	if (!ba->preload)
		return 0;
	snprintf(alias, sizeof(alias), "fs-%s", type);
	init_log(&lg, MP_LOG_INFO, "loading the %s file system driver", type);
	return preload(names, false);
}

static int wait_for_root(const struct boot_args *ba, int *nmatch)
{
	struct mp_run_args rescan = preload_args(NULL, false);
	uint64_t t0 = mp_now_ms();
	int idx;

	lg.lib_max_prio = MP_LOG_ERR;
	idx = root_wait(&devs, &ba->root, ba->wait_s * 1000u, ba->preload ? &rescan : NULL, nmatch);
	if (idx >= 0)
		init_log(&lg, MP_LOG_INFO, "root %s is /dev/%s, found after %llu ms", ba->root_raw,
			 devs.dev[idx].name, (unsigned long long)(mp_now_ms() - t0));
	return idx;
}

/* Which init to run: init= alone when given, else the kernel's list. */
static int pick_init(const struct boot_args *ba, char *out, size_t outsz, struct failure *f)
{
	static const char *const defaults[] = { "/sbin/init", "/etc/init", "/bin/init", "/bin/sh" };
	size_t i;
	int r;

	if (ba->init[0]) {
		r = init_exists(INIT_NEWROOT, ba->init);
		if (r == 0) {
			snprintf(out, outsz, "%s", ba->init);
			return 0;
		}
		snprintf(f->what, sizeof(f->what), "init=%s is not usable on the root file system",
			 ba->init);
		snprintf(f->tried, sizeof(f->tried), "%s: %s", ba->init, strerror(-r));
		snprintf(f->hint, sizeof(f->hint), "check init= (the path inside the root file system)");
		return r;
	}
	f->tried[0] = '\0';
	for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		size_t len = strlen(f->tried);

		r = init_exists(INIT_NEWROOT, defaults[i]);
		if (r == 0) {
			snprintf(out, outsz, "%s", defaults[i]);
			return 0;
		}
		snprintf(f->tried + len, sizeof(f->tried) - len, "%s%s: %s", len ? "; " : "",
			 defaults[i], strerror(-r));
	}
	snprintf(f->what, sizeof(f->what), "no init on the root file system");
	snprintf(f->hint, sizeof(f->hint), "install one, or name it with init=");
	return -ENOENT;
}

static void rescue(const char *why)
{
	if (!shell_available()) {
		init_shout(&lg, "%s, but the image has no %s (build it with --busybox)", why,
			   INIT_SHELL);
		return;
	}
	init_shout(&lg, "%s: starting %s; exit it to go on", why, INIT_SHELL);
	shell_run(&lg);
}

/* Tries to boot; returns only on failure, which f describes. */
static void boot(const struct boot_args *ba, char **argv, struct failure *f)
{
	char dev[300], init[256], *iargv[64];
	const struct blkdev *d;
	int idx, nmatch, r, i;

	if (ba->root.kind == ROOT_NONE) {
		snprintf(f->what, sizeof(f->what), ba->root_raw[0] ?
			 "cannot understand root=%s" : "no root= on the kernel command line%s",
			 ba->root_raw);
		snprintf(f->tried, sizeof(f->tried), "the kernel command line");
		snprintf(f->hint, sizeof(f->hint), "root=/dev/NAME, UUID=, LABEL=, PARTUUID=, "
			 "PARTLABEL= or MAJ:MIN");
		return;
	}
	idx = wait_for_root(ba, &nmatch);
	if (idx < 0) {
		snprintf(f->what, sizeof(f->what), "root device %s (%s) not found within %u s",
			 ba->root_raw, root_kind_name(ba->root.kind), ba->wait_s);
		blkdevs_describe(&devs, f->tried, sizeof(f->tried));
		snprintf(f->hint, sizeof(f->hint), ba->rootwait ?
			 "is its driver in the image? check root= against the devices above" :
			 "is its driver in the image? a slow device needs rootwait (waits up to 30 s)");
		return;
	}
	d = &devs.dev[idx];
	if (nmatch > 1)
		init_shout(&lg, "%d devices match root=%s: using /dev/%s", nmatch, ba->root_raw,
			   d->name);
	snprintf(dev, sizeof(dev), "%s/%s", devs.devdir, d->name);
	if (d->usage[0] && strcmp(d->usage, "filesystem") != 0 && ba->fstypes[0] == '\0') {
		snprintf(f->what, sizeof(f->what), "%s (root=%s) holds %s, which is %s, not a "
			 "file system", dev, ba->root_raw, d->type, d->usage);
		snprintf(f->tried, sizeof(f->tried), "reading %s with libblkid", dev);
		snprintf(f->hint, sizeof(f->hint), "this /init mounts file systems only: it does "
			 "not unlock, assemble or activate (LUKS, RAID, LVM)");
		return;
	}
	r = mount_root(dev, ba->fstypes, d->type, ba, need_fs, (void *)ba, f->tried,
		       sizeof(f->tried), &lg);
	if (r < 0) {
		snprintf(f->what, sizeof(f->what), "cannot mount %s (root=%s) on %s", dev,
			 ba->root_raw, INIT_NEWROOT);
		snprintf(f->hint, sizeof(f->hint), "check rootfstype= and rootflags=, and that the "
			 "file system's module is in the image");
		return;
	}
	init_log(&lg, MP_LOG_NOTICE, "mounted %s (%s) on %s %s", dev, d->type[0] ? d->type : "?",
		 INIT_NEWROOT, ba->rw ? "read-write" : "read-only");
	if (ba->brk == BREAK_PRE_PIVOT)
		rescue("rd.break: the root is mounted on " INIT_NEWROOT);
	if (pick_init(ba, init, sizeof(init), f) == 0) {
		/* the kernel hands init the words it did not understand and
		 * those after "--": they are ours to pass on */
		iargv[0] = init;
		for (i = 1; argv[i] && i < 63; i++)
			iargv[i] = argv[i];
		iargv[i] = NULL;
		init_log(&lg, MP_LOG_NOTICE, "switching to %s on %s", init, dev);
		r = switch_root(INIT_NEWROOT, init, iargv, &lg);
		snprintf(f->what, sizeof(f->what), "cannot switch to the root on %s", dev);
		snprintf(f->tried, sizeof(f->tried), "switch_root: %s", strerror(-r));
		f->hint[0] = '\0';
	}
	(void)umount2(INIT_NEWROOT, MNT_DETACH);
}

static void report_failure(const struct boot_args *ba, const struct failure *f,
			   const char *cmdline)
{
	init_shout(&lg, "*** cannot boot: %s", f->what);
	init_shout(&lg, "    tried: %s", f->tried[0] ? f->tried : "nothing else");
	if (f->hint[0])
		init_shout(&lg, "    hint: %s", f->hint);
	init_shout(&lg, "    kernel command line: %s", cmdline);
	if (!ba->preload)
		init_shout(&lg, "    modules: none loaded (rd.modpreload=0)");
	else
		init_shout(&lg, "    modules: preloader exit status %d; report in %s", preload_status,
			   INIT_REPORT);
}

int main(int argc, char **argv)
{
	static char cmdline[4096];
	struct boot_args ba;
	struct failure f;
	int attempt, i, fd;

	if (getpid() != 1) {
		if (argc > 1 && strcmp(argv[1], "--version") == 0) {
			puts("modpreload-init " MP_VERSION);
			return 0;
		}
		fputs(usage, argc > 1 && strcmp(argv[1], "--help") == 0 ? stdout : stderr);
		return argc > 1 && strcmp(argv[1], "--help") == 0 ? 0 : MP_EXIT_USAGE;
	}
	console_setup();      /* the image's /dev/console, if the kernel gave none */
	early_mounts(&lg);
	console_setup();      /* devtmpfs's */
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);
	lg.kmsg = fd;
	read_cmdline(cmdline, sizeof(cmdline));
	if (boot_args_parse(cmdline, &ba) < 0)
		init_shout(&lg, "cannot read the kernel command line: out of memory");
	for (i = 0; i < ba.nbad; i++)
		init_shout(&lg, "kernel command line: cannot use the value of %s, ignored", ba.bad[i]);

	if (ba.preload) {
		preload_status = preload(NULL, true);
		init_log(&lg, MP_LOG_INFO, "preloader finished with status %d", preload_status);
	} else {
		init_log(&lg, MP_LOG_NOTICE, "rd.modpreload=0: no modules loaded");
	}
	if (ba.brk == BREAK_PRE_MOUNT)
		rescue("rd.break=pre-mount: the root is not mounted yet");
	if (ba.rootdelay_s) {
		init_log(&lg, MP_LOG_INFO, "rootdelay: waiting %u s", ba.rootdelay_s);
		mp_sleep_ms(ba.rootdelay_s * 1000u);
	}
	for (attempt = 0;; attempt++) {
		memset(&f, 0, sizeof(f));
		boot(&ba, argv, &f);
		report_failure(&ba, &f, cmdline);
		reap_children();
		if (shell_available()) {
			rescue("rescue shell");
			continue;
		}
		if (attempt >= INIT_RETRIES)
			init_halt(&lg, "*** giving up: no shell in the image (build it with --busybox)");
		init_shout(&lg, "no shell in the image: trying again (%d of %d)", attempt + 1,
			   INIT_RETRIES);
	}
}
