// SPDX-License-Identifier: GPL-2.0
/* Softdep trio member: records its init order through mpt_seq. */
#include "mpt_seq.h"

MODULE_DESCRIPTION("modpreload test: has a pre and a post softdep");
MODULE_SOFTDEP("pre: mpt_soft_pre post: mpt_soft_post");
