// SPDX-License-Identifier: LGPL-2.1-or-later
/* uevent.c: MODALIAS, ACTION and DEVPATH from a sysfs uevent file and from
 * a netlink message. */

#include "internal.h"
#define T_SUITE "uevent"
#include "t.h"

static void uevent_modalias(void)
{
	static const char file[] = "DRIVER=processor\nMODALIAS=cpu:type:x86,ven0000fam0006mod003F:"
				   "feature:,0000,0001\nOF_NAME=x\n";
	static const char nl[] = "add@/devices/platform/mpt-dev.3\0ACTION=add\0"
				 "DEVPATH=/devices/platform/mpt-dev.3\0SUBSYSTEM=platform\0"
				 "MODALIAS=platform:mpt-dev\0SEQNUM=1234";
	char out[256];

	CHECK(mp_uevent_modalias(file, sizeof(file) - 1, out, sizeof(out)) == 0);
	CHECK_STR(out, "cpu:type:x86,ven0000fam0006mod003F:feature:,0000,0001");
	CHECK(mp_uevent_modalias(nl, sizeof(nl) - 1, out, sizeof(out)) == 0);
	CHECK_STR(out, "platform:mpt-dev");
	CHECK(mp_uevent_action(nl, sizeof(nl) - 1, out, sizeof(out)) == 0);
	CHECK_STR(out, "add");
	CHECK(mp_uevent_devpath(nl, sizeof(nl) - 1, out, sizeof(out)) == 0);
	CHECK_STR(out, "/devices/platform/mpt-dev.3");
	CHECK(mp_uevent_modalias("MODALIAS=\n", 10, out, sizeof(out)) < 0);
	CHECK(mp_uevent_modalias("XMODALIAS=a\n", 12, out, sizeof(out)) < 0);
	CHECK(mp_uevent_modalias("MODALIAS=abcdef", 15, out, 4) < 0);
}

int main(void)
{
	RUN(uevent_modalias);
	return t_failed ? 1 : 0;
}
