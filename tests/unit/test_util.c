// SPDX-License-Identifier: LGPL-2.1-or-later
/* util.c: module names, normalized and checked before they reach a path;
 * files replaced whole. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#define T_SUITE "util"
#include "t.h"

static void names(void)
{
	char out[64];

	CHECK(mp_normalize_name("virtio-blk", out, sizeof(out)) == 0);
	CHECK_STR(out, "virtio_blk");
	CHECK(mp_normalize_name("pci:v00008086d-x*", out, sizeof(out)) == 0);
	CHECK_STR(out, "pci:v00008086d-x*");
	CHECK(mp_normalize_name("", out, sizeof(out)) < 0);
	CHECK(mp_normalize_name("abcdefgh", out, 4) < 0);
	CHECK(mp_name_is_safe("ext4"));
	CHECK(mp_name_is_safe("pci:v00008086d*"));
	CHECK(!mp_name_is_safe("../evil"));
	CHECK(!mp_name_is_safe("/tmp/evil.ko"));
	CHECK(!mp_name_is_safe("a..b"));
	CHECK(!mp_name_is_safe(".hidden"));
	CHECK(!mp_name_is_safe("two words"));
	CHECK(!mp_name_is_safe(""));
}

/* A log line as the console gets it: C0, DEL, the C1 controls (U+009B is
 * CSI on the Linux console and in VTE) and bytes that are no UTF-8 (a
 * lone 0x9b is CSI to an 8-bit terminal) as \xNN; UTF-8 text and what
 * mp_escape() made as they are; cut whole, never inside an escape or a
 * character. */
static void escape_ctl(void)
{
	char out[64];

	mp_escape_ctl("a\033[1m\x7f\n\xc3\xa9 \\x1b", out, sizeof(out));
	CHECK_STR(out, "a\\x1b[1m\\x7f\\x0a\xc3\xa9 \\x1b");
	mp_escape_ctl("\xc2\x9b" "2J|\x9b|\xc2\x85|\xc2\xa0|\xff|\xc0\xaf|\xed\xa0\x80|\xe2\x82", out, sizeof(out));
	CHECK_STR(out, "\\xc2\\x9b" "2J|\\x9b|\\xc2\\x85|\xc2\xa0|\\xff|\\xc0\\xaf|\\xed\\xa0\\x80|\\xe2\\x82");
	mp_escape_ctl("ab\033", out, 6);
	CHECK_STR(out, "ab");
	mp_escape_ctl("ab\xe2\x82\xac", out, 5);
	CHECK_STR(out, "ab");
	mp_escape_ctl("ab\xe2\x82\xac", out, 6);
	CHECK_STR(out, "ab\xe2\x82\xac");
	mp_escape_ctl("ab\xc2\x9b", out, 10);
	CHECK_STR(out, "ab");
	mp_escape_ctl("ab\xc2\x9b", out, 11);
	CHECK_STR(out, "ab\\xc2\\x9b");
}

static int fill_text(int fd, void *data)
{
	return mp_write_full(fd, data, strlen(data));
}

static int fill_fails(int fd, void *data)
{
	(void)data;
	(void)mp_write_full(fd, "half", 4);
	return -ENOSPC;
}

/* entries in dir, less . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)) != NULL)
		n += de->d_name[0] != '.' || (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."));
	if (d)
		closedir(d);
	return n;
}

static void write_atomic(void)
{
	char dir[] = "/tmp/mp-atomic.XXXXXX", path[128], buf[64], link[160];
	struct stat st;

	CHECK(mkdtemp(dir) != NULL);
	/* the directory is made; the file has the mode asked for */
	snprintf(path, sizeof(path), "%s/sub/f.conf", dir);
	CHECK(mp_write_atomic(AT_FDCWD, path, NULL, 0644, fill_text, "one\n") == 0);
	CHECK(mp_read_file(path, buf, sizeof(buf), NULL) == 0);
	CHECK_STR(buf, "one\n");
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
	/* replaced whole; a failing fill leaves the old file and no other */
	CHECK(mp_write_atomic(AT_FDCWD, path, ".f-new", 0600, fill_text, "two\n") == 0);
	CHECK(mp_read_file(path, buf, sizeof(buf), NULL) == 0);
	CHECK_STR(buf, "two\n");
	CHECK(mp_write_atomic(AT_FDCWD, path, NULL, 0644, fill_fails, NULL) == -ENOSPC);
	CHECK(mp_read_file(path, buf, sizeof(buf), NULL) == 0);
	CHECK_STR(buf, "two\n");
	snprintf(buf, sizeof(buf), "%s/sub", dir);
	CHECK(entries(buf) == 1);
	/* a symlink at path is replaced, never written through */
	snprintf(link, sizeof(link), "%s/victim", dir);
	CHECK(mp_write_atomic(AT_FDCWD, link, NULL, 0644, fill_text, "victim\n") == 0);
	CHECK(unlink(path) == 0 && symlink(link, path) == 0);
	CHECK(mp_write_atomic(AT_FDCWD, path, NULL, 0644, fill_text, "three\n") == 0);
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
	CHECK(mp_read_file(link, buf, sizeof(buf), NULL) == 0);
	CHECK_STR(buf, "victim\n");
	/* a directory that cannot be made: its errno */
	snprintf(path, sizeof(path), "%s/victim/x/f", dir);
	CHECK(mp_write_atomic(AT_FDCWD, path, NULL, 0644, fill_text, "x") == -ENOTDIR);
	snprintf(buf, sizeof(buf), "rm -rf '%s'", dir);
	CHECK(system(buf) == 0);
}

int main(void)
{
	RUN(names);
	RUN(escape_ctl);
	RUN(write_atomic);
	return t_failed ? 1 : 0;
}
