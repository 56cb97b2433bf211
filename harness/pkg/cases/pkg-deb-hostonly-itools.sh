#!/bin/sh
# tier: full
# pkg-deb-hostonly.sh with the root's own initramfs-tools instead of dracut
# (issue 37): the installer's MODULES=most image, then MODPRELOAD=y and
# MODULES=dep (initramfs-tools' host-only), update-initramfs -u in the
# guest, the same three boots and checks.
exec "$(dirname "$0")/pkg-deb-hostonly.sh" itools
