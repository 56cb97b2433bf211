# shellcheck shell=sh
# Sourced by the root's init (harness/init/guest/init-root.sh) in the arm64-init
# case, after the common report: what the arm64 boot needs beyond it.
#   cpu_modalias           cpu0's MODALIAS (cpu:type:aarch64:feature:...)
#   dt_compatible          the machine's device-tree compatible
#   modalias.N             every device's MODALIAS (the host resolves them)
#   modaliases.of/pci/cpu  how many of each kind
#   report.duplicates_collapsed  from the report
#   proc.NAME, load.NAME   /proc/modules and module_load events per module
#   initstate.mpt_hang     coming: its init() still runs
#   state.NAME, error.NAME the report's state and errno name per module
mpt_kv cpu_modalias "$(sed -n 's/^MODALIAS=//p' /sys/devices/system/cpu/cpu0/uevent)"
mpt_kv dt_compatible "$(tr '\0' ' ' </proc/device-tree/compatible 2>/dev/null)"
# (the root is read-only: /run is the place to write)
mpt_coldplug_modaliases | sort >/run/mpt-modaliases
awk '{ printf "MPT: modalias.%d=%s\n", NR, $0 }' /run/mpt-modaliases
for k in of pci cpu; do
	mpt_kv "modaliases.$k" "$(grep -c "^$k:" /run/mpt-modaliases)"
done
sed -n 's/^  "\(duplicates_collapsed\)": \([0-9]*\),$/MPT: report.\1=\2/p' /run/modpreload/report.json
mpt_loaded mpt_spawn mpt_drv mpt_drv2 mpt_drvlib mpt_fail mpt_fail_child mpt_hang mpt_hang_child
# every module in /proc/modules: the host matches them against the aliases
awk '{ printf "MPT: live.%s=1\n", $1 }' /proc/modules
mpt_trace_loads
mpt_initstate mpt_hang
mpt_param mpt_drv probed
mpt_param mpt_drv2 probed
# the report's modules: "state.NAME=STATE" and "error.NAME=ENAME"
awk -F'"' '$2 == "name" { n = $4 } $2 == "state" && n != "" { printf "MPT: state.%s=%s\n", n, $4 }
	$2 == "error" && n != "" { printf "MPT: error.%s=%s\n", n, $4 }' /run/modpreload/report.json 2>/dev/null
