// SPDX-License-Identifier: GPL-2.0
/* Softdep trio member: records its init order through mpt_seq. */
#include "mpt_seq.h"

MODULE_DESCRIPTION("modpreload test: softdep post of mpt_soft_main");
