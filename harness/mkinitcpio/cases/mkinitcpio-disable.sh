#!/bin/sh
# mkinitcpio hook, booted with rd.modpreload=0 on the kernel command line
# (the image of mkinitcpio-once, 4 vCPUs):
#   vm/mkinitcpio-disable   the hook runs nothing -- no report in
#       /run/modpreload, the modpreload.d list not loaded, udev's coldplug
#       doing the loading again (EEXIST > 0) -- and the boot reaches the
#       root with every driver bound.
# About 30 s.
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/mkinitcpio/host.sh
. "$top/harness/mkinitcpio/host.sh"

if ! mkc_setup || ! img=$(mkc_image with "base modpreload udev mpt" "ext4"); then
	echo "FAIL: vm/mkinitcpio-disable: setup failed (see stderr)"
	exit 0
fi
o=$MKC_DIR/out/disable.txt
mkdir -p "$MKC_DIR/out"
mkc_boot "$img" 4 "rd.modpreload=0" "$o" || { rc=$?; mkc_why="boot failed: $(mpt_boot_why "$rc" "$o")"; }
mkc_expect "$o" root_reached -eq 1
mkc_expect_is "$o" report absent
mkc_expect "$o" proc.mpt_params -eq 0
mkc_expect "$o" finit_eexist -gt 0
mkc_expect "$o" param.mpt_drv.probed -eq 16
mkc_expect "$o" param.mpt_drv2.probed -eq 4
mkc_expect "$o" proc.ext4 -eq 1
printf 'mkinitcpio-disable smp=4: %s; root at %s s\n' "$(mkc_figures "$o")" \
	"$(mkc_get root_uptime "$o")" >&2
mkc_verdict mkinitcpio-disable "udev alone: $(mkc_figures "$o")"
exit 0
