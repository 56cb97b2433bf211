/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One module of the duplicate storm: the generated mpb_dupNN.c defines
 * MPB_PAYLOAD (the payload file's absolute path: .incbin resolves relative
 * paths against the kernel tree, not this folder) and includes this.
 */
#include "mpb.h"

int mpb_dupbase_touch(const u8 *payload);

/* Allocated, so the kernel copies it into the module's memory too. */
asm(".pushsection .rodata.mpb_payload, \"a\"\n"
    ".balign 64\n"
    "mpb_payload:\n"
    ".incbin \"" MPB_PAYLOAD "\"\n"
    ".popsection\n");
extern const u8 mpb_payload[];

static int __init mpb_dup_init(void)
{
	return mpb_dupbase_touch(mpb_payload) < 0 ? -EINVAL : 0;
}

static void __exit mpb_dup_exit(void)
{
}

module_init(mpb_dup_init);
module_exit(mpb_dup_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modpreload benchmark: a module asked for many times at once");
