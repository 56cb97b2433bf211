#!/bin/sh
# mkinitcpio hook, modules that fail, 4 vCPUs: mpt_fail (its init returns
# -ENODEV) in the image's MODULES, and rd.modpreload.modules=mpt_fail_child
# (which needs mpt_fail) on the kernel command line -- with
# earlymodules=mpt-alias-only (mkinitcpio's own early list, an alias);
# mpt_dia_top in MODULES too, and modprobe.blacklist=mpt_dia_top,mpt_dia_left
# (how a broken driver in MODULES is kept out for one boot), and
# mpt_dia_left in rd.modpreload.modules=.
#   vm/mkinitcpio-fail   the boot reaches the root with everything else
#       loaded once (no EEXIST/EBUSY, every other call a success, none by a
#       udev worker but for late devices: mkc_check_udev); mpt_fail not
#       loaded and reported failed; mpt_fail_child
#       skipped without a load attempt (no module_load event).  /init's own
#       `modprobe -qab $MODULES` tries mpt_fail once more after the hook (as
#       it would without modpreload): at most two ENODEV calls, the second
#       one modprobe's.  mpt_aliased loaded by modpreload (from earlymodules=),
#       not by that modprobe.  The blacklist as each loader has it
#       (modpreload(8), SOURCES): mpt_dia_top, blacklisted and in MODULES,
#       tried by no one (`modprobe -qab`'s -b, and the hook's
#       --use-blacklist); mpt_dia_left, blacklisted and asked for by name
#       on the command line, loaded (as dracut's modprobe of
#       rd.driver.pre=), with mpt_dia_base under it.
# About 30 s.
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/mkinitcpio/host.sh
. "$top/harness/mkinitcpio/host.sh"

name=mkinitcpio-fail
mkc_setup || fail_all "setup failed (see stderr)"
img=$(mkc_image fail "base modpreload udev mpt" "ext4 mpt_fail mpt_dia_top") || fail_all "setup failed (see stderr)"
mkdir -p "$MKC_DIR/out"
o=$MKC_DIR/out/fail.txt
args="rd.modpreload.modules=mpt_fail_child,mpt_dia_left earlymodules=mpt-alias-only"
mkc_run "$img" 4 "$args modprobe.blacklist=mpt_dia_top,mpt_dia_left" "$o"
ok=$(mpt_num finit_ok "$o")
enodev=$(mpt_num finit_errno_19 "$o")
expect "$o" root_reached -eq 1
expect "$o" proc.mpt_fail -eq 0
expect "$o" proc.mpt_fail_child -eq 0
expect "$o" load.mpt_fail_child -eq 0
expect "$o" proc.ext4 -eq 1
expect "$o" proc.mpt_params -eq 1
expect "$o" proc.mpt_aliased -eq 1
expect "$o" proc.mpt_dia_top -eq 0
expect "$o" load.mpt_dia_top -eq 0
expect "$o" proc.mpt_dia_left -eq 1
expect "$o" proc.mpt_dia_base -eq 1
expect "$o" param.mpt_drv.probed -eq 16
expect "$o" param.mpt_drv2.probed -eq 4
expect "$o" finit_eexist -eq 0
expect "$o" finit_ebusy -eq 0
expect "$o" finit_errno_19 -ge 1
expect "$o" finit_errno_19 -le 2
expect "$o" finit_by.modprobe -le 1
mkc_check_udev "$o" mpt_fail mpt_fail_child
expect "$o" finit_enter -eq $((ok + enodev))
expect "$o" proc_count -eq "$ok"
# module_load fires before init(): mpt_fail counts, once per attempt
expect "$o" load.mpt_fail -eq "$enodev"
# the report counts modpreload's own loads: a late device's module may be
# udev's (mkc_check_udev), and that load is not modpreload's to report
mine=$(($(mpt_num finit_by.modpreload "$o") - $(mpt_num finit_fail_by.modpreload "$o")))
expect "$o" report.loaded -eq "$mine"
expect "$o" finit_ok -eq $((mine + $(mpt_num finit_by._udev_worker_ "$o")))
expect "$o" report.failed -eq 1
expect "$o" report.skipped -eq 1
printf 'mkinitcpio-fail smp=4: %s, %s ENODEV (modprobe: %s); root at %s s\n' \
	"$(mkc_figures "$o")" "$enodev" "$(mpt_num finit_by.modprobe "$o")" \
	"$(mpt_get root_uptime "$o")" >&2
verdict mkinitcpio-fail "$ok loads, $enodev ENODEV, $(mpt_num finit_eexist "$o") EEXIST, $(mpt_num finit_ebusy "$o") EBUSY"
exit 0
