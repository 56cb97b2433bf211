#!/bin/sh
# udev's coldplug storm in a mkinitcpio-style image, with and without the
# modpreload hook: the same image (harness/mkinitcpio/: HOOKS=(base [modpreload]
# udev mpt) MODULES=(ext4), Debian's 6.1 and systemd-udevd 252) booted under
# QEMU/TCG at each vCPU count, the load syscalls counted from the kernel's
# tracepoints.  Prints a markdown table on stdout, progress on stderr.
#
# Usage: bench/mkinitcpio-storm.sh [VCPUS...]     (default: 8 16)
# About a minute per boot at 16 vCPUs on 2 host cores.
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=harness/mkinitcpio/host.sh
. "$top/harness/mkinitcpio/host.sh"

[ $# -gt 0 ] || set -- 8 16
mkc_setup || exit 1
with=$(mkc_image with "base modpreload udev mpt" "ext4") || exit 1
without=$(mkc_image without "base udev mpt" "ext4") || exit 1
mkdir -p "$MKC_DIR/out"

echo "| vCPUs | HOOKS | modules loaded | finit_module calls | EEXIST | EBUSY | calls by udev workers | root reached (guest s) | wall (s) |"
echo "|---|---|---|---|---|---|---|---|---|"
for smp in "$@"; do
	for img in "$without" "$with"; do
		case $img in
		"$with") hooks="base modpreload udev mpt" ;;
		*) hooks="base udev mpt" ;;
		esac
		o=$MKC_DIR/out/bench-$(basename "$img" .img)-smp$smp.txt
		if ! mkc_boot "$img" "$smp" "" "$o"; then
			echo "| $smp | $hooks | boot failed (see stderr) | | | | | | |"
			continue
		fi
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$smp" "$hooks" \
			"$(mpt_num load_modules "$o")" "$(mpt_num finit_enter "$o")" \
			"$(mpt_num finit_eexist "$o")" "$(mpt_num finit_ebusy "$o")" \
			"$(mpt_num "finit_by.(udev-worker)" "$o")" \
			"$(mpt_get root_uptime "$o")" "$(mpt_get host_wall_s "$o")"
	done
done
