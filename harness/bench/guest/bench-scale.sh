# shellcheck shell=sh
# bench/scale.sh, on the kernel with CONFIG_MODULE_STATS: what this VM's
# devices and CPUs ask for, loaded two ways in one boot, each time from
# nothing (everything unloaded between), with the kernel's own
# /sys/kernel/debug/modules/stats before and after each:
#   modpreload  `modpreload --coldplug --estimate` (goes first: the cold
#               system; --estimate for the report's duplicate_cost)
#   modprobe    what udev's coldplug does: one `modprobe` per device
#               modalias, as many at once as udevd has workers (2 per CPU
#               + 16); this image's kmod 30 decompresses in userspace and
#               calls init_module, which 6.12 never merges
# Lines: scale.ncpus, scale.devices, scale.cpu_aliases; per contender C
# scale.C.ks.LABEL=N (the counters' change), scale.C.dup.NAME=N (the
# "Duplicate failed modules" counts' change), scale.C.wall_ms; modpreload's
# report as scale.report.KEY=N and scale.mod=NAME,REQUESTS_WITH_DEPS,SIZE,COST,STATE.
# shellcheck source=/dev/null
. /mpt/bench-lib.sh

unload_all() {
	for _ in 1 2 3; do
		awk '{ print $1 }' /proc/modules | while read -r scale_m; do rmmod "$scale_m" 2>/dev/null; done
	done
	mpt_kv "scale.left_after_unload" "$(wc -l </proc/modules)"
}

# run CONTENDER COMMAND...: one contender between two snapshots
run() {
	scale_c=$1
	shift
	bench_kstats_measure "scale.$scale_c" "$@"
}

per_device() {
	mpt_coldplug_modaliases >/tmp/aliases
	xargs -P "$(bench_arg xargs_p $((2 * $(bench_ncpus) + 16)))" -n 1 \
		"$MPT_KMOD_MODPROBE" -b -q <"/tmp/aliases"
}

mpt_kv scale.ncpus "$(bench_ncpus)"
mpt_kv scale.devices "$(mpt_coldplug_modaliases | wc -l)"
mpt_kv scale.cpu_aliases "$(mpt_coldplug_modaliases | grep -c '^cpu:')"
mpt_kv scale.compression "$(cat /sys/module/compression 2>/dev/null)"

run modpreload /sbin/modpreload -q -t 900 --coldplug --estimate -r /run/report.json
# modpreload's own account: its estimate, and per module what it costs
awk '
	function val(   v) { v = $0; sub(/^ *"[a-z_]*": /, "", v); sub(/,$/, "", v); gsub(/"/, "", v); return v }
	/^  "(unique|duplicates_collapsed|duplicates_with_dependencies)": / {
		k = $1; gsub(/[":]/, "", k); printf "MPT: scale.report.%s=%s\n", k, val()
	}
	/^  "duplicate_cost": \{/ { dc = 1; next }
	dc && /^    "(duplicates|bytes)": / { k = $1; gsub(/[":]/, "", k); printf "MPT: scale.report.dupcost_%s=%s\n", k, val() }
	dc && /^  \}/ { dc = 0 }
	/^      "(name|size|duplicate_cost_bytes|requests_with_dependents|state)": / { k = $1; gsub(/[":]/, "", k); f[k] = val() }
	/^    }/ && f["name"] != "" {
		printf "MPT: scale.mod=%s,%s,%s,%s,%s\n", f["name"], f["requests_with_dependents"], f["size"], f["duplicate_cost_bytes"], f["state"]
		delete f
	}' /run/report.json
unload_all
run modprobe per_device
mpt_proc_count
