// SPDX-License-Identifier: GPL-2.0
/*
 * A 512 MiB .bss: the kernel allocates it with the module (vmalloc, before
 * init() runs), so in a guest with less RAM than that finit_module fails
 * with ENOMEM at once (vmalloc refuses a size beyond the total pages; no
 * OOM killer). The file itself is small. Exports a symbol for
 * mpt_nomem_child.
 */
#include <linux/string.h>
#include "mpt.h"

#define MPT_NOMEM_BYTES (512UL << 20)

/* written in init(), so that the compiler keeps all of it */
static char mpt_nomem_bss[MPT_NOMEM_BYTES];

int mpt_nomem_value(void)
{
	return mpt_nomem_bss[MPT_NOMEM_BYTES - 1] + 1;
}
EXPORT_SYMBOL_GPL(mpt_nomem_value);

static int __init mpt_nomem_init(void)
{
	memset(mpt_nomem_bss, 1, MPT_NOMEM_BYTES);
	pr_info("mpt: init %s with %lu MiB of .bss\n", KBUILD_MODNAME, MPT_NOMEM_BYTES >> 20);
	return 0;
}

static void __exit mpt_nomem_exit(void)
{
}

module_init(mpt_nomem_init);
module_exit(mpt_nomem_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modpreload test: 512 MiB .bss, ENOMEM in a small guest");
