// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Device modaliases. A device's uevent file is KEY=VALUE lines; a kernel
 * netlink uevent is "action@devpath" then KEY=VALUE strings separated by
 * NULs. One parser reads both: CPUs have no modalias file, only the
 * MODALIAS= line in uevent, and they are the bulk of the storm.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "internal.h"

static int find_key(const char *buf, size_t len, const char *key, char *out, size_t outsz)
{
	size_t klen = strlen(key), pos = 0;

	while (pos < len) {
		size_t end = pos;

		while (end < len && buf[end] != '\n' && buf[end] != '\0')
			end++;
		if (end - pos > klen && memcmp(buf + pos, key, klen) == 0 &&
		    buf[pos + klen] == '=') {
			size_t vlen = end - pos - klen - 1;

			if (vlen == 0)
				return -ENOENT;
			if (vlen >= outsz)
				return -ENAMETOOLONG;
			memcpy(out, buf + pos + klen + 1, vlen);
			out[vlen] = '\0';
			return 0;
		}
		pos = end + 1;
	}
	return -ENOENT;
}

int mp_uevent_modalias(const char *buf, size_t len, char *out, size_t outsz)
{
	return find_key(buf, len, "MODALIAS", out, outsz);
}

int mp_uevent_devpath(const char *buf, size_t len, char *out, size_t outsz)
{
	return find_key(buf, len, "DEVPATH", out, outsz);
}

int mp_uevent_action(const char *buf, size_t len, char *out, size_t outsz)
{
	return find_key(buf, len, "ACTION", out, outsz);
}

/* Kernel uevents (group 1), not udev's re-broadcasts: in the initramfs
 * before udevd there is nobody else to hear them. */
int mp_uevent_listen(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd, size = 4 * 1024 * 1024;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -errno;
	/* a driver can add thousands of devices in one init(); a full buffer
	 * costs a rescan, so ask for room (SO_RCVBUFFORCE needs CAP_NET_ADMIN) */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* A CPU's modalias: cpu:..., and the ACPI processor objects' acpi:LNXCPU:
 * and acpi:ACPI0007: (the no-device blacklist, nodev.c; plan.c counts them). */
bool mp_uevent_cpu_alias(const char *alias)
{
	return strncmp(alias, "cpu:", 4) == 0 || strncmp(alias, "acpi:LNXCPU:", 12) == 0 ||
	       strncmp(alias, "acpi:ACPI0007:", 14) == 0;
}

/* The modalias of a device of a class that grows as the boot's drivers
 * bind: every keyboard, mouse, speaker and button driver adds an input
 * device, every HID transport (usbhid, i2c_hid) HID devices, and each new
 * one asks for the same handlers again (evdev, hid_generic). One such
 * device at planning time is not one asker: the next ones' workers ask
 * while the first's load is still coming, and before 6.5 that is a
 * duplicate the kernel reads and refuses (leave.c). */
bool mp_uevent_class_alias(const char *alias)
{
	return strncmp(alias, "input:", 6) == 0 || strncmp(alias, "hid:", 4) == 0;
}
