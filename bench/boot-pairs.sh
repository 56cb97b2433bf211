#!/bin/sh
# Pairs of whole boots, with and without modpreload, that accumulate: every
# boot appends one record to bench/results/boots.tsv (committed), and
# bench/boot-verdict.sh makes the verdict table from all records of the
# code as it is now. A verdict needs more pairs than one sitting can boot
# (a 16-vCPU pair takes about 5 minutes under TCG on 2 host cores, a
# 32-vCPU pair 10), so each run adds to what the earlier runs left.
#
# A boot is harness/booted/host.sh's bt_boot: a dracut 059 (or the suite's
# own generator's) image with modpreload, a real Debian root with systemd
# and modpreload-coldplug.service enabled, to multi-user.target; "without"
# is the same image and root with both of modpreload's off switches. The
# order alternates pair by pair (with, without; without, with; ...), so
# that a drift of the host weighs on both sides alike.
#
# Usage: bench/boot-pairs.sh [-r SUITE] [-c VCPUS] [-C COND] [-n PAIRS]
#   -r SUITE   bookworm (6.1, dracut 059; default), trixie (6.12, dracut
#              059), trixie-itools (6.12, the root's initramfs-tools),
#              trixie-ng (6.12, dracut-ng): harness/booted/host.sh's BT_SUITE
#   -c VCPUS   the guest's vCPUs (default 16); RAM 32 MiB a vCPU, >= 2048
#   -C COND    hwlike (default): kvm, kvm_amd, ccp and powernow_k8 kept
#              out of both boots (module_blacklist= and, since 2026-12-04,
#              modprobe.blacklist=): under TCG their loads
#              stall every vCPU for tens of seconds (kvm.ko alone patches
#              745 static-call sites, each with three all-CPU IPIs, which
#              take microseconds on hardware and tens of milliseconds on 16
#              emulated CPUs sharing 2 host cores); asbooted: the command
#              line as a user's; hwlike-nofbdev: hwlike, and the DRM drivers'
#              fbdev emulation off (drm_kms_helper.fbdev_emulation=0) in both
#              boots: bochs's fbdev set-up zeroes its shadow framebuffer
#              page by page (clear_page_erms, `rep stosb`, emulated an
#              iteration at a time), 45-120 s with soft lockups in 4 of 13
#              with-boots of 2026-12-04, and multi-user.target came 3-5 s
#              after it ended; milliseconds on hardware; hwlike-single:
#              hwlike with QEMU's single-threaded TCG (every vCPU in turn
#              in one host thread): no vCPU thread is put off by the host's
#              scheduler while the others spin for it, the stalls the
#              multi-threaded runs' soft lockups came from; everything on
#              one host core, no parallel load faster than a serial one;
#              lean: hwlike-single without QEMU's VGA (bochs) and NIC
#              (e1000): their probes, udev's in both boots, took 16-27 s
#              (e1000's EEPROM and PHY polling) and up to 28 s (bochs's
#              framebuffer) under TCG, their spread the spread of
#              multi-user.target; milliseconds on hardware;
#              lean-initrd: lean, and the with-boots' booted unit off
#              (modpreload.enable=0): the initramfs's run alone, to weigh
#              what the booted unit costs or saves against lean's verdict
#              (its with-boots are off make check's counts by design: udev's
#              coldplug after switch-root loads as without);
#              lean-sampled: lean, and every 0.5 s from switch-root on
#              what the guest's CPUs and tasks went to (mpt.sample,
#              harness/booted/guest/sampler.c; the report's "smp"
#              lines): to find where a boot's time went, never pooled
#              with lean's pairs, as the sampling costs CPU
#   -n PAIRS   pairs to boot (default 1)
# The modpreload timeout is the shipped default (rd.modpreload.timeout=
# unset), as a user boots it.
#
# A record (one line a boot, tab-separated; "-" where a boot gave none):
#   date code stack vcpus cond pair variant order load1 switch_root
#   multi_user settled wall calls modules udev_calls failed lockups ready
#   bounds checks
# code: bench/code-id.sh (what was booted, not the commit); pair: the
# pair's id; order: 1 or 2 in its pair; load1: the host's load average when
# the boot began; switch_root, multi_user, settled: guest seconds since
# boot (the initramfs's last hook; multi-user.target reached; udev's queue
# empty after it); wall: QEMU start to power-off; calls: load syscalls over
# the whole boot; modules: distinct modules loaded; udev_calls: udev
# workers' calls after switch-root; failed: calls that failed; lockups:
# "soft lockup" lines; ready: seconds from modpreload-coldplug's start to
# its READY=1 (without: -); bounds: modpreload's waits that ended on their
# bound (its kernel-log lines); checks: "ok", or the reasons make check's
# booted-once assertions give for this boot.
# A with-boot starts with the lookups the last with-boot of the same code,
# stack and condition kept (/var/lib/modpreload/lookups), as a machine does
# from its second boot on; a boot without them goes first, not recorded.
# Each boot's guest report (the MPT lines, with every module's start and
# end, the units' times and modpreload's kernel-log lines) and the
# console's lines about stalls go to bench/results/boots/CODE/PAIR-VARIANT.txt.gz.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
suite=bookworm smp=16 cond=hwlike pairs=1
while [ $# -gt 0 ]; do
	case $1 in
	-r) suite=$2; shift 2 ;;
	-c) smp=$2; shift 2 ;;
	-C) cond=$2; shift 2 ;;
	-n) pairs=$2; shift 2 ;;
	*) sed -n 's/^# Usage: /usage: /p' "$0" >&2; exit 2 ;;
	esac
