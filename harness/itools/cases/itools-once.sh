#!/bin/sh
# Debian's initramfs-tools 0.142 (mkinitramfs, its /init, MODULES=most,
# Debian's systemd-udevd) and Debian's 6.1, booted to a real ext4 root
# (harness/itools/host.sh). With MODPRELOAD=y the init-top script loads
# everything before init-top/udev starts udevd: one successful finit_module
# per module, no EEXIST/EBUSY, udev's workers load nothing, the report is in
# /run/modpreload. The boot with modpreload has QEMU's pci-testdev, whose
# driver mpt_slowpci (in the image) sleeps 30 s in init(): the hand-over
# (harness/lib/scenarios/handover.sh) lets /init go on to the root while it
# is still coming, held from udev, loaded once; the root's init waits for
# it before it counts (vm/itools-once/handover-8cpu, 30 s more).
# The switch-late boot (4 vCPUs, the same image and device, mpt.switch=late:
# harness/itools/host.sh's it_run_init) makes /init's switch wait until
# the loader that handed over is done: the loader's end (its holds going,
# its report, blacklist and profile written) falls after /init moved /run
# into the root and before PID 1 is there, where the path /run names the
# initramfs's empty directory. The root must find the report and no hold
# left, mpt_slowpci loaded once (vm/itools-once/switch-late-4cpu, about
# 1 minute).
# Without it (the hook installed, not asked for: the image
# holds no modpreload) udev's coldplug loads the same modules with the
# duplicate storm (make check-full only). 8 vCPUs by default; MP_ITOOLS_CPUS="8 16" for more (the
# README's table). Two images, two boots; about 4 minutes on a busy host
# (plus ~1 minute per image the first time).
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/itools/host.sh
. "$top/harness/itools/host.sh"
# shellcheck source=harness/lib/scenarios/handover.sh
. "$top/harness/lib/scenarios/handover.sh"
name=itools-once

it_prepare_image with yes
# the storm without modpreload: make check-full's (MP_FULL=1)
full=${MP_FULL:-0}
[ "$full" != 1 ] || it_image without no ||
	fail_all "mkinitramfs could not build the images (see $DEB_WORK/logs/)"

for smp in ${MP_ITOOLS_CPUS:-8}; do
	res=$DEB_WORK/logs/with-$smp.txt
	ho_with deb_run "$res" "$DEB_WORK/img/with.img" "$smp" "$(ho_args 30000)"
	deb_check_with "$res" report_run
	eq "vCPUs" "$(mpt_get ncpus "$res")" "$smp"
	mods=$(mpt_num load_modules "$res")
	deb_details "initramfs-tools, modpreload, $smp vCPUs" "$res"
	deb_figure "initramfs-tools $smp modpreload" "$res"
	verdict "$name/modpreload-${smp}cpu" "$(mpt_num finit_enter "$res") calls for $mods modules"
	ho_check "$res" mpt_root run
	ho_details "initramfs-tools, modpreload, hand-over, $smp vCPUs" "$res"
	verdict "$name/handover-${smp}cpu" "$(ho_summary "$res")"
	# the boot without modpreload has no slow device
	[ "$(mpt_num ho.loads "$res")" = 0 ] || mods=$((mods - 1))

	[ "$full" = 1 ] || continue
	res=$DEB_WORK/logs/without-$smp.txt
	deb_run "$res" "$DEB_WORK/img/without.img" "$smp" ""
	deb_check_without "$res" report_run "$mods"
	deb_details "initramfs-tools, without modpreload, $smp vCPUs" "$res"
	deb_figure "initramfs-tools $smp without" "$res"
	verdict "$name/without-${smp}cpu" "udev: $(mpt_num finit_enter "$res") calls, $(mpt_num finit_eexist "$res") EEXIST for $(mpt_num load_modules "$res") modules"
done

# the loader's end between /run's move and the switch
res=$DEB_WORK/logs/switch-late.txt
ho_with deb_run "$res" "$DEB_WORK/img/with.img" 4 "mpt.switch=late $HO_MODULE.delay_ms=300000"
deb_check_with "$res" report_run
eq "a loader running when /init was about to switch" "$(mpt_get switch_found "$res")" 1
waited=$(mpt_num switch_waited_s "$res")
[ "$waited" -lt 60 ] || fail "the switch waited $waited s for the loader, its bound"
eq "hold files left" "$(mpt_get held_left "$res")" 0
eq "$HO_MODULE state" "$(mpt_get "initstate.$HO_MODULE" "$res")" live
eq "$HO_MODULE module_load events" "$(mpt_num "load.$HO_MODULE" "$res")" 1
deb_details "initramfs-tools, modpreload, the switch late, 4 vCPUs" "$res"
verdict "$name/switch-late-4cpu" "a loader running at the switch, which waited $waited s for it; its report and holds where /run went"
