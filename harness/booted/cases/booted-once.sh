#!/bin/sh
# The whole boot, initramfs and booted system (harness/booted/host.sh): an
# image with modpreload (dracut 059's on bookworm) boots Debian's 6.1 at 16 vCPUs into a
# real Debian bookworm root (systemd 252, udev, the kernel's full module
# tree) with modpreload-coldplug.service enabled, to multi-user.target.
# From the kernel's tracepoints, split at switch-root:
#   with      one load call per module over the whole boot, none failed but
#             the no-device drivers' (ENODEV, or EEXIST from a cpufreq
#             driver's init() while another is registered; each once, then
#             blacklisted for the boot), no udev worker loading a module modpreload dealt with,
#             the reports in /run and kept in /var/lib/modpreload, the
#             modules the root's /etc/modules-load.d lists and nothing
#             else asks for left to systemd-modules-load, which loads
#             each once, and the one it lists that the root's modprobe.d
#             blacklists loaded by no one (with it and without it: the
#             rule of systemd-modules-load, which modpreload keeps); and
#             the wait: no wait of modpreload's ended on its bound, and
#             the slow module the list also names (mpt_sleep, 30 s in
#             init()) was not the booted run's to wait for
#             (bt_check_no_wait)
#   handover  the "with" boot has two of QEMU's pci-testdev, whose driver
#             mpt_slowpci (on the root only, not in the image) sleeps in
#             init() until the report unit releases it (parameters/release)
#             or MP_BOOTED_SLOW_MS (default 300 s) has passed: at 16 vCPUs
#             the unit handed over 46 s after that load began (kvm_amd and
#             the DRM drivers were still in their init()s) and the boot took
#             54 s more to multi-user.target, so a fixed 30 s (or 90 s)
#             sleep raced it. The unit hands over (READY=1) and the boot reaches multi-user.target
#             (the mpt_multi_user trace marker) while it is still coming;
#             one module_load over the boot, no udev worker's call for it,
#             no held file left once it is live (harness/lib/scenarios/
#             handover.sh)
#   without   rd.modpreload=0 modpreload.enable=0 (the two off switches):
#             neither half runs, udev's coldplug storms, more load calls
#             than with it
# make check boots "with" only: the pair at 16 vCPUs took 10 minutes on this
# project's busy 2-core host, and bench/booted-storm.sh measures both at 32,
# 64 and 128. MP_BOOTED_WITHOUT=1 (and make check-full) adds the "without" boot here;
# MP_BOOTED_CPUS (default 16). "with" alone: about 5 minutes, 2 more the
# first time (mmdebstrap, the image, the root disk).
#   second    (make check-full on bookworm, or MP_BOOTED_SECOND=1) the
#             same root booted again, as a machine's second boot: the
#             booted run starts with the lookups the first kept
#             (/var/lib/modpreload/lookups), answers lookups from them and
#             walks no index again (its report's counts), and the boot
#             passes the "with" checks again with the same modules loaded
# Usage: booted-once.sh [bookworm|trixie|trixie-itools|trixie-ng|sid|seven]: trixie
# (booted-once-trixie.sh) makes the same checks on Debian trixie's 6.12 and
# a trixie root (harness/booted/host.sh's BT_SUITE), named
# booted-once-trixie; trixie-itools (booted-once-trixie-itools.sh) the
# same with the image made by the root's own initramfs-tools, trixie-ng
# (booted-once-trixie-ng.sh) by dracut-ng; sid
# (booted-once-sid.sh) on trixie's 6.12 and a root of Debian unstable;
# seven (booted-once-seven.sh, make check-full's) Debian's 7.x in the
# trixie root.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# the argument, not the environment: this case is bookworm's unless asked
BT_SUITE=${1:-bookworm}
# the slow module in the root's modules-load.d (bt_check_no_wait): its
# init() sleeps this long, MP_BOOTED_SLOW_NAMED_MS (default 30 s). Only its
# name asks for it: the booted run leaves it to systemd-modules-load, and
# the boot waits for it as it does without modpreload
BT_SLOW_NAMED_MS=${MP_BOOTED_SLOW_NAMED_MS:-30000}
# shellcheck source=harness/booted/host.sh
. "$top/harness/booted/host.sh"
# shellcheck source=harness/lib/scenarios/handover.sh
. "$top/harness/lib/scenarios/handover.sh"
name=booted-once$BT_TAG
smp=${MP_BOOTED_CPUS:-16}