done
# both blacklists: module_blacklist= makes the kernel refuse them, and
# modprobe.blacklist= keeps udev's workers (and modpreload) from asking:
# with the kernel's alone udev's modprobe of kvm_amd, once per CPU, inserted
# its dependencies (irqbypass: 13 EEXIST in one 6.1 boot) and had 32 calls
# refused with EPERM, on both sides, which make check's counts then flagged
hw="module_blacklist=kvm,kvm_amd,ccp,powernow_k8 modprobe.blacklist=kvm,kvm_amd,ccp,powernow_k8"
case $cond in
hwlike | hwlike-single | lean) BT_APPEND="$hw${BT_APPEND:+ $BT_APPEND}" ;;
lean-sampled) BT_APPEND="$hw mpt.sample${BT_APPEND:+ $BT_APPEND}" ;;
lean-initrd) BT_APPEND="$hw${BT_APPEND:+ $BT_APPEND}" BT_WITH_APPEND=modpreload.enable=0 ;;
hwlike-nofbdev) BT_APPEND="$hw drm_kms_helper.fbdev_emulation=0${BT_APPEND:+ $BT_APPEND}" ;;
asbooted) ;;
*) echo "boot-pairs: -C is hwlike, hwlike-nofbdev, hwlike-single, lean, lean-initrd, lean-sampled or asbooted, not '$cond'" >&2; exit 2 ;;
esac
# one host thread for every vCPU; lean: without QEMU's VGA and NIC too
case $cond in hwlike-single | lean*) MPT_TCG_THREAD=single && export MPT_TCG_THREAD ;; esac
case $cond in lean*) MPT_QEMU_ARGS="-vga none -nic none" && export MPT_QEMU_ARGS ;; esac
BT_SUITE=$suite
# the shipped bound, not the harness's 900 s
BT_MODPRELOAD_TIMEOUT=${BT_MODPRELOAD_TIMEOUT:-60}
# and udevd's own event timeout (180 s), which the harness's cases raise
BT_UDEV_EVENT_TIMEOUT=0
BT_MEM=$((smp * 32 > 2048 ? smp * 32 : 2048))
export BT_APPEND BT_WITH_APPEND BT_SUITE BT_MODPRELOAD_TIMEOUT BT_UDEV_EVENT_TIMEOUT BT_MEM
# shellcheck source=harness/booted/host.sh
. "$top/harness/booted/host.sh"
# shellcheck source=harness/lib/verdict.sh
. "$top/harness/lib/verdict.sh"
log() { printf 'boot-pairs: %s\n' "$*" >&2; }

records=$top/bench/results/boots.tsv
code=$("$top/bench/code-id.sh")
bt_setup || { log "setup failed (see $DEB_WORK/setup.log and $DEB_WORK/logs/)"; exit 1; }
raw=$DEB_WORK/pairs
keep=$top/bench/results/boots/$code
mkdir -p "$raw" "$keep"
[ -s "$records" ] || printf 'date\tcode\tstack\tvcpus\tcond\tpair\tvariant\torder\tload1\tswitch_root\tmulti_user\tsettled\twall\tcalls\tmodules\tudev_calls\tfailed\tlockups\tready\tbounds\tchecks\n' >"$records"

