#!/bin/sh
# dracut 059 + systemd, 4 vCPUs: modules asked for on the kernel command
# line (rd.modpreload.modules=) whose dependencies fail (mpt_fail: ENODEV)
# or hang in init() (mpt_hang), with rd.modpreload.timeout=5:
# dracut-pre-udev.service finishes, udevd starts, the root's init runs,
# everything else is loaded once. rd.modpreload.jobs=1 (the default would
# be 4 here): never more than one of modpreload's finit_module calls in
# the kernel, plus the hung one once given up on. rd.driver.pre=mpt_params
# with mpt_params.value=7: modpreload loads it, with its option, before
# dracut-pre-udev's own modprobe of rd.driver.pre= (which then finds it
# live). Reuses the image of dracut-systemd.sh. About 1 minute.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/harness/dracut/host.sh"
name=dracut-fail

if ! deb_setup; then
	echo "FAIL: vm/$name: setup failed (see build/vm/dracut/setup.log)"
	exit 0
fi
if ! dr_image systemd systemd yes; then
	echo "FAIL: vm/$name: dracut could not build the image (see build/vm/dracut/logs/)"
	exit 0
fi
res=$DEB_WORK/logs/systemd-failing.txt
rc=0
deb_boot "$res" "$DEB_WORK/logs/systemd-failing.serial" "$DEB_WORK/img/systemd.img" 4 \
	"rd.modpreload.modules=mpt_fail_child,mpt_hang_child rd.modpreload.timeout=5 rd.modpreload.jobs=1 rd.driver.pre=mpt_params mpt_params.value=7" 420 || rc=$?
[ "$rc" = 0 ] || fail "$(mpt_boot_why "$rc" "$res") (see $DEB_WORK/logs/systemd-failing.serial)"
deb_check_root "$res"
deb_check_failing "$res"
inflight=$(mpt_num finit_max_inflight.modpreload "$res")
if [ "$inflight" -lt 1 ] || [ "$inflight" -gt 2 ]; then
	fail "rd.modpreload.jobs=1: up to $inflight of modpreload's loads in the kernel at once"
fi
eq "mpt_params load attempts" "$(mpt_num load.mpt_params "$res")" 1
eq "mpt_params.value" "$(mpt_get param.mpt_params.value "$res")" 7
case ,$(mpt_get loaded_by.modpreload "$res"), in
*,mpt_params,*) ;;
*) fail "rd.driver.pre=mpt_params was not loaded by modpreload" ;;
esac
deb_details "systemd, modpreload, failing modules, jobs=1, 4 vCPUs" "$res"
verdict "$name/systemd-4cpu" "$(mpt_num finit_enter "$res") calls for $(mpt_num load_modules "$res") modules, 1 failed, 1 hung"
