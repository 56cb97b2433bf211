#!/bin/sh
# mkinitcpio hook, the no-device blacklist, 4 vCPUs: HOOKS=(base modpreload
# udev mpt mptcpu) puts in the image the CPU drivers that `-cpu max`'s
# modalias matches and whose init() finds no device under TCG (acpi_cpufreq,
# powernow_k8, pcc_cpufreq, amd64_edac: harness/mkinitcpio/install/mptcpu).
#   vm/mkinitcpio-nodev   /run/modprobe.d/modpreload-nodev.conf, moved to
#       the root by switch_root, blacklists at least one of them, and each
#       one it names the kernel saw tried at most once (module_load fires
#       before init(); amd64_edac, skipped for edac_mce_amd, not at all):
#       udev's workers, which ask for them once per CPU, asked for none;
#       the boot reached the root.
# About 30 s.
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/mkinitcpio/host.sh
. "$top/harness/mkinitcpio/host.sh"

if ! mkc_setup || ! img=$(mkc_image nodev "base modpreload udev mpt mptcpu" "ext4"); then
	echo "FAIL: vm/mkinitcpio-nodev: setup failed (see stderr)"
	exit 0
fi
mkdir -p "$MKC_DIR/out"
o=$MKC_DIR/out/nodev.txt
mkc_boot "$img" 4 "" "$o" || { rc=$?; mkc_why="boot failed: $(mpt_boot_why "$rc" "$o")"; }
mkc_expect "$o" root_reached -eq 1
bl=$(mpt_get nodev_blacklist "$o")
bl=${bl%,}
ours=0
for m in $(echo "$bl" | tr , ' '); do
	case $m in acpi_cpufreq | powernow_k8 | pcc_cpufreq | amd64_edac) ours=$((ours + 1)) ;; esac
	mkc_expect "$o" "load.$m" -le 1
done
[ "$ours" -ge 1 ] || mkc_why="$mkc_why${mkc_why:+; }no CPU driver of the image blacklisted (blacklist: '$bl')"
mkc_expect "$o" "finit_by.(udev-worker)" -eq 0
mkc_expect "$o" finit_eexist -eq 0
echo "mkinitcpio-nodev smp=4: blacklisted $bl; $(mkc_figures "$o"), ENODEV $(mkc_num finit_errno_19 "$o")" >&2
mkc_verdict mkinitcpio-nodev "blacklisted: $bl"
exit 0
