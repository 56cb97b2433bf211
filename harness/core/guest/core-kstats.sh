# shellcheck shell=sh
# The kernel's own module statistics (CONFIG_MODULE_STATS): a storm of
# per-request modprobe leaves failed loads behind; modpreload, asked for
# other modules just as many times, leaves the failure counters alone, and
# its report's before/after delta is what the kernel's file says. Last, a
# dry run asking for every live module twice: modpreload's estimate of what
# one refused duplicate of each costs, to set against what the storm cost.
# shellcheck source=/dev/null
. /mpt/core-lib.sh
stats() { mpt_modstats | sed "s/^MPT: modstats/MPT: $1/"; }

stats s0
round=0
while [ $round -lt 5 ]; do
	round=$((round + 1))
	i=0
	while [ $i -lt 12 ]; do
		$MPT_KMOD_MODPROBE ext4 &
		$MPT_KMOD_MODPROBE mpt_fan0$((i % 8)) &
		i=$((i + 1))
	done
	wait
	failed=$(dd if=/sys/kernel/debug/modules/stats bs=1M count=1 2>/dev/null |
		awk -F'\t' '/Mods failed on becoming|Mods failed on load/ { n += $2 } END { print n + 0 }')
	[ "$failed" -gt 0 ] && break
	# nothing raced this time: unload and storm again
	awk '{ print $1 }' /proc/modules | while read -r m; do rmmod "$m" 2>/dev/null; done
	awk '{ print $1 }' /proc/modules | while read -r m; do rmmod "$m" 2>/dev/null; done
done
mpt_kv storm_rounds "$round"
stats s1

core_trace_clear
set --
i=0
while [ $i -lt 16 ]; do
	set -- "$@" mpt_chain9 mpt_dia_top mpt_soft_main mpt_fan40 mpt_fan41
	i=$((i + 1))
done
core_run mp --coldplug -r /run/r.json "$@"
stats s2
core_report /run/r.json
mpt_trace_counts
# the report's kernel_stats.delta, as kdelta.Label_with_underscores=N
awk '/"delta": \{/ { f = 1; next } f && /\}/ { exit }
	f { l = $0; sub(/^ *"/, "", l); v = l; sub(/".*/, "", l); gsub(/ /, "_", l)
	    sub(/.*: /, "", v); sub(/,$/, "", v); print "MPT: kdelta." l "=" v }' /run/r.json
mpt_compression

set --
while read -r m _; do set -- "$@" "$m" "$m"; done </proc/modules
/sbin/modpreload -n -q --no-kstats -r /run/est.json "$@"
awk '/^      "(name|size|duplicate_cost_bytes)": / { k = $1; gsub(/[":]/, "", k); v = $2; gsub(/[",]/, "", v); f[k] = v }
	/^    }/ && f["name"] != "" { printf "MPT: est.%s=%s,%s\n", f["name"], f["size"], f["duplicate_cost_bytes"]; delete f }' /run/est.json
