#!/bin/sh
# tier: full
# The hand-over's failing variant, on the whole boot (harness/booted/host.sh,
# booted-once's image and root), 4 vCPUs: QEMU's pci-testdev and
# mpt_slowpci with ret=-11, whose init() sleeps until the report unit,
# after multi-user.target and once udev is idle, releases it (or
# MP_BOOTED_FAIL_MS, default 300 s, has passed): the booted system's
# modpreload-coldplug.service has handed it over and held it, udev's
# coldplug has met the hold, and then its init() fails with EAGAIN. The
# holder removes the held file and, once udevd can have seen that (3 s),
# replays the device's "add": from the kernel's trace, exactly one
# finit_module by modpreload (EAGAIN), then exactly one by a udev worker
# entered after it returned (EAGAIN again), nothing else for it; the boot
# reached multi-user.target; no held file left; the report says it held
# the module and replayed one device (harness/lib/scenarios/handover.sh's
# ho_check_replay). A fixed short sleep (3 s) made the case a race: the
# init() failed before the hand-over in one run (nothing held, nothing to
# replay) and after it in another, where two udev workers' calls followed
# (most likely udev's coldplug reaching the device after the hold was
# lifted, then the replay). The boot has udev.log_level=debug: the report
# prints udevd's lines on the device (ho.udev). About 4 minutes.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/booted/host.sh
. "$top/harness/booted/host.sh"
# shellcheck source=harness/lib/scenarios/handover.sh
. "$top/harness/lib/scenarios/handover.sh"
name=booted-handover-fail
smp=${MP_BOOTED_FAIL_CPUS:-4}

bt_setup || fail_all "setup failed (see $DEB_WORK/setup.log and $DEB_WORK/logs/)"

res=$DEB_WORK/logs/handover-fail-$smp.txt
# udev's debug log: the report shows its skips of the held module (ho.udev)
# one pci-testdev, so one device's driver: modpreload.leave_single=0 has
# the booted unit load (and hold) it rather than leave it to udev
bt_case_boot "$res" "$smp" with "$HO_DEVICE" \
	"$(ho_args "${MP_BOOTED_FAIL_MS:-300000}" -11) udev.log_level=debug modpreload.leave_single=0"
bt_check_common "$res"
ho_check_replay "$res" mpt_multi_user booted
ho_details "booted, failing hand-over, $smp vCPUs" "$res"
verdict "$name/${smp}cpu" "$(ho_summary "$res"); then a udev worker at $(ho_call "$res" 2 3)-$(ho_call "$res" 2 4) s"
# udevd's word on the device and the module, for whoever reads a failure
mpt_keys "ho.udev " "$res" | sed 's/^/  /' >&2
