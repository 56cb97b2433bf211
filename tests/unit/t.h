/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The smallest test harness: CHECK records, RUN prints PASS/FAIL per test
 * in the form tests/run.sh counts. */
#ifndef MP_T_H
#define MP_T_H

#include <stdio.h>
#include <string.h>

static int t_failed;

#define CHECK(cond)                                                                    \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, \
				#cond);                                                \
			t_failed++;                                                    \
		}                                                                      \
	} while (0)

#define CHECK_STR(a, b)                                                                \
	do {                                                                           \
		const char *_a = (a), *_b = (b);                                       \
		if (_a == NULL || _b == NULL || strcmp(_a, _b) != 0) {                 \
			fprintf(stderr, "  %s:%d: \"%s\" != \"%s\"\n", __FILE__, __LINE__, \
				_a ? _a : "(null)", _b ? _b : "(null)");               \
			t_failed++;                                                    \
		}                                                                      \
	} while (0)

#define RUN(fn)                                                                        \
	do {                                                                           \
		int _before = t_failed;                                                \
		fn();                                                                  \
		printf("%s: %s/%s\n", t_failed == _before ? "PASS" : "FAIL", T_SUITE, #fn); \
		fflush(stdout);                                                        \
	} while (0)

#endif
