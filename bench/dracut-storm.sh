#!/bin/sh
# The udev coldplug storm in a dracut initramfs, with and without the
# modpreload dracut module: Debian's dracut 059 (--no-hostonly, its
# kernel-modules set plus the mpt_* second-level coldplug test modules),
# Debian's 6.1, QEMU/TCG, booted to the same ext4 root
# (harness/dracut/host.sh), systemd and dracut's shell init, 8 and 16
# vCPUs. "without" is an image made without `--add modpreload`, otherwise
# identical. Prints a markdown table on stdout (progress on stderr):
#   finit_module     calls made during the boot (the tracepoints)
#   EEXIST / EBUSY   of those, refused because the module was already
#                    live / still coming
#   modules          distinct modules loaded (module_load events)
#   by udev          calls made by udev's workers
#   loads done       kernel start to the return of the last finit_module
#                    call before the root's init (guest seconds)
#   root init        kernel start to the root's /sbin/init (guest seconds)
#   wall             QEMU start to power-off
# Each cell is the median of the runs.
#
# Usage: bench/dracut-storm.sh [-n RUNS] [-s "8 16"] [-i "systemd shell"]
# Images and logs: build/vm/dracut/ (shared with harness/dracut/cases/dracut-*).
# About 1 minute a boot: 8 boots a run with the defaults.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
runs=1 smps="8 16" inits="systemd shell"
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-s) smps=$2; shift 2 ;;
	-i) inits=$2; shift 2 ;;
	*) sed -n 's/^# Usage: /usage: /p' "$0" >&2; exit 2 ;;
	esac
done
# shellcheck source=harness/dracut/host.sh
. "$top/harness/dracut/host.sh"
log() { printf 'dracut-storm: %s\n' "$*" >&2; }

deb_setup || { log "setup failed (see $DEB_WORK/setup.log)"; exit 1; }
for init in $inits; do
	# "systemd" is the tests' image too; "shell" here carries no lists
	dr_image "$init" "$init" yes || exit 1
	dr_image "$init-without" "$init" no || exit 1
done

out=$DEB_WORK/bench
rm -rf "$out"
mkdir -p "$out"
# median FILE: the middle line of FILE's numbers
median() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'
}
echo "| init | vCPUs | modpreload | finit_module | EEXIST | EBUSY | modules | by udev | loads done (s) | root init (s) | wall (s) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for init in $inits; do
	for smp in $smps; do
		for variant in with without; do
			img=$DEB_WORK/img/$init.img
			[ "$variant" = with ] || img=$DEB_WORK/img/$init-without.img
			cell=$out/$init-$smp-$variant
			mkdir -p "$cell"
			n=1
			while [ "$n" -le "$runs" ]; do
				r=$cell/run$n.txt
				log "$init, $smp vCPUs, $variant modpreload, run $n"
				if ! deb_boot "$r" "$cell/run$n.serial" "$img" "$smp" "" 600; then
					log "  the boot failed: see $cell/run$n.serial"
				fi
				mpt_num finit_enter "$r" >>"$cell/calls"
				mpt_num finit_eexist "$r" >>"$cell/eexist"
				mpt_num finit_ebusy "$r" >>"$cell/ebusy"
				mpt_num load_modules "$r" >>"$cell/modules"
				deb_udev_calls "$r" >>"$cell/udev"
				mpt_get finit_last_s "$r" >>"$cell/last" || echo - >>"$cell/last"
				mpt_get root_uptime "$r" >>"$cell/root" || echo - >>"$cell/root"
				mpt_get host_wall_s "$r" >>"$cell/wall" || echo - >>"$cell/wall"
				n=$((n + 1))
			done
			echo "| $init | $smp | $variant | $(median "$cell/calls") | $(median "$cell/eexist") | $(median "$cell/ebusy") | $(median "$cell/modules") | $(median "$cell/udev") | $(median "$cell/last") | $(median "$cell/root") | $(median "$cell/wall") |"
		done
	done
done
