// SPDX-License-Identifier: GPL-2.0
/* Bottom of the diamond: mpt_dia_left and mpt_dia_right both need it. */
#include "mpt.h"

int mpt_dia_base_value(void)
{
	return 1;
}
EXPORT_SYMBOL_GPL(mpt_dia_base_value);

MPT_PLAIN_MODULE("modpreload test: diamond base");
