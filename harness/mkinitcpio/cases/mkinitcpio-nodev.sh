#!/bin/sh
# mkinitcpio hook, the no-device blacklist, 4 vCPUs: HOOKS=(base modpreload
# udev mpt mptcpu) puts in the image the CPU drivers that `-cpu max`'s
# modalias matches and whose init() finds no device under TCG (acpi_cpufreq,
# powernow_k8, pcc_cpufreq, amd64_edac: harness/mkinitcpio/install/mptcpu).
#   vm/mkinitcpio-nodev   /run/modprobe.d/modpreload-nodev.conf, moved to
#       the root by switch_root, blacklists at least one of them, and each
#       one it names the kernel saw tried at most once (module_load fires
#       before init(); amd64_edac, skipped for edac_mce_amd, not at all):
#       udev's workers, which ask for them once per CPU, asked for none
#       (they may load what devices made after the hand-over ask for);
#       no call refused as a duplicate (EEXIST from a cpufreq driver's
#       init(), while another is registered, is not one); the boot reached
#       the root.
# About 30 s.
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/mkinitcpio/host.sh
. "$top/harness/mkinitcpio/host.sh"

name=mkinitcpio-nodev
mkc_setup || fail_all "setup failed (see stderr)"
img=$(mkc_image nodev "base modpreload udev mpt mptcpu" "ext4") || fail_all "setup failed (see stderr)"
mkdir -p "$MKC_DIR/out"
o=$MKC_DIR/out/nodev.txt
mkc_run "$img" 4 "" "$o"
expect "$o" root_reached -eq 1
bl=$(mpt_get nodev_blacklist "$o")
bl=${bl%,}
ours=0
for m in $(echo "$bl" | tr , ' '); do
	case $m in acpi_cpufreq | powernow_k8 | pcc_cpufreq | amd64_edac) ours=$((ours + 1)) ;; esac
	expect "$o" "load.$m" -le 1
done
[ "$ours" -ge 1 ] || fail "no CPU driver of the image blacklisted (blacklist: '$bl')"
mkc_check_udev "$o" acpi_cpufreq powernow_k8 pcc_cpufreq amd64_edac edac_mce_amd
# no load refused as a duplicate; an EEXIST from a cpufreq driver's own
# init() (cpufreq_register_driver while another one, loading beside it, is
# registered for the moment before it finds no CPU) is no duplicate
expect "$o" finit_eexist_dup -eq 0
for m in $(mpt_get finit_eexist_init_names "$o" | tr , ' '); do
	case $m in acpi_cpufreq | powernow_k8 | pcc_cpufreq) ;;
	*) fail "EEXIST from $m's init()" ;;
	esac
done
echo "mkinitcpio-nodev smp=4: blacklisted $bl; $(mkc_figures "$o") ($(mpt_num finit_eexist_dup "$o") refused as duplicates), ENODEV $(mpt_num finit_errno_19 "$o")" >&2
verdict mkinitcpio-nodev "blacklisted: $bl"
exit 0
