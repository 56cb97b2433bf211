// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Userspace decompression, for kernels that cannot take a compressed file
 * themselves (no /sys/module/compression, or another format than the
 * file's). The result goes to init_module().
 *
 * A compressed file says nothing trustworthy about its size: a few KiB of
 * zstd can be gigabytes of zeros, and every worker may hold one. So all
 * images in memory come out of one budget (struct mp_budget, one per
 * run). A decompression grows its buffer only while the budget has room;
 * when it has none, it gives back everything it holds and waits, holding
 * nothing, for room for what it now knows it needs, then starts again. A
 * holder never waits, so waiters cannot wait for each other. An image
 * larger than the whole budget fails alone (EFBIG); one that finds no room
 * before its load's deadline fails with ENOMEM.
 */
#include <errno.h>
#include <lzma.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "internal.h"

void mp_budget_init(struct mp_budget *b, size_t limit)
{
	pthread_condattr_t ca;

	pthread_mutex_init(&b->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* mp_now_ns()'s clock */
	pthread_cond_init(&b->freed, &ca);
	pthread_condattr_destroy(&ca);
	b->limit = limit;
	b->used = 0;
}

void mp_budget_destroy(struct mp_budget *b)
{
	pthread_cond_destroy(&b->freed);
	pthread_mutex_destroy(&b->lock);
}

void mp_budget_give(struct mp_budget *b, size_t n)
{
	pthread_mutex_lock(&b->lock);
	b->used -= n;
	pthread_cond_broadcast(&b->freed);
	pthread_mutex_unlock(&b->lock);
}

/* n bytes from the budget; with a deadline (CLOCK_MONOTONIC ns), waits
 * until then for room, without one answers -EAGAIN at once. */
static int budget_take(struct mp_budget *b, size_t n, uint64_t deadline)
{
	struct timespec ts = { (time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u) };
	int r = 0;

	if (n > b->limit)
		return -EFBIG;
	pthread_mutex_lock(&b->lock);
	while (b->used + n > b->limit && r == 0)
		r = deadline ? pthread_cond_timedwait(&b->freed, &b->lock, &ts) : EAGAIN;
	if (b->used + n <= b->limit) {
		b->used += n;
		r = 0;
	}
	pthread_mutex_unlock(&b->lock);
	return r == 0 ? 0 : r == EAGAIN ? -EAGAIN : -ENOMEM;
}

/* An output buffer whose every byte is held from the budget. */
struct mp_sink {
	struct mp_budget *b;
	void *buf;
	size_t cap;
	size_t want; /* after -EAGAIN: what it asked for */
};

/* Doubles the buffer, up to the whole budget; never waits. */
static int grow(struct mp_sink *o)
{
	size_t n = o->cap < o->b->limit / 2 ? o->cap * 2 : o->b->limit;
	void *p;
	int r;

	if (o->cap >= o->b->limit)
		return -EFBIG;
	r = budget_take(o->b, n - o->cap, 0);
	if (r < 0) {
		o->want = n;
		return r;
	}
	p = realloc(o->buf, n);
	if (p == NULL) {
		mp_budget_give(o->b, n - o->cap);
		return -ENOMEM;
	}
	o->buf = p;
	o->cap = n;
	return 0;
}

static int unzstd(const void *in, size_t inlen, struct mp_sink *o, size_t *outlen)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, inlen, 0 };
	size_t len = 0, r;
	int err = 0;

	if (ds == NULL)
		return -ENOMEM;
	/* The decoder's window is memory outside the shared budget: 32 MiB at
	 * most, as for xz (zstd -19 uses 8 MiB; --ultra -22 and --long need
	 * more and are refused). */
	if (ZSTD_isError(ZSTD_DCtx_setParameter(ds, ZSTD_d_windowLogMax, 25))) {
		ZSTD_freeDStream(ds);
		return -EINVAL;
	}
	for (;;) {
		ZSTD_outBuffer ob;

		if (len == o->cap) {
			err = grow(o);
			if (err < 0)
				break;
		}
		ob = (ZSTD_outBuffer){ o->buf, o->cap, len };
		r = ZSTD_decompressStream(ds, &ob, &ib);
		len = ob.pos;
		if (ZSTD_isError(r)) {
			err = ZSTD_getErrorCode(r) == ZSTD_error_frameParameter_windowTooLarge ?
				-ENOMEM : -EBADMSG;
			break;
		}
		if (r == 0 && ib.pos == ib.size)
			break; /* last frame complete */
		if (ib.pos == ib.size && ob.pos < ob.size) {
			err = -EBADMSG; /* input ended inside a frame */
			break;
		}
	}
	ZSTD_freeDStream(ds);
	*outlen = len;
	return err;
}

