/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The data model: requests come from sources, resolve into modules, and
 * the modules with their "waits for" edges are the plan. plan.c builds
 * it, graph.c orders it, sched.c moves its states, report.c reads it.
 */
#ifndef MP_MODEL_H
#define MP_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Where a request came from; each has a counter in the report. */
enum mp_source {
	MP_SRC_ARGUMENT,
	MP_SRC_CONFIG,
	MP_SRC_CMDLINE,
	MP_SRC_COLDPLUG,
	MP_SRC_UEVENT, /* devices that appeared while we were loading */
	MP_SRC_ROOT,   /* the root's file system (rootfs.c) */
	MP_SRC_MAX,
};
/* in mp_module.sources beside the sources: a request came from what
 * systemd-modules-load reads too (modules-load.d, modules_load=) */
#define MP_SRC_BIT_MODULES_LOAD (1u << MP_SRC_MAX)

/* added to the priority of a module the hand-over waits for, and of what
 * it needs (--handover-soon): above any real load time (graph.c). Urgent:
 * it must be final, and loads alone (pool.c); first: it must be under
 * way. */
#define MP_URGENT_NS ((uint64_t)1 << 60)
#define MP_FIRST_NS ((uint64_t)1 << 59)

enum mp_state {
	MP_PENDING,  /* waiting for its dependencies */
	MP_QUEUED,   /* ready, waiting for a worker */
	MP_RUNNING,  /* a worker is in the syscall */
	MP_LOADED,   /* we loaded it */
	MP_LIVE,     /* it was already live (or someone else loaded it) */
	MP_BUILTIN,  /* built into the kernel: nothing to load */
	MP_FAILED,   /* the kernel or the file refused it: see err */
	MP_SKIPPED,  /* not attempted: see why_skipped */
	MP_HUNG,     /* its init() did not return within the timeout */
};

/* An edge: this module must wait for dep. A soft edge (softdep) only
 * orders: its failure never fails the module. */
struct mp_edge {
	int dep;
	bool soft;
};

/* Whether udev can be kept off a module by a hold (handover.c). */
enum mp_holdable {
	MP_HOLD_UNASKED, /* not looked at yet */
	MP_HOLD_YES,     /* only a device alias of udev's leads to it */
	MP_HOLD_NO,      /* a name, the kernel, or nothing holdable asks */
};

/* What the hand-over keeps of a module: written by handover.c alone,
 * read elsewhere through mp_handover_held() and mp_handover_joined() */
struct mp_module_ho {
	enum mp_holdable holdable;
	bool udev_alias; /* a device alias leads to it */
	bool held;       /* udev was kept off it at the hand-over */
	/* left to the kernel at the hand-over: it joins a second finit of
	 * the file to ours (6.5+) */
	bool joined;
};

struct mp_module {
	char *name;      /* normalised: '-' is '_' */
	char *path;      /* absolute; NULL when builtin */
	char *options;   /* from modprobe.d and the kernel command line */
	char *why;       /* why it is in the plan: "coldplug", "dependency of x" */
	char *skip_why;  /* for MP_SKIPPED */
	char *fail_why;  /* for MP_FAILED before any syscall: what the index or
			    the file system said */
	off_t size;      /* file size on disk */
	uint64_t dup_bytes; /* what the kernel allocates for one duplicate it
			       refuses (dupcost.c); 0: not asked twice */
	unsigned requests; /* how many asked for it by its name or an alias of it */
	unsigned requests_cpu; /* of requests, how many were a CPU's modalias
				  (mp_uevent_cpu_alias) */
	unsigned requests_class; /* of requests, how many were an input or HID
				    device's (mp_uevent_class_alias) */
	unsigned requests_with_dependents; /* and as a dependency of what they asked for */
	unsigned sources;  /* 1 << enum mp_source, for every request that did;
			      and MP_SRC_BIT_MODULES_LOAD */

	struct mp_edge *deps;
	int ndeps;
	int *users;      /* reverse edges: modules that wait for this one */
	int nusers;

	int wave;        /* 0 for modules without dependencies */
	enum mp_state state;
	int err;         /* positive errno for MP_FAILED */
	const char *how; /* "finit", "finit+compressed", "init (zstd)" */

	/* scheduler bookkeeping */
	bool excluded;   /* left out on purpose (module_blacklist=, install
			    command): skipped, but not a failure */
	int waiting;     /* dependencies not yet finished */
	int worker;
	bool read;       /* its file was read and handed to the kernel */
	unsigned mark;   /* graph walks */
	uint64_t t_start, t_end; /* ns since the run started */
	uint64_t expect_ns; /* what its load should take: the profile, or a
			       guess from its size (profile.c) */
	bool expect_known;  /* expect_ns is the profile's */
	uint64_t prio;      /* expect_ns along the longest chain it starts:
			       the ready queue hands out the highest first */
	unsigned char urgent; /* the hand-over waits for it (handover.c,
			       soon): 2 final (it and what it needs go first,
			       alone), 1 under way (first) */
	struct mp_module_ho ho; /* the hand-over's (handover.c's alone) */
	bool nodev_listed;  /* nodev.c wrote its blacklist line */
	bool to_udev;       /* leave.c: one device asks for it, udev loads it
			       once; skipped, excluded, not a problem */
	bool to_names;      /* leave.c: only names ask for it (modules-load.d,
			       modules_load=): systemd-modules-load's, as to_udev */
	bool late;          /* handover.c: it found no device for a CPU on the
			       last boot of this tree (known.c); held, it
			       loads once udev's queue is empty (sched.c) */
};

struct mp_plan {
	struct mp_module *mods;
	int nmods;
	int cap;

	unsigned req_total;
	unsigned req_by_source[MP_SRC_MAX];
	bool modules_load_now;    /* the requests being made are systemd-modules-load's too */
	bool init_eexist_ebusy;   /* 7.1+: an init()'s EEXIST reaches us as EBUSY (outcome.c) */
	unsigned req_unmatched;   /* aliases nothing matches (normal for coldplug) */
	unsigned req_blacklisted;
	unsigned req_refused;     /* malformed names */
	unsigned req_missing;     /* named modules that do not exist */

	char **missing;           /* the names of req_missing */
	int nmissing;
	char **warnings;
	int nwarnings;
};

#endif
