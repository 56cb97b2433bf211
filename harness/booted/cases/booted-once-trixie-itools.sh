#!/bin/sh
# tier: full
# booted-once.sh on Debian trixie through trixie's own initramfs-tools
# (issue 25): the trixie root (systemd 257, udev, kmod 34) holds
# initramfs-tools 0.148, busybox and zstd, modpreload's hook and boot script
# as `make install` puts them and MODPRELOAD=y in conf.d; its own
# update-initramfs makes the image (harness/booted/host.sh's bt_itools_image),
# so that the initramfs's udev, kmod and busybox are trixie's too. Trixie's
# 6.12 and its .ko.xz modules, 16 vCPUs, to multi-user.target: the same
# checks as booted-once-trixie (dracut 059's image), with the hand-over,
# and the storm without modpreload in make check-full.
exec "$(dirname "$0")/booted-once.sh" trixie-itools
