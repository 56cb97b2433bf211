# shellcheck shell=sh
# Guest helpers of the benchmark (bench/run.sh), sourced after /mpt/lib.sh:
# run one contender over the same requests, time it, and report what the
# kernel saw as "MPT: bench.KEY=VALUE" lines.  What to run comes from the
# kernel command line as bench.KEY=VALUE (bench_arg).
#
# Contenders (bench.mode=):
#   udev      systemd-udevd + `udevadm trigger` (subsystems, then devices)
#             + `udevadm settle`, as dracut coldplugs; rules: 80-drivers.rules
#   modprobe  one sequential `modprobe -a` over the list (mkinitcpio's MODULES)
#   xargs     `xargs -P P -n 1 modprobe`, P = bench.xargs_p (udev's worker
#             count unless told otherwise)
#   waves     `modpreload --waves`
#   dataflow  `modpreload`
#   waves-jN, dataflow-jN   the same with -j N
# Times are milliseconds.  Trace timestamps are turned into guest uptime
# through a trace_marker written when the contender starts.

BENCH_MARK=bench-start

# bench_arg KEY [DEFAULT]: bench.KEY= from the kernel command line
bench_arg() {
	bench_v=$(tr ' ' '\n' </proc/cmdline | sed -n "s/^bench\\.$1=//p" | tail -n 1)
	echo "${bench_v:-${2:-}}"
}

bench_uptime_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

bench_ncpus() {
	grep -c '^processor' /proc/cpuinfo
}

# bench_kprobes: count the bytes each load call reads (kernel_read_file) and
# allocates for module memory (module_alloc up to 6.9, execmem_alloc after),
# so refused duplicates can be charged.  Best effort: "bench.kprobes=" says
# which probes exist.
bench_kprobes() {
	bench_k=$MPT_TRACE/kprobe_events
	bench_got=
	if [ -w "$bench_k" ]; then
		# shellcheck disable=SC2016 # $retval is kprobe syntax
		if echo 'r:mpb/mpb_kread kernel_read_file ret=$retval:s64' >>"$bench_k" 2>/dev/null; then
			bench_got=kread
		fi
		if echo 'p:mpb/mpb_alloc module_alloc size=%di:u64' >>"$bench_k" 2>/dev/null; then
			bench_got="$bench_got module_alloc"
		elif echo 'p:mpb/mpb_alloc execmem_alloc size=%si:u64' >>"$bench_k" 2>/dev/null; then
			bench_got="$bench_got execmem_alloc"
		fi
		if [ -n "$bench_got" ]; then echo 1 >"$MPT_TRACE/events/mpb/enable"; fi
	fi
	BENCH_KPROBES=${bench_got:-none}
	mpt_kv bench.kprobes "$BENCH_KPROBES"
}

# bench_kstats FILE: /sys/kernel/debug/modules/stats' numbers, "Label<TAB>N"
bench_kstats() {
	if [ -r /sys/kernel/debug/modules/stats ]; then
		# one large read: the file is generated per read() call
		dd if=/sys/kernel/debug/modules/stats bs=1M count=1 2>/dev/null |
			awk -F'\t' 'NF == 2 { l = $1; sub(/^ +/, "", l); gsub(/ /, "_", l); print l "\t" $2 + 0 }' >"$1"
	else
		: >"$1"
	fi
}

# bench_kstats_delta BEFORE AFTER: "bench.ks.LABEL=N" for what changed
bench_kstats_delta() {
	[ -s "$2" ] || return 0
	awk -F'\t' 'NR == FNR { b[$1] = $2; next }
		$1 !~ /^Av/ { printf "MPT: bench.ks.%s=%.0f\n", $1, $2 - b[$1] }' "$1" "$2"
}

# bench_kstats_all FILE: the counters and the "Duplicate failed modules"
# table of /sys/kernel/debug/modules/stats, "ks.LABEL<TAB>N" and
# "dup.NAME<TAB>N"
bench_kstats_all() {
	dd if=/sys/kernel/debug/modules/stats bs=1M count=1 2>/dev/null | awk -F'\t' '
	function trim(s) { sub(/^ +/, "", s); sub(/ +$/, "", s); return s }
	NF == 3 && trim($1) != "Module-name" { print "dup." trim($1) "\t" trim($2) + 0 }
	NF == 2 { l = trim($1); gsub(/ /, "_", l); if (l !~ /^Av/) print "ks." l "\t" trim($2) + 0 }' >"$1"
}

