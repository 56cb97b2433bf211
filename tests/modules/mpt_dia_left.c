// SPDX-License-Identifier: GPL-2.0
/* One side of the diamond: needs mpt_dia_base, needed by mpt_dia_top. */
#include "mpt.h"

int mpt_dia_left_value(void)
{
	return mpt_dia_base_value() + 1;
}
EXPORT_SYMBOL_GPL(mpt_dia_left_value);

MPT_PLAIN_MODULE("modpreload test: diamond left side");
