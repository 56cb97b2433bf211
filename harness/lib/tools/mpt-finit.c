// SPDX-License-Identifier: GPL-2.0
/*
 * mpt-finit: one finit_module(2) call, for guest scripts that need a load
 * no modprobe would make (a compressed file handed to the kernel, a
 * dependency left out on purpose, a repeat).
 *
 * Usage: mpt-finit [-c] [-f FLAGS] FILE [PARAMS]
 *        mpt-finit -m FILE...
 *   -c        MODULE_INIT_COMPRESSED_FILE: the kernel decompresses FILE
 *   -f FLAGS  raw flags value (ORed with -c)
 * Prints "MPT: finit=0" or "MPT: finit=-ERRNO (strerror)" and exits with
 * the errno (0 on success, 255 on a usage or open error).
 *   -m        one request as kmod 31 and later's modprobe makes it, for a
 *             storm of them (bench/seeds.sh): the FILEs are a module and
 *             what it needs, dependencies first (modprobe --show-depends);
 *             one whose /sys/module/NAME/initstate says "live" is skipped
 *             (libkmod loads again one that is "coming"); each other is
 *             one finit_module call, the kernel decompressing a .ko.zst,
 *             .ko.xz or .ko.gz; EEXIST counts as loaded, any other error
 *             ends the request. Quiet; exits with that errno or 0. An
 *             argument may hold several FILEs, blank-separated (busybox's
 *             xargs -I passes a line as one).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MODULE_INIT_COMPRESSED_FILE
#define MODULE_INIT_COMPRESSED_FILE 4
#endif

/* whether the module FILE holds is live: its name is the file's, up to
 * ".ko", with '-' read as '_' */
static int live(const char *file)
{
	const char *b = strrchr(file, '/');
	char path[512], state[16] = "";
	size_t n, i;
	FILE *f;

	b = b ? b + 1 : file;
	n = strcspn(b, ".");
	if (n == 0 || n > 255)
		return 0;
	memcpy(path, "/sys/module/", 12);
	for (i = 0; i < n; i++)
		path[12 + i] = b[i] == '-' ? '_' : b[i];
	strcpy(path + 12 + n, "/initstate");
	f = fopen(path, "re");
	if (f == NULL)
		return 0;
	if (fgets(state, sizeof(state), f) == NULL)
		state[0] = '\0';
	fclose(f);
	return strncmp(state, "live", 4) == 0;
}

/* one FILE of a request: 0 when it is live after */
static int load(const char *file)
{
	const char *dot = strstr(file, ".ko.");
	long rc;
	int fd;

	if (live(file))
		return 0;
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	rc = syscall(SYS_finit_module, fd, "", dot ? MODULE_INIT_COMPRESSED_FILE : 0);
	if (rc < 0)
		rc = errno;
	close(fd);
	return rc == EEXIST ? 0 : (int)rc;
}

static int request(int n, char **args)
{
	int i, r = 0;

	for (i = 0; i < n && r == 0; i++) {
		char *save = NULL, *file;

		for (file = strtok_r(args[i], " \t", &save); file && r == 0; file = strtok_r(NULL, " \t", &save))
			r = load(file);
	}
	return r;
}

int main(int argc, char **argv)
{
	unsigned long flags = 0;
	const char *params = "";
	int opt, fd;
	long rc;

	if (argc > 2 && strcmp(argv[1], "-m") == 0)
		return request(argc - 2, argv + 2);
	while ((opt = getopt(argc, argv, "cf:")) != -1) {
		switch (opt) {
		case 'c':
			flags |= MODULE_INIT_COMPRESSED_FILE;
			break;
		case 'f':
			flags |= strtoul(optarg, NULL, 0);
			break;
		default:
			goto usage;
		}
	}
	if (optind >= argc || argc - optind > 2)
		goto usage;
	if (argc - optind == 2)
		params = argv[optind + 1];
	fd = open(argv[optind], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "mpt-finit: %s: %s\n", argv[optind], strerror(errno));
		return 255;
	}
	rc = syscall(SYS_finit_module, fd, params, flags);
	if (rc == 0) {
		printf("MPT: finit=0\n");
		return 0;
	}
	rc = errno;
	printf("MPT: finit=-%ld (%s)\n", rc, strerror((int)rc));
	return (int)rc;
usage:
	fprintf(stderr, "usage: mpt-finit [-c] [-f FLAGS] FILE [PARAMS] | -m FILE...\n");
	return 255;
}
