#!/bin/sh
# The harness's awk programs must give the same answers under every awk
# they meet: mawk (Debian's /usr/bin/awk), gawk (another host's awk) and
# busybox awk (every guest's). The three do not read numbers alike: mawk and
# busybox take the string "0x0" for the number 0, gawk does not, so
# core-sched's `$4 != 0` on a traced return value counted every call as
# failed under gawk (issue 36). This runs the trace parsers over
# tests/data/trace-loads.txt (as it is, and with "0x" before the syscalls'
# arguments, as some kernels print them), and the host's checks over what
# they print, under each awk, and compares the outputs (each program's lines
# sorted: for-in order is each awk's own):
#   guest side: every awk program of harness/ and bench/ that reads a trace
#     file and takes no option (booted-report.sh's, demo.sh's, lib.sh's
#     mpt_trace_counts and mpt_trace_callers, core-lib.sh's core_calls), and through their functions, which pass -v: lib.sh's
#     mpt_trace_loads, mpt_trace_order, mpt_trace_module, bench-lib.sh's
#     bench_trace
#   host side: core/host.sh's checks over core_calls' lines, handover.sh's
#     ho_check over mpt_trace_module's, bench/chain.awk over bench_trace's
# gawk, when the host has none, is Debian's package unpacked into
# build/tools/gawk with those of its libraries the host lacks (apt-get
# download, or apt's cache when offline; nothing is installed, so
# /usr/bin/awk stays what it is). An awk that cannot be had is a SKIP line.
#
# Usage: scripts/lint-awk.sh             PASS:/FAIL:/SKIP: lines (tests/run.sh lint)
#        scripts/lint-awk.sh --sample    what the programs print, under the
#                                        awk first on PATH
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
export LC_ALL=C
sample=$top/tests/data/trace-loads.txt

