#!/bin/sh
# The report and the other output: the dry run's plan, output that cannot
# be written, the report's file, link and fifo, kernel stats, UTF-8.
# Cases of tests/unit/cli.sh (t_NAME reports as cli/NAME), sourced by it
# after cli/lib.sh: setup, run, check and the other helpers are there.
# shellcheck disable=SC2034,SC2154 # RULES, OTHER: read by run; t, rc, bin...: set by cli.sh, lib.sh

# The dry run loads nothing, needs nothing, and prints the plan as JSON.
t_dry_run() {
	setup 'a\nb a\nc b\n'
	LD_PRELOAD=$shim MP_SHIM_LOG=$t/log "$bin" -n -d "$t/root" -S 1.0 --sysfs "$t/sys" \
		--cmdline '' --no-default-config c >"$t/out" 2>"$t/err"
	rc=$?
	check "exit 0" eq "$rc" 0
	check "no calls" eq "$(calls)" 0
	check "planned" eq "$(jq -r '[.modules[].state] | unique | join(",")' "$t/out")" planned
	check "waves" eq "$(jq -c '[.waves[].modules]' "$t/out")" '[["a"],["b"],["c"]]'
	check "why" eq "$(jq -r '.modules[] | select(.name=="a") | .why' "$t/out")" "dependency of c"
	check "critical path" eq "$(jq -c .critical_path.modules "$t/out")" '["a","b","c"]'
}

