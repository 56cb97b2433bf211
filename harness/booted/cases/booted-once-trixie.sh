#!/bin/sh
# booted-once.sh on Debian trixie (issue 25): trixie's 6.12 (its modules
# .ko.xz, decompressed by the kernel) in a dracut 059 image made by the
# host's dracut, into a trixie root by mmdebstrap (systemd 257, udev, kmod
# 34) with modpreload-coldplug.service enabled, at 16 vCPUs: the same
# checks, with the hand-over. make check boots it with modpreload; the
# storm without it beside (MP_BOOTED_WITHOUT=1) is make check-full's, as for
# booted-once. "With" took about 60 s on the project's 2-core host when it
# was quiet, the pair 150 s (307 s the first time: mmdebstrap, the image
# and the disk); on a busy host expect several times that.
# The kernel's own modprobe (request_module) repeats loads here, with
# modpreload or without: 4 EEXIST and padlock_aes (crypto-aes, ENODEV)
# tried twice in the initramfs (bench/results/trixie-boot-2026-12-03.md).
# bt_check_with counts modprobe's repeats apart and names them in the
# details; a repeat by anyone else still fails.
exec "$(dirname "$0")/booted-once.sh" trixie