# bench_kstats_all_delta PREFIX BEFORE AFTER: "MPT: PREFIX.ks.LABEL=N" for
# every counter, "MPT: PREFIX.dup.NAME=N" for each module whose count changed
bench_kstats_all_delta() {
	awk -F'\t' -v c="$1" 'NR == FNR { b[$1] = $2; next }
		{ d = $2 - b[$1]; if (d != 0 || $1 ~ /^ks\./) printf "MPT: %s.%s=%.0f\n", c, $1, d }' "$2" "$3"
}

# bench_kstats_measure PREFIX COMMAND...: COMMAND between two snapshots of
# the stats: PREFIX.wall_ms, PREFIX.loaded (modules then) and the change
bench_kstats_measure() {
	bench_p=$1
	shift
	bench_kstats_all /tmp/bench-ks0
	bench_t0=$(bench_uptime_ms)
	"$@"
	bench_t1=$(bench_uptime_ms)
	bench_kstats_all /tmp/bench-ks1
	mpt_kv "$bench_p.wall_ms" $((bench_t1 - bench_t0))
	mpt_kv "$bench_p.loaded" "$(wc -l </proc/modules)"
	bench_kstats_all_delta "$bench_p" /tmp/bench-ks0 /tmp/bench-ks1
}

# --- the contenders -----------------------------------------------------------

bench_udev() {
	/lib/systemd/systemd-udevd --daemon --resolve-names=never
	udevadm trigger --type=subsystems --action=add
	udevadm trigger --type=devices --action=add
	udevadm settle --timeout=900
	udevadm control --exit
}

# bench_modprobe_seq LIST: one process, in order; kmod skips what is live
bench_modprobe_seq() {
	xargs "$MPT_KMOD_MODPROBE" -a -b -q <"$1"
}

bench_modprobe_par() {
	xargs -P "$(bench_arg xargs_p $((2 * $(bench_ncpus) + 16)))" -n 1 \
		"$MPT_KMOD_MODPROBE" -b -q <"$1"
}

# bench_modpreload MODE [ARG...]: MODE waves|dataflow, then any of -jN,
# -fifo (--order fifo), -fixed (--pool fixed, the default with -jN), -adaptive
# (--pool adaptive, the default without -jN), -profile (the profile the
# warm-up of bench_each wrote; without it, none); the report goes to
# /run/report.json
bench_modpreload() {
	bench_w=
	case $1 in waves*) bench_w=--waves ;; esac
	bench_p=''
	for bench_o in $(echo "$1" | tr - ' '); do
		case $bench_o in
		j[0-9]*) bench_w="$bench_w -j ${bench_o#j}" ;;
		fifo) bench_w="$bench_w --order fifo" ;;
		fixed) bench_w="$bench_w --pool fixed" ;;
		adaptive) bench_w="$bench_w --pool adaptive" ;;
		profile) bench_p=/run/bench.profile ;;
		esac
	done
	shift
	# Every contender waits for every init(), however slow TCG makes it.
	# shellcheck disable=SC2086 # options, or none
	/sbin/modpreload $bench_w --profile "$bench_p" --profile-out '' \
		-t "$(bench_arg timeout 900)" -r /run/report.json "$@" \
		2>/tmp/modpreload.err
	mpt_kv bench.modpreload_rc $?
}

# bench_coldplug_pass LOADER: modprobe's way of coldplugging every device,
# run again for the devices the first pass made appear (a bus driver's
# children) until none is new: what udev gets from its uevents
bench_coldplug_pass() {
	mpt_coldplug_modaliases >/tmp/req
	: >/tmp/seen
	bench_pass=0
	while [ -s /tmp/req ] && [ "$bench_pass" -lt 4 ]; do
		"$1" /tmp/req
		cat /tmp/req >>/tmp/seen
		mpt_coldplug_modaliases | grep -vxF -f /tmp/seen >/tmp/req
		bench_pass=$((bench_pass + 1))
	done
	mpt_kv bench.passes "$bench_pass"
}

# bench_start: empty the trace, mark it, note the uptime
bench_start() {
	rm -f /run/report.json /tmp/modpreload.err
	: >"$MPT_TRACE/trace"
	echo "$BENCH_MARK" >"$MPT_TRACE/trace_marker"
	BENCH_T0=$(bench_uptime_ms)
}

bench_stop() {
	bench_t1=$(bench_uptime_ms)
	mpt_kv bench.t0_ms "$BENCH_T0"
	mpt_kv bench.end_ms "$bench_t1"
	mpt_kv bench.wall_ms $((bench_t1 - BENCH_T0))
}