# What the duplicates would have cost the kernel: only when asked for
# (--estimate) or in a dry run, since it opens every module asked for twice
# again; otherwise null in the report and not in the summary. a is asked
# for three times (b needs it), b twice: three duplicates.
t_estimate() {
	setup 'a\nb a\n'
	run b b a
	check "off: exit 0" eq "$rc" 0
	check "off: null" eq "$(jq -c .duplicate_cost "$t/r.json")" null
	check "off: null per module" eq "$(jq -c '[.modules[].duplicate_cost_bytes] | unique' "$t/r.json")" '[null]'
	check "off: not in the summary" not grep -q 'a loader per request' "$t/err"
	rm -rf "${t:?}/sys/module"/*
	run --estimate b b a
	check "on: exit 0" eq "$rc" 0
	check "on: duplicates" eq "$(jq .duplicate_cost.duplicates "$t/r.json")" 3
	check "on: bytes" [ "$(jq .duplicate_cost.bytes "$t/r.json")" -gt 0 ]
	check "on: a's cost" [ "$(jq '.modules[] | select(.name=="a") | .duplicate_cost_bytes' "$t/r.json")" -gt 0 ]
	check "on: in the summary" grep -q 'a loader per request .* for the 3 duplicates' "$t/err"
	rm -rf "${t:?}/sys/module"/*
	run -n b b a
	check "dry run: on" eq "$(jq .duplicate_cost.duplicates "$t/r.json")" 3
}

# The kernel's statistics before and after, and the delta.
t_kstats() {
	setup 'a\n'
	mkdir -p "$t/sys/kernel/debug/modules"
	cp "$top/tests/data/kstats-clean.txt" "$t/sys/kernel/debug/modules/stats"
	run a
	check "before" eq "$(jq '.kernel_stats.before["Mods ever loaded"]' "$t/r.json")" 66
	check "delta 0" eq "$(jq '.kernel_stats.delta["Failed becoming bytes"]' "$t/r.json")" 0
	run --no-kstats a
	check "--no-kstats" eq "$(jq .kernel_stats "$t/r.json")" null
}

# A stats file without the counters the summary names (another kernel's
# labels, or garbage): the summary says only what it found, or nothing.
t_kstats_labels() {
	setup 'a\n'
	mkdir -p "$t/sys/kernel/debug/modules"
	printf '%25s\t%u\n' 'Something else' 5 'Other label' 7 >"$t/sys/kernel/debug/modules/stats"
	run a
	check "exit 0" eq "$rc" 0
	check "other labels: no stats line" eq "$(grep -c 'kernel module stats' "$t/err")" 0
	check "other labels: in the report" eq "$(jq '.kernel_stats.after["Other label"]' "$t/r.json")" 7
	check "nothing but text logged" eq "$(LC_ALL=C grep -c '[^[:print:][:space:]]' "$t/err")" 0
	printf '%25s\t%u\n' 'Other label' 7 'Mods failed on load' 3 >"$t/sys/kernel/debug/modules/stats"
	run a
	check "one label: exactly it" eq "$(grep 'kernel module stats' "$t/err")" \
		"modpreload: kernel module stats during the run: Mods failed on load +0"
	printf 'garbage \377\001 here\nno number\n\t\t7 x\n' >"$t/sys/kernel/debug/modules/stats"
	run a
	check "garbage: exit 0" eq "$rc" 0
	check "garbage: said so" grep -q "modules/stats: cannot parse" "$t/err"
	check "garbage: no stats line" eq "$(grep -c 'kernel module stats' "$t/err")" 0
}

# Output that cannot be written is an error that names the output and the
# errno, with exit status 4; the modules are loaded all the same.
t_output() {
	setup 'a\n'
	# a plan far bigger than a pipe holds: head leaves while it is written
	i=0
	while [ $i -lt 3000 ]; do echo "not a name $i"; i=$((i + 1)); done >"$t/many.conf"
	{
		"$bin" -n -d "$t/root" -S 1.0 --sysfs "$t/sys" --cmdline '' --no-default-config \
			-c "$t/many.conf" a 2>"$t/err"
		echo $? >"$t/rc"
	} | head -c 10 >"$t/head"
	check "head got its 10 bytes" eq "$(wc -c <"$t/head")" 10
	check "closed pipe: exit 4" eq "$(cat "$t/rc")" 4
	check "closed pipe: says so" grep -q "standard output: cannot write the report: Broken pipe (EPIPE)" "$t/err"
	# (an index is blamed by its file's name; the summary counts indexes)
	check "closed pipe: no blame on an index" eq "$(grep -c 'modules\.[a-z.]*bin' "$t/err")" 0
	LD_PRELOAD=$shim MP_SHIM_SYSFS=$t/sys MP_SHIM_LOG=$t/log "$bin" -d "$t/root" -S 1.0 \
		--sysfs "$t/sys" --cmdline "$t/cmdline" --no-default-config -r - a >/dev/full 2>"$t/err"
	rc=$?
	check "full disk: exit 4" eq "$rc" 4
	check "full disk: says so" grep -q "standard output: cannot write the report: No space left on device (ENOSPC)" "$t/err"
	check "full disk: a loaded all the same" live a
	setup 'a\n'
	run -r "$t/log/r.json" a
	check "report path under a file: exit 4" eq "$rc" 4
	check "report path under a file: names it" grep -q "$t/log/r.json.*: cannot write the report: Not a directory (ENOTDIR)" "$t/err"
	"$bin" --help >/dev/full 2>"$t/err"
	check "--help to a full disk: exit 4" eq "$?" 4
	check "--help to a full disk: says so" grep -q "standard output: No space left on device" "$t/err"
}

# The report is written beside its path and renamed into place; a symlink
# planted where the temporary file used to be is never followed.
t_report_tmp() {
	setup 'a\n'
	echo untouched >"$t/victim"
	ln -s "$t/victim" "$t/r.json.tmp"
	run a
	check "exit 0" eq "$rc" 0
	check "the link's target unchanged" eq "$(cat "$t/victim")" untouched
	check "the report is a file, not the link" eq "$(stat -c %F "$t/r.json")" "regular file"
	check "the report is whole" eq "$(jq -r '.modules[0].state' "$t/r.json")" loaded
	check "readable by all, as before" eq "$(stat -c %a "$t/r.json")" 644
	check "no temporary file left" eq "$(find "$t" -maxdepth 1 -name 'r.json?*' ! -name r.json.tmp | wc -l)" 0
}

# A report path that is not a regular file is written where it points (a
# device, a fifo, the caller's link), never replaced by a renamed file: as
# root, -r /dev/stderr would otherwise put a file where the link was.
t_report_link() {
	setup 'a\n'
	ln -s "$t/target.json" "$t/r.json"
	: >"$t/target.json"
	run a
	check "exit 0" eq "$rc" 0
	check "the link is still a link" [ -L "$t/r.json" ]
	check "the report went where it points" eq "$(jq -r '.modules[0].state' "$t/target.json")" loaded
	mkfifo "$t/fifo"
	# bounded: a loader that renamed a file over the fifo never opens it
	timeout 120 cat "$t/fifo" >"$t/fifo.out" &
	# the loader opens a fifo without blocking (no reader: ENXIO, exit 4),
	# so the reader must hold it open first
	n=0
	while [ $n -lt 200 ] && ! find /proc/[0-9]*/fd -lname "$t/fifo" 2>/dev/null | grep -q .; do
		sleep 0.05
		n=$((n + 1))
	done
	run a -r "$t/fifo"
	wait
	check "through a fifo: exit 0" eq "$rc" 0
	check "the fifo is still a fifo" [ -p "$t/fifo" ]
	check "the report came through the fifo" eq "$(jq -r '.modules[0].name' "$t/fifo.out")" a
}

