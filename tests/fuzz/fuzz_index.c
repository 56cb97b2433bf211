// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer: the bounds check of depmod's .bin indexes, and the lookup
 * of a module's dependency line, must never read outside the buffer,
 * whatever the offsets say. And it is differential: whatever the check
 * accepts is handed to the real libkmod, both its readers (the mapped
 * one and the one that reads the file), so that an index we let through
 * and libkmod misreads is a crash here rather than at boot. */
#include <fcntl.h>
#include <libkmod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static const char *const index_names[] = {
	"modules.dep.bin", "modules.alias.bin", "modules.symbols.bin",
	"modules.builtin.bin", "modules.builtin.alias.bin",
};
static char dir[] = "/tmp/fuzz_index.XXXXXX";
static int devnull = -1;

static void quiet(void *data, int prio, const char *file, int line, const char *fn,
		  const char *fmt, va_list ap)
{
}

static void cleanup(void)
{
	char path[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(index_names); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, index_names[i]);
		unlink(path);
	}
	rmdir(dir);
}

/* One file; every index libkmod knows is a link to it. */
static int setup(void)
{
	char path[64];
	size_t i;

	if (devnull >= 0)
		return 0;
	if (mkdtemp(dir) == NULL)
		return -1;
	atexit(cleanup);
	for (i = 1; i < ARRAY_SIZE(index_names); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, index_names[i]);
		if (symlink(index_names[0], path) < 0)
			return -1;
	}
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	return devnull < 0 ? -1 : 0;
}

static void through_libkmod(const unsigned char *data, size_t size)
{
	static const char *const no_config[] = { NULL };
	static const char *const keys[] = { "a", "ext4", "symbol:a", "pci:v00008086d*", "" };
	char path[64];
	struct kmod_ctx *ctx;
	size_t i;
	int fd, t;

	if (setup() < 0)
		abort();
	snprintf(path, sizeof(path), "%s/%s", dir, index_names[0]);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	ctx = kmod_new(dir, no_config);
	if (ctx == NULL)
		abort();
	kmod_set_log_fn(ctx, quiet, NULL);
	/* both of libkmod's readers walk every node: first the one that
	 * reads the file, then the mapped one */
	for (t = KMOD_INDEX_MODULES_DEP; t <= KMOD_INDEX_MODULES_BUILTIN; t++)
		kmod_dump_index(ctx, (enum kmod_index)t, devnull);
	if (kmod_load_resources(ctx) < 0)
		abort(); /* we accepted what libkmod cannot even open */
	for (t = KMOD_INDEX_MODULES_DEP; t <= KMOD_INDEX_MODULES_BUILTIN; t++)
		kmod_dump_index(ctx, (enum kmod_index)t, devnull);
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		struct kmod_list *list = NULL;

		kmod_module_new_from_lookup(ctx, keys[i], &list);
		kmod_module_unref_list(list);
	}
	kmod_unref(ctx);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	/* an exact-size copy, so ASan sees any read past the end */
	unsigned char *copy = malloc(size ? size : 1);

	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	if (mp_index_check_buf(copy, size) == 0)
		through_libkmod(copy, size);
	/* the lookup does not rely on the check having passed */
	mp_index_lookup(copy, size, "a");
	mp_index_lookup(copy, size, "ext4");
	mp_index_lookup(copy, size, "");
	free(copy);
	return 0;
}
