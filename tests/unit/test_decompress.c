// SPDX-License-Identifier: LGPL-2.1-or-later
/* decompress.c: zstd, xz and gzip images, whole, cut short and corrupt,
 * and decompression bombs against the memory budget.
 * Usage: test_decompress TMPDIR (payload and its compressed forms, made by
 * run.sh). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"
#define T_SUITE "decompress"
#include "t.h"

static const char *tmpdir;

static void decompress_one(const char *suffix, const char *c, bool good)
{
	char path[4096], orig[4096];
	void *out = NULL;
	size_t outlen = 0, olen = 0;
	char *expect = malloc(1 << 20);
	struct mp_budget b;
	int fd, r;

	snprintf(orig, sizeof(orig), "%s/payload", tmpdir);
	CHECK(mp_read_file(orig, expect, 1 << 20, &olen) == 0);
	snprintf(path, sizeof(path), "%s/payload%s", tmpdir, suffix);
	CHECK(strcmp(mp_decompress_format(path)->name, c) == 0 || !good);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	mp_budget_init(&b, MP_DECOMPRESS_MAX);
	r = mp_decompress(mp_decompress_format(path), fd, &b, mp_now_ns() + 1000000000u, &out, &outlen);
	close(fd);
	if (good) {
		CHECK(r == 0);
		CHECK(outlen == olen && out && memcmp(out, expect, olen) == 0);
		CHECK(b.used == outlen);     /* held until the kernel has it */
		mp_budget_give(&b, outlen);
	} else {
		CHECK(r == -EBADMSG);
	}
	CHECK(b.used == 0);
	mp_budget_destroy(&b);
	free(out);
	free(expect);
}

/* name in tmpdir through a budget of limit bytes, waiting up to wait_ms */
static int decompress_file(const char *name, struct mp_budget *b, unsigned wait_ms,
			   void **out, size_t *outlen)
{
	char path[4096];
	int fd, r;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	*out = NULL;
	*outlen = 0;
	r = mp_decompress(mp_decompress_format(path), fd, b, mp_now_ns() + wait_ms * 1000000ull,
			  out, outlen);
	close(fd);
	return r;
}

/* Zeros that decompress to more than the budget fail with EFBIG in every
 * format and leave the budget as they found it; the budget's size
 * exactly is fine; what finds no room in time fails with ENOMEM; an xz
 * header that asks for more decoder memory than allowed too. */
static void bombs(void)
{
	static const char *const nine[] = { "bomb9.zst", "bomb9.xz", "bomb9.gz" };
	struct mp_budget b;
	void *out, *held;
	size_t len, heldlen;
	uint64_t t;
	size_t i;

	mp_budget_init(&b, 8u << 20);
	for (i = 0; i < ARRAY_SIZE(nine); i++) {
		CHECK(decompress_file(nine[i], &b, 1000, &out, &len) == -EFBIG);
		CHECK(out == NULL && b.used == 0);
	}
	/* 6 MiB held (a load in the kernel): another 6 MiB waits, then fails */
	CHECK(decompress_file("bomb6.zst", &b, 1000, &held, &heldlen) == 0);
	CHECK(heldlen == 6u << 20 && b.used == heldlen);
	t = mp_now_ns();
	CHECK(decompress_file("bomb6.zst", &b, 200, &out, &len) == -ENOMEM);
	CHECK(mp_now_ns() - t >= 190000000u);
	CHECK(b.used == heldlen);
	free(held);
	mp_budget_give(&b, heldlen);
	CHECK(decompress_file("bomb6.zst", &b, 200, &out, &len) == 0 && len == 6u << 20);
	free(out);
	mp_budget_give(&b, len);
	mp_budget_destroy(&b);

	mp_budget_init(&b, MP_DECOMPRESS_MAX);
	CHECK(decompress_file("bomb256.zst", &b, 1000, &out, &len) == 0);
	CHECK(len == MP_DECOMPRESS_MAX && b.used == len);
	free(out);
	mp_budget_give(&b, len);
	CHECK(decompress_file("bomb256+1.zst", &b, 1000, &out, &len) == -EFBIG);
	CHECK(decompress_file("payload.dict64.xz", &b, 1000, &out, &len) == -ENOMEM);
	CHECK(decompress_file("payload.wlog27.zst", &b, 1000, &out, &len) == -ENOMEM);
	CHECK(b.used == 0);
	mp_budget_destroy(&b);
}

static void decompress(void)
{
	decompress_one(".zst", "zstd", true);
	decompress_one(".xz", "xz", true);
	decompress_one(".gz", "gzip", true);
	decompress_one(".cut.zst", "zstd", false);
	decompress_one(".cut.xz", "xz", false);
	decompress_one(".cut.gz", "gzip", false);
	decompress_one(".bad.zst", "zstd", false);
	CHECK(mp_decompress_format("/a/b.ko") == NULL);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s TMPDIR\n", argv[0]);
		return 2;
	}
	tmpdir = argv[1];
	RUN(decompress);
	RUN(bombs);
	return t_failed ? 1 : 0;
}