# A report whose directory cannot be made says mkdir's errno (here EROFS,
# a read-only mount), not the ENOENT of the file it then cannot create.
t_report_rofs() {
	setup 'a\n'
	mkdir -p "$t/ro"
	# shellcheck disable=SC2016 # expanded by the inner shell
	LD_PRELOAD=$shim MP_SHIM_SYSFS=$t/sys MP_SHIM_LOG=$t/log unshare -m sh -c \
		'mount -t tmpfs -o ro none "$1/ro" && shift && exec "$@"' _ "$t" \
		"$bin" -d "$t/root" -S 1.0 --sysfs "$t/sys" --cmdline "$t/cmdline" \
		--no-default-config -r "$t/ro/sub/r.json" a >"$t/out" 2>"$t/err"
	rc=$?
	check "exit 4" eq "$rc" 4
	check "a loaded all the same" live a
	check "mkdir's errno" grep -q "$t/ro/sub/r.json: cannot write the report: Read-only file system (EROFS)" "$t/err"
}

# Bytes from config files reach the report as names and in warnings: valid
# UTF-8 passes as it is, every invalid byte becomes U+FFFD, control
# characters are escaped, and a strict parser takes the whole report.
t_utf8() {
	setup 'a\n'
	conf=$(printf '%s/li\377st.conf' "$t")
	printf 'caf\303\251\nbad\377\376\n..\303\050\n\001ctl\nnot a name\n\355\240\200x\n\300\257y\na\nz\342\202' >"$conf"
	run -c "$conf"
	check "exit 1 (missing names)" eq "$rc" 1
	check "a loaded" live a
	check "strict UTF-8 JSON" python3 -c \
		'import json,sys; json.load(open(sys.argv[1], encoding="utf-8", errors="strict"))' "$t/r.json"
	check "valid UTF-8 unchanged" eq "$(jq -r '.requests.missing_names[0]' "$t/r.json")" "$(printf 'caf\303\251')"
	check "invalid bytes replaced" eq "$(jq -r '.requests.missing_names[1]' "$t/r.json")" "$(printf 'bad\357\277\275\357\277\275')"
	check "a surrogate is not UTF-8" eq "$(jq -r '.requests.missing_names[2]' "$t/r.json")" \
		"$(printf '\357\277\275\357\277\275\357\277\275x')"
	check "control character escaped" grep -q '"refusing to load \\"\\u0001ctl\\"' "$t/r.json"
	check "the path in a warning" eq "$(jq -r '.warnings[] | select(test("not a module name, line"))' "$t/r.json")" \
		"$(printf '%s/li\357\277\275st.conf:5: not a module name, line ignored' "$t")"
}
