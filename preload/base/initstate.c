// SPDX-License-Identifier: LGPL-2.1-or-later
/* Where a module stands, as sysfs says: the probe the planner and the
 * workers share (MP_INITSTATE_*). sysfs_fd: sysfs's directory, open (a
 * bad fd: nothing is known, NONE). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

int mp_initstate(int sysfs_fd, const char *name)
{
	char path[PATH_MAX], buf[32];
	struct stat st;
	int r;

	snprintf(path, sizeof(path), "module/%s/initstate", name);
	r = mp_read_fileat(sysfs_fd, path, buf, sizeof(buf), NULL);
	if (r == 0) {
		if (strncmp(buf, "live", 4) == 0)
			return MP_INITSTATE_LIVE;
		if (strncmp(buf, "coming", 6) == 0)
			return MP_INITSTATE_COMING;
		if (strncmp(buf, "going", 5) == 0)
			return MP_INITSTATE_GOING;
		return MP_INITSTATE_NONE;
	}
	/* A directory without initstate is a builtin with parameters. */
	snprintf(path, sizeof(path), "module/%s", name);
	if (fstatat(sysfs_fd, path, &st, 0) == 0 && S_ISDIR(st.st_mode))
		return MP_INITSTATE_BUILTIN;
	return MP_INITSTATE_NONE;
}
