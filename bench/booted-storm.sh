#!/bin/sh
# The whole boot, initramfs and booted system, with and without modpreload
# in both (harness/booted/host.sh, the booted-once VM case's machinery): a
# dracut 059 image with 50modpreload boots Debian's 6.1 into a real Debian
# bookworm root (systemd 252, udev, the full module tree) with
# modpreload-coldplug.service enabled, to multi-user.target; "without" is the
# same image and root with rd.modpreload=0 modpreload.enable=0. Each run
# boots both, one after the other, so that a noisy host weighs on both
# alike. From the kernel's tracepoints, split at switch-root:
#   initramfs calls / loaded       finit_module calls before switch-root and
#                                  module_load events (modules whose load got
#                                  as far as their init())
#   booted calls / loaded (failed) the same after switch-root, and the calls
#                                  that failed (EEXIST, EBUSY, ENODEV...)
#   by udev                        calls by udev's workers after switch-root
#   ENODEV                         calls answered "no device", whole boot
#   soft lockups                   "soft lockup" lines in the kernel log
#   (a last table) udev workers    udevd's forks (sched_process_fork), each a
#   forked                         worker, before and after switch-root; the
#   failed calls' cost             calls that failed (refused duplicates, no
#                                  device): file bytes the kernel had read
#                                  (module_decompress), files decompressed,
#                                  image bytes load_module had checked
#   switch-root, multi-user,       guest seconds since boot: the initramfs's
#   udev settled (s)               last hook (the root is mounted), multi-
#                                  user.target reached, udev's queue empty
#                                  after it; wall: QEMU start to power-off
# Each cell is the median of the runs; a last table gives, per vCPU count,
# with / without of the three times (below 1: modpreload's boot is sooner).
# Prints markdown on stdout (progress on stderr).
#
# Usage: bench/booted-storm.sh [-n RUNS] [-s "16:3 32:3 64:1"] [-r SUITE]
# BT_CPU: QEMU's -cpu for the guests (default max; under TCG "max,-svm" left
# the initramfs's udevd unable to start). BT_APPEND: more of the command line
# -s: vCPU counts, each with its own number of runs after a colon (-n for
# those without; default 1). Guest RAM: 32 MiB a vCPU, at least 2048 (BT_MEM
# overrides). Images and logs: build/vm/booted/. TCG on 2 host cores: a
# 16-vCPU pair takes about 5 minutes, a 32-vCPU pair 10, a 64-vCPU pair 25.
# -r trixie: Debian trixie's 6.12 (.ko.xz) into a trixie root (systemd 257,
# kmod 34), the image still made by the host's dracut 059; trixie-itools:
# the image by the root's own initramfs-tools; trixie-ng: by dracut-ng; sid:
# a root of Debian unstable (harness/booted/host.sh's BT_SUITE). Images and
# logs in build/vm/booted-SUITE/. The table does not say which: its file
# does (bench/stacks.sh makes one row of each).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
runs=1 smps="16:3 32:3 64:1" suite=bookworm
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-s) smps=$2; shift 2 ;;
	-r) suite=$2; shift 2 ;;
	*) sed -n 's/^# Usage: /usage: /p' "$0" >&2; exit 2 ;;
	esac
done
BT_SUITE=$suite
# shellcheck source=harness/booted/host.sh
. "$top/harness/booted/host.sh"
log() { printf 'booted-storm: %s\n' "$*" >&2; }

