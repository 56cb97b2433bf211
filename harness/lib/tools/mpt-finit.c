// SPDX-License-Identifier: GPL-2.0
/*
 * mpt-finit: one finit_module(2) call, for guest scripts that need a load
 * no modprobe would make (a compressed file handed to the kernel, a
 * dependency left out on purpose, a repeat).
 *
 * Usage: mpt-finit [-c] [-f FLAGS] FILE [PARAMS]
 *   -c        MODULE_INIT_COMPRESSED_FILE: the kernel decompresses FILE
 *   -f FLAGS  raw flags value (ORed with -c)
 * Prints "MPT: finit=0" or "MPT: finit=-ERRNO (strerror)" and exits with
 * the errno (0 on success, 255 on a usage or open error).
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

int main(int argc, char **argv)
{
	unsigned long flags = 0;
	const char *params = "";
	int opt, fd;
	long rc;

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
	fprintf(stderr, "usage: mpt-finit [-c] [-f FLAGS] FILE [PARAMS]\n");
	return 255;
}
