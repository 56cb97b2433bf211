// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The only two calls that ask the kernel to load a module. Tests replace
 * them with an LD_PRELOAD shim of syscall(2), as kmod's testsuite does, so
 * they go through syscall() and nothing else. musl has no finit_module()
 * wrapper anyway. And the kernel's version, which says what a call costs,
 * and the one word said to systemd (READY=1).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "internal.h"

int mp_sys_finit_module(int fd, const char *params, int flags)
{
	if (syscall(SYS_finit_module, fd, params, flags) != 0)
		return -errno;
	return 0;
}

int mp_sys_init_module(const void *image, size_t len, const char *params)
{
	if (syscall(SYS_init_module, image, len, params) != 0)
		return -errno;
	return 0;
}

int mp_kernel_version(const char *kver)
{
	unsigned long maj, min;
	char *end;

	if (kver == NULL || *kver < '0' || *kver > '9')
		return -EINVAL;
	maj = strtoul(kver, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return -EINVAL;
	min = strtoul(end + 1, NULL, 10);
	if (maj >= 1000 || min >= 1000)
		return -EINVAL;
	return (int)(maj * 1000 + min);
}

/*
 * sd_notify(3) without libsystemd, as systemd documents the protocol
 * (an absolute path or '@' for the abstract namespace; one datagram).
 */
int mp_notify_ready(const char *status)
{
	const char *e = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char msg[512];
	socklen_t len;
	size_t n;
	int fd, r = 1;

	if (e == NULL || (e[0] != '/' && e[0] != '@') || (n = strlen(e)) >= sizeof(sa.sun_path))
		return 0;
	memcpy(sa.sun_path, e, n);
	if (e[0] == '@')
		sa.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	snprintf(msg, sizeof(msg), "READY=1\nSTATUS=%s", status);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, len) < 0 || write(fd, msg, strlen(msg)) < 0)
		r = -errno;
	close(fd);
	return r;
}
