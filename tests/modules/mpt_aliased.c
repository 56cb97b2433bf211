// SPDX-License-Identifier: GPL-2.0
/* Reached only through its alias: modprobe mpt-alias-only. */
#include "mpt.h"

MODULE_ALIAS("mpt-alias-only");
MPT_PLAIN_MODULE("modpreload test: loaded by alias only");
