// SPDX-License-Identifier: LGPL-2.1-or-later
/* dupcost.c on real files: the image size from each compressed format's
 * own header or trailer, and the module memory a real .ko is laid out in.
 * Usage: test_dupcost TMPDIR [MODULE.ko]; TMPDIR holds payload{,.zst,.xz,.gz},
 * payload.pad.xz, payload.blocks.xz, payload.pipe.zst (no content size),
 * and ko.zst and ko.xz when a module is given (run.sh makes them). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "t.h"

#define T_SUITE "dupcost"

static const char *tmpdir;
static const char *ko;

static int open_tmp(const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static off_t size_of(const char *name)
{
	struct stat st;
	int fd = open_tmp(name);

	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	close(fd);
	return st.st_size;
}

static void image_sizes(void)
{
	/* the format comes from the name, as for a module file */
	static const char *const f[] = {
		"payload", "payload.zst", "payload.xz", "payload.gz", "payload.pad.xz", "payload.blocks.xz",
	};
	off_t want = size_of("payload");
	uint64_t n;
	size_t i;
	int fd;

	CHECK(want > 0);
	for (i = 0; i < ARRAY_SIZE(f); i++) {
		fd = open_tmp(f[i]);
		CHECK(fd >= 0);
		n = 0;
		CHECK(mp_dupcost_image_size(fd, mp_decompress_format(f[i]), &n) == 0);
		if (n != (uint64_t)want)
			fprintf(stderr, "  %s: %llu, not %lld\n", f[i], (unsigned long long)n,
				(long long)want);
		CHECK(n == (uint64_t)want);
		close(fd);
	}
	/* zstd written through a pipe does not say its size: no guess */
	fd = open_tmp("payload.pipe.zst");
	CHECK(mp_dupcost_image_size(fd, mp_decompress_format("m.zst"), &n) == -ENODATA);
	close(fd);
	/* the wrong format, and garbage */
	fd = open_tmp("payload");
	CHECK(mp_dupcost_image_size(fd, mp_decompress_format("m.xz"), &n) == -EBADMSG);
	CHECK(mp_dupcost_image_size(fd, mp_decompress_format("m.zst"), &n) == -EBADMSG);
	close(fd);
}

static void kernel_versions(void)
{
	CHECK(mp_kernel_version("6.12.117-mpstats") == 6012);
	CHECK(mp_kernel_version("6.1.0-28-amd64") == 6001);
	CHECK(mp_kernel_version("5.15.0") == 5015);
	CHECK(mp_kernel_version("6") == -EINVAL);
	CHECK(mp_kernel_version(NULL) == -EINVAL);
}

/* What the sections alone take: the floor of any layout. */
static uint64_t alloc_sum(const char *elf, uint64_t *symstr)
{
	const Elf64_Ehdr *eh = (const void *)elf;
	const Elf64_Shdr *sh = (const void *)(elf + eh->e_shoff);
	const char *names = elf + sh[eh->e_shstrndx].sh_offset;
	uint64_t sum = 0;
	int i;

	*symstr = 0;
	for (i = 0; i < eh->e_shnum; i++) {
		const char *n = names + sh[i].sh_name;

		if (sh[i].sh_type == SHT_SYMTAB || sh[i].sh_type == SHT_STRTAB)
			*symstr += sh[i].sh_size;
		if (!(sh[i].sh_flags & SHF_ALLOC) || !strcmp(n, "__versions") || !strcmp(n, ".modinfo") ||
		    !strcmp(n, ".data..percpu"))
			continue;
		sum += sh[i].sh_size;
	}
	return sum;
}

static void layout_real_module(void)
{
	struct mp_budget b;
	struct mp_dupcost c;
	struct stat st;
	uint64_t lay = 0, floor, symstr;
	void *map;
	int fd;

	if (ko == NULL) {
		printf("SKIP: %s/layout_real_module: no real module given\n", T_SUITE);
		return;
	}
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0 && fstat(fd, &st) == 0);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(map != MAP_FAILED);
	CHECK(mp_dupcost_layout(map, (size_t)st.st_size, &lay) == 0);
	floor = alloc_sum(map, &symstr);
	/* every section, then at most a page per kind of memory and the
	 * symbol tables twice (init copy, core subset) */
	fprintf(stderr, "  %s: layout %llu, sections %llu, symbols %llu\n", ko,
		(unsigned long long)lay, (unsigned long long)floor, (unsigned long long)symstr);
	CHECK(lay >= floor + symstr);
	CHECK(lay <= floor + 2 * symstr + 7 * 4096);
	CHECK(lay % 4096 == 0);
	/* a truncated image is refused, never read past its end */
	CHECK(mp_dupcost_layout(map, 64, &lay) == -ENOEXEC);
	CHECK(mp_dupcost_layout(map, 0x40 + 0x10, &lay) == -ENOEXEC);
	munmap(map, (size_t)st.st_size);

	/* what one refused duplicate costs, by kernel and path */
	mp_budget_init(&b, MP_DECOMPRESS_MAX);
	CHECK(mp_dupcost_file(fd, NULL, 6012, "", &b, &c) == 0);
	CHECK(c.file == (uint64_t)st.st_size && c.image == c.file && c.layout == 0 && c.bytes == c.file);
	CHECK(mp_dupcost_file(fd, NULL, 6001, "", &b, &c) == 0);
	CHECK(c.layout >= floor && c.bytes == c.file + c.layout);
	close(fd);
	fd = open_tmp("ko.zst");
	CHECK(mp_dupcost_file(fd, mp_decompress_format("m.zst"), 6012, "zstd", &b, &c) == 0);
	CHECK(c.image == (uint64_t)st.st_size && c.bytes == c.file + c.image && c.file < c.image);
	CHECK(mp_dupcost_file(fd, mp_decompress_format("m.zst"), 6012, "xz", &b, &c) == 0);
	CHECK(c.bytes == c.image);
	/* before 6.4 the layout too, from the decompressed image */
	CHECK(mp_dupcost_file(fd, mp_decompress_format("m.zst"), 6001, "", &b, &c) == 0);
	CHECK(c.bytes == c.image + c.layout && c.layout >= floor);
	close(fd);
	fd = open_tmp("ko.xz");
	CHECK(mp_dupcost_file(fd, mp_decompress_format("m.xz"), 6012, "xz", &b, &c) == 0);
	CHECK(c.image == (uint64_t)st.st_size && c.bytes == c.file + c.image);
	close(fd);
	mp_budget_destroy(&b);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s TMPDIR [MODULE.ko]\n", argv[0]);
		return 2;
	}
	tmpdir = argv[1];
	ko = argc > 2 ? argv[2] : NULL;
	RUN(image_sizes);
	RUN(kernel_versions);
	RUN(layout_real_module);
	return t_failed ? 1 : 0;
}
