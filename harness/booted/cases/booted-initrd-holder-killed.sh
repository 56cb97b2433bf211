#!/bin/sh
# tier: full
# The initramfs's holder SIGKILLed before the switch-root, on the whole boot
# (harness/booted/host.sh, BT_SUITE=bookworm-slowinitrd: booted-once's
# root, its dracut image holding mpt_slowpci too), 4 vCPUs: two of QEMU's
# pci-testdev, so that the initramfs's run loads and holds their driver,
# whose init() sleeps until the root's report unit releases it after
# multi-user.target; a pre-pivot hook in the image (guest/
# kill-holder-initrd.sh, mpt.kill_holder_initrd=) SIGKILLs the holder the
# hold file names, as the OOM killer would. Its thread in init() keeps it
# until init() returns, so the hold stays while the module is coming (udev
# must not load it again); the booted system's run must not take the hold
# for the administrator's blacklist, load the module a second time, nor
# leave the hold behind once that holder is gone. From the kernel's trace:
# one finit_module for mpt_slowpci, the initramfs's; none by a udev
# worker; multi-user.target reached while it was coming; no held file and
# no modpreload left at the end; the kernel log has the kill. About
# 3 minutes, and an image of its own the first time.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
BT_SUITE=bookworm-slowinitrd
# shellcheck source=harness/booted/host.sh
. "$top/harness/booted/host.sh"
# shellcheck source=harness/lib/scenarios/handover.sh
. "$top/harness/lib/scenarios/handover.sh"
name=booted-initrd-holder-killed
smp=${MP_BOOTED_KILLED_CPUS:-4}

bt_setup || fail_all "setup failed (see $DEB_WORK/setup.log and $DEB_WORK/logs/)"

res=$DEB_WORK/logs/initrd-holder-killed-$smp.txt
bt_case_boot "$res" "$smp" with "$HO_DEVICE $HO_DEVICE" \
	"$(ho_args "${MP_BOOTED_KILLED_MS:-300000}") mpt.kill_holder_initrd=$HO_MODULE"
bt_check_common "$res"
ho_check "$res" mpt_multi_user
bt_kmsg "$res" "mpt: SIGKILL to the initramfs's modpreload holder of $HO_MODULE, pid"
# and the booted run found that holder gone and removed its hold
bt_kmsg "$res" "the loader that held $HO_MODULE (pid [0-9]*) from udev is gone"
ho_details "booted, the initramfs's holder killed before the switch, $smp vCPUs" "$res"
verdict "$name/${smp}cpu" "$(ho_summary "$res"); the initramfs's holder killed, its hold gone, no second load"
