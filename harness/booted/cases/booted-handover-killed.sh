#!/bin/sh
# tier: full
# A holder SIGKILLed after the hand-over, on the whole boot (harness/booted/
# host.sh, booted-once's image and root), 4 vCPUs: two of QEMU's
# pci-testdev, so that the booted unit loads and holds their driver
# mpt_slowpci (on the root only), whose init() sleeps until the report
# unit releases it after multi-user.target. mpt.kill_holder= has the
# root's mpt-kill-holder.service (guest/kill-holder.sh) SIGKILL the
# holder the hold file names as soon as the file is there, as the OOM
# killer or a stop would. The holder's thread inside init() keeps it
# alive until init() returns: the hold stays while the module is coming
# (udev must not load it again), then the unit's main process, which
# outlives its child, removes the dead holder's hold and replays the
# devices' add, and udev finds the module live. From the kernel's trace:
# one finit_module for it, modpreload's, none by a udev worker; no held
# file and no modpreload left at the end; the kernel log has the kill,
# the loader's death and the removed hold; what it held and had not
# loaded yet (kvm, the CPU drivers) has its devices' add replayed for
# udev; the booted report, written by the unit's main process, says the
# loader died of SIGKILL. About 2 minutes.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/booted/host.sh
. "$top/harness/booted/host.sh"
# shellcheck source=harness/lib/scenarios/handover.sh
. "$top/harness/lib/scenarios/handover.sh"
name=booted-handover-killed
smp=${MP_BOOTED_KILLED_CPUS:-4}

bt_setup || fail_all "setup failed (see $DEB_WORK/setup.log and $DEB_WORK/logs/)"

res=$DEB_WORK/logs/handover-killed-$smp.txt
bt_case_boot "$res" "$smp" with "$HO_DEVICE $HO_DEVICE" \
	"$(ho_args "${MP_BOOTED_KILLED_MS:-300000}") mpt.kill_holder=$HO_MODULE"
bt_check_common "$res"
ho_check "$res" mpt_multi_user
bt_kmsg "$res" "mpt: SIGKILL to modpreload's holder of $HO_MODULE, pid"
bt_kmsg "$res" "the loader died of signal 9"
bt_kmsg "$res" "the loader that held .*$HO_MODULE (pid [0-9]*).* from udev is gone"
# what it held and had not loaded yet went back to udev: the devices' add
bt_kmsg "$res" "udev was asked again for [0-9]* devices* that wanted what the loader that is gone held"
# the report at the loader's path is its main process's, saying it died
died=$(mpt_get loader_died_booted "$res")
[ "$died" = 9 ] || fail "the booted report's loader_died: got '$died', want 9 (SIGKILL)"
ho_details "booted, holder killed at the hand-over, $smp vCPUs" "$res"
verdict "$name/${smp}cpu" "$(ho_summary "$res"); holder killed, its hold gone, no second load"
