/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the files of /init share. The boot sequence is in init.c; each
 * other file is one step of it and owns no state: what it needs is passed
 * in, what it finds is returned (0 or -errno) or written to the caller's
 * structures, and what it has to say goes through struct init_log.
 */
#ifndef MP_INIT_H
#define MP_INIT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* How long to look for the root device, in seconds. The kernel's own
 * rootwait waits forever; a PID 1 that can say what is missing and offer a
 * shell does better to stop. */
#define INIT_ROOTWAIT_S 30u      /* bare rootwait */
#define INIT_NOWAIT_S 5u         /* no rootwait: drivers may still probe */
#define INIT_ROOTWAIT_MAX_S 3600u
#define INIT_ROOTDELAY_MAX_S 300u
#define INIT_RESCAN_MS 2000u     /* coldplug again while waiting */
#define INIT_RETRIES 3           /* without a shell, after the first try */

#define INIT_NEWROOT "/sysroot"
#define INIT_REPORT "/run/modpreload/report.json"
#define INIT_SHELL "/bin/sh"

/* --- logging (log.c) --- */
struct init_log {
	int kmsg;      /* /dev/kmsg, or -1 */
	int console;   /* the console, or -1 */
	int max_prio;  /* kmsg gets what is at least this urgent */
	int lib_max_prio; /* the same for the preloader's messages */
};
void init_log(struct init_log *l, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void init_logv(struct init_log *l, int prio, const char *fmt, va_list ap);
/* An mp_log_fn for the preloader; data is the struct init_log. */
void init_log_lib(void *data, int prio, const char *fmt, va_list ap);
/* On the console whatever the log level, and in the kernel log. */
void init_shout(struct init_log *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* --- the kernel command line (bootargs.c) --- */
enum root_kind {
	ROOT_NONE,
	ROOT_PATH,      /* /dev/vda1 */
	ROOT_DEVNUM,    /* 254:1, or the kernel's hex form fe01 */
	ROOT_UUID,
	ROOT_LABEL,
	ROOT_PARTUUID,
	ROOT_PARTLABEL,
};

struct root_spec {
	enum root_kind kind;
	char value[256];          /* the path, or the tag's value */
	unsigned major, minor;    /* ROOT_DEVNUM */
};

enum break_point { BREAK_NONE, BREAK_PRE_MOUNT, BREAK_PRE_PIVOT };

#define BOOT_BAD_MAX 8
struct boot_args {
	char root_raw[256];       /* root= as written, for messages */
	struct root_spec root;
	char fstypes[128];        /* rootfstype=: comma-separated */
	char rootflags[256];      /* rootflags= */
	bool rw;                  /* the last of ro/rw; the kernel's default is ro */
	bool rootwait;
	unsigned wait_s;          /* how long to look for the root device */
	unsigned rootdelay_s;
	char init[256];           /* init=; empty for the default list */
	enum break_point brk;
	bool preload;             /* false with rd.modpreload=0 */
	char bad[BOOT_BAD_MAX][32]; /* keys whose values we could not use */
	int nbad;
};

int root_spec_parse(const char *s, struct root_spec *out);
const char *root_kind_name(enum root_kind k);
int boot_args_parse(const char *cmdline, struct boot_args *out);
/* rootflags= split into mount(2) flags and the file system's own options. */
int mount_options_split(const char *opts, unsigned long *flags, char *data, size_t datasz);
/* \xHH escapes as udev writes them in /dev/disk/by-label names. */
int unescape_udev(const char *in, char *out, size_t outsz);

/* --- block devices and their identities (blkdev.c) --- */
struct blkdev {
	char name[64];            /* DEVNAME, relative to /dev */
	dev_t devnum;
	bool probed;
	int probe_err;            /* -errno when it could not be read */
	char type[32], uuid[64], label[128], partuuid[64], partlabel[128];
	char usage[16];           /* "filesystem", "crypto", "raid", "other" */
};

/* As many as the kernel lists: a storage server has thousands. */
struct blkdevs {
	struct blkdev *dev;
	int n, cap;
	const char *sysfs;        /* "/sys" */
	const char *devdir;       /* "/dev" */
};

int blkdev_probe(const char *path, struct blkdev *d);
int blkdevs_scan(struct blkdevs *s);
void blkdevs_free(struct blkdevs *s);
int blkdevs_find(struct blkdevs *s, const struct root_spec *r, int *nmatch);
void blkdevs_describe(const struct blkdevs *s, char *buf, size_t n);

/* --- waiting for the root device (rootwait.c) --- */
struct mp_run_args;
int root_wait(struct blkdevs *devs, const struct root_spec *root, unsigned wait_ms,
	      const struct mp_run_args *rescan, int *nmatch);

/* --- mounting (mounts.c) --- */
int early_mounts(struct init_log *l);
int fs_registered(const char *type);
int mount_root(const char *dev, const char *fstypes, const char *fallback_type,
	       const struct boot_args *ba, int (*need_fs)(void *, const char *), void *data,
	       char *tried, size_t triedsz, struct init_log *l);

/* --- the switch (switchroot.c) --- */
int init_exists(const char *newroot, const char *init);
int switch_root(const char *newroot, const char *init, char *const argv[], struct init_log *l);
int purge_tree(int dirfd, dev_t dev);

/* --- the rescue shell (shell.c) --- */
bool shell_available(void);
int shell_run(struct init_log *l);
void reap_children(void);
/* What is left when nothing more can be tried: PID 1 must not exit. */
void init_halt(struct init_log *l, const char *why) __attribute__((noreturn));

#endif
