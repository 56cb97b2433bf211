#!/bin/sh
# dracut 059 without systemd (its shell init: PID 1 sources the pre-udev
# hooks, then starts systemd-udevd), /bin/sh = dash, Debian's 6.1, 8 vCPUs,
# a real ext4 root (harness/dracut/host.sh). The image carries a
# modpreload.d list (installed by module-setup.sh from MODPRELOAD_CONFDIR)
# naming mpt_fail_child, whose dependency's init() fails, and
# mpt_hang_child, whose dependency's init() never returns; with
# rd.modpreload.timeout=5 the hook must still return and the boot go on,
# everything else loaded once before udevd starts. About 1 minute.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/harness/dracut/host.sh"
name=dracut-shell

if ! deb_setup; then
	echo "FAIL: vm/$name: setup failed (see build/vm/dracut/setup.log)"
	exit 0
fi
conf=$DEB_WORK/conf-failing
mkdir -p "$conf"
printf '# dracut-shell.sh: modules whose dependencies fail or hang\nmpt_fail_child\nmpt_hang_child\n' \
	>"$conf/50-mpt-failing.conf"
if ! dr_image shell-failing shell yes "$conf"; then
	echo "FAIL: vm/$name: dracut could not build the image (see build/vm/dracut/logs/)"
	exit 0
fi
img=$DEB_WORK/img/shell-failing.img
if ! lsinitrd "$img" 2>/dev/null | grep -q ' etc/modpreload.d/50-mpt-failing.conf$' ||
	lsinitrd "$img" 2>/dev/null | grep -q ' usr/lib/systemd/systemd$'; then
	echo "FAIL: vm/$name: the image lacks the list, or has systemd as init"
	exit 0
fi

res=$DEB_WORK/logs/shell-8.txt
rc=0
deb_boot "$res" "$DEB_WORK/logs/shell-8.serial" "$img" 8 "rd.modpreload.timeout=5" 420 || rc=$?
[ "$rc" = 0 ] || fail "$(mpt_boot_why "$rc" "$res") (see $DEB_WORK/logs/shell-8.serial)"
deb_check_root "$res"
deb_check_failing "$res"
eq "vCPUs" "$(mpt_get ncpus "$res")" 8
deb_details "shell init, modpreload, failing list, 8 vCPUs" "$res"
verdict "$name/modpreload-8cpu" "$(mpt_num finit_enter "$res") calls for $(mpt_num load_modules "$res") modules, 1 failed, 1 hung"
