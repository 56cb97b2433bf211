#!/bin/sh
# initramfs-tools + Debian's systemd-udevd, 4 vCPUs, modpreload asked for
# modules whose dependencies fail (mpt_fail: ENODEV) or hang in init()
# (mpt_hang) by the image's /etc/modpreload.d list (built by
# itools-install.sh's image), rd.modpreload.timeout=5: the init-top script
# returns, udevd starts, the root's init runs, everything else is loaded
# once and udev's workers load nothing. rd.modpreload.jobs=1: never more
# than one of modpreload's loads in the kernel, plus the hung one once given
# up on. rd.modpreload.modules=mpt_params with mpt_params.value=7: loaded by
# modpreload, with its option. About 2 minutes.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/harness/itools/host.sh"
name=itools-fail

if ! deb_setup; then
	echo "FAIL: vm/$name: setup failed (see build/vm/itools/setup.log)"
	exit 0
fi
lists=$(it_lists_failing)
if ! it_image failing yes "$lists"; then
	echo "FAIL: vm/$name: mkinitramfs could not build the image (see build/vm/itools/logs/)"
	exit 0
fi
res=$DEB_WORK/logs/failing.txt
rc=0
deb_boot "$res" "$DEB_WORK/logs/failing.serial" "$DEB_WORK/img/failing.img" 4 \
	"rd.modpreload.timeout=5 rd.modpreload.jobs=1 rd.modpreload.modules=mpt_params mpt_params.value=7" 420 || rc=$?
[ "$rc" = 0 ] || fail "$(mpt_boot_why "$rc" "$res") (see $DEB_WORK/logs/failing.serial)"
deb_check_root "$res"
deb_check_failing "$res" report_run
inflight=$(mpt_num finit_max_inflight.modpreload "$res")
if [ "$inflight" -lt 1 ] || [ "$inflight" -gt 2 ]; then
	fail "rd.modpreload.jobs=1: up to $inflight of modpreload's loads in the kernel at once"
fi
eq "mpt_params load attempts" "$(mpt_num load.mpt_params "$res")" 1
eq "mpt_params.value" "$(mpt_get param.mpt_params.value "$res")" 7
case ,$(mpt_get loaded_by.modpreload "$res"), in
*,mpt_params,*) ;;
*) fail "rd.modpreload.modules=mpt_params was not loaded by modpreload" ;;
esac
deb_details "initramfs-tools, modpreload, failing modules, jobs=1, 4 vCPUs" "$res"
verdict "$name/4cpu" "$(mpt_num finit_enter "$res") calls for $(mpt_num load_modules "$res") modules, 1 failed, 1 hung"