static int unxz(const void *in, size_t inlen, struct mp_sink *o, size_t *outlen)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r;
	int err = 0;

	/* the header chooses the dictionary size; a hostile one asks for GiBs */
	if (lzma_stream_decoder(&s, MP_XZ_MEMLIMIT, LZMA_CONCATENATED) != LZMA_OK)
		return -ENOMEM;
	s.next_in = in;
	s.avail_in = inlen;
	do {
		size_t len = s.total_out;

		if (len == o->cap) {
			err = grow(o);
			if (err < 0)
				break;
		}
		s.next_out = (uint8_t *)o->buf + len;
		s.avail_out = o->cap - len;
		r = lzma_code(&s, LZMA_FINISH);
		if (r != LZMA_OK && r != LZMA_STREAM_END) {
			err = r == LZMA_MEM_ERROR || r == LZMA_MEMLIMIT_ERROR ? -ENOMEM : -EBADMSG;
			break;
		}
	} while (r != LZMA_STREAM_END);
	*outlen = s.total_out;
	lzma_end(&s);
	return err;
}

static int ungzip(const void *in, size_t inlen, struct mp_sink *o, size_t *outlen)
{
	z_stream s;
	int r, err = 0;

	memset(&s, 0, sizeof(s));
	if (inflateInit2(&s, 16 + MAX_WBITS) != Z_OK) /* 16: gzip header */
		return -ENOMEM;
	s.next_in = (Bytef *)in;
	s.avail_in = (uInt)inlen;
	do {
		size_t len = s.total_out;

		if (len == o->cap) {
			err = grow(o);
			if (err < 0)
				break;
		}
		s.next_out = (Bytef *)o->buf + len;
		s.avail_out = (uInt)(o->cap - len);
		r = inflate(&s, Z_NO_FLUSH);
		if (r != Z_OK && r != Z_STREAM_END) {
			err = r == Z_MEM_ERROR ? -ENOMEM : -EBADMSG;
			break;
		}
		if (r == Z_OK && s.avail_in == 0 && s.avail_out != 0) {
			err = -EBADMSG; /* truncated */
			break;
		}
	} while (r != Z_STREAM_END);
	*outlen = s.total_out;
	inflateEnd(&s);
	return err;
}

/* --- the image's size, read from the compressed file's own header or
 * trailer, without decoding it (for dupcost.c's estimate) --- */

static int pread_all(int fd, void *buf, size_t n, off_t off)
{
	ssize_t r = pread(fd, buf, n, off);

	if (r < 0)
		return -errno;
	return (size_t)r == n ? 0 : -EBADMSG;
}

/* An xz variable-length integer: 7 bits a byte, low first, at most 9. */
static int xz_vli(const uint8_t *b, size_t n, size_t *pos, uint64_t *out)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 9 && *pos < n; i++) {
		uint8_t c = b[(*pos)++];

		v |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return -EBADMSG;
}

/*
 * The stream footer (CRC32, backward size, flags, "YZ") says where the
 * index is; the index lists every block's uncompressed size. The CRCs are
 * not checked: a wrong size only makes a wrong estimate, and the kernel
 * checks the file itself when it loads it.
 */
static int xz_image_size(int fd, off_t size, uint64_t *out)
{
	uint8_t foot[12];
	_cleanup_free_ uint8_t *idx = NULL;
	uint64_t nrec, unpadded, usize, sum = 0;
	size_t back, pos = 1;
	off_t end = size;
	int r;

	/* stream padding: zeros in units of four after the footer */
	for (;;) {
		uint8_t pad[4];

		if (end < 24)
			return -EBADMSG;
		if ((r = pread_all(fd, pad, 4, end - 4)) < 0)
			return r;
		if (pad[0] | pad[1] | pad[2] | pad[3])
			break;
		end -= 4;
	}
	if ((r = pread_all(fd, foot, sizeof(foot), end - 12)) < 0)
		return r;
	if (foot[10] != 'Y' || foot[11] != 'Z')
		return -EBADMSG;
	back = ((size_t)foot[4] | (size_t)foot[5] << 8 | (size_t)foot[6] << 16 | (size_t)foot[7] << 24) + 1;
	back *= 4;
	if (back > (1u << 20) || (off_t)back > end - 24)
		return -EBADMSG;
	idx = malloc(back);
	if (idx == NULL)
		return -ENOMEM;
	if ((r = pread_all(fd, idx, back, end - 12 - (off_t)back)) < 0)
		return r;
	if (idx[0] != 0 || xz_vli(idx, back, &pos, &nrec) < 0)
		return -EBADMSG;
	while (nrec-- > 0) {
		if (xz_vli(idx, back, &pos, &unpadded) < 0 || xz_vli(idx, back, &pos, &usize) < 0)
			return -EBADMSG;
		sum += usize;
	}
	*out = sum;
	return 0;
}

