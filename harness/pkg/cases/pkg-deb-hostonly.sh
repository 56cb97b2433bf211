#!/bin/sh
# tier: full
# The package on the machine it boots (issue 37): a user's journey end to
# end, on a real Debian trixie root (systemd 257, udev, kmod 34, the root's
# own dracut 106: dracut-ng), Debian's 6.12 and its full module tree, 8
# vCPUs. The root starts as an installer leaves it: a generic image its
# dracut made (--no-hostonly), and the machine's dracut configuration
# host-only (dracut's own preset, hostonly="yes": the default of dracut-ng
# from 109 and of Ubuntu's dracut). Three boots of one root disk, the steps
# in the guest (harness/pkg/guest/hostonly-journey.sh), each image the one
# the boot before made in the guest:
#   before   without modpreload: udev's coldplug alone; then, in the guest,
#            apt-get install of the .deb (copied in; no network), the
#            README's dracut line and unit, dracut --force: the image
#            holds modpreload, and fewer modules than the generic one
#   with     that image: over the whole boot no module loaded twice, no
#            load refused as a duplicate (EEXIST, EBUSY), modpreload's calls
#            in it, the reports where the docs say (the initramfs's, the
#            booted run's, the kept one), `modpreload analyze` reads them
#            (and draws the SVG), no hold left; the same modules live at
#            the end as before; then the README's way off, apt-get remove,
#            dracut --force: nothing of modpreload in the new image
#   removed  that image: nothing of modpreload (binary, units, files in
#            /run/modprobe.d, calls), udev's workers load the modules, the
#            same modules live as before
# Usage: pkg-deb-hostonly.sh [dracut|itools [trixie|seven [trixie|sid]]].
# itools (pkg-deb-hostonly-itools.sh): the same journey with the root's own
# initramfs-tools (0.148, with busybox and zstd), MODULES=most for the
# installer's image and MODULES=dep (its host-only) in the machine's
# initramfs.conf, MODPRELOAD=y the README's line, update-initramfs -u.
# The second word is the kernel (harness/lib/kernels.sh's name): seven,
# Debian's newest 7.x from trixie-backports, as a user of trixie installs
# it (pkg-deb-hostonly-seven.sh, -seven-itools.sh). The third is the root's
# suite: sid (pkg-deb-hostonly-seven-sid.sh) has dracut-ng 112, whose default is
# host-only (from 109): its machine configuration is left as installed,
# no preset copied, and the before boot's image holding fewer modules than
# the generic one shows the default. Everything happens in
# build/vm/pkg-hostonly (or -seven, -seven-sid, -seven-itools...). About 15 minutes the
# first time (mmdebstrap), 11 after.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
gen=${1:-dracut} kern=${2:-trixie} suite=${3:-trixie}
# shellcheck disable=SC2034 # debimage.sh's
DEB_KERNEL=$kern DEB_COMPRESS=xz
# shellcheck source=harness/lib/debimage.sh
. "$top/harness/lib/debimage.sh"
# the case's name, its file's: pkg-deb-hostonly[-seven][-sid][-itools]
tag=
case $kern in
trixie) ;;
seven) tag=-seven ;;
*) echo "$0: kernel trixie or seven, not $kern" >&2; exit 2 ;;
esac
case $suite in
trixie) ;;
sid) tag=$tag-sid ;;
*) echo "$0: root trixie or sid, not $suite" >&2; exit 2 ;;
esac
case $gen in
dracut) pkgs=dracut,zstd ;;
itools) pkgs=initramfs-tools,busybox,zstd tag=$tag-itools ;;
*) echo "usage: $0 [dracut|itools [trixie|seven [trixie|sid]]]" >&2; exit 2 ;;
esac
name=pkg-deb-hostonly$tag
DEB_WORK=$top/build/vm/pkg-hostonly$tag
names="$name/before $name/with $name/removed"
deb_prepare
# shellcheck source=harness/lib/debpkg.sh
. "$top/harness/lib/debpkg.sh"
pkg_deb

