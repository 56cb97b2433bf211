// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Stage 1 of 8, base: what every stage may use and that holds no state of
 * a run. Small helpers (util.c: files, the clock, names, errnos, atomic
 * writes), a string map (strmap.c), the numeric options' limits
 * (limits.c), a JSON writer (json.c), the only two load syscalls (sys.c)
 * and where a module stands in sysfs (initstate.c). It calls nothing
 * outside this folder.
 */
/* Small helpers every stage uses. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

void mp_closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

uint64_t mp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t mp_now_ms(void)
{
	return mp_now_ns() / 1000000u;
}

/* The whole of ms, a signal or not: the callers poll in a loop whose
 * bound is their own clock, and a short sleep would only spin it. */
void mp_sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000u, .tv_nsec = (long)(ms % 1000u) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

char *mp_strdup_printf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	return r < 0 ? NULL : s;
}

/* kmod treats '-' and '_' in module names as the same character; so do we,
 * everywhere a name is compared. Aliases are left alone past the first
 * character that cannot be in a module name, as kmod does. */
int mp_normalize_name(const char *in, char *out, size_t outsz)
{
	size_t i;
	bool in_name = true;

	for (i = 0; in[i] != '\0'; i++) {
		char c = in[i];

		if (i + 1 >= outsz)
			return -ENAMETOOLONG;
		if (c == '[' || c == ']' || c == '*' || c == '?' || c == ':')
			in_name = false;
		out[i] = (in_name && c == '-') ? '_' : c;
	}
	if (outsz == 0)
		return -ENAMETOOLONG;
	out[i] = '\0';
	return i == 0 ? -EINVAL : 0;
}

/* A request is a name or an alias, never a path: it must not be able to
 * make us open anything outside the module directory. */
bool mp_name_is_safe(const char *name)
{
	const unsigned char *p;

	/* '-': an option slipped into a list of names (a hook's, the
	 * command line's); no module's name starts so */
	if (name[0] == '\0' || name[0] == '.' || name[0] == '-')
		return false;
	if (strchr(name, '/') != NULL || strstr(name, "..") != NULL)
		return false;
	for (p = (const unsigned char *)name; *p; p++)
		if (*p <= ' ' || *p == 0x7f)
			return false;
	return true;
}

/*
 * in[0..len) made printable for a log line, cut with "..." to fit out:
 * names and text from files and the command line reach a console, where
 * a stray escape sequence is worse than useless. Bytes outside ' '..'~',
 * and '\\', become \xNN.
 */
void mp_escape(const char *in, size_t len, char *out, size_t outsz)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	if (outsz < 4) {
		if (outsz > 0)
			out[0] = '\0';
		return;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];
		bool plain = c >= ' ' && c <= '~' && c != '\\';

		/* room for this byte, and for "..." if more follow */
		if (o + (plain ? 1 : 4) + (i + 1 < len ? 3 : 0) >= outsz) {
			memcpy(out + o, "...", 4);
			return;
		}
		if (plain) {
			out[o++] = (char)c;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
	}
	out[o] = '\0';
}

/* The length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * form, no surrogate, nothing past U+10FFFF; ASCII is one), or 0. The NUL
 * that ends the string is no continuation byte: p[i] stops there. The log
 * (mp_escape_ctl) and the JSON writer (json.c) judge a byte by it alike. */
size_t mp_utf8_len(const unsigned char *p)
{
	size_t n, i;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] < 0xc2 || p[0] > 0xf4)
		return 0;
	n = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;
	cp = p[0] & (0x7fu >> n);
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3fu);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * A log line as the console and /dev/kmsg get it: controls as \xNN, the
 * rest as it is, so that a name mp_escape() already escaped is not escaped
 * twice and UTF-8 stays readable. The controls are C0 (ESC, BEL, a newline
 * that would start a forged record), DEL, the C1 controls U+0080..U+009F
 * (U+009B is CSI on the Linux console and in VTE terminals) and each byte
 * that is no UTF-8 (a lone 0x9b is CSI to an 8-bit terminal). Cut to
 * outsz, between characters.
 */
void mp_escape_ctl(const char *in, char *out, size_t outsz)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)in;
	size_t i, n, o = 0;

	if (outsz == 0)
		return;
	for (; *p; p += n) {
		bool ctl;

		n = mp_utf8_len(p);
		ctl = n == 0 || (n == 1 && (*p < ' ' || *p == 0x7f)) || (n == 2 && p[0] == 0xc2 && p[1] < 0xa0);
		n = n ? n : 1;
		if (o + (ctl ? 4 * n : n) >= outsz)
			break;
		if (!ctl) {
			memcpy(out + o, p, n);
			o += n;
			continue;
		}
		for (i = 0; i < n; i++) {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[p[i] >> 4];
			out[o++] = hex[p[i] & 15];
		}
	}
	out[o] = '\0';
}

/* Reads a whole small file (sysfs, procfs) into buf, NUL-terminated. */
int mp_read_file(const char *path, char *buf, size_t size, size_t *len)
{
	return mp_read_fileat(AT_FDCWD, path, buf, size, len);
}

