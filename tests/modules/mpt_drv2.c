// SPDX-License-Identifier: GPL-2.0
/*
 * Platform driver for mpt_spawn's "mpt-dev2" devices (alias
 * platform:mpt-dev2); depends on mpt_drvlib.
 */
#define MPT_DEV_NAME "mpt-dev2"
#define MPT_PROBED(dev) mpt_drvlib_probed(KBUILD_MODNAME, dev)
#include "tmpl_drv.h"

MODULE_DESCRIPTION("modpreload test: driver for mpt-dev2 platform devices");
