// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The only two calls that ask the kernel to load a module. Tests replace
 * them with an LD_PRELOAD shim of syscall(2), as kmod's testsuite does, so
 * they go through syscall() and nothing else. musl has no finit_module()
 * wrapper anyway.
 */
#include <errno.h>
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