# bench_contender MODE SOURCE: run MODE over SOURCE, which is "coldplug"
# (the devices' modaliases) or a file of requests, one a line.
bench_contender() {
	mpt_kv bench.mode "$1"
	bench_start
	case $1:$2 in
	udev:coldplug) bench_udev ;;
	modprobe:coldplug) bench_coldplug_pass bench_modprobe_seq ;;
	xargs:coldplug) bench_coldplug_pass bench_modprobe_par ;;
	waves*:coldplug | dataflow*:coldplug) bench_modpreload "$1" --coldplug ;;
	modprobe:*) bench_modprobe_seq "$2" ;;
	xargs:*) bench_modprobe_par "$2" ;;
	waves*:* | dataflow*:*) bench_modpreload "$1" -c "$2" ;;
	*) mpt_kv bench.error "no contender $1 for $2" ;;
	esac
	bench_stop
}

# bench_unload PREFIX: remove every module whose name starts with PREFIX.
# /proc/modules lists the newest first, and a module is newer than what it
# needs, so one rmmod in that order takes dependents first.
bench_unload() {
	bench_names=$(awk -v p="$1" 'index($1, p) == 1 { print $1 }' /proc/modules)
	# shellcheck disable=SC2086 # a list of names
	if [ -n "$bench_names" ]; then /sbin/rmmod $bench_names; fi
	mpt_kv bench.unload_left "$(grep -c "^$1" /proc/modules)"
}

# bench_each CONTENDERS WHAT PREFIX CALLS [HOOK]: several contenders in one
# boot, for the benchmark's own modules, which unload cleanly: a warm-up
# (modpreload loads and unloads everything once, so no contender pays for
# TCG translating the loader paths first), then for each contender
# "bench.begin=CONTENDER", its run, its numbers, and the unload.  HOOK is
# called before and after each contender with "before" or "after".
bench_each() {
	# the warm-up's times are the profile of the -profile contenders
	/sbin/modpreload -q -t 900 -c "$2" --profile '' --profile-out /run/bench.profile 2>/dev/null
	bench_unload "$3" >/dev/null
	for bench_c in $(echo "$1" | tr , ' '); do
		mpt_kv bench.begin "$bench_c"
		if [ -n "${5:-}" ]; then "$5" before; fi
		bench_contender "$bench_c" "$2"
		if [ -n "${5:-}" ]; then "$5" after; fi
		bench_trace "$4"
		bench_report "$4"
		mpt_proc_count "$3"
		bench_unload "$3"
	done
	mpt_kv bench.begin end
}

# --- what the kernel saw --------------------------------------------------------

