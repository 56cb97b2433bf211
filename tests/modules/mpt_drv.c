// SPDX-License-Identifier: GPL-2.0
/* Platform driver for mpt_spawn's "mpt-dev" devices (alias platform:mpt-dev). */
#define MPT_DEV_NAME "mpt-dev"
#include "tmpl_drv.h"

MODULE_DESCRIPTION("modpreload test: driver for mpt-dev platform devices");
