// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * --hold-udev (the initramfs): while this run loads, udev loads no driver
 * for a device's MODALIAS, so the hand-over need not wait for what a
 * blacklist cannot hold (handover.c). One rule, beside the hold directory
 * (/run/udev/rules.d/79-modpreload-hold.rules), empties MODALIAS on each
 * "add" before 80-drivers.rules asks the kmod builtin for it; the other
 * rules run as before, so udevd may start at once and make the root's
 * device node while the drivers load here.
 *
 * Why: the CPU crypto modules have device aliases (x86cpu:) and kernel ones
 * (crypto-aes); a blacklist would make modprobe answer the kernel "success"
 * with nothing loaded, so they were never held and the hand-over waited
 * until they were live (with what they need: 1.5-3 s of the initramfs at
 * 16 vCPUs under TCG, udevd starting that much later). The kernel's own
 * requests still reach modprobe: one that comes while ours of the same
 * module is in flight is, before 6.5, read and refused once (counted as
 * any duplicate). The root's file system module loads first and alone
 * (mp_handover_mark_urgent), as the mount asks for it by fs-TYPE once the
 * device our loads make is there; one found only after the hand-over is
 * left to the mount's modprobe (run.c).
 *
 * The run then keeps planning the devices that appear (its uevent
 * listener stays open after the hand-over: udev loads none of theirs), and
 * the rule goes at its end, with the holds (mp_handover_release): once
 * udevd has seen it go, each device with a MODALIAS, no driver and a
 * module that is not in the kernel has its add replayed, so that udev
 * tries what the run did not load (a failure, an install command), once.
 * The rule names its holder: a run that finds it with its holder gone
 * removes it (context/stale.c). Written in the initramfs, it applies only
 * where /etc/initrd-release is, so a holder that outlives switch-root holds
 * nothing from the root's udevd; the run removes it at the switch too.
 *
 * With --handover-soon (the booted system's unit) the rule holds only the
 * CPUs' MODALIAS (SUBSYSTEM "cpu"): there udev loads the driver of a single
 * device itself (--leave-single), and what every CPU asks for is the run's
 * (plan/leave.c leaves none of it). A module the CPUs alone ask for then
 * need not be final before READY=1 (handover.c). Where the initramfs had
 * not loaded the CPU crypto modules (initramfs-tools' images have none),
 * the unit's READY=1, and udevd's start with it, waited 3-20 s for them
 * under TCG at 16 vCPUs (median 4.7 s later than on dracut's images; bench
 * 2026-12-07). Nothing is replayed when it goes: a CPU has its driver
 * (processor), and its modules failed here would fail again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* the initramfs's own file (systemd requires it there; dracut and
 * mkinitcpio make it): the rule holds nothing in a root without it */
#define MP_INITRD_MARK "/etc/initrd-release"

struct rule {
	bool mark; /* the initramfs's file is there */
	bool cpu;  /* the CPUs' only */
};

static int fill_rule(int fd, void *data)
{
	const struct rule *rule = data;
	char buf[1024], holder[160];
	int n = mp_holder_line(holder, sizeof(holder));

	n = n < 0 ? n : snprintf(buf, sizeof(buf),
				 "# Written by modpreload, which loads the drivers of this boot's %s:\n"
				 "# udev loads none by MODALIAS until it is done, then this file goes.\n"
				 "%s%s%sACTION==\"add\", ENV{MODALIAS}==\"?*\", ENV{MODALIAS}=\"\"\n",
				 rule->cpu ? "CPUs" : "devices", holder,
				 rule->mark ? "TEST==\"" MP_INITRD_MARK "\", " : "",
				 rule->cpu ? "SUBSYSTEM==\"cpu\", " : "");
	return n < 0 || (size_t)n >= sizeof(buf) ? -ENAMETOOLONG : mp_write_full(fd, buf, (size_t)n);
}

/* DIR (a path's leading part of LEN bytes), made if it is not there */
static int make_dir(const char *path, size_t len)
{
	char dir[PATH_MAX];

	if (len >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, len);
	dir[len] = '\0';
	return mkdir(dir, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

int mp_udevhold_write(struct mp_ctx *ctx, const char *dir)
{
	struct mp_handover *ho = mp_ctx_handover(ctx);
	char path[PATH_MAX];
	struct rule rule = { .mark = access(MP_INITRD_MARK, F_OK) == 0, .cpu = ho->cpu_rule };
	const char *rules, *udev;
	int r = mp_holder_rule_path(path, sizeof(path), dir);

	if (r < 0)
		return r;
	rules = strrchr(path, '/');
	for (udev = rules - 1; udev > path && *udev != '/'; udev--)
		;
	r = make_dir(path, (size_t)(udev - path));
	if (r == 0)
		r = make_dir(path, (size_t)(rules - path));
	if (r == 0)
		r = mp_write_atomic(AT_FDCWD, path, ".modpreload-hold.new", 0644, fill_rule, &rule);
	if (r < 0) {
		mp_warn(ctx, "%s: cannot keep udev from loading drivers: %s; the hand-over waits for what a "
			"blacklist cannot hold", path, mp_errno_name(-r));
		return r;
	}
	(void)mp_ctx_keep_dir(ctx, path, (size_t)(rules - path));
	ho->rule_written = true;
	return 0;
}

void mp_udevhold_remove(struct mp_ctx *ctx, const char *dir)
{
	struct mp_handover *ho = mp_ctx_handover(ctx);
	char path[PATH_MAX];
	const char *base;
	int dirfd;

	if (!ho->rule_written || mp_holder_rule_path(path, sizeof(path), dir) < 0)
		return;
	ho->rule_written = false;
	dirfd = mp_ctx_at(ctx, path, &base);
	if (unlinkat(dirfd, base, 0) < 0 && errno != ENOENT)
		mp_warn(ctx, "%s: cannot remove: %s; udev loads no %s driver by MODALIAS %s", path,
			mp_errno_name(errno), ho->cpu_rule ? "CPU's" : "device's",
			ho->cpu_rule ? "until it is removed" : "in this initramfs");
	else
		mp_log(ctx, MP_LOG_INFO, "%s removed: udev loads drivers again", path);
}
