// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The only two calls that ask the kernel to load a module. Tests replace
 * them with an LD_PRELOAD shim of syscall(2), as kmod's testsuite does, so
 * they go through syscall() and nothing else. musl has no finit_module()
 * wrapper anyway. And the kernel's version, which says what a call costs.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/syscall.h>
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
