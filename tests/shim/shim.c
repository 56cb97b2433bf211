// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * LD_PRELOAD stand-in for the kernel's module loader, in the spirit of
 * kmod's testsuite: it replaces syscall(2) for finit_module and
 * init_module (the only two calls preload/base/sys.c makes) and passes every
 * other syscall on.
 *
 * Environment:
 *   MP_SHIM_SYSFS  fake sysfs: a load creates module/<name>/initstate
 *                  ("coming" during the call, "live" after); a name
 *                  already there answers EEXIST, as the kernel would.
 *   MP_SHIM_LOG    file: one line per event, "<ns> start|end <name> <ret>
 *                  <call> <params>", to check order, overlap and counts.
 *   MP_SHIM_RULES  "name:errno:delay_ms[:spin|:pre][,...]": fail with errno
 *                  (0 for success) after sleeping delay_ms, or with ":spin"
 *                  after burning the CPU that long, as an init() that
 *                  computes or polls with mdelay(), or with ":pre" after
 *                  sleeping that long before the module is "coming", as a
 *                  load waits for its file or a lock before init() runs;
 *                  "*" matches any name.
 *   MP_SHIM_SPAWN  "name=devdir=modalias[;...]": a successful load of name
 *                  creates MP_SHIM_SYSFS/devices/devdir/uevent with that
 *                  MODALIAS, as a bus driver makes its devices appear.
 *   MP_SHIM_OTHER  "name:ms:live|gone[,...]": our first call for name finds
 *                  someone else's load of it coming (initstate "coming"),
 *                  and is refused with EBUSY after name's rule delay; ms
 *                  after that call started, the other load ends: the
 *                  module is live, or gone (its init() failed).
 *   MP_SHIM_THREADS  N: the program's pthread_create() fails with EAGAIN
 *                  after N threads, to reach the scheduler's error path.
 *   MP_SHIM_CMDLINE  file: what an open() of /proc/cmdline opens instead,
 *                  the program's and libkmod's alike (libkmod takes module
 *                  options from it).
 *   MP_SHIM_PROFILE  file: what an open() of /usr/lib/modpreload/profile
 *                  (the image's profile) opens instead.
 *   A name whose initstate reads "coming" is refused with EBUSY, one
 *   that is there otherwise with EEXIST.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * A spinning lock, not a mutex: a thread that waits for it stays on the CPU
 * (state R), as one spinning in the kernel would. Asleep on a mutex while
 * its module is "coming", it would look to the adaptive pool like an init()
 * asleep (sched.c), and on a loaded host that made the pool tests flaky.
 * Nothing sleeps while holding it.
 */
static pthread_spinlock_t lock;

__attribute__((constructor)) static void shim_init(void)
{
	pthread_spin_init(&lock, PTHREAD_PROCESS_PRIVATE);
}

/* pthread_spin_*, which ThreadSanitizer knows, not an atomic of our own */
static void shim_lock(void)
{
	pthread_spin_lock(&lock);
}

static void shim_unlock(void)
{
	pthread_spin_unlock(&lock);
}

static long real_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	if (ret < 0 && ret > -4096) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void normalize(char *s)
{
	for (; *s; s++)
		if (*s == '-')
			*s = '_';
}

/* finit_module: the module name is the file's, without .ko and the
 * compression suffix. */
static int name_from_fd(int fd, char *out, size_t n)
{
	char link[64], path[4096];
	ssize_t len;
	char *base, *dot;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, path, sizeof(path) - 1);
	if (len < 0)
		return -1;
	path[len] = '\0';
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	dot = strstr(base, ".ko");
	if (dot)
		*dot = '\0';
	snprintf(out, n, "%s", base);
	normalize(out);
	return 0;
}

/* init_module: the image's .modinfo says "name=..."; finding it also
 * proves userspace decompression produced the real module. */
static int name_from_image(const void *image, unsigned long len, char *out, size_t n)
{
	const char *p = image, *end = p + len;

	while ((p = memmem(p, (size_t)(end - p), "name=", 5)) != NULL) {
		if (p == image || p[-1] == '\0') {
			snprintf(out, n, "%.*s", (int)strnlen(p + 5, (size_t)(end - p - 5)), p + 5);
			normalize(out);
			return 0;
		}
		p += 5;
	}
	return -1;
}

