/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small helpers (util.c) the library and /init share: reading small
 * files, the clock, growing arrays, names and errnos. */
#ifndef MP_UTIL_H
#define MP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void mp_closep(int *fd);
uint64_t mp_now_ns(void); /* CLOCK_MONOTONIC */
uint64_t mp_now_ms(void);
void mp_sleep_ms(unsigned ms);
const char *mp_load_error(int err);
const char *mp_errno_name(int err);
char *mp_strdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int mp_normalize_name(const char *in, char *out, size_t outsz);
bool mp_name_is_safe(const char *name);
void mp_escape(const char *in, size_t len, char *out, size_t outsz);
void mp_escape_ctl(const char *in, char *out, size_t outsz);
size_t mp_utf8_len(const unsigned char *p);
int mp_read_file(const char *path, char *buf, size_t size, size_t *len);
int mp_read_fileat(int dirfd, const char *path, char *buf, size_t size, size_t *len);
int mp_read_file_alloc(const char *path, size_t max, char **out, size_t *len);
int mp_read_fd_alloc(int fd, size_t max, char **out, size_t *len);
int mp_write_full(int fd, const void *buf, size_t len);
int mp_open_regular(int dirfd, const char *path, int flags, unsigned mode);
int mp_write_atomic(int dirfd, const char *path, const char *tmpl, unsigned mode,
		    int (*fill)(int fd, void *data), void *data);
int mp_append(void *arrayp, int *n, int *cap, size_t elemsz);

#endif
