#!/bin/sh
# tier: full
# pkg-deb-hostonly-seven.sh with the root's own initramfs-tools (0.148):
# MODULES=most for the installer's image, MODULES=dep and MODPRELOAD=y for
# the one the guest makes, on Linux 7.3.
exec "$(dirname "$0")/pkg-deb-hostonly.sh" itools seven trixie