# bench_trace [CALLS]: the load syscalls since the marker, from the trace.
#   bench.calls ok failed errno.N    finit_module + init_module calls
#   bench.loaded                     distinct modules in module_load events
#   bench.first_ms                   marker -> first call entered
#   bench.window_ms                  first call entered -> last successful
#                                    call returned (the last module live)
#   bench.live_ms                    uptime when the last module went live
#   bench.read_bytes alloc_bytes     what every call read (kernel_read_file
#                                    + init_module's len) / allocated
#   bench.refused_read_bytes refused_alloc_bytes   the same, failed calls only
#   bench.init_len_bytes refused_init_len_bytes    init_module's len
# The byte counts need bench_kprobes first; each is left out when what it
# needs is missing (no kprobe, and a failed finit_module it would miss).
# With CALLS=1 also one "bench.call=TID,ENTER,EXIT,RET,NAME" per call
# (milliseconds since the marker, RET 0 or an errno, NAME "?" when the
# kernel refused the call before naming the module).
bench_trace() {
	awk -v t0="$BENCH_T0" -v calls="${1:-0}" -v mark="$BENCH_MARK" -v kp="${BENCH_KPROBES:-}" '
	function ts(   i, s) {
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) { s = $i; sub(":", "", s); return s * 1000000 }
		return -1
	}
	function tid(   t) { t = $1; sub(/.*-/, "", t); return t }
	function hexval(s,   i, v) {	# 6.1 prints "0x" before syscall arguments, 6.12 does not
		v = 0
		if (substr(s, 1, 2) == "0x") s = substr(s, 3)
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
		return v
	}
	function errno(s) {	# a syscall return value as traced: 0 or a positive errno
		if (s == "0x0" || s == "0") return 0
		if (length(s) == 18 && substr(s, 1, 14) == "0xffffffffffff") return 65536 - hexval("0x" substr(s, 15, 4))
		return -1
	}
	function field(key,   i, v) {	# "key=VALUE" or "key: VALUE," in this line
		for (i = 1; i <= NF; i++) {
			if (index($i, key "=") == 1) return substr($i, length(key) + 2)
			if ($i == key ":") { v = $(i + 1); sub(",", "", v); sub(/\)$/, "", v); return v }
		}
		return ""
	}
	/^#/ { next }
	index($0, "tracing_mark_write: " mark) { m = ts(); next }
	m == "" { next }
	/ sys_f?init_module\(/ {
		t = tid(); enter[t] = ts(); name[t] = "?"; rd[t] = 0; al[t] = 0; ln[t] = 0
		if ($0 ~ / sys_init_module\(/) ln[t] = hexval(field("len"))
		if (first == "") first = enter[t]
		next
	}
	/ mpb_kread: / { t = tid(); if (t in enter) { v = field("ret") + 0; if (v > 0) rd[t] += v }; next }
	/ mpb_alloc: / { t = tid(); if (t in enter) al[t] += field("size") + 0; next }
	/ module_load: / {
		t = tid()
		for (i = 1; i <= NF; i++) if ($i == "module_load:") n = $(i + 1)
		if (t in enter) name[t] = n
		if (!(n in seen)) { seen[n] = 1; loaded++ }
		next
	}
	/ sys_f?init_module -> / {
		t = tid()
		if (!(t in enter)) next
		e = errno($NF); x = ts()
		ncalls++
		if (e != 0 && $0 ~ / sys_finit_module -> /) ffail++
		if (e == 0) { ok++; lastok = x } else { failed++; err[e]++ }
		readb += rd[t] + ln[t]; allocb += al[t]; initlen += ln[t]
		if (e != 0) { rreadb += rd[t] + ln[t]; rallocb += al[t]; rinitlen += ln[t] }
		if (calls) printf "MPT: bench.call=%s,%.3f,%.3f,%d,%s\n", t, (enter[t] - m) / 1000, (x - m) / 1000, e, name[t]
		delete enter[t]
		next
	}
	END {
		printf "MPT: bench.calls=%d\nMPT: bench.ok=%d\nMPT: bench.failed=%d\nMPT: bench.loaded=%d\n", ncalls, ok, failed, loaded
		for (e in err) printf "MPT: bench.errno.%d=%d\n", e, err[e]
		if (first != "") printf "MPT: bench.first_ms=%d\n", (first - m) / 1000
		if (lastok != "") {
			printf "MPT: bench.window_ms=%d\n", (lastok - first) / 1000
			printf "MPT: bench.live_ms=%d\n", t0 + (lastok - m) / 1000
		}
		if (kp != "" && (index(kp, "kread") || ffail == 0))
			printf "MPT: bench.read_bytes=%.0f\nMPT: bench.refused_read_bytes=%.0f\n", readb, rreadb
		if (index(kp, "alloc"))
			printf "MPT: bench.alloc_bytes=%.0f\nMPT: bench.refused_alloc_bytes=%.0f\n", allocb, rallocb
		printf "MPT: bench.init_len_bytes=%.0f\nMPT: bench.refused_init_len_bytes=%.0f\n", initlen, rinitlen
		if (m == "") print "MPT: bench.error=no trace marker"
	}' "$MPT_TRACE/trace"
}

# bench_report [MODS]: modpreload's JSON report: its totals, and with
# MODS=1 one "bench.mod=NAME,WAVE,STATE,START_MS,END_MS,WORKER" per module
bench_report() {
	[ -r /run/report.json ] || return 0
	sed 's/^modpreload: /MPT: bench.summary=/' /tmp/modpreload.err
	awk -v mods="${1:-0}" '
	function val(   v) { v = $0; sub(/^ *"[a-z_]*": /, "", v); sub(/,$/, "", v); gsub(/"/, "", v); return v }
	/^  "(elapsed_ms|unique|duplicates_collapsed|bytes_read|bytes_not_read|jobs)": / {
		k = $1; gsub(/[":]/, "", k); printf "MPT: bench.report.%s=%s\n", k, val()
	}
	/^  "critical_path": / { cp = 1 }
	cp && /^    "ms": / { printf "MPT: bench.report.critical_path_ms=%s\n", val(); cp = 0 }
	/^  "modules": \[/ { inmods = 1; next }
	inmods && /^  \]/ { inmods = 0 }
	inmods && /^      "(name|wave|state|start_ms|end_ms|worker)": / {
		k = $1; gsub(/[":]/, "", k); f[k] = val()
	}
	inmods && /^    }/ {
		n++; st[f["state"]]++
		if (mods) printf "MPT: bench.mod=%s,%s,%s,%s,%s,%s\n", f["name"], f["wave"], f["state"], f["start_ms"], f["end_ms"], f["worker"]
	}
	END { for (s in st) printf "MPT: bench.report.state.%s=%d\n", s, st[s] }' /run/report.json
}