# the seconds from the unit's start to READY=1 ("START ACTIVE", us)
ready_s() {
	mpt_get unit.modpreload-coldplug "$1" | awk 'NF == 2 && $1 > 0 && $2 >= $1 { printf "%.2f", ($2 - $1) / 1e6; exit } { print "-" }'
}
# v KEY RESULT: the value, or "-"
v() {
	_bp_v=$(mpt_get "$1" "$2")
	echo "${_bp_v:--}"
}

# record PAIR VARIANT ORDER WITH_RESULT: one boot's line and kept report
record() {
	r=$raw/$1-$2.txt
	if [ "$2" = with ]; then
		bt_check_with "$r"
	else
		bt_check_without "$r" "$4"
	fi
	checks=${verdict_why#; }
	verdict_why=''
	calls=$(($(mpt_num initrd.calls "$r") + $(mpt_num booted.calls "$r")))
	ok=$(($(mpt_num initrd.ok "$r") + $(mpt_num booted.ok "$r")))
	ready=-
	[ "$2" = without ] || ready=$(ready_s "$r")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		"$(cat "$r.date")" "$code" "$suite" "$smp" "$cond" "$1" "$2" "$3" "$(cat "$r.load1")" \
		"$(v uptime_switch_root "$r")" "$(v uptime_multi_user "$r")" "$(v uptime_settled "$r")" \
		"$(v host_wall_s "$r")" "$calls" "$(mpt_num boot.modules "$r")" "$(mpt_num booted.udev_calls "$r")" \
		"$((calls - ok))" "$(mpt_num soft_lockups "$r")" "$ready" "$(bt_bounds "$r")" \
		"$(printf '%s' "${checks:-ok}" | tr '\t\n' '  ')" >>"$records"
	{
		grep -a '^MPT: ' "$r"
		echo "# the console's lines about stalls and modpreload"
		grep -a -e 'soft lockup' -e 'rcu.*stall' -e 'hung_task' -e 'blocked for more than' \
			-e 'modpreload' -e 'Out of memory' "$raw/$1-$2.serial" | cut -c1-300 | head -n 200
	} | gzip -9n >"$keep/$1-$2.txt.gz"
}

# A with-boot starts with the last with-boot's lookups (harness/booted/
# host.sh, BT_LOOKUPS), as a machine does from its second boot on: the
# first boot of a tree has none and checks and looks up everything. With
# none kept yet for this stack, code and condition, one with-boot first,
# not recorded, makes them.
BT_LOOKUPS=$DEB_WORK/lookups-$code-$suite-$smp-$cond
export BT_LOOKUPS
if [ ! -s "$BT_LOOKUPS" ] && [ -z "${BT_WITH_APPEND:-}" ]; then
	log "$suite, $smp vCPUs, $cond: a with-boot first, not recorded, for the lookups the next boots start with"
	bt_boot "$raw/warmup.txt" "$raw/warmup.serial" "$smp" with 3600 || log "  the boot failed: see $raw/warmup.serial"
	[ -s "$BT_LOOKUPS" ] || log "  no lookups kept: the with-boots start without them"
fi

n=1
while [ "$n" -le "$pairs" ]; do
	pair=$(date -u +%Y%m%dT%H%M%S)-$suite-$smp-$cond
	# alternate which side boots first, by the records already there
	k=$(awk -F'\t' -v s="$suite" -v c="$smp" -v d="$cond" '$3 == s && $4 == c && $5 == d && $8 == 1' "$records" | wc -l)
	if [ $((k % 2)) = 0 ]; then order="with without"; else order="without with"; fi
	for variant in $order; do
		r=$raw/$pair-$variant.txt
		cut -d' ' -f1 /proc/loadavg >"$r.load1"
		date -u +%Y-%m-%dT%H:%M:%SZ >"$r.date"
		log "$suite, $smp vCPUs, $cond, pair $n of $pairs: $variant ($BT_MEM MiB, host load $(cat "$r.load1"))"
		bt_boot "$r" "$raw/$pair-$variant.serial" "$smp" "$variant" 3600 || log "  the boot failed: see $raw/$pair-$variant.serial"
	done
	o=1
	for variant in $order; do
		record "$pair" "$variant" "$o" "$raw/$pair-with.txt"
		o=$((o + 1))
	done
	n=$((n + 1))
done
"$top/bench/boot-verdict.sh" >"$top/bench/results/boot-verdict.md"
log "records: $records; verdict: bench/results/boot-verdict.md"