/* All of buf to fd, through EINTR and short writes: 0 or -errno (-EIO for
 * a write that took nothing). */
int mp_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * A fresh file beside the ones we replace: tmpl ends in "XXXXXX", made
 * unique here (mkostemp's way, but under dirfd: O_EXCL, never a planted
 * link), mode 0600 until the caller's own. The fd or -errno.
 */
static int make_temp(int dirfd, char *tmpl)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	static unsigned long seq;
	size_t n = strlen(tmpl);
	int tries, i, fd;

	for (tries = 0; tries < 100; tries++) {
		unsigned long v = (unsigned long)mp_now_ns() ^ ((unsigned long)getpid() << 20) ^
				  (__atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED) * 2654435761u);

		for (i = 0; i < 6; i++, v /= 36)
			tmpl[n - 6 + (size_t)i] = digits[v % 36];
		fd = openat(dirfd, tmpl, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

/*
 * The one way a file of ours is replaced: written under a fresh name
 * beside path (O_EXCL, never a planted link) by fill(), made mode, then
 * renamed over path, so that a reader sees the old file or the new one,
 * never half of one. path is dirfd's (AT_FDCWD: as given; a directory the
 * run keeps open: mp_ctx_at). A path of AT_FDCWD has its directory made
 * if missing (its own errno is the one to tell: on a read-only /run, the
 * temporary file would only say ENOENT). tmpl is the temporary name's
 * last component before ".XXXXXX", NULL for path's own: a name a reader
 * skips (libkmod reads only *.conf in modprobe.d) may be asked for. 0 or
 * -errno; on an error nothing is left.
 */
int mp_write_atomic(int dirfd, const char *path, const char *tmpl, unsigned mode,
		    int (*fill)(int fd, void *data), void *data)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	const char *slash;
	int fd, r;

	snprintf(dir, sizeof(dir), "%s", path);
	if (dirfd == AT_FDCWD && mkdir(dirname(dir), 0755) < 0 && errno != EEXIST)
		return -errno;
	slash = strrchr(path, '/');
	if (tmpl == NULL)
		r = snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	else
		r = snprintf(tmp, sizeof(tmp), "%.*s%s.XXXXXX", slash ? (int)(slash - path + 1) : 0,
			     path, tmpl);
	if (r < 0 || (size_t)r >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = make_temp(dirfd, tmp);
	if (fd < 0)
		return fd;
	r = fchmod(fd, mode) < 0 ? -errno : fill(fd, data);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(dirfd, tmp, dirfd, path) < 0)
		r = -errno;
	if (r < 0)
		(void)unlinkat(dirfd, tmp, 0);
	return r;
}

/*
 * A file we write into in place (the no-device blacklist) or read before
 * replacing (the profile): a regular file or, with O_CREAT, a new one.
 * Anything else at path is -EINVAL, told apart before open() (a fifo
 * without a reader would say ENXIO, a symlink ELOOP) and again after it,
 * by the file opened: never followed (O_NOFOLLOW), never waited on
 * (O_NONBLOCK, cleared once it is known to be a regular file).
 */
int mp_open_regular(int dirfd, const char *path, int flags, unsigned mode)
{
	struct stat st;
	int fd;

	if (fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
		return -EINVAL;
	fd = openat(dirfd, path, flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, mode);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || fcntl(fd, F_SETFL, flags & O_APPEND) < 0) {
		int r = S_ISREG(st.st_mode) ? -errno : -EINVAL;

		close(fd);
		return r;
	}
	return fd;
}

/* Fills buf[0..room) from fd, through EINTR and short reads: 1 at the end
 * of the file, 0 when buf is full first, -errno. *got is what was read. */
