# shellcheck shell=sh
# make demo's guest: load what this VM's devices ask for, one way or the
# other (mpt.demo= on the kernel command line), and report what the
# kernel saw: the load syscalls, and on a kernel with CONFIG_MODULE_STATS
# its own counters before and after (ks0.*, ks1.*).
#   naive:      one `modprobe` per device modalias, as udev's coldplug
#               does, as many at once as udev would run (8 + 2 per CPU)
#   modpreload: `modpreload --coldplug --estimate` (the estimate: the report's
#               duplicate_cost, for the 6.1 row)
mode=$(sed -n 's/.*mpt\.demo=\([a-z]*\).*/\1/p' /proc/cmdline)
mpt_coldplug_modaliases >/tmp/aliases
mpt_kv devices_with_modalias "$(wc -l </tmp/aliases)"
mpt_kv cpus "$(grep -c ^processor /proc/cpuinfo)"
mpt_modstats >/tmp/ks0 && sed 's/^MPT: modstats/MPT: ks0/' /tmp/ks0
t0=$(mpt_uptime)
case $mode in
naive)
	workers=$((8 + 2 * $(grep -c ^processor /proc/cpuinfo)))
	xargs -P "$workers" -n 1 "$MPT_KMOD_MODPROBE" -b -q </tmp/aliases
	;;
modpreload)
	/sbin/modpreload --coldplug --estimate -r /run/report.json 2>/tmp/err
	mpt_kv modpreload_rc $?
	sed 's/^modpreload: /MPT: summary=/' /tmp/err
	sed -n 's/^  "\(duplicates_collapsed\|bytes_not_read\|unique\)": \([0-9]*\),$/MPT: report.\1=\2/p' /run/report.json
	# its estimate of what the duplicates would have cost the kernel
	sed -n '/^  "duplicate_cost": {/,/^  }/s/^    "\(bytes\|duplicates\)": \([0-9]*\),*$/MPT: report.dupcost_\1=\2/p' /run/report.json
	# the report itself, for the host to keep and analyze
	base64 /run/report.json | sed 's/^/MPT: report_b64=/'
	;;
esac
t1=$(mpt_uptime)
mpt_modstats >/tmp/ks1 && sed 's/^MPT: modstats/MPT: ks1/' /tmp/ks1
mpt_kv wall_ms "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')"
mpt_trace_counts
mpt_proc_count
# first load syscall entered -> last one returned, from the trace
awk '/^#/ { next }
	/ sys_f?init_module[(]/ || / sys_f?init_module -> / {
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i; sub(":", "", t) }
		if (first == "") first = t
		last = t
	}
	END { if (first != "") printf "MPT: load_window_ms=%d\n", (last - first) * 1000 }' \
	/sys/kernel/tracing/trace
