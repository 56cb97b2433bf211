#!/bin/sh
# mkinitcpio hook, booted: an image made through mkinitcpio(8)'s hook API
# (harness/mkinitcpio/) with HOOKS=(base modpreload udev mpt) MODULES=(ext4),
# Debian's 6.1 and its systemd-udevd 252, at 8 and 16 vCPUs (MKC_SMP), to an
# ext4 root disk whose /sbin/init counts the load syscalls.
#   vm/mkinitcpio-once-smpN    every module loaded by exactly one
#       finit_module call (calls == successful calls == modules loaded ==
#       /proc/modules, no EEXIST/EBUSY, no init_module, no module_load twice,
#       every call made by modpreload and none by a udev worker),
#       the root reached as PID 1, the second-level devices bound (16
#       mpt-dev, 4 mpt-dev2), the image's modpreload.d list loaded
#       (mpt_params), the report in /run/modpreload agreeing
#   vm/mkinitcpio-once-handover-smpN   the same boot has QEMU's
#       pci-testdev, whose driver mpt_slowpci (in the image) sleeps 30 s in
#       init(): the hand-over lets the early hook return and /init go on to
#       the root while it is still coming, held from udev, loaded once; the
#       root's init waits for it before it counts
#       (harness/lib/scenarios/handover.sh; 30 s more)
#   vm/mkinitcpio-storm-smpN   the same image without modpreload in HOOKS
#       reaches the root with the same drivers bound and shows udev's
#       coldplug duplicates (EEXIST > 0): the storm the hook removes; at 8
#       vCPUs only (MKC_STORM_SMP: the 16-vCPU pair is
#       bench/mkinitcpio-storm.sh's, whose table is what shows its size)
# About 2.5 minutes (MKC_SMP=8: about 1.5).
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/mkinitcpio/host.sh
. "$top/harness/mkinitcpio/host.sh"
# shellcheck source=harness/lib/scenarios/handover.sh
. "$top/harness/lib/scenarios/handover.sh"

name=mkinitcpio-once
mkc_setup || fail_all "setup failed (see stderr)"
with=$(mkc_image with "base modpreload udev mpt" "ext4") || fail_all "image build failed (see stderr)"
without=$(mkc_image without "base udev mpt" "ext4") || fail_all "image build failed (see stderr)"

out=$MKC_DIR/out
mkdir -p "$out"
# make check: the hook at 8 vCPUs; check-full adds 16 and the storm without it
if [ "${MP_FULL:-0}" = 1 ]; then
	MKC_SMP=${MKC_SMP:-8 16}
else
	MKC_SMP=${MKC_SMP:-8} MKC_STORM_SMP=${MKC_STORM_SMP-}
fi
for smp in $MKC_SMP; do
	o=$out/once-smp$smp.txt
	s=$out/storm-smp$smp.txt
	ho_with mkc_run "$with" "$smp" "$(ho_args 30000)" "$o"
	modules=$(mpt_num load_modules "$o")
	expect "$o" root_reached -eq 1
	expect "$o" root_pid -eq 1
	expect "$o" ncpus -eq "$smp"
	check_once "$o" live
	# every call made by modpreload's early hook, none by udev's workers
	expect "$o" finit_by.modpreload -eq "$modules"
	expect "$o" load_modules -ge 20
	expect "$o" param.mpt_drv.probed -eq 16
	expect "$o" param.mpt_drv2.probed -eq 4
	expect "$o" proc.virtio_blk -eq 1
	expect "$o" proc.ext4 -eq 1
	expect "$o" proc.mpt_params -eq 1
	expect_is "$o" report present
	expect "$o" report.loaded -eq "$modules"
	expect "$o" report.failed -eq 0
	printf 'mkinitcpio-once smp=%s with modpreload: %s; root at %s s, %s s wall\n' "$smp" \
		"$(mkc_figures "$o")" "$(mpt_get root_uptime "$o")" "$(mpt_get host_wall_s "$o")" >&2
	verdict "mkinitcpio-once-smp$smp" "$(mkc_figures "$o")"
	ho_check "$o" mpt_root run
	ho_details "mkinitcpio, modpreload, hand-over, $smp vCPUs" "$o"
	verdict "mkinitcpio-once-handover-smp$smp" "$(ho_summary "$o")"
	# the boot without the hook has no slow device
	slow=$(mpt_num ho.loads "$o")
	[ "$slow" -le 1 ] || slow=1

	case " ${MKC_STORM_SMP-8} " in *" $smp "*) ;; *) continue ;; esac
	mkc_run "$without" "$smp" "" "$s"
	expect "$s" root_reached -eq 1
	expect_is "$s" report absent
	expect "$s" param.mpt_drv.probed -eq 16
	expect "$s" param.mpt_drv2.probed -eq 4
	expect "$s" finit_eexist -gt 0
	expect "$s" finit_by._udev_worker_ -gt 0
	expect "$s" finit_ok -eq "$(mpt_num load_modules "$s")"
	# the same modules but the modpreload.d one (and the slow device's)
	expect "$s" load_modules -eq $((modules - 1 - slow))
	printf 'mkinitcpio-once smp=%s without modpreload: %s; root at %s s, %s s wall\n' "$smp" \
		"$(mkc_figures "$s")" "$(mpt_get root_uptime "$s")" "$(mpt_get host_wall_s "$s")" >&2
	verdict "mkinitcpio-storm-smp$smp" "without the hook: $(mkc_figures "$s")"
done
exit 0
