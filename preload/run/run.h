/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The run stage's own: run.c, the loader, and caller.c, which waits for it. */
#ifndef MP_RUN_H
#define MP_RUN_H

#include <stdbool.h>
#include <sys/types.h>

#include "modpreload.h"

/* The byte that tells the caller it may go on (exit statuses are small). */
#define MP_STATUS_HANDOVER 'H'

void mp_run_log(const struct mp_run_args *a, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The child's status, or MP_EXIT_OK when it let the caller go first */
int mp_run_wait_child(const struct mp_run_args *a, int fd, pid_t pid, bool *notified, int *died);
int mp_run_wait_names(const struct mp_run_args *a); /* --wait-names */
int mp_run_wait_runs(const struct mp_run_args *a);  /* --wait-runs */

#endif
