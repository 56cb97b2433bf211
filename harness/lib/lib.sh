# shellcheck shell=sh
# Helpers for guest scripts, sourced inside the test image (busybox ash) as
# /mpt/lib.sh; the image's /init sources it before it runs the guest script.
# Every helper reports on the console as "MPT: key=value" lines, which
# harness/lib/run.sh picks out of the serial log and harness/lib/hostlib.sh parses.
#
# Busybox runs its own applet for a bare `modprobe` even when kmod's is on
# PATH: call kmod's by full path, as $MPT_KMOD_MODPROBE.

MPT_TRACE=${MPT_TRACE:-/sys/kernel/tracing}
export MPT_KMOD_MODPROBE=/sbin/modprobe

# mpt_kv KEY VALUE...: print one result line.
mpt_kv() {
	mpt_k=$1
	shift
	echo "MPT: $mpt_k=$*"
}

# mpt_name NAME: module name as the kernel spells it (- becomes _).
mpt_name() {
	echo "$1" | tr - _
}

mpt_uptime() {
	cut -d' ' -f1 /proc/uptime
}

# mpt_trace_counts: syscall and module_load counts from the trace buffer.
#   finit_enter finit_exit finit_ok finit_eexist finit_ebusy finit_other
#   init_enter  init_exit  init_ok  init_eexist  init_ebusy  init_other
#   load_total (module_load events)  load_modules (distinct names)
#   load_dups (module_load events beyond the first per name)
#   finit_errno_N / init_errno_N for every errno N seen (ENOENT: finit_errno_2)
#   finit_eexist_dup: EEXIST for a module already loaded or loading (the
#     call formed none: no module_load event in that task since its entry);
#   finit_eexist_init: EEXIST from the module's own init() (it formed, so
#     it is no duplicate: a cpufreq driver while another is registered),
#     finit_eexist_init_names=a,b, those modules (init_ likewise)
#   trace_entries / trace_written: differ when the ring buffer overflowed
mpt_trace_counts() {
	if [ ! -r "$MPT_TRACE/trace" ]; then
		mpt_kv trace_error "no $MPT_TRACE/trace"
		return 1
	fi
	awk '
	function hexval(s,    i, c, v) {	# "0x..." with at most 4 hex digits
		v = 0
		for (i = 3; i <= length(s); i++) {
			c = index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
			v = v * 16 + c
		}
		return v
	}
	function ret(s, kind,    e) {	# s: the "0x..." return value
		x[kind "_exit"]++
		if (s == "0x0") { x[kind "_ok"]++; return }
		if (length(s) == 18 && substr(s, 1, 14) == "0xffffffffffff")
			e = 65536 - hexval("0x" substr(s, 15, 4))
		else
			e = "positive"
		if (e == 17) x[kind "_eexist"]++
		else if (e == 16) x[kind "_ebusy"]++
		else x[kind "_other"]++
		x[kind "_errno_" e]++
	}
	/^# entries-in-buffer/ {
		split($3, a, "/"); entries = a[1]; written = a[2]; next
	}
	function task(    t) {	# "comm-pid", the calling task
		t = $0; sub(/^ */, "", t); sub(/ +\[[0-9]+\].*/, "", t); return t
	}
	function eexist(kind,    t) {	# after ret(): which EEXIST was it
		t = task()
		if (formed[t] == "") { x[kind "_eexist_dup"]++; return }
		x[kind "_eexist_init"]++
		names[kind] = names[kind] (names[kind] == "" ? "" : ",") formed[t]
	}
	/^#/ { next }
	/ sys_finit_module\(/ { x["finit_enter"]++; formed[task()] = ""; next }
	/ sys_finit_module -> / {
		ret($NF, "finit"); if ($NF == "0xffffffffffffffef") eexist("finit"); next
	}
	/ sys_init_module\(/ { x["init_enter"]++; formed[task()] = ""; next }
	/ sys_init_module -> / {
		ret($NF, "init"); if ($NF == "0xffffffffffffffef") eexist("init"); next
	}
	/ module_load: / {
		for (i = 1; i <= NF; i++) if ($i == "module_load:") break
		n = $(i + 1)
		formed[task()] = n
		x["load_total"]++
		if (n in seen) x["load_dups"]++; else x["load_modules"]++
		seen[n] = 1
		next
	}
	END {
		split("finit_enter finit_exit finit_ok finit_eexist finit_ebusy finit_other " \
		      "init_enter init_exit init_ok init_eexist init_ebusy init_other " \
		      "load_total load_modules load_dups", k, " ")
		for (i = 1; i in k; i++) { printf "MPT: %s=%d\n", k[i], x[k[i]]; done[k[i]] = 1 }
		for (key in x) if (!(key in done)) printf "MPT: %s=%d\n", key, x[key]
		for (key in names) printf "MPT: %s_eexist_init_names=%s\n", key, names[key]
		printf "MPT: trace_entries=%s\nMPT: trace_written=%s\n", entries, written
	}' "$MPT_TRACE/trace"
}

# mpt_trace_callers: who called the load syscalls and who loaded what, from
# the trace buffer, per calling program C (the task column's COMM-PID,
# "<...>-PID" when the trace no longer remembers the name; C is COMM in
# lower case, each character other than [a-z0-9_] an "_": "(udev-worker)"
# is _udev_worker_, systemd-udevd systemd_udevd):
#   finit_by.C=N finit_fail_by.C=N finit_eexist_by.C=N finit_max_inflight.C=N
#   init_by.C=N loaded_by.C=a,b (module_load events, in order)
#   finit_first_s, finit_last_s, init_last_s (trace times)
#   eexist_trace LINE, each finit_module call that returned EEXIST
#   finit_merged=N finit_merged_by.C=N: finit_module calls that succeeded
#     with no module_load of their own (a kernel of 6.5 or later gave them
#     the result of a load of the same file in flight)
mpt_trace_callers() {
	awk 'function task(   t) { t = $0; sub(/^ */, "", t); sub(/ +\[[0-9]+\].*/, "", t); return t }
	function comm(t) {
		t = task(); sub(/-[0-9]+$/, "", t)
		t = tolower(t); gsub(/[^a-z0-9_]/, "_", t); return t
	}
	function ts(    i) {
		for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) return $i + 0
	}
	/^#/ { next }
	/ sys_finit_module\(/ {
		c = comm(); n[c]++
		if (++cur[c] > max[c]) max[c] = cur[c]
		if (first == "") first = ts()
		k = task(); inl[k] = 1; made[k] = 0
		next
	}
	/ sys_finit_module -> / {
		c = comm(); cur[c]--; last = ts()
		k = task()
		if ($NF == "0x0" && inl[k] && !made[k]) { merged++; mg[c]++ }
		inl[k] = 0
		if ($NF != "0x0") f[c]++
		if ($NF == "0xffffffffffffffef") { e[c]++; printf "MPT: eexist_trace %s\n", $0 }
		next
	}
	/ sys_init_module\(/ { ic[comm()]++; next }
	/ sys_init_module -> / { ilast = ts(); next }
	/ module_load: / {
		for (i = 1; i <= NF; i++) if ($i == "module_load:") break
		c = comm(); m[c] = m[c] (m[c] == "" ? "" : ",") $(i + 1)
		made[task()] = 1
	}
	END {
		printf "MPT: finit_merged=%d\n", merged
		for (c in mg) printf "MPT: finit_merged_by.%s=%d\n", c, mg[c]
		for (c in n) printf "MPT: finit_by.%s=%d\n", c, n[c]
		for (c in n) printf "MPT: finit_max_inflight.%s=%d\n", c, max[c]
		for (c in f) printf "MPT: finit_fail_by.%s=%d\n", c, f[c]
		for (c in e) printf "MPT: finit_eexist_by.%s=%d\n", c, e[c]
		for (c in m) printf "MPT: loaded_by.%s=%s\n", c, m[c]
		if (first != "") printf "MPT: finit_first_s=%.2f\nMPT: finit_last_s=%.2f\n", first, last
		for (c in ic) printf "MPT: init_by.%s=%d\n", c, ic[c]
		if (ilast != "") printf "MPT: init_last_s=%.2f\n", ilast
	}' "$MPT_TRACE/trace"
}

# mpt_trace_loads [NAME...]: "load.NAME=N", the module_load events per
# module: for the names given (0 when absent), or for every module seen.
mpt_trace_loads() {
	mpt_names=
	for mpt_n in "$@"; do mpt_names="$mpt_names $(mpt_name "$mpt_n")"; done
	awk -v names="$mpt_names" '
	/^#/ { next }
	/ module_load: / {
		for (i = 1; i <= NF; i++) if ($i == "module_load:") break
		c[$(i + 1)]++
	}
	END {
		if (names != "") {
			n = split(names, w, " ")
			for (i = 1; i <= n; i++) printf "MPT: load.%s=%d\n", w[i], c[w[i]]
		} else {
			for (m in c) printf "MPT: load.%s=%d\n", m, c[m]
		}
	}' "$MPT_TRACE/trace"
}

# mpt_trace_order NAME...: "order=a,b,c", the order of the module_load
# events of the named modules (all modules when none named).
mpt_trace_order() {
	mpt_names=
	for mpt_n in "$@"; do mpt_names="$mpt_names $(mpt_name "$mpt_n")"; done
	awk -v names="$mpt_names" '
	BEGIN { n = split(names, w, " "); for (i = 1; i <= n; i++) want[w[i]] = 1 }
	/^#/ { next }
	/ module_load: / {
		for (i = 1; i <= NF; i++) if ($i == "module_load:") break
		m = $(i + 1)
		if (n == 0 || (m in want)) out = out (out == "" ? "" : ",") m
	}
	END { printf "MPT: order=%s\n", out }' "$MPT_TRACE/trace"
}

# mpt_loaded NAME...: "proc.NAME=1" when NAME is in /proc/modules, else 0.
mpt_loaded() {
	for mpt_n in "$@"; do
		mpt_n=$(mpt_name "$mpt_n")
		if grep -q "^$mpt_n " /proc/modules; then
			mpt_kv "proc.$mpt_n" 1
		else
			mpt_kv "proc.$mpt_n" 0
		fi
	done
}

# mpt_proc_count [PREFIX]: "proc_count=N" modules in /proc/modules (whose
# name starts with PREFIX: "proc_count.PREFIX=N").
mpt_proc_count() {
	if [ $# -eq 0 ]; then
		mpt_kv proc_count "$(wc -l </proc/modules)"
	else
		mpt_kv "proc_count.$1" "$(grep -c "^$1" /proc/modules)"
	fi
}

# mpt_initstate NAME...: "initstate.NAME=live|coming|going", "builtin"
# (a /sys/module dir without initstate, or listed in modules.builtin) or
# "none".
mpt_initstate() {
	for mpt_n in "$@"; do
		mpt_n=$(mpt_name "$mpt_n")
		if [ -r "/sys/module/$mpt_n/initstate" ]; then
			mpt_kv "initstate.$mpt_n" "$(cat "/sys/module/$mpt_n/initstate")"
		elif [ -d "/sys/module/$mpt_n" ]; then
			mpt_kv "initstate.$mpt_n" builtin
		else
			mpt_kv "initstate.$mpt_n" none
		fi
	done
}

# mpt_param MODULE PARAM: "param.MODULE.PARAM=VALUE" (or "<none>").
mpt_param() {
	mpt_n=$(mpt_name "$1")
	if [ -r "/sys/module/$mpt_n/parameters/$2" ]; then
		mpt_kv "param.$mpt_n.$2" "$(cat "/sys/module/$mpt_n/parameters/$2")"
	else
		mpt_kv "param.$mpt_n.$2" "<none>"
	fi
}

# mpt_compression: "compression=gzip|xz|zstd" (in-kernel decompression) or
# "none".
mpt_compression() {
	if [ -r /sys/module/compression ]; then
		mpt_kv compression "$(cat /sys/module/compression)"
	else
		mpt_kv compression none
	fi
}

# mpt_modstats: /sys/kernel/debug/modules/stats (CONFIG_MODULE_STATS) as
# "modstats.Label_with_underscores=N" lines and "modstats_dup.NAME=N
# Reason" for the duplicate-failure table; "modstats=none" without it.
mpt_modstats() {
	mpt_f=/sys/kernel/debug/modules/stats
	if [ ! -r "$mpt_f" ]; then
		mpt_kv modstats none
		return 1
	fi
	mpt_kv modstats present
	# One large read: the file is generated per read() call.
	dd if="$mpt_f" bs=1M count=1 2>/dev/null | awk -F'\t' '
	function trim(s) { sub(/^ +/, "", s); sub(/ +$/, "", s); return s }
	NF == 3 && trim($1) != "Module-name" {
		printf "MPT: modstats_dup.%s=%s %s\n", trim($1), trim($2), trim($3)
	}
	NF == 2 {
		l = trim($1); gsub(/ /, "_", l)
		printf "MPT: modstats.%s=%s\n", l, trim($2)
	}'
}

# mpt_dmesg_mpt: the test modules' "mpt: ..." kernel messages as
# "kmsg=..." lines (quiet boots keep them off the console).
mpt_dmesg_mpt() {
	dmesg | sed -n 's/^\[[^]]*\] //; s/^mpt: /MPT: kmsg=/p'
}

# mpt_seq_of NAME: the init order a mpt_seq user (mpt_soft_*) recorded,
# as "seq.NAME=N" (0 when not loaded).
mpt_seq_of() {
	for mpt_n in "$@"; do
		mpt_n=$(mpt_name "$mpt_n")
		if [ -r "/sys/module/$mpt_n/parameters/seq" ]; then
			mpt_kv "seq.$mpt_n" "$(cat "/sys/module/$mpt_n/parameters/seq")"
		else
			mpt_kv "seq.$mpt_n" 0
		fi
	done
}

# mpt_coldplug_modaliases: every MODALIAS= of the devices in /sys, one a
# line (what a coldplugging loader would look up).
mpt_coldplug_modaliases() {
	find /sys/devices -name uevent -type f -exec sed -n 's/^MODALIAS=//p' {} + 2>/dev/null
}

# mpt_modstate NAME: live, coming, going, builtin or none (mpt_initstate's
# word, without the key).
mpt_modstate() {
	if [ -r "/sys/module/$1/initstate" ]; then
		cat "/sys/module/$1/initstate"
	elif [ -d "/sys/module/$1" ]; then
		echo builtin
	else
		echo none
	fi
}

# mpt_held_files: the hand-over's holds, /run/modprobe.d/modpreload-held-X.conf,
# as "X,Y" (empty when none).
mpt_held_files() {
	for mpt_f in /run/modprobe.d/modpreload-held-*.conf; do
		[ -e "$mpt_f" ] || continue
		mpt_f=${mpt_f##*/modpreload-held-}
		printf '%s,' "${mpt_f%.conf}"
	done | sed 's/,$//'
}

# mpt_loader_procs: how many modpreload processes there are: by their name,
# or by an argv[0] that starts with "@" (a hand-over's holder that must
# outlive the initramfs: the standalone /init's child is named "init", as
# the root's own init is). One whose main thread is gone (a zombie kept by
# a thread stuck in a hung init()) has finished its work and is not counted.
mpt_loader_procs() {
	{
		grep -l modpreload /proc/[0-9]*/comm
		grep -l '^@' /proc/[0-9]*/cmdline
	} 2>/dev/null | sed 's|/[a-z]*$|/stat|' | awk '!s[$0]++' | while read -r mpt_s; do
		# "PID (COMM) STATE ...": the state follows the last ')'
		sed -n 's/.*) \([A-Z]\).*/\1/p' "$mpt_s" 2>/dev/null
	done | grep -c '[^Z]'
}

# mpt_wait_loaders BOUND_S: wait until no modpreload process is left
# (mpt_loader_procs), at most BOUND_S seconds (240 will do: the hand-over's
# own wait for udev's queue is bounded at 180 s). A loader that handed over
# writes its report only once its holds are gone, and those wait for udev's
# queue to have been empty 3 s: a root that read the report at once would
# race it. Prints loaders_wait_s and loaders_left.
mpt_wait_loaders() {
	mpt_wl_t0=$(cut -d. -f1 /proc/uptime)
	while [ "$(mpt_loader_procs)" -gt 0 ] &&
		[ $(($(cut -d. -f1 /proc/uptime) - mpt_wl_t0)) -lt "$1" ]; do
		sleep 1
	done
	mpt_kv loaders_wait_s $(($(cut -d. -f1 /proc/uptime) - mpt_wl_t0))
	mpt_kv loaders_left "$(mpt_loader_procs)"
}

# mpt_handover [MARKER [written]]: for the hand-over cases, which put
# mpt.handover=NAME on the kernel command line (nothing otherwise): write
# MARKER (default mpt_root) into the trace now (unless the caller just
# did: "written"), then wait until NAME is no
# longer coming, no modpreload process is left and udev (if there is one)
# is idle, for 6 s in a row (at most mpt.handover_wait= seconds, default
# 900), and report:
#   ho.module, ho.marker, ho.uptime_marker   what, where, when
#   ho.state_at_marker, ho.held_at_marker    NAME's initstate and the held
#                                            files when the marker was written
#   ho.released                              1: NAME was coming and has a
#                                            "release" parameter, set then (once
#                                            udev, if any, is idle) to end its
#                                            init() (mpt_slowpci)
#   ho.waited_s, ho.timed_out                the wait
#   ho.state, ho.held_left, ho.procs_left    after it: NAME's initstate, the
#                                            held files left, modpreloads left
#   ho.rep.TAG.handover=present|null|missing, ho.rep.TAG.held=a,b,
#   ho.rep.TAG.at_ms=N, ho.rep.TAG.replayed=N  the "handover" object of each
#                                            report there is (TAG initramfs:
#                                            /run/initramfs/modpreload.json,
#                                            run: /run/modpreload/report.json,
#                                            booted: /run/modpreload/booted.json)
#   ho.kmsg UPTIME LINE                      modpreload's kernel log lines
#                                            about the hand-over
#   and mpt_trace_module NAME's lines.
mpt_handover() {
	mpt_ho=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^mpt\.handover=//p' | sed -n '$p')
	[ -n "$mpt_ho" ] || return 0
	mpt_ho_bound=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^mpt\.handover_wait=//p' | sed -n '$p')
	[ -r "$MPT_TRACE/trace_marker" ] || mount -t tracefs tracefs "$MPT_TRACE" 2>/dev/null
	[ "${2:-}" = written ] || echo "${1:-mpt_root}" >"$MPT_TRACE/trace_marker"
	mpt_kv ho.uptime_marker "$(mpt_uptime)"
	mpt_kv ho.module "$mpt_ho"
	mpt_kv ho.marker "${1:-mpt_root}"
	mpt_kv ho.state_at_marker "$(mpt_modstate "$mpt_ho")"
	mpt_kv ho.held_at_marker "$(mpt_held_files)"
	# seen what the case is about: a module that can end its init() early
	# (mpt_slowpci's parameters/release) need not be waited out. Once udev
	# (if there is one) is idle: its coldplug has met the held module, so
	# that a failing variant's replay is the only event owed
	if command -v udevadm >/dev/null 2>&1; then udevadm settle --timeout=300 2>/dev/null; fi
	if [ "$(mpt_modstate "$mpt_ho")" = coming ] && [ -w "/sys/module/$mpt_ho/parameters/release" ] &&
		echo 1 >"/sys/module/$mpt_ho/parameters/release"; then
		mpt_ho_rel=1
	else
		mpt_ho_rel=0
	fi
	mpt_kv ho.released "$mpt_ho_rel"
	mpt_ho_t0=$(cut -d. -f1 /proc/uptime)
	mpt_ho_stable=0
	mpt_ho_out=0
	while [ "$mpt_ho_stable" -lt 6 ]; do
		if [ $(($(cut -d. -f1 /proc/uptime) - mpt_ho_t0)) -ge "${mpt_ho_bound:-900}" ]; then
			mpt_ho_out=1
			break
		fi
		sleep 1
		# a later load of it (a failing variant's replay) is released too
		# once seen; before udev's settle, which waits for that load's event
		if [ "$mpt_ho_rel" = 1 ] && [ "$(mpt_modstate "$mpt_ho")" = coming ] &&
			[ -w "/sys/module/$mpt_ho/parameters/release" ]; then
			echo 1 >"/sys/module/$mpt_ho/parameters/release" 2>/dev/null
		fi
		if command -v udevadm >/dev/null 2>&1; then udevadm settle --timeout=10 2>/dev/null; fi
		if [ "$(mpt_modstate "$mpt_ho")" = coming ] || [ "$(mpt_loader_procs)" -gt 0 ]; then
			mpt_ho_stable=0
		else
			mpt_ho_stable=$((mpt_ho_stable + 1))
		fi
	done
	mpt_kv ho.waited_s $(($(cut -d. -f1 /proc/uptime) - mpt_ho_t0))
	mpt_kv ho.timed_out "$mpt_ho_out"
	mpt_kv ho.state "$(mpt_modstate "$mpt_ho")"
	mpt_kv ho.held_left "$(mpt_held_files)"
	mpt_kv ho.procs_left "$(mpt_loader_procs)"
	for mpt_r in initramfs:/run/initramfs/modpreload.json run:/run/modpreload/report.json \
		booted:/run/modpreload/booted.json; do
		[ -s "${mpt_r#*:}" ] || continue
		# the report is indented JSON; "handover" is null or a flat object
		tr '\n' ' ' <"${mpt_r#*:}" | awk -v tag="${mpt_r%%:*}" '{
			p = "MPT: ho.rep." tag "."
			i = index($0, "\"handover\":")
			if (i == 0) { print p "handover=missing"; exit }
			s = substr($0, i + 11); sub(/^ +/, "", s)
			if (substr(s, 1, 4) == "null") { print p "handover=null"; exit }
			s = substr(s, 1, index(s, "}"))
			print p "handover=present"
			a = s; sub(/.*"at_ms": */, "", a); sub(/[^0-9.].*/, "", a)
			h = s; sub(/.*"held": *\[/, "", h); sub(/\].*/, "", h); gsub(/[" ]/, "", h)
			r = s; sub(/.*"replayed": */, "", r); sub(/[^0-9].*/, "", r)
			print p "at_ms=" a
			print p "held=" h
			print p "replayed=" r
		}'
	done
	# modpreload's own words on it (a quiet boot keeps them off the console)
	dmesg | sed -n 's/^\[ *\([0-9.]*\)\] \(modpreload.*\)/MPT: ho.kmsg \1 \2/p' | grep -i -e hand -e held -e replay -e switched -e 'every init'
	mpt_trace_module "$mpt_ho"
}

# mpt_trace_module NAME: NAME's load calls in the trace, each finit_module
# or init_module call that made NAME's module_load event (they happen in the
# calling task, between its enter and its exit):
#   ho.loads=N                      module_load events of NAME
#   ho.calls=N, ho.calls.KIND=N     the calls, by who made them: modpreload
#                                   (or "init": the standalone /init is
#                                   modpreload), udev (its workers),
#                                   modprobe, other
#   ho.call.I=KIND COMM ENTER EXIT ERRNO   the I-th, in the order they ended
#                                   (uptimes in s; ERRNO 0 on success)
#   ho.waiters=N, ho.waiter_list    calls that made no module but entered
#                                   while the first call was in the kernel
#                                   and left with it (within 2 s): duplicates
#                                   waiting for NAME (6.1 reads and allocates
#                                   first; 6.5+ merges them)
#   ho.mark.M=UPTIME                each trace marker M, its first time
mpt_trace_module() {
	awk -v name="$(mpt_name "$1")" '
	function task(    t) { t = $0; sub(/^ */, "", t); sub(/ +\[[0-9]+\].*/, "", t); return t }
	function comm(t) { sub(/-[0-9]+$/, "", t); return t }
	function kind(c) {
		if (c ~ /modpreload/ || c == "init") return "modpreload"
		if (c ~ /udev/) return "udev"
		if (c ~ /modprobe/) return "modprobe"
		return "other"
	}
	function ts(    i) { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) return $i + 0 }
	function errno(s,    i, v) {
		if (s == "0x0") return 0
		if (length(s) != 18 || substr(s, 1, 14) != "0xffffffffffff") return "positive"
		v = 0
		for (i = 15; i <= 18; i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return 65536 - v
	}
	/^#/ { next }
	/ tracing_mark_write: / {
		m = $0; sub(/.* tracing_mark_write: */, "", m); sub(/ +$/, "", m)
		if (!(m in mark)) { mark[m] = ts(); printf "MPT: ho.mark.%s=%.6f\n", m, mark[m] }
		next
	}
	/ sys_f?init_module\(/ { t = task(); open[t] = ts(); formed[t] = ""; next }
	/ sys_f?init_module -> / {
		t = task()
		if (!(t in open)) next
		c = comm(t); k = kind(c)
		if (formed[t] == name) {
			n++; kc[k]++
			printf "MPT: ho.call.%d=%s %s %.6f %.6f %s\n", n, k, c, open[t], ts(), errno($NF)
			if (n == 1) { fen = open[t]; fex = ts() }
		} else if (formed[t] == "") {
			u++; uen[u] = open[t]; uex[u] = ts(); uc[u] = c
		}
		delete open[t]
		next
	}
	/ module_load: / {
		for (i = 1; i <= NF; i++) if ($i == "module_load:") break
		if ($(i + 1) == name) loads++
		t = task()
		if (t in open) formed[t] = $(i + 1)
	}
	END {
		w = 0; wl = ""
		for (i = 1; i <= u && n > 0; i++)
			if (uen[i] >= fen && uen[i] <= fex && uex[i] >= fex - 2 && uex[i] <= fex + 2) {
				w++; wl = wl (wl == "" ? "" : ",") uc[i]
			}
		printf "MPT: ho.loads=%d\nMPT: ho.calls=%d\n", loads, n
		split("modpreload udev modprobe other", ks, " ")
		for (i = 1; i in ks; i++) printf "MPT: ho.calls.%s=%d\n", ks[i], kc[ks[i]]
		printf "MPT: ho.waiters=%d\nMPT: ho.waiter_list=%s\n", w, wl
	}' "$MPT_TRACE/trace"
}

mpt_poweroff() {
	sync
	echo o >/proc/sysrq-trigger 2>/dev/null
	sleep 5
	poweroff -f
}
