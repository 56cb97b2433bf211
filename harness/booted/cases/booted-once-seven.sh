#!/bin/sh
# tier: full
# booted-once.sh on Linux 7.x (issue 37): Debian's newest 7.x
# (harness/lib/kernels.sh seven: 7.3 from trixie-backports, its modules
# .ko.xz, the test modules built against its headers) into the trixie root
# (systemd 257, udev, kmod 34), the image by the host's dracut 059 with
# modpreload, modpreload-coldplug.service enabled, 16 vCPUs: booted-once's
# checks, with the hand-over. On 7.1 and later an init()'s EEXIST reaches
# userspace as EBUSY: bt_check_with counts an EBUSY among the no-device
# answers there (docs/linux-7.md). make check-full's: the first run
# fetches the kernel and builds its modpost and objtool (about 3 minutes);
# "with" then took about 6 minutes on the project's 2-core host.
exec "$(dirname "$0")/booted-once.sh" seven
