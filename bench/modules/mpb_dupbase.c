// SPDX-License-Identifier: GPL-2.0
/* What every mpb_dupNN needs, as the CPU crypto modules need crypto_simd. */
#include "mpb.h"

int mpb_dupbase_touch(const u8 *payload);

int mpb_dupbase_touch(const u8 *payload)
{
	return payload[0];
}
EXPORT_SYMBOL_GPL(mpb_dupbase_touch);

static int __init mpb_dupbase_init(void)
{
	return 0;
}

static void __exit mpb_dupbase_exit(void)
{
}

module_init(mpb_dupbase_init);
module_exit(mpb_dupbase_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modpreload benchmark: base of the duplicate storm");