# extract DIR: each awk program of harness/ and bench/ that reads a trace
# file (its text ends with '<path>/trace) and takes no option, as DIR/N.awk,
# with "N FILE#K" (its file, the K-th such program there) in DIR/list
extract() {
	mkdir -p "$1"
	: >"$1/list"
	cat >"$1/extract.awk" <<'EOF'
function decide() {
	cont = tail ~ /\\[ \t]*$/
	if (cont) return
	if (tail ~ /\/trace("|[ \t;)|>]|$)/) {
		k++
		if (opts == "") {
			n++
			printf "%s", prog >(dir "/" n ".awk")
			close(dir "/" n ".awk")
			printf "%d %s#%d\n", n, FILENAME, k >>(dir "/list")
		}
	}
}
FNR == 1 { k = 0; inp = 0; cont = 0 }
cont { tail = tail " " $0; decide(); next }
inp {
	j = index($0, "'")
	if (j == 0) { prog = prog $0 "\n"; next }
	prog = prog substr($0, 1, j - 1); tail = substr($0, j + 1); inp = 0
	decide(); next
}
/^[ \t]*#/ { next }
match($0, /(^|[ \t(|;])awk( +-[^ ']+)* +'/) {
	opts = substr($0, RSTART, RLENGTH); sub(/^[ \t(|;]?awk */, "", opts); sub(/ *'$/, "", opts)
	rest = substr($0, RSTART + RLENGTH)
	j = index(rest, "'")
	if (j == 0) { prog = rest "\n"; inp = 1; next }
	prog = substr(rest, 1, j - 1); tail = substr(rest, j + 1)
	decide()
}
EOF
	{ git ls-files 'harness/*.sh' 'bench/*.sh' 2>/dev/null || find harness bench -name '*.sh'; } |
		LC_ALL=C sort | xargs awk -v dir="$1" -f "$1/extract.awk"
	[ -s "$1/list" ]
}

# traces DIR: DIR/plain/trace, the sample, and DIR/0x/trace, the same with
# "0x" before every syscall argument
traces() {
	mkdir -p "$1/plain" "$1/0x"
	cp "$sample" "$1/plain/trace"
	sed -E '/ sys_f?init_module\(/ s/: ([0-9a-f]+)([,)])/: 0x\1\2/g' "$sample" >"$1/0x/trace"
}

# run DIR: every program's output, "-- NAME" before each (sorted lines)
run() {
	# the list booted-report.sh's program reads from its environment
	eval "export $(grep -m 1 '^MPT_OUTSIDE_CALLERS=' "$top/harness/booted/guest/booted-report.sh")"
	for t in plain 0x; do
		td=$1/$t
		echo "== trace: $t"
		while read -r n name; do
			echo "-- $name"
			awk -f "$1/$n.awk" "$td/trace" 2>&1 | sort
		done <"$1/list"
		(
			MPT_TRACE=$td
			# shellcheck source=harness/lib/lib.sh
			. "$top/harness/lib/lib.sh"
			# shellcheck source=harness/core/guest/core-lib.sh
			. "$top/harness/core/guest/core-lib.sh"
			# shellcheck source=harness/bench/guest/bench-lib.sh
			. "$top/harness/bench/guest/bench-lib.sh"
			echo "-- lib.sh: mpt_trace_loads"
			# shellcheck disable=SC2119 # no names: every module
			mpt_trace_loads | sort
			echo "-- lib.sh: mpt_trace_loads mpt_chain0 mpt-fail mpt_nosuch"
			mpt_trace_loads mpt_chain0 mpt-fail mpt_nosuch
			echo "-- lib.sh: mpt_trace_order"
			mpt_trace_order
			echo "-- lib.sh: mpt_trace_order mpt_slowpci mpt_chain0"
			mpt_trace_order mpt_slowpci mpt_chain0
			echo "-- lib.sh: mpt_trace_module mpt_slowpci"
			mpt_trace_module mpt_slowpci | sort
			echo "-- bench-lib.sh: bench_trace 1"
			BENCH_T0=2000 BENCH_KPROBES="kread module_alloc"
			bench_trace 1 | sort
			# what the host reads: as core-sched.sh's guest names a run's calls
			{
				core_calls
				core_calls | sed 's/^MPT: call\./MPT: fifo.call./'
				mpt_trace_module mpt_slowpci
				bench_trace 1
				# the rest of mpt_handover's lines, as a failing hand-over's
				printf 'MPT: ho.%s\n' module=mpt_slowpci timed_out=0 marker=mpt_root procs_left=0 held_left= \
					state_at_marker=coming held_at_marker=mpt_slowpci state=none
			} >"$td/result.txt"
		)
		(
			# shellcheck disable=SC2034 # core/host.sh's
			name=sample work=$td
			# shellcheck source=harness/core/host.sh
			. "$top/harness/core/host.sh"
			# shellcheck source=harness/lib/scenarios/handover.sh
			. "$top/harness/lib/scenarios/handover.sh"
			r=$td/result.txt
			echo "-- core/host.sh: core_run_calls fifo"
			core_run_calls fifo "$r"
			echo "-- core/host.sh: core_run_failed fifo"
			core_run_failed fifo "$r"
			echo "-- core/host.sh: core_max_parallel, core_field, core_before, core_started_after, core_overlapped"
			core_max_parallel "$r"
			core_field call.mpt_fail 3 "$r"
			for f in core_before core_started_after; do
				for p in "mpt_chain0 mpt_chain1" "mpt_chain1 mpt_chain0" "mpt_chain0 mpt_fan00"; do
					# shellcheck disable=SC2086 # two names
					if "$f" $p "$r"; then echo "$f $p: yes"; else echo "$f $p: no"; fi
				done
			done
			for m in mpt_chain0 mpt_slowpci mpt_params; do
				if core_overlapped "$m" "$r"; then echo "core_overlapped $m: yes"; else echo "core_overlapped $m: no"; fi
			done
			echo "-- handover.sh: ho_check RESULT mpt_root, ho_check_replay"
			# (the verdicts indented: no PASS:/FAIL: line of a sample's)
			ho_check "$r" mpt_root
			verdict sample >"$td/verdict"
			sed 's/^/  /' "$td/verdict"
			ho_check_replay "$r" mpt_root
			verdict sample >"$td/verdict"
			sed 's/^/  /' "$td/verdict"
			echo "-- bench/chain.awk"
			printf 'mpt_chain0\t400\t-\nmpt_fan00\t400\t-\nmpt_chain1\t400\tmpt_chain0\n' >"$td/dag.tsv"
			mpt_keys bench.call= "$r" | sed 's/^bench\.call=/dataflow\t/' |
				awk -f "$top/bench/chain.awk" "$td/dag.tsv" -
		)
	done
}

if [ "${1:-}" = --sample ]; then
	if [ -n "${2:-}" ]; then
		run "$2"
	else
		tmp=$(mktemp -d)
		trap 'rm -rf "$tmp"' EXIT
		extract "$tmp" && traces "$tmp" && run "$tmp"
	fi
	exit
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# get_deb NAME DIR: NAME's package for this machine in DIR, from apt's
# cache (offline) or by apt-get download
get_deb() {
	_gd_c=$(find /var/cache/apt/archives -maxdepth 1 -name "${1}_*_$(dpkg --print-architecture).deb" 2>/dev/null |
		sort -V | tail -n 1)
	if [ -n "$_gd_c" ]; then
		cp "$_gd_c" "$2/"
	else
		(cd "$2" && apt-get download -q "$1" >/dev/null 2>&1)
	fi
}

# find_gawk: a gawk command on stdout (the host's, or build/tools/gawk/awk),
# status 1 with why on stdout when none can be had
find_gawk() {
	if command -v gawk >/dev/null 2>&1; then
		command -v gawk
		return 0
	fi
	_fg_d=$top/build/tools/gawk
	if [ ! -x "$_fg_d/usr/bin/gawk" ]; then
		if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg >/dev/null 2>&1; then
			echo "no gawk, and no apt-get to fetch one"
			return 1
		fi
		rm -rf "$_fg_d.tmp.$$"
		mkdir -p "$_fg_d.tmp.$$/debs"
		if ! get_deb gawk "$_fg_d.tmp.$$/debs"; then
			rm -rf "$_fg_d.tmp.$$"
			echo "no gawk: apt-get download gawk failed (offline?), and none in apt's cache"
			return 1
		fi
		# its libraries the host lacks (libsigsegv2, say)
		for _fg_p in $(dpkg-deb -f "$_fg_d.tmp.$$"/debs/gawk_*.deb Pre-Depends Depends |
			sed 's/^[A-Za-z-]*: //' | tr ',' '\n' | sed 's/|.*//; s/(.*//; s/:any//; s/ //g'); do
			dpkg-query -W -f='${Status}' "$_fg_p" 2>/dev/null | grep -q 'ok installed' ||
				get_deb "$_fg_p" "$_fg_d.tmp.$$/debs" || {
				rm -rf "$_fg_d.tmp.$$"
				echo "no gawk: its dependency $_fg_p could not be had"
				return 1
			}
		done
		for _fg_f in "$_fg_d.tmp.$$"/debs/*.deb; do dpkg -x "$_fg_f" "$_fg_d.tmp.$$"; done
		rm -rf "$_fg_d.tmp.$$/debs"
		# another run may have put one in place meanwhile: keep that one
		mv -T "$_fg_d.tmp.$$" "$_fg_d" 2>/dev/null || rm -rf "$_fg_d.tmp.$$"
	fi
	_fg_l=$(find "$_fg_d" -name '*.so*' -printf '%h\n' | sort -u | paste -sd: -)
	# shellcheck disable=SC2016 # the wrapper's own expansions
	printf '#!/bin/sh\nLD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec %s "$@"\n' \
		"$_fg_l" "$_fg_d/usr/bin/gawk" >"$_fg_d/awk.tmp.$$"
	chmod 755 "$_fg_d/awk.tmp.$$"
	mv "$_fg_d/awk.tmp.$$" "$_fg_d/awk"
	if ! "$_fg_d/awk" 'BEGIN { exit 0 }' 2>/dev/null; then
		echo "no gawk: $_fg_d/usr/bin/gawk does not run here"
		return 1
	fi
	echo "$_fg_d/awk"
}

# norm FILE: the outputs as compared, each comma-separated value's items
# sorted (a list a program builds with for-in comes in each awk's order)
norm() {
	awk '{
		i = index($0, "=")
		if (i == 0 || index(substr($0, i + 1), ",") == 0) { print; next }
		n = split(substr($0, i + 1), e, ",")
		for (a = 2; a <= n; a++) {
			x = e[a] ""
			for (b = a - 1; b >= 1 && (e[b] "") > x; b--) e[b + 1] = e[b]
			e[b + 1] = x
		}
		s = substr($0, 1, i)
		for (a = 1; a <= n; a++) s = s (a > 1 ? "," : "") e[a]
		print s
	}' "$1"
}

if ! extract "$tmp/progs" || ! traces "$tmp/progs"; then
	echo "FAIL: lint/awk: found no awk program that reads a trace in harness/ (scripts/lint-awk.sh's extract)"
	exit 0
fi
nprogs=$(wc -l <"$tmp/progs/list")
# the ones the header names: one gone from the list is a program the
# extraction lost (a quote in its text ends it early, in the shell too)
lost=
for f in harness/booted/guest/booted-report.sh harness/bench/guest/demo.sh harness/lib/lib.sh \
	harness/core/guest/core-lib.sh; do
	grep -q " $f#" "$tmp/progs/list" || lost="$lost $f"
done
if [ -n "$lost" ]; then
	echo "FAIL: lint/awk: no awk program reading the trace found in:$lost (a ' in its text?)"
	exit 0
fi

# each awk as the only "awk" first on PATH (busybox's applet by its name)
ref=
for a in mawk gawk busybox; do
	mkdir -p "$tmp/bin-$a"
	case $a in
	mawk) p=$(command -v mawk) || { p='' why="no mawk on this host"; } ;;
	gawk) p=$(find_gawk) || { why=$p p=''; } ;;
	busybox)
		p=$(command -v busybox) || p=''
		why="no busybox on this host (busybox-static)"
		[ -z "$p" ] || "$p" awk 'BEGIN { exit 0 }' 2>/dev/null || { p='' why="this busybox has no awk"; }
		;;
	esac
	if [ -z "$p" ]; then
		echo "SKIP: lint/awk-$a: $why"
		continue
	fi
	ln -s "$p" "$tmp/bin-$a/awk"
	cp -r "$tmp/progs" "$tmp/run-$a"
	PATH=$tmp/bin-$a:$PATH "$top/scripts/lint-awk.sh" --sample "$tmp/run-$a" >"$tmp/raw-$a" 2>&1
	norm "$tmp/raw-$a" >"$tmp/out-$a"
	if [ -z "$ref" ]; then
		ref=$a
		# every program printed something
		empty=$(awk '/^(--|==) / { if (name != "" && !lines) printf " %s;", name; name = ""; lines = 0 }
			/^-- / { name = substr($0, 4); next }
			/^== / { next }
			{ lines++ }
			END { if (name != "" && !lines) printf " %s;", name }' "$tmp/out-$a")
		if [ -n "$empty" ]; then
			echo "FAIL: lint/awk-$a: printed nothing:$empty (scripts/lint-awk.sh --sample)"
		else
			echo "PASS: lint/awk-$a ($nprogs trace programs of harness/, lib.sh's, bench-lib.sh's, core/host.sh's, handover.sh's and chain.awk's over tests/data/trace-loads.txt)"
		fi
	elif cmp -s "$tmp/out-$ref" "$tmp/out-$a"; then
		echo "PASS: lint/awk-$a (the same output as $ref)"
	else
		# where: the first line that differs, its program and trace
		l=$(cmp "$tmp/out-$ref" "$tmp/out-$a" 2>&1 | sed -n 's/.* line \([0-9]*\).*/\1/p')
		where="$(head -n "${l:-1}" "$tmp/out-$ref" | sed -n 's/^-- //p' | tail -n 1) ($(head -n "${l:-1}" \
			"$tmp/out-$ref" | sed -n 's/^== //p' | tail -n 1))"
		echo "FAIL: lint/awk-$a: not $ref's output, in $where: $(diff "$tmp/out-$ref" "$tmp/out-$a" |
			grep '^[<>]' | head -n 4 | tr '\n' ' ')(scripts/lint-awk.sh --sample with each awk first on PATH)"
		diff "$tmp/out-$ref" "$tmp/out-$a" >&2
	fi
done
