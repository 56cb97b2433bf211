// SPDX-License-Identifier: LGPL-2.1-or-later
/* util.c: module names, normalized and checked before they reach a path. */

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

int main(void)
{
	RUN(names);
	return t_failed ? 1 : 0;
}
