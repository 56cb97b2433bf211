#!/bin/sh
# dracut-ng as its users have it: the release Debian sid carries (112 in
# 2026-12), built from its upstream tarball into a private prefix by
# harness/lib/dracutng.sh (kept in the test cache), makes the image, with
# bookworm's systemd 252 and systemd-udevd in it, for Debian's 6.1, booted
# to a real ext4 root at 8 vCPUs (harness/dracut/host.sh: dr_image with
# DR_DRACUT). `dracut --add modpreload` finds the module, its hook is where
# dracut-ng keeps hooks (/var/lib/dracut/hooks, by inst_hook),
# dracut-pre-udev.service runs it before systemd-udevd.service starts (the
# console's status lines), and it loads everything: one successful
# finit_module per module, no EEXIST/EBUSY, udev's workers load nothing, the
# report is in /run/initramfs. make check-full adds the same boot with
# rd.modpreload=0 (udev's storm, for the figures), trixie's dracut 106,
# built the same way, and dracut-explicit's two image builds with each.
# make check: one boot; about 1.5 minutes, plus ~15 s for the image and
# seconds to build dracut-ng the first time.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/dracut/host.sh
. "$top/harness/dracut/host.sh"
name=dracut-ng

deb_prepare
suites=${DR_NG_SUITES:-sid}
[ "${MP_FULL:-0}" != 1 ] || suites=${DR_NG_SUITES:-sid trixie}

# ng_boot RESULT IMG CMDLINE: the boot at 8 vCPUs, with systemd's status
# lines on the console despite quiet (systemd.show_status=1)
ng_boot() {
	deb_run "$1" "$2" 8 "systemd.show_status=1 $3"
	eq "vCPUs" "$(mpt_get ncpus "$1")" 8
}

# ng_check_order RESULT: systemd's own word on the order:
# dracut-pre-udev.service finished before systemd-udevd.service started
ng_check_order() {
	_ng_ser=${1%.txt}.serial
	sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$_ng_ser" >"$_ng_ser.plain"
	_ng_pre=$(grep -n 'Finished dracut-pre-udev\.service' "$_ng_ser.plain" | head -n 1 | cut -d: -f1)
	_ng_udevd=$(grep -n 'Starting systemd-udevd\.ser' "$_ng_ser.plain" | head -n 1 | cut -d: -f1)
	if [ -z "$_ng_pre" ] || [ -z "$_ng_udevd" ]; then
		fail "the console shows no dracut-pre-udev.service finished or systemd-udevd started (see $_ng_ser)"
	elif [ "$_ng_pre" -gt "$_ng_udevd" ]; then
		fail "systemd-udevd.service started before dracut-pre-udev.service finished (see $_ng_ser)"
	fi
}

for suite in $suites; do
	case $suite in
	sid) v= ;;
	*) v=$suite- ;;
	esac
	# shellcheck disable=SC2046 # "VERSION DIR"
	set -- $("$top/harness/lib/dracutng.sh" "$suite" 2>>"$DEB_WORK/setup.log")
	if [ -z "${2:-}" ]; then
		echo "FAIL: vm/$name/${v}modpreload-8cpu: no dracut from $suite (see $DEB_WORK/setup.log)"
		continue
	fi
	ngver=$1
	DR_DRACUT=$2
	img=$DEB_WORK/img/ng-$suite-systemd.img
	if ! dr_image "ng-$suite-systemd" systemd yes; then
		echo "FAIL: vm/$name/${v}modpreload-8cpu: dracut $ngver could not build the image (see $DEB_WORK/logs/)"
		continue
	fi

	# made by that dracut; the module found; the hook where inst_hook puts it
	lst=$DEB_WORK/logs/ng-$suite-systemd.lsinitrd
	lsinitrd "$img" >"$lst" 2>&1
	eq "image made by" "$(sed -n 's/^Version: //p' "$lst")" "dracut-$ngver"
	grep -qx modpreload "$lst" || fail "modpreload is not among the image's dracut modules"
	grep -q ' var/lib/dracut/hooks/pre-udev/05-modpreload-pre-udev\.sh$' "$lst" ||
		fail "the pre-udev hook is not in /var/lib/dracut/hooks/pre-udev"
	grep -q ' usr/sbin/modpreload$' "$lst" || fail "/usr/sbin/modpreload is not in the image"

	res=$DEB_WORK/logs/ng-$suite-systemd-8.txt
	ng_boot "$res" "$img" ""
	deb_check_with "$res" report
	ng_check_order "$res"
	[ "$suite" != sid ] || mods=$(mpt_num load_modules "$res")
	deb_details "dracut $ngver, systemd, modpreload, 8 vCPUs" "$res"
	deb_figure "dracut-$ngver systemd 8 modpreload" "$res"
	verdict "$name/${v}modpreload-8cpu" \
		"dracut $ngver: $(mpt_num finit_enter "$res") calls for $(mpt_num load_modules "$res") modules"
