// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A bounds check of depmod's binary indexes before libkmod maps them.
 * libkmod trusts every offset in a .bin file; a truncated or corrupt one
 * makes it read past the mapping and crash, taking the boot's module
 * loading with it. Walking the trie once with every offset checked turns
 * that into an error message that names the file.
 *
 * Format (all big-endian): magic, version, root offset; a node offset
 * carries flags in its top bits: a prefix string, children (first and last
 * character, then one offset per character), values (count, then
 * priority and string per value).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define INDEX_MAGIC 0xB007F457u
#define INDEX_VERSION_MAJOR 0x0002u
#define NODE_PREFIX 0x80000000u
#define NODE_VALUES 0x40000000u
#define NODE_CHILDS 0x20000000u
#define NODE_MASK 0x0FFFFFFFu
/* Each level of the trie is at least one character of a key, and keys are
 * module names, symbols and aliases: a few hundred characters at most.
 * libkmod walks the trie recursively, so a deeper one (a corrupt file)
 * would overflow its stack. */
#define DEPTH_MAX 4096u

struct pending {
	uint32_t node;
	uint32_t depth;
};

struct reader {
	const unsigned char *buf;
	size_t len;
};

static inline uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int u32_at(const struct reader *r, size_t off, uint32_t *v)
{
	if (off > r->len || r->len - off < 4)
		return -EBADMSG;
	*v = be32(r->buf + off);
	return 0;
}

/* Offset just past the NUL of the string at off. Eight bytes at a time
 * until a word has a zero byte, then that word a byte at a time: most
 * strings are a node's prefix of a few characters, where memchr()'s setup
 * cost more than the scan (a third of the booted run's instructions went
 * to this check of 2.7 MB of indexes). */
static int skip_str(const struct reader *r, size_t off, size_t *end)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	const unsigned char *p, *stop = r->buf + r->len;

	if (off >= r->len)
		return -EBADMSG;
	for (p = r->buf + off; stop - p >= 8; p += 8) {
		uint64_t w;

		memcpy(&w, p, sizeof(w));
		if ((w - ones) & ~w & highs)
			break;
	}
	for (; p < stop; p++)
		if (*p == '\0') {
			*end = (size_t)(p - r->buf) + 1;
			return 0;
		}
	return -EBADMSG;
}

static int check_node(const struct reader *r, struct pending cur, struct pending *stack,
		      size_t *top, unsigned char *seen)
{
	uint32_t node = cur.node;
	size_t off = node & NODE_MASK;
	uint32_t i, n;
	int e;

	/* a node without flags is empty and may sit at the very end */
	if (off < 12 || off > r->len || (off == r->len && (node & ~NODE_MASK)))
		return -EBADMSG;
	/* A node reached twice is a loop or a shared subtree: neither is
	 * something depmod writes. */
	if (off == r->len)
		return 0;
	if (seen[off / 8] & (1u << (off % 8)))
		return -EBADMSG;
	seen[off / 8] |= (unsigned char)(1u << (off % 8));

	if (node & NODE_PREFIX) {
		e = skip_str(r, off, &off);
		if (e < 0)
			return e;
	}
	if (node & NODE_CHILDS) {
		unsigned first, last;

		if (off + 2 > r->len)
			return -EBADMSG;
		first = r->buf[off];
		last = r->buf[off + 1];
		off += 2;
		/* libkmod reads both as (signed) char and copies last - first
		 * + 1 children: across 0x80 it gets a negative count */
		if (last < first || (first < 0x80) != (last < 0x80) || cur.depth >= DEPTH_MAX)
			return -EBADMSG;
		n = last - first + 1;
		/* the whole table at once, then no check per child */
		if ((r->len - off) / 4 < n)
			return -EBADMSG;
		for (i = 0; i < n; i++) {
			uint32_t child = be32(r->buf + off + 4 * i);

			if (child != 0)
				stack[(*top)++] = (struct pending){ .node = child, .depth = cur.depth + 1 };
		}
		off += 4 * (size_t)n;
	}
	if (node & NODE_VALUES) {
		e = u32_at(r, off, &n);
		if (e < 0)
			return e;
		off += 4;
		/* each value takes at least 5 bytes */
		if (n > (r->len - off) / 5)
			return -EBADMSG;
		for (i = 0; i < n; i++) {
			e = skip_str(r, off + 4, &off);
			if (e < 0)
				return e;
		}
	}
	return 0;
}