# --- the machine as installed ---------------------------------------------
pkg_root "systemd-sysv,udev,kmod,$pkgs" "$suite"
root=$PKG_ROOT
log=$DEB_WORK/logs/setup-root.log
mkdir -p "$root/mpt"
echo "$gen" >"$root/mpt/generator"
cp "$PKG_DEB" "$root/mpt/modpreload.deb"
install -m 0755 "$top/harness/pkg/guest/hostonly-journey.sh" "$root/mpt/hostonly-journey.sh"
install -m 0644 "$top/harness/lib/lib.sh" "$root/mpt/lib.sh"
cat >"$root/etc/systemd/system/mpt-journey.service" <<'EOT'
[Unit]
Description=pkg-deb-hostonly: this boot's step of the journey, then power off
After=multi-user.target

[Service]
Type=oneshot
ExecStart=/mpt/hostonly-journey.sh
TimeoutStartSec=1h

[Install]
WantedBy=multi-user.target
EOT
echo 5d1c0a8b2f3e4d6a9b7c8d9e0f1a2b3d >"$root/etc/machine-id"
echo mpt-hostonly >"$root/etc/hostname"
{
	systemctl --root="$root" enable mpt-journey.service &&
		systemctl --root="$root" mask serial-getty@ttyS0.service getty@tty1.service
} >"$log" 2>&1 || fail_all "systemctl in the root failed (see $log)"
# the installer's image: generic, whatever the configuration says; then
# the machine's own configuration, host-only
glog=$DEB_WORK/logs/generic-image.log
if [ "$gen" = dracut ]; then
	in_root "dracut --no-hostonly --force /boot/initrd.img-$KVER $KVER" >"$glog" 2>&1 ||
		fail_all "the root's dracut could not make the generic image (see $glog)"
	# trixie's dracut 106 makes generic images unless told: the machine
	# is set up with the preset it ships; sid's (112) is host-only as
	# installed
	if [ "$suite" = trixie ]; then
		mkdir -p "$root/etc/dracut.conf.d"
		cp "$root/usr/lib/dracut/dracut.conf.d/hostonly/50-hostonly.conf" "$root/etc/dracut.conf.d/" ||
			fail_all "no host-only preset in the root's dracut"
	fi
else
	grep -q '^MODULES=most$' "$root/etc/initramfs-tools/initramfs.conf" ||
		fail_all "the root's initramfs.conf does not say MODULES=most"
	in_root "update-initramfs -c -k $KVER" >"$glog" 2>&1 ||
		fail_all "the root's update-initramfs could not make the generic image (see $glog)"
	sed -i 's/^MODULES=most$/MODULES=dep/' "$root/etc/initramfs-tools/initramfs.conf"
fi
cp "$root/boot/initrd.img-$KVER" "$DEB_WORK/img/before.img"
disk=$DEB_WORK/disk.img
rm -f "$disk"
# room for the images the guest makes
mkfs.ext4 -q -F -L mptroot -d "$root" "$disk" "$(($(du -sm "$root" | cut -f1) * 5 / 4 + 768))M" >>"$log" 2>&1 ||
	fail_all "mkfs.ext4 failed (see $log)"
rm -rf "$root"

# image_of OUT: the image the guest made, from the disk it powered off
image_of() {
	rm -f "$1"
	e2fsck -fy "$disk" >>"$log" 2>&1
	debugfs -R "dump /boot/initrd.img-$KVER $1" "$disk" >>"$log" 2>&1
	[ -s "$1" ]
}

args="root=/dev/vda rw rd.shell=0 rd.emergency=poweroff rd.timeout=0 systemd.default_timeout_start_sec=1800"
args="$args trace_buf_size=4M"
# boot STEP: one boot of the disk with the image of STEP
boot() {
	run_boot mpt_boot "$DEB_WORK/logs/$1.txt" "$DEB_WORK/logs/$1.serial" "$DEB_WORK/img/$1.img" 8 "$args" \
		-m 2048 -t 1800 --disk "$disk"
}

# the modules live at the end of the boot before modpreload, for the others
mods_before=
# common RESULT STAGE: the step ran, and what it says of the boot
common() {
	expect_is "$1" stage "$2"
	eq "trace not overrun" "$(mpt_get trace_entries "$1")" "$(mpt_get trace_written "$1")"
	[ "$(mpt_num load_total "$1")" -gt 0 ] || fail "no module_load events (trace missing?)"
	[ "$2" = fresh ] || eq "modules live at the end, against the boot before modpreload" \
		"$(mpt_get mods "$1")" "$mods_before"
}