static int read_full(int fd, char *buf, size_t room, size_t *got)
{
	*got = 0;
	while (*got < room) {
		ssize_t r = read(fd, buf + *got, room - *got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return 1;
		*got += (size_t)r;
	}
	return 0;
}

int mp_read_fileat(int dirfd, const char *path, char *buf, size_t size, size_t *len)
{
	_cleanup_close_ int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	size_t n;
	int r;

	if (fd < 0)
		return -errno;
	r = read_full(fd, buf, size - 1, &n);
	if (r < 0)
		return r;
	buf[n] = '\0';
	if (len)
		*len = n;
	return 0;
}

/*
 * Reads a whole file of any size up to max into a new buffer, NUL-
 * terminated: a config file is never cut at a buffer's end (a cut line
 * is a different module name). More than max is -EFBIG, so that a path
 * to a device that never ends cannot take all memory.
 */
int mp_read_file_alloc(const char *path, size_t max, char **out, size_t *len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return mp_read_fd_alloc(fd, max, out, len);
}

/* What is left to read of fd, NUL-terminated, at most max bytes. The
 * buffer never grows past max and the NUL and one byte more (that byte
 * read says the file is larger): analyze reads a report of up to 256 MiB
 * with it, and an endless file must not take twice that. */
int mp_read_fd_alloc(int fd, size_t max, char **out, size_t *len)
{
	_cleanup_free_ char *buf = NULL;
	size_t n = 0, size = 0, got;
	int r = 0;

	while (r == 0) {
		size_t grow = size ? size * 2 : 65536;
		char *p;

		grow = grow < max + 2 ? grow : max + 2;
		p = realloc(buf, grow);
		if (p == NULL)
			return -ENOMEM;
		buf = p;
		size = grow;
		r = read_full(fd, buf + n, size - 1 - n, &got);
		n += got;
		if (r < 0)
			return r;
		if (n > max)
			return -EFBIG;
	}
	buf[n] = '\0';
	*len = n;
	*out = TAKE_PTR(buf);
	return 0;
}

/* Grows *arrayp by one zeroed element; the new index is *n - 1. */
int mp_append(void *arrayp, int *n, int *cap, size_t elemsz)
{
	void **array = arrayp;

	if (*n == *cap) {
		int ncap = *cap ? *cap * 2 : 8;
		void *p = realloc(*array, (size_t)ncap * elemsz);

		if (p == NULL)
			return -ENOMEM;
		*array = p;
		*cap = ncap;
	}
	memset((char *)*array + (size_t)*n * elemsz, 0, elemsz);
	(*n)++;
	return 0;
}

/* The names inline, not pointers: a table of pointers is relocated data,
 * which these PIE objects keep in the writable segment (docs/design.md,
 * "Building and packaging"). Linux's errno values are below 256. */
static const struct {
	unsigned char err;
	char name[13];
} errnames[] = {
	{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { EINTR, "EINTR" },
	{ EIO, "EIO" }, { ENXIO, "ENXIO" }, { E2BIG, "E2BIG" },
	{ ENOEXEC, "ENOEXEC" }, { EBADF, "EBADF" }, { EAGAIN, "EAGAIN" },
	{ ENOMEM, "ENOMEM" }, { EACCES, "EACCES" }, { EFAULT, "EFAULT" },
	{ EBUSY, "EBUSY" }, { EEXIST, "EEXIST" }, { ENODEV, "ENODEV" },
	{ EINVAL, "EINVAL" }, { ENOSPC, "ENOSPC" }, { ETXTBSY, "ETXTBSY" },
	{ EFBIG, "EFBIG" }, { ERANGE, "ERANGE" }, { ENOSYS, "ENOSYS" },
	{ ENAMETOOLONG, "ENAMETOOLONG" }, { ELOOP, "ELOOP" },
	{ ENODATA, "ENODATA" }, { ETIME, "ETIME" }, { EBADMSG, "EBADMSG" },
	{ EOVERFLOW, "EOVERFLOW" }, { EOPNOTSUPP, "EOPNOTSUPP" },
	{ ETIMEDOUT, "ETIMEDOUT" }, { ECANCELED, "ECANCELED" },
	{ EKEYREJECTED, "EKEYREJECTED" }, { ENOKEY, "ENOKEY" },
	{ EXDEV, "EXDEV" }, { EPROTO, "EPROTO" },
	/* what writing the report can meet */
	{ EPIPE, "EPIPE" }, { ENOTDIR, "ENOTDIR" }, { EISDIR, "EISDIR" },
	{ EROFS, "EROFS" }, { EDQUOT, "EDQUOT" },
};

const char *mp_errno_name(int err)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(errnames); i++)
		if (errnames[i].err == err)
			return errnames[i].name;
	return "E?";
}

/* What an errno means when loading a module: the kernel reuses the common
 * codes, and "No such file or directory" for an unknown symbol helps no
 * one at 3 a.m. */
const char *mp_load_error(int err)
{
	switch (err) {
	case ENOENT:
		return "unknown symbol in module, or a module it needs is missing (see dmesg)";
	case EINVAL:
		return "invalid parameter or module format (see dmesg)";
	case ENOEXEC:
		return "not a module for this kernel (bad ELF or vermagic)";
	case EKEYREJECTED:
		return "module signature rejected";
	case ENOKEY:
		return "module signature required but missing";
	case EPERM:
		return "not permitted (no CAP_SYS_MODULE, modules disabled, or module_blacklist=)";
	case ETXTBSY:
		return "module file is open for writing";
	case EBUSY:
		return "init() returned EBUSY, or a module it needs never finished loading (see dmesg)";
	case ETIMEDOUT:
		return "still coming after the timeout (someone else's load)";
	case EBADMSG:
		return "corrupt or truncated compressed file";
	case EXDEV:
		return "path outside the module directory";
	case ELOOP:
		return "refused to follow a symlink in the module directory";
	case ENODEV:
		return "init() found no device";
	case EEXIST:
		/* a duplicate of a live module is not a failure: only an
		 * init() that says it gets here (load.c) */
		return "init() found its place taken (another driver is registered)";
	case EFBIG:
		return "larger than the " MP_STR(MP_DECOMPRESS_MAX_MIB) " MiB a module may "
		       "decompress to";
	case ENOMEM:
		return "out of memory (the kernel's, or no room to decompress it in the "
		       MP_STR(MP_DECOMPRESS_MAX_MIB) " MiB all loads share, within the timeout)";
	default:
		return strerror(err);
	}
}