int mp_index_check_buf(const void *buf, size_t len)
{
	struct reader r = { .buf = buf, .len = len };
	_cleanup_free_ struct pending *stack = NULL;
	_cleanup_free_ unsigned char *seen = NULL;
	uint32_t magic, version, root;
	size_t top = 0;
	int e;

	if (u32_at(&r, 0, &magic) < 0 || u32_at(&r, 4, &version) < 0 ||
	    u32_at(&r, 8, &root) < 0 || magic != INDEX_MAGIC)
		return -EBADMSG;
	if (version >> 16 != INDEX_VERSION_MAJOR)
		return -EPROTO;
	/* Every node is at a distinct offset, and a node has at most 256
	 * children: the stack never holds more than len/4 + 256 entries. */
	stack = malloc((len / 4 + 257) * sizeof(*stack));
	seen = calloc(len / 8 + 1, 1);
	if (stack == NULL || seen == NULL)
		return -ENOMEM;
	stack[top++] = (struct pending){ .node = root };
	while (top > 0) {
		e = check_node(&r, stack[--top], stack, &top, seen);
		if (e < 0)
			return e;
		if (top > len / 4 + 1)
			return -EBADMSG;
	}
	return 0;
}

/* Maps the index at path, checked unless told it need not be; with map, it
 * stays mapped for mp_index_lookup (the caller unmaps *len bytes). */
int mp_index_map(const char *path, void **map, size_t *len, bool check)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *p;
	int e;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size < 12)
		return -EBADMSG;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	e = check ? mp_index_check_buf(p, (size_t)st.st_size) : 0;
	if (e == 0 && map) {
		*map = p;
		*len = (size_t)st.st_size;
	} else {
		munmap(p, (size_t)st.st_size);
	}
	return e;
}

/* The header alone: what libkmod reads when it maps the file. */
int mp_index_check_head(const char *path)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned char head[12];
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size < 12 || pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head))
		return -EBADMSG;
	if (be32(head) != INDEX_MAGIC || (be32(head + 8) & NODE_MASK) > (uint64_t)st.st_size)
		return -EBADMSG;
	return be32(head + 4) >> 16 != INDEX_VERSION_MAJOR ? -EPROTO : 0;
}

int mp_index_check(const char *path)
{
	return mp_index_map(path, NULL, NULL, true);
}

/*
 * The first value stored under key, or NULL: the raw line depmod wrote
 * ("kernel/x.ko: kernel/y.ko kernel/z.ko" in modules.dep.bin). Every
 * offset is checked again, so a file that changed since the check
 * cannot take us outside the buffer.
 */
const char *mp_index_lookup(const void *buf, size_t len, const char *key)
{
	struct reader r = { .buf = buf, .len = len };
	uint32_t node, n;
	size_t off, end, depth;
	const char *k = key;

	if (u32_at(&r, 8, &node) < 0)
		return NULL;
	/* a key is shorter than the file: a longer walk is a loop */
	for (depth = 0; depth <= len; depth++) {
		off = node & NODE_MASK;
		if (off < 12 || off >= len)
			return NULL;
		if (node & NODE_PREFIX) {
			if (skip_str(&r, off, &end) < 0)
				return NULL;
			for (; off + 1 < end; off++, k++)
				if (*k != (char)r.buf[off])
					return NULL;
			off = end;
		}
		if (node & NODE_CHILDS) {
			unsigned first, last, c = (unsigned char)*k;

			if (off + 2 > len)
				return NULL;
			first = r.buf[off];
			last = r.buf[off + 1];
			if (*k != '\0') {
				if (c < first || c > last ||
				    u32_at(&r, off + 2 + 4 * (size_t)(c - first), &node) < 0 || node == 0)
					return NULL;
				k++;
				continue;
			}
			off += 2 + 4 * (size_t)(last >= first ? last - first + 1 : 0);
		}
		if (*k != '\0' || !(node & NODE_VALUES))
			return NULL;
		if (u32_at(&r, off, &n) < 0 || n == 0 || skip_str(&r, off + 8, &end) < 0)
			return NULL;
		return (const char *)r.buf + off + 8;
	}
	return NULL;
}