static void rule_for(const char *name, int *err, unsigned *delay_ms, bool *spin, bool *pre)
{
	const char *rules = getenv("MP_SHIM_RULES");
	char buf[4096], *save = NULL, *tok;

	*err = 0;
	*delay_ms = 0;
	*spin = false;
	*pre = false;
	if (rules == NULL)
		return;
	snprintf(buf, sizeof(buf), "%s", rules);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char rname[256], how[8] = "";
		int e;
		unsigned d;

		if (sscanf(tok, "%255[^:]:%d:%u:%7s", rname, &e, &d, how) < 3)
			continue;
		normalize(rname);
		if (strcmp(rname, name) == 0 || strcmp(rname, "*") == 0) {
			*err = e;
			*delay_ms = d;
			*spin = strcmp(how, "spin") == 0;
			*pre = strcmp(how, "pre") == 0;
			return;
		}
	}
}

static void log_event(const char *what, const char *name, int ret, const char *call,
		      const char *params)
{
	const char *path = getenv("MP_SHIM_LOG");
	char line[1024];
	int fd, n;

	if (path == NULL)
		return;
	n = snprintf(line, sizeof(line), "%llu %s %s %d %s %s\n", (unsigned long long)now_ns(),
		     what, name, ret, call, params && *params ? params : "-");
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) < 0) {
		/* the test will see the line missing */
	}
	close(fd);
}

static void set_state(const char *name, const char *state)
{
	const char *sysfs = getenv("MP_SHIM_SYSFS");
	char path[4096];
	int fd;

	if (sysfs == NULL)
		return;
	snprintf(path, sizeof(path), "%s/module", sysfs);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/module/%s", sysfs, name);
	if (state == NULL) {
		snprintf(path, sizeof(path), "%s/module/%s/initstate", sysfs, name);
		unlink(path);
		snprintf(path, sizeof(path), "%s/module/%s", sysfs, name);
		rmdir(path);
		return;
	}
	mkdir(path, 0755);
	/* whole or not at all, as the kernel's sysfs file is: truncated in
	 * place, a reader between the truncation and the write saw no state,
	 * "not loaded", and the load it waited behind tried again (cli/ebusy,
	 * once on a busy machine) */
	snprintf(path, sizeof(path), "%s/module/%s/.initstate.new", sysfs, name); /* under the lock */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		char final[4096];

		if (write(fd, state, strlen(state)) < 0) {
			/* a test will notice */
		}
		close(fd);
		snprintf(final, sizeof(final), "%s/module/%s/initstate", sysfs, name);
		if (rename(path, final) < 0)
			unlink(path);
	}
}

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static int real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
			       void *arg)
{
	static create_fn real;

	if (real == NULL)
		real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
	return real ? real(t, a, fn, arg) : EAGAIN;
}

int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	static int created;
	const char *max = getenv("MP_SHIM_THREADS");
	bool refuse;

	shim_lock();
	refuse = max && *max && created >= atoi(max);
	if (!refuse)
		created++;
	shim_unlock();
	return refuse ? EAGAIN : real_pthread_create(t, a, fn, arg);
}

