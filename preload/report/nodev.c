// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Drivers a CPU's modalias matches and whose init() finds nothing to drive
 * (acpi_cpufreq beside intel_pstate, powernow_k8 on an Intel CPU): udev
 * asks for them again for every CPU, and the booted system's udev again
 * after switch-root, each time a full read and an ENODEV. Once we have
 * seen the answer, a "blacklist NAME" line in /run/modprobe.d tells
 * every libkmod user that resolves an alias with the blacklist applied
 * (udev's kmod builtin, systemd-modules-load, modprobe, modpreload itself)
 * to leave it alone, for this boot only: /run is a tmpfs, and it moves
 * with the root at switch-root.
 *
 * Only modules that every direct request asked for through a CPU's
 * modalias go there: cpu:... and the ACPI processor objects' acpi:LNXCPU:
 * and acpi:ACPI0007: (the cpufreq drivers match both). Neither changes
 * while the system runs, so the answer holds for a hot-plugged CPU too; a
 * PCI or platform device whose alias matches the same module is another
 * question, so a module that such a device also asked for is left out.
 * The blacklist keeps only aliases away: `modprobe NAME` still loads it.
 *
 * "No device" is the report's no_device, as outcome.c decides it: ENODEV,
 * what modprobe calls "No such device", an init() that says EEXIST because
 * another driver holds what it would register (acpi_cpufreq beside
 * intel_pstate on some kernels, pcc_cpufreq beside acpi_cpufreq), or a
 * module skipped because a dependency said it (amd64_edac, whose
 * edac_mce_amd finds no AMD EDAC), of a module only coldplug asked for:
 * blacklisting the module the CPU asks for keeps its dependency from
 * being loaded too.
 * Other refusals (EOPNOTSUPP from kvm without the CPU's extensions) may be
 * a passing state and are asked for again.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* The outcome's rule decides "no device" (outcome.c); here only which
 * of those a CPU alone asked for. */
static bool blacklistable(const struct mp_plan *p, const struct mp_module *m)
{
	return !m->nodev_listed && m->requests > 0 && m->requests_cpu == m->requests &&
	       mp_outcome_no_device(p, m);
}

static const char header[] =
	"# Written by modpreload: drivers that a CPU's modalias matched and whose\n"
	"# init() (or a dependency's) found no device (ENODEV), or its place taken\n"
	"# by another driver (EEXIST), in this boot. The blacklist stops udev from\n"
	"# asking for them once per CPU; `modprobe NAME` still loads them.\n"
	"# Delete this file to undo it; modpreload.nodev=0 on the kernel command\n"
	"# line keeps it from being written. /run is gone at the next boot.\n";

/*
 * Appends LEN bytes of whole lines to the file at path: all of them or,
 * on a short write (a full /run), none, the file cut back to the size it
 * had. A file that does not end in a newline gets one first, so that its
 * last line and our first stay two; a new or empty one gets the header.
 * Only a regular file (mp_open_regular(), read-write: its last byte is
 * read): a fifo is not waited on, a symlink not followed. One write()
 * when it fits, so that a reader sees whole lines.
 */
int mp_nodev_append(int dirfd, const char *path, const char *lines, size_t len)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	char dir[PATH_MAX], last = '\n';
	size_t n = 0;
	struct stat st;
	int r;

	snprintf(dir, sizeof(dir), "%s", path);
	if (dirfd == AT_FDCWD && mkdir(dirname(dir), 0755) < 0 && errno != EEXIST)
		return -errno;
	fd = mp_open_regular(dirfd, path, O_RDWR | O_APPEND | O_CREAT, 0644);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) != 1)
		return errno ? -errno : -EIO;
	buf = malloc(len + sizeof(header) + 1);
	if (buf == NULL)
		return -ENOMEM;
	if (last != '\n')
		buf[n++] = '\n';
	if (st.st_size == 0) {
		memcpy(buf + n, header, sizeof(header) - 1);
		n += sizeof(header) - 1;
	}
	memcpy(buf + n, lines, len);
	n += len;
	r = mp_write_full(fd, buf, n);
	if (r < 0 && ftruncate(fd, st.st_size) < 0) {
		/* nothing more to do: the error is r's */
	}
	return r;
}

/*
 * Appends: the initramfs's run wrote its lines before switch-root, and
 * the booted system's run, which finds those modules blacklisted and does
 * not try them, adds its own. A run that hands over writes twice, what it
 * knew then and at the end what it learnt since: a line once.
 */
int mp_nodev_write(struct mp_ctx *ctx, const char *path)
{
	struct mp_plan *p = mp_ctx_plan(ctx);
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 1;
	const char *name;
	int i, n = 0, r, dirfd;

	for (i = 0; i < p->nmods; i++)
		if (blacklistable(p, &p->mods[i]))
			cap += strlen(p->mods[i].name) + sizeof("blacklist \n");
	if (cap == 1)
		return 0;
	buf = malloc(cap);
	if (buf == NULL)
		return -ENOMEM;
	for (i = 0; i < p->nmods; i++) {
		if (!blacklistable(p, &p->mods[i]))
			continue;
		len += (size_t)snprintf(buf + len, cap - len, "blacklist %s\n", p->mods[i].name);
		n++;
	}
	dirfd = mp_ctx_at(ctx, path, &name);
	r = mp_nodev_append(dirfd, name, buf, len);
	for (i = 0; i < p->nmods && r == 0; i++)
		if (blacklistable(p, &p->mods[i]))
			p->mods[i].nodev_listed = true;
	if (r < 0)
		mp_log(ctx, MP_LOG_ERR, "%s: cannot write the no-device blacklist: %s (%s)", path,
		       r == -EINVAL ? "not a regular file" : strerror(-r), mp_errno_name(-r));
	else
		mp_log(ctx, MP_LOG_NOTICE, "%d driver%s that found no device for any CPU blacklisted "
		       "for this boot in %s", n, n == 1 ? "" : "s", path);
	return r;
}
