#!/bin/sh
# tier: full
# dracut 059 without systemd (its shell init: PID 1 sources the pre-udev
# hooks, then starts systemd-udevd), /bin/sh = dash, Debian's 6.1, 8 vCPUs,
# a real ext4 root (harness/dracut/host.sh). The image carries a
# modpreload.d list (installed by module-setup.sh from MODPRELOAD_SYSROOT)
# naming mpt_fail_child, whose dependency's init() fails, and
# mpt_hang_child, whose dependency's init() never returns; with
# rd.modpreload.timeout=5 (times the host's slowness) the hook must still
# return and the boot go on,
# everything else loaded once before udevd starts. About 1 minute.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/dracut/host.sh
. "$top/harness/dracut/host.sh"
name=dracut-shell

dr_prepare_image shell-failing shell yes "$(dr_conf_failing)"
img=$DEB_WORK/img/shell-failing.img
if ! lsinitrd "$img" 2>/dev/null | grep -q ' etc/modpreload.d/50-mpt-failing.conf$' ||
	lsinitrd "$img" 2>/dev/null | grep -q ' usr/lib/systemd/systemd$'; then
	fail_all "the image lacks the list, or has systemd as init"
fi

# 5 s is short for a TCG guest on a loaded host: libata's own init() took
# longer there, and was given up on as hung with mpt_hang. The factor the VM
# deadlines use (harness/lib/calibrate.sh) scales it too.
eval "$("$top/harness/lib/calibrate.sh")"
hang_s=$(awk -v f="${MPT_VM_SCALE:-1}" 'BEGIN { d = 5 * f; printf "%d", d == int(d) ? d : int(d) + 1 }')
res=$DEB_WORK/logs/shell-8.txt
deb_run "$res" "$img" 8 "rd.modpreload.timeout=$hang_s"
deb_check_root "$res"
deb_check_failing "$res"
eq "vCPUs" "$(mpt_get ncpus "$res")" 8
deb_details "shell init, modpreload, failing list, 8 vCPUs" "$res"
verdict "$name/modpreload-8cpu" "$(mpt_num finit_enter "$res") calls for $(mpt_num load_modules "$res") modules, 1 failed, 1 hung"
