#!/bin/sh
# tier: full
# dracut 059 images made from an explicit module list that has systemd but
# not dracut-systemd: `-m "systemd systemd-initrd udev-rules base
# kernel-modules qemu rootfs-block" --add modpreload`. Under systemd only
# dracut-systemd's dracut-pre-udev.service runs pre-udev hooks, so without
# it the image held the binary and the hook and nothing ran them: udev's
# full storm, no word at build or boot. 50modpreload now pulls in
# dracut-systemd when systemd is in the image:
#   explicit-4cpu       the image has dracut-systemd; at boot modpreload
#                       ran before udevd (one load call per module, none
#                       by udev's workers, its report in /run/initramfs)
#   explicit-omitted    the same list with -o dracut-systemd: dracut
#                       refuses to build, saying why
# One boot and two builds; about 2 minutes.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/dracut/host.sh
. "$top/harness/dracut/host.sh"
name=dracut-explicit

dr_prepare_image systemd-explicit systemd-explicit yes
img=$DEB_WORK/img/systemd-explicit.img
# what dracut put in (its log is rewritten only when the image is)
grep -q 'Including module: dracut-systemd ' "$DEB_WORK/logs/systemd-explicit.dracut.log" ||
	fail "the image has no dracut-systemd"
res=$DEB_WORK/logs/systemd-explicit-4.txt
deb_run "$res" "$img" 4 ""
deb_check_with "$res" report
deb_details "systemd from an explicit list, modpreload, 4 vCPUs" "$res"
verdict "$name/explicit-4cpu" "$(mpt_num finit_enter "$res") calls for $(mpt_num load_modules "$res") modules"

# Omitted on purpose: no image that would silently never run the hook.
log=$DEB_WORK/logs/systemd-explicit-omitted.dracut.log
rm -f "$log"
if DR_DRACUT_ARGS="-o dracut-systemd" dr_image systemd-explicit-omitted systemd-explicit yes 2>/dev/null; then
	fail "dracut built an image with modpreload and systemd but without dracut-systemd"
fi
grep -q "modpreload.*dracut-systemd" "$log" ||
	fail "dracut's log does not say that modpreload needs dracut-systemd"
verdict "$name/explicit-omitted" "$(grep -m 1 'modpreload.*dracut-systemd' "$log" 2>/dev/null)"
