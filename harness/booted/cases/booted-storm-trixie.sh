#!/bin/sh
# tier: full
# booted-storm.sh on Debian trixie (issue 25): trixie's 6.12 (its modules
# .ko.xz, decompressed by the kernel) in a dracut 059 image made by the
# host's dracut, into a trixie root by mmdebstrap (systemd 257, udev, kmod
# 34) with modpreload-coldplug.service enabled, at 16 vCPUs: the same
# checks, with the hand-over, and the storm without modpreload beside them
# (MP_BOOTED_WITHOUT, default 1 here: the pair is what this case is for, on
# a kernel that merges concurrent loads of one file). make check-full only:
# make check's budget has no room for a second whole boot. The pair took
# 150 s on the project's 2-core host when it was quiet (307 s the first
# time, mmdebstrap, the image and the disk included, beside booted-storm);
# on a busy host expect several times that.
# The kernel's own modprobe (request_module) repeats loads here, with
# modpreload or without: 4 EEXIST and padlock_aes (crypto-aes, ENODEV)
# tried twice in the initramfs (bench/results/trixie-boot-2026-12-03.md).
# bt_check_with counts modprobe's repeats apart and names them in the
# details; a repeat by anyone else still fails.
MP_BOOTED_WITHOUT=${MP_BOOTED_WITHOUT:-1}
export MP_BOOTED_WITHOUT
exec "$(dirname "$0")/booted-storm.sh" trixie
