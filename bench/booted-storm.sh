#!/bin/sh
# The whole boot, initramfs and booted system, with and without modpreload
# in both (harness/booted/host.sh, the booted-storm VM case's machinery): a
# dracut 059 image with 90modpreload boots Debian's 6.1 into a real Debian
# bookworm root (systemd 252, udev, the full module tree) with
# modpreload-coldplug.service enabled, to multi-user.target; "without" is the
# same image and root with rd.modpreload=0 modpreload.enable=0. From the
# kernel's tracepoints, split at switch-root:
#   initramfs calls / loaded       finit_module calls before switch-root and
#                                  module_load events (modules whose load got
#                                  as far as their init())
#   booted calls / loaded (failed) the same after switch-root, and the calls
#                                  that failed (EEXIST, EBUSY, ENODEV...)
#   by udev                        calls by udev's workers after switch-root
#   ENODEV                         calls answered "no device", whole boot
#   soft lockups                   "soft lockup" lines in the kernel log
#   multi-user (s)                 guest uptime when multi-user.target was
#                                  reached; wall: QEMU start to power-off
# Each cell is the median of the runs. Prints a markdown table on stdout
# (progress on stderr).
#
# Usage: bench/booted-storm.sh [-n RUNS] [-s "32 64 128"]
# Guest RAM: 32 MiB a vCPU, at least 2048 (BT_MEM overrides). Images and
# logs: build/vm/booted/. TCG on 2 host cores: a 32-vCPU boot takes about
# 10 minutes, 128 vCPUs an hour or more; run it on a machine of its own.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
runs=1 smps="32 64 128"
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-s) smps=$2; shift 2 ;;
	*) sed -n 's/^# Usage: /usage: /p' "$0" >&2; exit 2 ;;
	esac
done
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
echo "| vCPUs | modpreload | initramfs calls / loaded | booted calls / loaded (failed) | by udev | ENODEV | soft lockups | multi-user (s) | wall (s) |"
echo "|---|---|---|---|---|---|---|---|---|"
for smp in $smps; do
	BT_MEM=${mem_default:-$((smp * 32 > 2048 ? smp * 32 : 2048))}
	for variant in with without; do
		cell=$out/$smp-$variant
		mkdir -p "$cell"
		n=1
		while [ "$n" -le "$runs" ]; do
			r=$cell/run$n.txt
			log "$smp vCPUs, $variant modpreload, run $n ($BT_MEM MiB)"
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
			mpt_get uptime_multi_user "$r" >>"$cell/mu" || echo - >>"$cell/mu"
			mpt_get host_wall_s "$r" >>"$cell/wall" || echo - >>"$cell/wall"
			n=$((n + 1))
		done
		echo "| $smp | $variant | $(median "$cell/icalls") / $(median "$cell/iloads") | $(median "$cell/bcalls") / $(median "$cell/bloads") ($(median "$cell/bfailed")) | $(median "$cell/udev") | $(median "$cell/nodev") | $(median "$cell/lockups") | $(median "$cell/mu") | $(median "$cell/wall") |"
	done
done