done

# make check-full: what dracut-explicit checks with 059, built (not booted)
# with each dracut-ng: an explicit -m list with systemd but not
# dracut-systemd gets dracut-systemd from modpreload's depends(), and with
# -o dracut-systemd dracut refuses to build. depends() relies on dracut
# checking systemd before modpreload (10systemd < 50modpreload from 108).
[ "${MP_FULL:-0}" = 1 ] || exit 0
for suite in $suites; do
	case $suite in
	sid) v= ;;
	*) v=$suite- ;;
	esac
	# shellcheck disable=SC2046 # "VERSION DIR"
	set -- $("$top/harness/lib/dracutng.sh" "$suite" 2>>"$DEB_WORK/setup.log")
	[ -n "${2:-}" ] || continue
	DR_DRACUT=$2
	if dr_image "ng-$suite-explicit" systemd-explicit yes; then
		lsinitrd "$DEB_WORK/img/ng-$suite-explicit.img" 2>/dev/null |
			sed -n '/^dracut modules:$/,/^=/p' >"$DEB_WORK/logs/ng-$suite-explicit.modules"
		grep -qx dracut-systemd "$DEB_WORK/logs/ng-$suite-explicit.modules" ||
			fail "the explicit list's image has no dracut-systemd"
	else
		fail "dracut $1 could not build the explicit list's image"
	fi
	log=$DEB_WORK/logs/ng-$suite-omitted.dracut.log
	rm -f "$log"
	if DR_DRACUT_ARGS="-o dracut-systemd" dr_image "ng-$suite-omitted" systemd-explicit yes 2>/dev/null; then
		fail "dracut $1 built an image with modpreload and systemd but without dracut-systemd"
	fi
	grep -q "modpreload.*dracut-systemd" "$log" ||
		fail "dracut $1's log does not say that modpreload needs dracut-systemd"
	verdict "$name/${v}explicit" "dracut $1: dracut-systemd pulled in, refused without it"
done

# The storm without modpreload, on sid's image: make check-full's. As in
# dracut-systemd, systemd-udev-settle.service keeps the root from being
# switched to before udev has loaded what the devices it made ask for.
[ -n "${mods:-}" ] || exit 0
res=$DEB_WORK/logs/ng-sid-systemd-8-off.txt
ng_boot "$res" "$DEB_WORK/img/ng-sid-systemd.img" \
	"rd.modpreload=0 rd.systemd.wants=systemd-udev-settle.service"
deb_check_without "$res" report "$mods"
deb_details "dracut-ng, systemd, rd.modpreload=0, 8 vCPUs" "$res"
deb_figure "dracut-ng systemd 8 off" "$res"
verdict "$name/disabled-8cpu" \
	"udev: $(mpt_num finit_enter "$res") calls, $(mpt_num finit_eexist "$res") EEXIST for $mods modules"
