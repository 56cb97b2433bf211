// SPDX-License-Identifier: LGPL-2.1-or-later
/* handover.c: which aliases a held module may have, and READY=1 as
 * systemd reads it. The hand-over itself is tested through the CLI
 * (tests/unit/cli/handover.sh) and on real kernels (harness/). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "internal.h"
#define T_SUITE "handover"
#include "t.h"

static void device_alias(void)
{
	CHECK(mp_handover_device_alias("pci:v00001B36d00000005sv*sd*bc*sc*i*"));
	CHECK(mp_handover_device_alias("cpu:type:x86,ven*fam*mod*:feature:*0001*"));
	CHECK(mp_handover_device_alias("acpi*:PNP0A08:*"));
	CHECK(mp_handover_device_alias("usb:v*p*d*dc*dsc*dp*ic09isc*ip*in*"));
	CHECK(mp_handover_device_alias("virtio:d00000001v*"));
	CHECK(mp_handover_device_alias("of:N*T*Cfsl,imx-gpio"));
	/* the kernel's own requests, which a blacklist would answer "success" */
	CHECK(!mp_handover_device_alias("fs-xfs"));
	CHECK(!mp_handover_device_alias("crypto-sha256"));
	CHECK(!mp_handover_device_alias("net-pf-10"));
	CHECK(!mp_handover_device_alias("char-major-10-229"));
	CHECK(!mp_handover_device_alias("devname:fuse"));
	CHECK(!mp_handover_device_alias(":x"));
	CHECK(!mp_handover_device_alias("a b:x"));
	CHECK(!mp_handover_device_alias(""));
}

/* a socket of ours as $NOTIFY_SOCKET, by path and abstract */
static void notify(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char path[64], buf[512], env[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
	ssize_t n;
	int fd;

	unsetenv("NOTIFY_SOCKET");
	CHECK(mp_notify_ready("x") == 0);
	setenv("NOTIFY_SOCKET", "relative", 1);
	CHECK(mp_notify_ready("x") == 0);

	snprintf(path, sizeof(path), "/tmp/mp-notify.%d", (int)getpid());
	unlink(path);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	setenv("NOTIFY_SOCKET", path, 1);
	CHECK(mp_notify_ready("handed over") == 1);
	n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	CHECK(n > 0);
	buf[n > 0 ? n : 0] = '\0';
	CHECK_STR(buf, "READY=1\nSTATUS=handed over");
	close(fd);
	unlink(path);

	/* abstract: '@' stands for the leading NUL */
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "mp-notify-%d", (int)getpid());
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&sa,
			      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n)) == 0);
	snprintf(env, sizeof(env), "@%s", sa.sun_path + 1);
	setenv("NOTIFY_SOCKET", env, 1);
	CHECK(mp_notify_ready("done") == 1);
	n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	CHECK(n > 0);
	buf[n > 0 ? n : 0] = '\0';
	CHECK_STR(buf, "READY=1\nSTATUS=done");
	close(fd);

	/* nobody listening: an error, not a hang */
	setenv("NOTIFY_SOCKET", "/nonexistent/notify", 1);
	CHECK(mp_notify_ready("x") < 0);
	unsetenv("NOTIFY_SOCKET");
}

int main(void)
{
	RUN(device_alias);
	RUN(notify);
	return t_failed ? 1 : 0;
}
