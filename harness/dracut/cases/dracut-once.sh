#!/bin/sh
# dracut 059 + systemd + systemd-udevd, Debian's 6.1, booted to a real ext4
# root at 8 vCPUs (DR_SYSTEMD_SMP="8 16" adds 16: vm/booted-once boots this
# stack at 16 in make check) (harness/dracut/host.sh). With 50modpreload the
# pre-udev hook loads everything before systemd-udevd starts: one successful
# finit_module per module, no EEXIST/EBUSY, udev's workers load nothing,
# the report is in /run/initramfs. The same boot has QEMU's pci-testdev,
# whose driver mpt_slowpci (in the image) sleeps 30 s in init(): the
# hand-over (harness/lib/scenarios/handover.sh) lets the boot reach the root
# while it is still coming, held from udev, loaded once, and the root's init
# waits for it before it counts (vm/dracut-once/handover-8cpu).
# rd.modpreload=0 turns it off: udev loads
# the same modules itself, with the duplicate storm (make check-full only).
# One image, two boots; about 2.5 minutes (plus ~15 s to build the image the first time).
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/dracut/host.sh
. "$top/harness/dracut/host.sh"
# shellcheck source=harness/lib/scenarios/handover.sh
. "$top/harness/lib/scenarios/handover.sh"
name=dracut-once

dr_prepare_image systemd systemd yes
img=$DEB_WORK/img/systemd.img
mods8=

# make check-full: 8 and 16
[ "${MP_FULL:-0}" != 1 ] || DR_SYSTEMD_SMP=${DR_SYSTEMD_SMP:-8 16}
for smp in ${DR_SYSTEMD_SMP:-8}; do
	res=$DEB_WORK/logs/systemd-$smp.txt
	ho_with deb_run "$res" "$img" "$smp" "$(ho_args 30000)"
	deb_check_with "$res" report
	eq "vCPUs" "$(mpt_get ncpus "$res")" "$smp"
	# the storm's figures without the slow device's module, which the
	# boot without modpreload below does not have
	if [ "$smp" = 8 ]; then
		mods8=$(mpt_num load_modules "$res")
		[ "$(mpt_num ho.loads "$res")" = 0 ] || mods8=$((mods8 - 1))
	fi
	deb_details "systemd, modpreload, $smp vCPUs" "$res"
	deb_figure "systemd $smp modpreload" "$res"
	verdict "$name/modpreload-${smp}cpu" "$(mpt_num finit_enter "$res") calls for $(mpt_num load_modules "$res") modules"
	ho_check "$res" mpt_root initramfs
	ho_details "systemd, modpreload, hand-over, $smp vCPUs" "$res"
	verdict "$name/handover-${smp}cpu" "$(ho_summary "$res")"
done

# The storm without modpreload: make check-full's
[ "${MP_FULL:-0}" = 1 ] || exit 0

# Off: the hook does nothing, udevd's coldplug loads (and storms). Alone,
# udev does not hold the initramfs back for the devices that loading a
# driver creates: systemd may reach switch-root (and stop udevd) before the
# mpt-dev2 devices' mpt_drv2 is loaded, and this root has no udev to catch
# up (a real root's coldplug would). It happened on a loaded CI machine. So
# this boot pulls in systemd-udev-settle.service, as a dracut image with
# a settle-needing module would, to compare the same set of modules.
res=$DEB_WORK/logs/systemd-8-off.txt
deb_run "$res" "$img" 8 \
	"rd.modpreload=0 rd.systemd.wants=systemd-udev-settle.service"
deb_check_without "$res" report "$mods8"
deb_details "systemd, rd.modpreload=0, 8 vCPUs" "$res"
deb_figure "systemd 8 off" "$res"
verdict "$name/disabled-8cpu" "udev: $(mpt_num finit_enter "$res") calls, $(mpt_num finit_eexist "$res") EEXIST for $(mpt_num load_modules "$res") modules"