/* The decompressed size from a zstd frame header: written by a file's
 * compressor, it says the content size (a pipe's does not: ENODATA). */
static int zstd_size(int fd, off_t size, uint64_t *out)
{
	uint8_t b[18]; /* ZSTD_FRAMEHEADERSIZE_MAX: the largest frame header */
	size_t len = size < (off_t)sizeof(b) ? (size_t)size : sizeof(b);
	unsigned long long n;
	int r;

	if (len < 6)
		return -EBADMSG;
	if ((r = pread_all(fd, b, len, 0)) < 0)
		return r;
	n = ZSTD_getFrameContentSize(b, len);
	if (n == ZSTD_CONTENTSIZE_ERROR)
		return -EBADMSG;
	if (n == ZSTD_CONTENTSIZE_UNKNOWN)
		return -ENODATA; /* written through a pipe */
	*out = n;
	return 0;
}

static int xz_size(int fd, off_t size, uint64_t *out)
{
	return xz_image_size(fd, size, out);
}

/* gzip's ISIZE: the input's length modulo 2^32; modules are smaller */
static int gzip_size(int fd, off_t size, uint64_t *out)
{
	uint8_t b[4];
	int r;

	if (size < 18)
		return -EBADMSG;
	if ((r = pread_all(fd, b, 4, size - 4)) < 0)
		return r;
	*out = (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24;
	return 0;
}

/* Every format a module file may come in: its suffix, its name as
 * /sys/module/compression says it, how load.c reports a file the kernel
 * cannot take itself, the decoder for that case, and how the image's size
 * is read without decoding (dupcost.c). */
static const struct mp_format formats[] = {
	{ .suffix = ".zst", .name = "zstd", .how = "init (zstd in userspace)", .decode = unzstd, .size = zstd_size },
	{ .suffix = ".xz", .name = "xz", .how = "init (xz in userspace)", .decode = unxz, .size = xz_size },
	{ .suffix = ".gz", .name = "gzip", .how = "init (gzip in userspace)", .decode = ungzip, .size = gzip_size },
};

/* The format of a module file, by its name; NULL: not compressed. */
const struct mp_format *mp_decompress_format(const char *path)
{
	size_t n = strlen(path), i;

	for (i = 0; i < ARRAY_SIZE(formats); i++) {
		size_t k = strlen(formats[i].suffix);

		if (n > k && strcmp(path + n - k, formats[i].suffix) == 0)
			return &formats[i];
	}
	return NULL;
}

/*
 * On success *out holds *outlen bytes taken from b: the caller frees it
 * and gives them back once the kernel has had the image.
 */
int mp_decompress(const struct mp_format *f, int fd, struct mp_budget *b, uint64_t deadline,
		  void **out, size_t *outlen)
{
	size_t want = b->limit < (1u << 20) ? b->limit : 1u << 20, len = 0;
	struct stat st;
	void *in;
	int r;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size <= 0)
		return -EBADMSG;
	if ((uint64_t)st.st_size > b->limit)
		return -EFBIG;
	in = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (in == MAP_FAILED)
		return -errno;
	for (;;) {
		struct mp_sink o = { .b = b };

		r = budget_take(b, want, deadline);
		if (r < 0)
			break;
		o.buf = malloc(want);
		if (o.buf == NULL) {
			mp_budget_give(b, want);
			r = -ENOMEM;
			break;
		}
		o.cap = want;
		r = f->decode(in, (size_t)st.st_size, &o, &len);
		if (r == 0) {
			/* hold only what the image needs (if realloc cannot
			 * shrink it, the rest is ours only until it is freed) */
			void *p = len && len < o.cap ? realloc(o.buf, len) : NULL;

			mp_budget_give(b, o.cap - len);
			*out = p ? p : o.buf;
			*outlen = len;
			break;
		}
		free(o.buf);
		mp_budget_give(b, o.cap);
		if (r != -EAGAIN)
			break;
		/* no room to grow: wait, holding nothing, for what it needs */
		want = o.want;
	}
	munmap(in, (size_t)st.st_size);
	return r;
}