/* "coming", or whatever else initstate says ("" when absent) */
static bool coming(const char *name)
{
	const char *sysfs = getenv("MP_SHIM_SYSFS");
	char path[4096], buf[16] = "";
	int fd;

	if (sysfs == NULL)
		return false;
	snprintf(path, sizeof(path), "%s/module/%s/initstate", sysfs, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return strncmp(buf, "coming", 6) == 0;
}

/* Someone else's load, for MP_SHIM_OTHER: ends on its own thread. */
struct other {
	char name[256];
	unsigned ms;
	bool live;
};

static void set_state(const char *name, const char *state);

static void *other_ends(void *arg)
{
	struct other *o = arg;
	struct timespec ts = { o->ms / 1000, (long)(o->ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	shim_lock();
	set_state(o->name, o->live ? "live\n" : NULL);
	shim_unlock();
	free(o);
	return NULL;
}

/* Called with the lock held: true the first time name has an "other". */
static bool other_starts(const char *name)
{
	static char done[16][256];
	static int ndone;
	const char *spec = getenv("MP_SHIM_OTHER");
	char buf[4096], *save = NULL, *tok;
	int i;

	if (spec == NULL)
		return false;
	for (i = 0; i < ndone; i++)
		if (strcmp(done[i], name) == 0)
			return false;
	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char oname[256], how[8];
		struct other *o;
		pthread_t t;
		unsigned ms;

		if (sscanf(tok, "%255[^:]:%u:%7s", oname, &ms, how) != 3)
			continue;
		normalize(oname);
		if (strcmp(oname, name) != 0 || ndone == 16 || (o = calloc(1, sizeof(*o))) == NULL)
			continue;
		snprintf(o->name, sizeof(o->name), "%s", name);
		o->ms = ms;
		o->live = strcmp(how, "live") == 0;
		snprintf(done[ndone++], sizeof(done[0]), "%s", name);
		set_state(name, "coming\n");
		if (real_pthread_create(&t, NULL, other_ends, o) != 0) {
			free(o);
			return false;
		}
		pthread_detach(t);
		return true;
	}
	return false;
}

static bool exists(const char *name)
{
	const char *sysfs = getenv("MP_SHIM_SYSFS");
	char path[4096];

	if (sysfs == NULL)
		return false;
	snprintf(path, sizeof(path), "%s/module/%s/initstate", sysfs, name);
	return access(path, F_OK) == 0;
}

static void spawn_devices(const char *name)
{
	const char *spec = getenv("MP_SHIM_SPAWN"), *sysfs = getenv("MP_SHIM_SYSFS");
	char buf[4096], *save = NULL, *tok;

	if (spec == NULL || sysfs == NULL)
		return;
	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		char *dev = strchr(tok, '='), *alias, path[4096], cmd[8192];
		int fd;

		if (dev == NULL || (alias = strchr(dev + 1, '=')) == NULL)
			continue;
		*dev++ = '\0';
		*alias++ = '\0';
		if (strcmp(tok, name) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/devices/%s", sysfs, dev);
		snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
		if (system(cmd) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/devices/%s/uevent", sysfs, dev);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dprintf(fd, "MODALIAS=%s\n", alias);
			close(fd);
		}
	}
}

/* The init() itself: asleep, or on the CPU, for delay ms. */
static void take(unsigned delay, bool spin)
{
	struct timespec ts = { delay / 1000, (long)(delay % 1000) * 1000000L };
	uint64_t end = now_ns() + (uint64_t)delay * 1000000u;

	if (spin) {
		while (now_ns() < end)
			;
		return;
	}
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static long fake_load(const char *name, const char *params, const char *call)
{
	unsigned delay;
	bool spin, pre, logged = false;
	int err;

	rule_for(name, &err, &delay, &spin, &pre);
	if (pre) {
		/* before the kernel forms the module: no initstate yet */
		log_event("start", name, 0, call, params);
		logged = true;
		take(delay, false);
		delay = 0;
	}
	shim_lock();
	if (other_starts(name) || (exists(name) && coming(name))) {
		/* the kernel refuses a second load of a module still coming */
		shim_unlock();
		if (!logged)
			log_event("start", name, 0, call, params);
		take(delay, spin);
		log_event("end", name, -EBUSY, call, params);
		errno = EBUSY;
		return -1;
	}
	if (exists(name)) {
		shim_unlock();
		if (!logged)
			log_event("start", name, 0, call, params);
		log_event("end", name, -EEXIST, call, params);
		errno = EEXIST;
		return -1;
	}
	set_state(name, "coming\n");
	shim_unlock();

	if (!logged)
		log_event("start", name, 0, call, params);
	take(delay, spin);
	shim_lock();
	set_state(name, err ? NULL : "live\n");
	if (!err)
		spawn_devices(name);
	shim_unlock();
	log_event("end", name, err ? -err : 0, call, params);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

long syscall(long n, ...)
{
	va_list ap;
	long a[6];
	char name[256];
	int i;

	va_start(ap, n);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);

	if (n == SYS_finit_module) {
		if (name_from_fd((int)a[0], name, sizeof(name)) < 0) {
			errno = EBADF;
			return -1;
		}
		return fake_load(name, (const char *)a[1], (a[2] & 4) ? "finit+compressed" : "finit");
	}
	if (n == SYS_init_module) {
		if (name_from_image((const void *)a[0], (unsigned long)a[1], name, sizeof(name)) < 0) {
			errno = ENOEXEC;
			return -1;
		}
		return fake_load(name, (const char *)a[2], "init");
	}
	return real_syscall6(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* /proc/cmdline, for the program and for libkmod: MP_SHIM_CMDLINE; the
 * image's profile: MP_SHIM_PROFILE */
static int open_as(const char *sym, const char *path, int flags, va_list ap)
{
	int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, sym);
	const char *fake = getenv("MP_SHIM_CMDLINE"), *prof = getenv("MP_SHIM_PROFILE");
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE))
		mode = va_arg(ap, mode_t);
	if (fake && strcmp(path, "/proc/cmdline") == 0)
		path = fake;
	else if (prof && strcmp(path, "/usr/lib/modpreload/profile") == 0)
		path = prof;
	return real(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = open_as("open", path, flags, ap);
	va_end(ap);
	return fd;
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = open_as("open64", path, flags, ap);
	va_end(ap);
	return fd;
}
