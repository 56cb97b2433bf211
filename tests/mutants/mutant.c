// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Mutants: builds of modpreload that break what the VM cases assert, on
 * purpose, so that harness/lib/cases/mutants.sh can show those cases fail
 * on them. Nothing in preload/ changes: the static link wraps syscall()
 * (-Wl,--wrap=syscall), the one door modpreload's two load calls go
 * through (preload/base/sys.c), and MP_MUTANT names the break:
 *
 *   twice   every load the kernel accepts is made a second time (the
 *           kernel answers EEXIST); the caller sees the first answer
 *   noload  no load reaches the kernel, and each is answered 0: the run
 *           reports every module loaded, the kernel has none of them,
 *           and udev's coldplug loads them (with the storm on 6.1)
 *
 * The kernel's tracepoints tell either from a good build; what the
 * program says does not.
 */
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>

long __real_syscall(long nr, ...);
long __wrap_syscall(long nr, ...);

static int is_load(long nr)
{
	return nr == SYS_finit_module || nr == SYS_init_module;
}

long __wrap_syscall(long nr, ...)
{
	va_list ap;
	long a[6];
	long r;
	int i;

	/* as musl's syscall() does: six words, whatever the call takes */
	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (is_load(nr) && strcmp(MP_MUTANT, "noload") == 0)
		return 0;
	r = __real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (r == 0 && is_load(nr) && strcmp(MP_MUTANT, "twice") == 0)
		(void)__real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	return r;
}
