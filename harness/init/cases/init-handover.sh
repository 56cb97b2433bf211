#!/bin/sh
# modpreload's /init hands over a slow init() (issue 27) on Debian's 6.1: an
# image made by init/mkinitramfs from the test module tree (-m
# virtio_pci,virtio_blk,ext4 --include mpt_slowpci) boots with QEMU's
# pci-testdev, whose driver mpt_slowpci sleeps 30 s in init() and which
# coldplug reaches by its alias. /init must mount the root and switch to it
# while mpt_slowpci is still coming; the holder that finishes the load
# survives switch-root, writes the report and exits; the module is loaded
# once (harness/lib/scenarios/handover.sh). The root's init waits for it,
# then checks everything as init-ext4 does. About 1 minute.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/init/host.sh
. "$top/harness/init/host.sh"
# shellcheck source=harness/lib/scenarios/handover.sh
. "$top/harness/lib/scenarios/handover.sh"
w=$top/build/vm/init/handover
mkdir -p "$w"
uuid=$(cat /proc/sys/kernel/random/uuid)

name=init-handover
init_prepare
"$top/tests/modules/build.sh" bookworm "$w/tree" >/dev/null 2>"$w/modules.log" ||
	fail_all "tests/modules/build.sh failed (see $w/modules.log)"
init_rootdir "$w/rootdir" || fail_all "no busybox for the root (busybox-static)"
init_mkfs ext4 "$w/rootdir" "$w/ext4.img" "$uuid" mpt-root >&2 || fail_all "mkfs.ext4 failed"
"$top/init/mkinitramfs" -q -o "$w/initrd.img" -k "$KVER" -d "$w/tree" \
	-m virtio_pci,virtio_blk,ext4 --include "$HO_MODULE" >&2 || fail_all "mkinitramfs failed"

r=$w/handover.res
ho_with init_run "$r" "$w/handover.log" "$w/initrd.img" "$w/ext4.img" "root=UUID=$uuid $(ho_args 30000)" 240
init_check_root "$r" ext4
for m in virtio_pci virtio_blk ext4; do
	[ "$(mpt_get "proc.$m" "$r")" = 1 ] || fail "$m not in /proc/modules"
done
ho_check "$r" mpt_root run
ho_details "/init, hand-over, 2 vCPUs" "$r"
verdict "$name" "$(ho_summary "$r"); $(mpt_get host_wall_s "$r") s wall"
