#!/bin/sh
# dracut 059 + systemd + systemd-udevd, Debian's 6.1, booted to a real ext4
# root at 8 vCPUs (DR_SYSTEMD_SMP="8 16" adds 16: vm/booted-storm boots this
# stack at 16 in make check) (harness/dracut/host.sh). With 90modpreload the
# pre-udev hook loads everything before systemd-udevd starts: one successful
# finit_module per module, no EEXIST/EBUSY, udev's workers load nothing,
# the report is in /run/initramfs. rd.modpreload=0 turns it off: udev loads
# the same modules itself, with the duplicate storm. One image, two boots;
# about 2 minutes (plus ~15 s to build the image the first time).
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/harness/dracut/host.sh"
name=dracut-systemd

if ! deb_setup; then
	echo "FAIL: vm/$name: setup failed (see build/vm/dracut/setup.log)"
	exit 0
fi
if ! dr_image systemd systemd yes; then
	echo "FAIL: vm/$name: dracut could not build the image (see build/vm/dracut/logs/)"
	exit 0
fi
img=$DEB_WORK/img/systemd.img
mods8=

# make check-full: 8 and 16
[ "${MP_FULL:-0}" != 1 ] || DR_SYSTEMD_SMP=${DR_SYSTEMD_SMP:-8 16}
for smp in ${DR_SYSTEMD_SMP:-8}; do
	res=$DEB_WORK/logs/systemd-$smp.txt
	rc=0
	deb_boot "$res" "$DEB_WORK/logs/systemd-$smp.serial" "$img" "$smp" "" 420 || rc=$?
	[ "$rc" = 0 ] || fail "$(mpt_boot_why "$rc" "$res") (see $DEB_WORK/logs/systemd-$smp.serial)"
	deb_check_root "$res"
	deb_check_once "$res"
	deb_check_preloaded "$res"
	eq "vCPUs" "$(mpt_get ncpus "$res")" "$smp"
	if [ "$smp" = 8 ]; then mods8=$(mpt_num load_modules "$res"); fi
	deb_details "systemd, modpreload, $smp vCPUs" "$res"
	deb_figure "systemd $smp modpreload" "$res"
	verdict "$name/modpreload-${smp}cpu" "$(mpt_num finit_enter "$res") calls for $(mpt_num load_modules "$res") modules"
done

# Off: the hook does nothing, udevd's coldplug loads (and storms). Alone,
# udev does not hold the initramfs back for the devices that loading a
# driver creates: systemd may reach switch-root (and stop udevd) before the
# mpt-dev2 devices' mpt_drv2 is loaded, and this root has no udev to catch
# up (a real root's coldplug would). It happened on a loaded CI machine. So
# this boot pulls in systemd-udev-settle.service, as a dracut image with
# a settle-needing module would, to compare the same set of modules.
res=$DEB_WORK/logs/systemd-8-off.txt
rc=0
deb_boot "$res" "$DEB_WORK/logs/systemd-8-off.serial" "$img" 8 \
	"rd.modpreload=0 rd.systemd.wants=systemd-udev-settle.service" 420 || rc=$?
[ "$rc" = 0 ] || fail "$(mpt_boot_why "$rc" "$res") (see $DEB_WORK/logs/systemd-8-off.serial)"
deb_check_root "$res"
eq "report" "$(mpt_get report "$res")" absent
eq "finit_module calls by modpreload" "$(mpt_num finit_by.modpreload "$res")" 0
[ "$(deb_udev_calls "$res")" -gt 0 ] || fail "udev loaded nothing"
[ "$(mpt_num finit_eexist "$res")" -gt 0 ] || fail "no EEXIST: the storm this compares with did not happen"
eq "modules loaded (same as with modpreload)" "$(mpt_num load_modules "$res")" "$mods8"
eq "modules loaded twice" "$(mpt_num load_dups "$res")" 0
deb_check_chain "$res"
deb_details "systemd, rd.modpreload=0, 8 vCPUs" "$res"
deb_figure "systemd 8 off" "$res"
verdict "$name/disabled-8cpu" "udev: $(mpt_num finit_enter "$res") calls, $(mpt_num finit_eexist "$res") EEXIST for $(mpt_num load_modules "$res") modules"
