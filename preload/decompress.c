// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Userspace decompression, for kernels that cannot take a compressed file
 * themselves (no /sys/module/compression, or another format than the
 * file's). The result goes to init_module().
 */
#include <errno.h>
#include <lzma.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "internal.h"

/* A module is a few MiB at most; refuse what cannot be one. */
#define MP_MODULE_MAX (512u * 1024 * 1024)

enum mp_compression mp_compression_of(const char *path)
{
	size_t n = strlen(path);

	if (n > 4 && strcmp(path + n - 4, ".zst") == 0)
		return MP_COMP_ZSTD;
	if (n > 3 && strcmp(path + n - 3, ".xz") == 0)
		return MP_COMP_XZ;
	if (n > 3 && strcmp(path + n - 3, ".gz") == 0)
		return MP_COMP_GZIP;
	return MP_COMP_NONE;
}

const char *mp_compression_name(enum mp_compression c)
{
	switch (c) {
	case MP_COMP_ZSTD:
		return "zstd";
	case MP_COMP_XZ:
		return "xz";
	case MP_COMP_GZIP:
		return "gzip";
	case MP_COMP_NONE:
		break;
	}
	return "none";
}

/* Output buffer that doubles; the caller frees *buf. */
static int grow(void **buf, size_t *cap, size_t need)
{
	size_t n = *cap ? *cap : 1u << 20;
	void *p;

	while (n < need)
		n *= 2;
	if (n > MP_MODULE_MAX)
		return -EFBIG;
	if (n == *cap)
		return 0;
	p = realloc(*buf, n);
	if (p == NULL)
		return -ENOMEM;
	*buf = p;
	*cap = n;
	return 0;
}

static int unzstd(const void *in, size_t inlen, void **out, size_t *outlen)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, inlen, 0 };
	size_t cap = 0, len = 0, r;
	void *buf = NULL;
	int err = 0;

	if (ds == NULL)
		return -ENOMEM;
	for (;;) {
		ZSTD_outBuffer ob;

		if (len == cap) {
			err = grow(&buf, &cap, cap * 2 + 1);
			if (err < 0)
				break;
		}
		ob = (ZSTD_outBuffer){ buf, cap, len };
		r = ZSTD_decompressStream(ds, &ob, &ib);
		len = ob.pos;
		if (ZSTD_isError(r)) {
			err = -EBADMSG;
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
	if (err < 0) {
		free(buf);
		return err;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

static int unxz(const void *in, size_t inlen, void **out, size_t *outlen)
{
	lzma_stream s = LZMA_STREAM_INIT;
	size_t cap = 0;
	void *buf = NULL;
	lzma_ret r;
	int err = 0;

	if (lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
		return -ENOMEM;
	s.next_in = in;
	s.avail_in = inlen;
	do {
		size_t len = s.total_out;

		if (len == cap) {
			err = grow(&buf, &cap, cap * 2 + 1);
			if (err < 0)
				break;
		}
		s.next_out = (uint8_t *)buf + len;
		s.avail_out = cap - len;
		r = lzma_code(&s, LZMA_FINISH);
		if (r != LZMA_OK && r != LZMA_STREAM_END) {
			err = r == LZMA_MEM_ERROR ? -ENOMEM : -EBADMSG;
			break;
		}
	} while (r != LZMA_STREAM_END);
	*outlen = s.total_out;
	lzma_end(&s);
	if (err < 0) {
		free(buf);
		return err;
	}
	*out = buf;
	return 0;
}

static int ungzip(const void *in, size_t inlen, void **out, size_t *outlen)
{
	z_stream s;
	size_t cap = 0;
	void *buf = NULL;
	int r, err = 0;

	memset(&s, 0, sizeof(s));
	if (inflateInit2(&s, 16 + MAX_WBITS) != Z_OK) /* 16: gzip header */
		return -ENOMEM;
	s.next_in = (Bytef *)in;
	s.avail_in = (uInt)inlen;
	do {
		size_t len = s.total_out;

		if (len == cap) {
			err = grow(&buf, &cap, cap * 2 + 1);
			if (err < 0)
				break;
		}
		s.next_out = (Bytef *)buf + len;
		s.avail_out = (uInt)(cap - len);
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
	if (err < 0) {
		free(buf);
		return err;
	}
	*out = buf;
	return 0;
}

int mp_decompress(enum mp_compression c, int fd, void **out, size_t *outlen)
{
	struct stat st;
	void *in;
	int r;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size <= 0 || (uint64_t)st.st_size > MP_MODULE_MAX)
		return -EBADMSG;
	in = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (in == MAP_FAILED)
		return -errno;
	switch (c) {
	case MP_COMP_ZSTD:
		r = unzstd(in, (size_t)st.st_size, out, outlen);
		break;
	case MP_COMP_XZ:
		r = unxz(in, (size_t)st.st_size, out, outlen);
		break;
	case MP_COMP_GZIP:
		r = ungzip(in, (size_t)st.st_size, out, outlen);
		break;
	default:
		r = -EINVAL;
		break;
	}
	munmap(in, (size_t)st.st_size);
	return r;
}
