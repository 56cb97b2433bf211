#!/bin/sh
# tier: full
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

name=mkinitcpio-disable
mkc_setup || fail_all "setup failed (see stderr)"
img=$(mkc_image with "base modpreload udev mpt" "ext4") || fail_all "setup failed (see stderr)"
o=$MKC_DIR/out/disable.txt
mkdir -p "$MKC_DIR/out"
mkc_run "$img" 4 "rd.modpreload=0" "$o"
expect "$o" root_reached -eq 1
expect_is "$o" report absent
expect "$o" proc.mpt_params -eq 0
expect "$o" finit_eexist -gt 0
expect "$o" param.mpt_drv.probed -eq 16
expect "$o" param.mpt_drv2.probed -eq 4
expect "$o" proc.ext4 -eq 1
printf 'mkinitcpio-disable smp=4: %s; root at %s s\n' "$(mkc_figures "$o")" \
	"$(mpt_get root_uptime "$o")" >&2
verdict mkinitcpio-disable "udev alone: $(mkc_figures "$o")"
exit 0