rc=0
bt_setup || rc=$?
if [ "$rc" = 3 ]; then
	# the network, not modpreload (as the dracut-ng case counts it)
	echo "SKIP: vm/$name: no dracut-ng source: the mirror could not be read, nothing cached"
	exit 0
fi
[ "$rc" = 0 ] || fail_all "setup failed (see $DEB_WORK/setup.log and $DEB_WORK/logs/)"

details() { # LABEL RESULT
	echo "  $1 (systemd $(mpt_get systemd_version "$2")): initramfs $(mpt_num initrd.calls "$2") calls / $(mpt_num initrd.loads "$2") loaded; booted $(mpt_num booted.calls "$2") calls / $(mpt_num booted.loads "$2") loaded, $(mpt_num booted.udev_calls "$2") by udev workers; ENODEV $(mpt_num initrd.errno_19 "$2")+$(mpt_num booted.errno_19 "$2"), EEXIST $(mpt_num initrd.errno_17 "$2")+$(mpt_num booted.errno_17 "$2"), EBUSY $(mpt_num booted.errno_16 "$2"); blacklisted: $(mpt_get nodev_blacklist "$2"); udev loaded: $(mpt_get udev_loaded "$2"); loaded twice: $(mpt_get boot.dup_by "$2"); the kernel's modprobe repeated $(mpt_num boot.modprobe_repeats "$2") loads and had $(($(mpt_num initrd.eexist_by.modprobe "$2") + $(mpt_num booted.eexist_by.modprobe "$2"))) EEXIST; first loaded by modprobe or systemd: $(mpt_get boot.outside_loaded "$2"); merged by the kernel: $( (mpt_keys initrd.merged_by "$2"; mpt_keys booted.merged_by "$2") | paste -sd, -); init_module calls $(mpt_num initrd.init_module "$2")+$(mpt_num booted.init_module "$2"); soft lockups $(mpt_num soft_lockups "$2"); multi-user at $(mpt_get uptime_multi_user "$2") s, $(mpt_get host_wall_s "$2") s wall" >&2
}

