#!/bin/sh
# tier: full
# mkinitcpio hook in a systemd image, booted: HOOKS=(base systemd modpreload
# mpt) MODULES=(ext4) through harness/mkinitcpio/ (its systemd hook: Debian's
# systemd 252 as /init, systemd-udevd, journald), 4 vCPUs.
#   vm/mkinitcpio-systemd   modpreload.service ran before systemd-udevd and
#       systemd-modules-load: every module loaded by exactly one
#       finit_module call, by modpreload but for what devices made after the
#       hand-over ask for (mkc_check_udev); the root reached
#       through systemd's switch-root; the second-level devices bound; the
#       image's modpreload.d list loaded; the report in /run/modpreload.
#   vm/mkinitcpio-systemd-handover   the same boot has QEMU's pci-testdev,
#       whose driver mpt_slowpci (in the image) sleeps 30 s in init():
#       modpreload.service hands over (READY=1) and the boot switches root
#       while it is still coming; its holder survives systemd's switch-root,
#       it is held from udev and loaded once (harness/lib/scenarios/
#       handover.sh; 30 s more)
# About 70 s.
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/mkinitcpio/host.sh
. "$top/harness/mkinitcpio/host.sh"
# shellcheck source=harness/lib/scenarios/handover.sh
. "$top/harness/lib/scenarios/handover.sh"

name=mkinitcpio-systemd
mkc_setup || fail_all "setup failed (see stderr)"
img=$(mkc_image systemd "base systemd modpreload mpt" "ext4") || fail_all "setup failed (see stderr)"
o=$MKC_DIR/out/systemd.txt
mkdir -p "$MKC_DIR/out"
ho_with mkc_run "$img" 4 "$(ho_args 30000)" "$o"
modules=$(mpt_num load_modules "$o")
expect "$o" root_reached -eq 1
expect "$o" root_pid -eq 1
expect "$o" load_modules -ge 20
expect "$o" finit_enter -eq "$modules"
expect "$o" finit_ok -eq "$modules"
expect "$o" finit_eexist -eq 0
expect "$o" finit_ebusy -eq 0
expect "$o" load_dups -eq 0
expect "$o" proc_count -eq "$modules"
mkc_check_udev "$o"
expect "$o" finit_by.systemd_udevd -eq 0
expect "$o" finit_by.modpreload -ge 20
expect "$o" param.mpt_drv.probed -eq 16
expect "$o" param.mpt_drv2.probed -eq 4
expect "$o" proc.ext4 -eq 1
expect "$o" proc.mpt_params -eq 1
expect_is "$o" report present
expect "$o" report.failed -eq 0
printf 'mkinitcpio-systemd smp=4: %s (modpreload %s, systemd PID 1 %s); root at %s s\n' \
	"$(mkc_figures "$o")" "$(mpt_num finit_by.modpreload "$o")" \
	"$(mpt_num finit_by.systemd "$o")" "$(mpt_get root_uptime "$o")" >&2
verdict mkinitcpio-systemd "$(mkc_figures "$o")"
ho_check "$o" mpt_root run
ho_details "mkinitcpio, systemd, modpreload.service, hand-over, 4 vCPUs" "$o"
verdict mkinitcpio-systemd-handover "$(ho_summary "$o")"
exit 0
