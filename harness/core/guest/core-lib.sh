# shellcheck shell=sh
# Guest helpers of the core-* cases (sourced after /mpt/lib.sh).

# core_calls: one line per load syscall in the trace buffer,
#   "MPT: call.NAME=ENTER_US,EXIT_US,RET,TID,SYSCALL,FLAGS"
# NAME is the module_load event inside that call ("?TID" when the call
# failed before the kernel named the module). Times are trace timestamps
# in microseconds; RET is the syscall's return value as traced; SYSCALL is
# finit or init; FLAGS finit_module's flags (4: compressed), "-" for init.
# The trace is $MPT_TRACE's (lib.sh's; scripts/lint-awk.sh points it at a
# sample). The times print with %.0f: busybox awk's %d wraps past 2^31 (an
# uptime of 2147 s), mawk's stops there.
core_calls() {
	awk '
	function ts(   i, s) {
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) { s = $i; sub(":", "", s); return int(s * 1000000) }
		return -1
	}
	function tid(   t) { t = $1; sub(/.*-/, "", t); return t }
	/^#/ { next }
	/ sys_f?init_module\(/ {
		t = tid(); enter[t] = ts(); name[t] = ""
		kind[t] = ($0 ~ / sys_finit_module\(/) ? "finit" : "init"
		fl[t] = "-"
		if (match($0, /flags: [0-9a-fx]+/)) fl[t] = substr($0, RSTART + 7, RLENGTH - 7)
		next
	}
	/ module_load: / {
		t = tid()
		for (i = 1; i <= NF; i++) if ($i == "module_load:") name[t] = $(i + 1)
		next
	}
	/ sys_f?init_module -> / {
		t = tid()
		if (t in enter)
			printf "MPT: call.%s=%.0f,%.0f,%s,%s,%s,%s\n", (name[t] == "" ? "?" t : name[t]),
				enter[t], ts(), $NF, t, kind[t], fl[t]
		delete enter[t]
		next
	}' "${MPT_TRACE:-/sys/kernel/tracing}/trace"
}

core_trace_clear() {
	: >"${MPT_TRACE:-/sys/kernel/tracing}/trace"
}

# core_report FILE [PREFIX]: the report's numbers as MPT lines.
core_report() {
	p=${2:-report}
	if [ ! -r "$1" ]; then
		mpt_kv "$p.missing" 1
		return
	fi
	for s in loaded live builtin failed skipped hung; do
		mpt_kv "$p.$s" "$(grep -c "\"state\": \"$s\"" "$1")"
	done
	mpt_kv "$p.mpt_modules" "$(grep -c '"name": "mpt_' "$1")"
	for k in total coldplug uevent argument cmdline config blacklisted missing refused unique \
		duplicates_collapsed bytes_not_read; do
		mpt_kv "$p.$k" "$(sed -n "s/^ *\"$k\": \\([0-9]*\\),*$/\\1/p" "$1" | head -n 1)"
	done
}

# core_state FILE NAME: "state.NAME=..." from the report.
core_state() {
	mpt_kv "state.$2" "$(awk -v n="\"name\": \"$2\"," '
		index($0, n) { f = 1 }
		f && /"state":/ { gsub(/[",]/, "", $2); print $2; exit }' "$1")"
}

# core_run NAME ARGS...: runs modpreload, prints NAME.rc, NAME.ms and its
# stderr as NAME.err lines.
core_run() {
	n=$1
	shift
	t0=$(cut -d' ' -f1 /proc/uptime)
	/sbin/modpreload "$@" 2>/tmp/core.err
	rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	mpt_kv "$n.rc" "$rc"
	mpt_kv "$n.ms" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')"
	sed "s/^/MPT: $n.err=/" /tmp/core.err
}