# The second boot's run held what found no device for a CPU on the first
# (the kept lookups' nodev lines; the report's handover.late) and tried it
# once udev's queue was empty: from the kernel's trace, each such load
# began after every load call of udev's workers in the booted system ended.
late_after_udev() { # REPORT
	# shellcheck disable=SC2046 # five fields
	set -- $(mpt_get handover_booted "$1") "$1"
	if [ "$#" -lt 6 ] || [ "$4" = - ]; then
		fail "the second boot's run left nothing for after udev's queue (handover_booted: $*)"
		return
	fi
	_late=$(grep '^MPT: lmod=' "$6" | awk -v late=",$4," '
		{ split($2, a, "="); m = a[2] }
		$5 == "_udev_worker_" && $4 > u { u = $4 }
		$5 == "modpreload" && index(late, "," m ",") { n++; if (f == "" || $3 < f) f = $3 }
		END { printf "%d %s %s\n", n, f == "" ? "-" : f, u == "" ? 0 : u }')
	# shellcheck disable=SC2086 # three fields
	set -- $_late "$4"
	if [ "$1" -eq 0 ]; then
		fail "no load call of $4 by modpreload in the booted system"
	elif ! awk -v f="$2" -v u="$3" 'BEGIN { exit !(f > u) }'; then
		fail "a late module ($4) began loading at $2 s, before udev's workers' last load ended ($3 s)"
	fi
}

with=$DEB_WORK/logs/with-$smp.txt
# make check-full on bookworm, or MP_BOOTED_SECOND=1: the first
# with-boot's lookups are kept (BT_LOOKUPS) for a second boot of the root
second=${MP_BOOTED_SECOND:-0}
[ "${MP_FULL:-0}" = 1 ] && [ "$BT_SUITE" = bookworm ] && second=${MP_BOOTED_SECOND:-1}
if [ "$second" = 1 ]; then
	BT_LOOKUPS=$DEB_WORK/lookups-check
	rm -f "$BT_LOOKUPS"
	export BT_LOOKUPS
fi
rc=0
# two of QEMU's pci-testdev: the booted unit leaves to udev a driver that
# one device alone asks for (--leave-single), and holds one that two ask for
bt_case_boot "$with" "$smp" with "$HO_DEVICE $HO_DEVICE" "$(ho_args "${MP_BOOTED_SLOW_MS:-300000}")" || rc=$?
bt_check_with "$with"
details "with modpreload, $smp vCPUs" "$with"
verdict "$name/with-${smp}cpu" "$(($(mpt_num initrd.calls "$with") + $(mpt_num booted.calls "$with"))) calls for $(mpt_num boot.modules "$with") modules, $(mpt_num booted.udev_calls "$with") by udev"
[ "$rc" = 0 ] || fail "$(mpt_boot_why "$rc" "$with")"
ho_check "$with" mpt_multi_user booted
ho_details "with modpreload, hand-over, $smp vCPUs" "$with"
verdict "$name/handover-${smp}cpu" "$(ho_summary "$with")"

# The next boot of the same root, as a machine's second: the booted run
# starts with the lookups the first kept (/var/lib/modpreload/lookups,
# modpreload --lookups), answers its lookups from them and walks no index
# again, and the boot is what the first was: the same checks, from the
# kernel's tracepoints, and the same modules, each loaded once
if [ "$second" = 1 ]; then
	again=$DEB_WORK/logs/with-second-$smp.txt
	rc=0
	set --
	if [ ! -s "$BT_LOOKUPS" ]; then
		fail "the first boot kept no /var/lib/modpreload/lookups"
	else
		bt_case_boot "$again" "$smp" with "$HO_DEVICE $HO_DEVICE" "$(ho_args "${MP_BOOTED_SLOW_MS:-300000}")" ||
			rc=$?
		[ "$rc" = 0 ] || fail "$(mpt_boot_why "$rc" "$again")"
		bt_check_with "$again"
		# shellcheck disable=SC2046 # three numbers
		set -- $(mpt_get booted_lookups "$again")
		[ "${1:-0}" -gt 0 ] 2>/dev/null || fail "the booted run answered no lookup from the file ($*)"
		[ "${3:-0}" -ge 3 ] 2>/dev/null || fail "it walked the indexes again ($*)"
		eq "modules loaded, against the first boot's" "$(mpt_num boot.modules "$again")" \
			"$(mpt_num boot.modules "$with")"
		late_after_udev "$again"
		details "with modpreload, the second boot, $smp vCPUs" "$again"
	fi
	verdict "$name/second-${smp}cpu" "lookups known, by libkmod, indexes known: $*; $(($(mpt_num initrd.calls "$again") + $(mpt_num booted.calls "$again"))) calls for $(mpt_num boot.modules "$again") modules"
	unset BT_LOOKUPS
fi

[ "${MP_BOOTED_WITHOUT:-${MP_FULL:-0}}" = 1 ] || exit 0
without=$DEB_WORK/logs/without-$smp.txt
rc=0
bt_case_boot "$without" "$smp" without "" "" || rc=$?
bt_check_without "$without" "$with"
details "without modpreload, $smp vCPUs" "$without"
verdict "$name/without-${smp}cpu" "$(($(mpt_num initrd.calls "$without") + $(mpt_num booted.calls "$without"))) calls for $(mpt_num boot.modules "$without") modules, $(mpt_num booted.udev_calls "$without") by udev"
