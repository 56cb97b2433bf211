/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kernel command line, as both the preloader and /init read it. */
#ifndef MP_CMDLINE_H
#define MP_CMDLINE_H

#include <stdbool.h>

/* Called once per word: key is what precedes the first '=', value what
 * follows it, with the quotes removed that the kernel's next_arg() removes
 * (NULL when there is no '=').
 * A non-zero return stops the walk and is returned. */
typedef int (*mp_cmdline_cb)(void *data, const char *key, const char *value);
int mp_cmdline_foreach(const char *text, mp_cmdline_cb cb, void *data);

struct mp_cmdline_option {
	char *module;  /* normalised */
	char *param;   /* "name=value", the text libkmod takes from /proc/cmdline */
};

struct mp_cmdline {
	bool disabled;         /* rd.modpreload=0 */
	bool nodev_off;        /* modpreload.nodev=0: write no blacklist (nodev.c) */
	bool handover_off;     /* rd.modpreload.handover=0, modpreload.handover=0:
				  wait for every init() (handover.c) */
	bool leave_single_off; /* modpreload.leave_single=0: what one device
				  asks for is ours too (leave.c) */
	bool rootfs_off;       /* rd.modpreload.rootfs=0: the root's file
				  system module is the mount's (rootfs.c) */
	char *root;            /* root=, rootfstype= (the last of each, as the */
	char *rootfstype;      /* kernel takes them) */
	int jobs;              /* rd.modpreload.jobs=, 0 when unset */
	unsigned timeout_s;    /* rd.modpreload.timeout=, 0 when unset */
	char **modules;        /* rd.modpreload.modules=, rd.driver.pre= */
	int nmodules;
	char **modules_load;   /* modules_load=, modules-load= (systemd-modules-load's) */
	int nmodules_load;
	char **blacklist;      /* modprobe.blacklist=, rd.driver.blacklist=,
				  rd.driver.post= */
	int nblacklist;
	char **kblacklist;     /* module_blacklist=: the kernel refuses these */
	int nkblacklist;
	struct mp_cmdline_option *options; /* module.param=value */
	int noptions;
	char **bad;            /* words we understood the key of but not the value;
				  for a name too long, the key and the name, cut
				  and escaped */
	int nbad;
};

int mp_cmdline_parse(const char *text, struct mp_cmdline *out);
void mp_cmdline_free(struct mp_cmdline *c);
bool mp_cmdline_listed(char *const *list, int n, const char *name);

#endif
