// SPDX-License-Identifier: LGPL-2.1-or-later
/* index.c: the check of depmod's indexes before libkmod reads them: real
 * indexes, every truncation of one, loops, bad versions, children libkmod
 * would miscount, and tries too deep for its recursion.
 * Usage: test_index TMPDIR (TMPDIR/tree: a module tree of mktree.sh's). */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"
#define T_SUITE "index"
#include "t.h"

static const char *tmpdir;

/* A root node with children first..last, every child offset 0 (none). */
static size_t children_node(unsigned char *buf, unsigned first, unsigned last)
{
	size_t n = 14 + 4 * (last >= first ? last - first + 1 : 0);

	memset(buf, 0, n);
	memcpy(buf, "\xB0\x07\xF4\x57\x00\x02\x00\x01\x20\x00\x00\x0C", 12);
	buf[12] = (unsigned char)first;
	buf[13] = (unsigned char)last;
	return n;
}

/*
 * libkmod reads a node's first and last child as (signed) char and takes
 * last - first + 1 children: where that differs from what we read, it
 * computes a negative count and copies gigabytes. Refused exactly there.
 */
static void index_signed_children(void)
{
	unsigned char buf[14 + 4 * 256];

	CHECK(mp_index_check_buf(buf, children_node(buf, 'a', 'z')) == 0);
	CHECK(mp_index_check_buf(buf, children_node(buf, 0x00, 0x7f)) == 0);
	CHECK(mp_index_check_buf(buf, children_node(buf, 0x80, 0xff)) == 0);
	CHECK(mp_index_check_buf(buf, children_node(buf, 0x90, 0x91)) == 0);
	CHECK(mp_index_check_buf(buf, children_node(buf, 'a', 0x80)) == -EBADMSG);
	CHECK(mp_index_check_buf(buf, children_node(buf, 0x7f, 0x80)) == -EBADMSG);
	CHECK(mp_index_check_buf(buf, children_node(buf, 0x00, 0xff)) == -EBADMSG);
	CHECK(mp_index_check_buf(buf, children_node(buf, 'z', 'a')) == -EBADMSG);
}

/* A chain of nodes n deep, each with one child '*', the last without
 * children. */
static size_t chain(unsigned char *buf, size_t n)
{
	size_t i, off = 12;

	memcpy(buf, "\xB0\x07\xF4\x57\x00\x02\x00\x01\x20\x00\x00\x0C", 12);
	for (i = 0; i < n; i++, off += 6) {
		uint32_t next = (uint32_t)(off + 6) | (i + 1 < n ? 0x20000000u : 0);

		buf[off] = buf[off + 1] = '*';
		buf[off + 2] = (unsigned char)(next >> 24);
		buf[off + 3] = (unsigned char)(next >> 16);
		buf[off + 4] = (unsigned char)(next >> 8);
		buf[off + 5] = (unsigned char)next;
	}
	return off;
}

/*
 * libkmod walks the trie recursively (a wildcard lookup goes down every
 * child of a '*'): a trie deeper than any key makes it overflow its
 * stack. Keys are short; a deep trie is refused.
 */
static void index_depth(void)
{
	unsigned char *buf = malloc(12 + 6 * 100000);

	CHECK(mp_index_check_buf(buf, chain(buf, 1000)) == 0);
	CHECK(mp_index_check_buf(buf, chain(buf, 100000)) == -EBADMSG);
	free(buf);
}

static void index_check(void)
{
	char path[4096];
	unsigned char bad[64] = { 0xB0, 0x07, 0xF4, 0x57, 0x00, 0x02, 0x00, 0x01 };
	size_t len;
	char *buf = malloc(1 << 22);

	snprintf(path, sizeof(path), "%s/tree/lib/modules/1.0/modules.dep.bin", tmpdir);
	CHECK(mp_index_check(path) == 0);
	snprintf(path, sizeof(path), "%s/tree/lib/modules/1.0/modules.alias.bin", tmpdir);
	CHECK(mp_index_check(path) == 0);
	CHECK(mp_read_file(path, buf, 1 << 22, &len) == 0);
	/* every truncation of a real index is refused, never read past */
	for (size_t cut = 0; cut < len; cut++)
		if (mp_index_check_buf(buf, cut) == 0 && cut < len) {
			fprintf(stderr, "  truncated at %zu accepted\n", cut);
			t_failed++;
			break;
		}
	/* root pointing at itself: a loop */
	bad[8] = 0x20;
	bad[11] = 12;
	bad[12] = 'a';
	bad[13] = 'a';
	bad[14] = 0x20;
	bad[17] = 12;
	CHECK(mp_index_check_buf(bad, 18) < 0);
	CHECK(mp_index_check_buf("nonsense-nonsense", 17) == -EBADMSG);
	bad[5] = 9;
	CHECK(mp_index_check_buf(bad, 18) == -EPROTO);
	snprintf(path, sizeof(path), "%s/none.bin", tmpdir);
	CHECK(mp_index_check(path) == -ENOENT);
	free(buf);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s TMPDIR\n", argv[0]);
		return 2;
	}
	tmpdir = argv[1];
	RUN(index_check);
	RUN(index_signed_children);
	RUN(index_depth);
	return t_failed ? 1 : 0;
}