bt_setup || { log "setup failed (see $DEB_WORK/setup.log and $DEB_WORK/logs/)"; exit 1; }
out=$DEB_WORK/bench
rm -rf "$out"
mkdir -p "$out"
median() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'
}
mem_default=${BT_MEM:-}
echo "| vCPUs | modpreload | runs | initramfs calls / loaded | booted calls / loaded (failed) | by udev | ENODEV | soft lockups | switch-root (s) | multi-user (s) | udev settled (s) | wall (s) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
ratios=$out/ratios.md
for spec in $smps; do
	smp=${spec%%:*}
	n_runs=$runs
	[ "$spec" = "$smp" ] || n_runs=${spec#*:}
	BT_MEM=${mem_default:-$((smp * 32 > 2048 ? smp * 32 : 2048))}
	n=1
	while [ "$n" -le "$n_runs" ]; do
		for variant in with without; do
			cell=$out/$smp-$variant
			mkdir -p "$cell"
			r=$cell/run$n.txt
			log "$smp vCPUs, run $n of $n_runs, $variant modpreload ($BT_MEM MiB)"
			if ! bt_boot "$r" "$cell/run$n.serial" "$smp" "$variant" 14400; then
				log "  the boot failed: see $cell/run$n.serial"
			fi
			mpt_num initrd.calls "$r" >>"$cell/icalls"
			mpt_num initrd.loads "$r" >>"$cell/iloads"
			mpt_num booted.calls "$r" >>"$cell/bcalls"
			mpt_num booted.loads "$r" >>"$cell/bloads"
			echo $(($(mpt_num booted.calls "$r") - $(mpt_num booted.ok "$r"))) >>"$cell/bfailed"
			mpt_num booted.udev_calls "$r" >>"$cell/udev"
			echo $(($(mpt_num initrd.errno_19 "$r") + $(mpt_num booted.errno_19 "$r"))) >>"$cell/nodev"
			mpt_num soft_lockups "$r" >>"$cell/lockups"
			mpt_num initrd.udev_forks "$r" >>"$cell/iforks"
			mpt_num booted.udev_forks "$r" >>"$cell/bforks"
			echo $((($(mpt_num initrd.failed_read "$r") + $(mpt_num booted.failed_read "$r")) / 1024)) >>"$cell/fread"
			echo $((($(mpt_num initrd.failed_image "$r") + $(mpt_num booted.failed_image "$r")) / 1024)) >>"$cell/fimage"
			echo $(($(mpt_num initrd.failed_decompressed "$r") + $(mpt_num booted.failed_decompressed "$r"))) >>"$cell/fdecomp"
			for k in uptime_switch_root:sr uptime_multi_user:mu uptime_settled:settled host_wall_s:wall; do
				v=$(mpt_get "${k%%:*}" "$r")
				echo "${v:--}" >>"$cell/${k#*:}"
			done
		done
		n=$((n + 1))
	done
	for variant in with without; do
		cell=$out/$smp-$variant
		echo "| $smp | $variant | $n_runs | $(median "$cell/icalls") / $(median "$cell/iloads") | $(median "$cell/bcalls") / $(median "$cell/bloads") ($(median "$cell/bfailed")) | $(median "$cell/udev") | $(median "$cell/nodev") | $(median "$cell/lockups") | $(median "$cell/sr") | $(median "$cell/mu") | $(median "$cell/settled") | $(median "$cell/wall") |"
	done
	ratio() { # FILE: median with / median without
		awk -v a="$(median "$out/$smp-with/$1")" -v b="$(median "$out/$smp-without/$1")" \
			'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "x%.2f", a / b; else print "-" }'
	}
	echo "| $smp | $n_runs | $(ratio sr) | $(ratio mu) | $(ratio settled) |" >>"$ratios"
	for variant in with without; do
		c=$out/$smp-$variant
		echo "| $smp | $variant | $n_runs | $(median "$c/iforks") | $(median "$c/bforks") | $(median "$c/fread") | $(median "$c/fdecomp") | $(median "$c/fimage") |"
	done >>"$out/forks.md"
done
echo
echo "With / without, medians (below 1: sooner with modpreload):"
echo
echo "| vCPUs | runs | switch-root | multi-user | udev settled |"
echo "|---|---|---|---|---|"
cat "$ratios"
echo
echo "udev workers forked (udevd's forks, traced), and what the calls that failed had cost the"
echo "kernel over the whole boot (kprobes): file KiB read, files decompressed, image KiB checked; medians:"
echo
echo "| vCPUs | modpreload | runs | workers forked, initramfs | workers forked, booted | failed calls: KiB read | decompressed by the kernel | image KiB checked |"
echo "|---|---|---|---|---|---|---|---|"
cat "$out/forks.md"
