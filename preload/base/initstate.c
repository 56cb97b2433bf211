// SPDX-License-Identifier: LGPL-2.1-or-later
/* Where a module stands, as sysfs says: the probe the planner and the
 * workers share (MP_INITSTATE_*). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

int mp_initstate(const char *sysfs, const char *name)
{
	char path[PATH_MAX + 64], buf[32];
	struct stat st;
	int r;

	snprintf(path, sizeof(path), "%s/module/%s/initstate", sysfs, name);
	r = mp_read_file(path, buf, sizeof(buf), NULL);
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
	snprintf(path, sizeof(path), "%s/module/%s", sysfs, name);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return MP_INITSTATE_BUILTIN;
	return MP_INITSTATE_NONE;
}