# --- before ---------------------------------------------------------------
res=$DEB_WORK/logs/before.txt
if boot before; then
	common "$res" fresh
	mods_before=$(mpt_get mods "$res")
	expect_is "$res" bin none
	expect "$res" finit_by._udev_worker_ -gt 0
	expect "$res" finit_by.modpreload -eq 0
	expect_is "$res" apt_install 0
	expect_is "$res" enable 0
	expect_is "$res" image 0
	expect "$res" next.modpreload -gt 0
	# host-only: the machine's modules, not every driver
	expect "$res" next.kos -lt "$(mpt_num img.kos "$res")"
	expect "$res" next.kos -gt 0
	image_of "$DEB_WORK/img/with.img" || fail "no image at /boot/initrd.img-$KVER on the disk (see $log)"
fi
verdict "$name/before" "$(mpt_num finit_enter "$res") calls for $(mpt_num load_modules "$res") modules; the image \
it made holds $(mpt_num next.kos "$res") modules, the generic one $(mpt_num img.kos "$res")"
[ -s "$DEB_WORK/img/with.img" ] || fail_all "no image to boot with modpreload"
names="$name/with $name/removed"

# --- with -----------------------------------------------------------------
res=$DEB_WORK/logs/with.txt
if boot with; then
	common "$res" installed
	expect "$res" img.modpreload -gt 0
	eq "modules loaded twice" "$(mpt_num load_dups "$res")" 0
	eq "EEXIST" "$(mpt_num finit_eexist "$res")" 0
	eq "EBUSY" "$(mpt_num finit_ebusy "$res")" 0
	# the calls that failed: each a CPU driver that found no device, tried
	# once and then blacklisted for the boot
	eq "failed calls == no-device drivers" "$(mpt_num finit_other "$res")" \
		"$(mpt_get nodev "$res" | tr ',' '\n' | grep -c .)"
	# every other call loaded its module, or joined a load of the same
	# file in flight (6.12 merges them; counted in the details); none of
	# modpreload's
	eq "finit_module calls == module_load events + merged" "$(mpt_num finit_enter "$res")" \
		"$(($(mpt_num load_total "$res") - $(mpt_num init_ok "$res") + $(mpt_num finit_merged "$res")))"
	expect "$res" finit_merged_by.modpreload -eq 0
	expect "$res" finit_by.modpreload -gt 0
	for r in report_initrd report_booted report_kept; do expect_is "$res" "$r" present; done
	expect_is "$res" holds 0
	expect_is "$res" analyze 0
	expect_is "$res" analyze_booted 0
	tr -d '\r' <"$DEB_WORK/logs/with.serial" | grep -q 'MPTA: .*[0-9]' || fail "modpreload analyze printed no figure"
	expect_is "$res" svg 0
	expect "$res" svg_bytes -gt 1000
	expect_is "$res" disable 0
	expect_is "$res" apt_remove 0
	expect_is "$res" image 0
	expect "$res" next.modpreload -eq 0
	expect "$res" next.kos -gt 0
	image_of "$DEB_WORK/img/removed.img" || fail "no image at /boot/initrd.img-$KVER on the disk (see $log)"
fi
verdict "$name/with" "$(mpt_num finit_enter "$res") calls for $(mpt_num load_modules "$res") modules, \
$(mpt_num finit_by.modpreload "$res") by modpreload, $(mpt_num finit_other "$res") no-device, \
$(mpt_num finit_merged "$res") merged by the kernel ($(mpt_num finit_merged_by._udev_worker_ "$res") udev's)"
[ -s "$DEB_WORK/img/removed.img" ] || fail_all "no image to boot after the removal"
names="$name/removed"

# --- removed --------------------------------------------------------------
res=$DEB_WORK/logs/removed.txt
if boot removed; then
	common "$res" removed
	expect_is "$res" bin none
	expect_is "$res" units 0
	expect_is "$res" run_files 0
	expect_is "$res" report_initrd absent
	expect_is "$res" report_booted absent
	expect "$res" img.modpreload -eq 0
	expect "$res" finit_by.modpreload -eq 0
	expect "$res" finit_by._udev_worker_ -gt 0
fi
verdict "$name/removed" "$(mpt_num finit_enter "$res") calls for $(mpt_num load_modules "$res") modules, by udev"
