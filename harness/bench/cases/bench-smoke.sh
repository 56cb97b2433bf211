#!/bin/sh
# tier: full
# The benchmark's harness, so it cannot rot: `bench/run.sh --smoke` runs
# each scenario once at its smallest (one boot each: the storm with udev
# coldplug at 2 vCPUs, the graph and the duplicates with xargs and
# modpreload, the cost without callgrind) and writes its report under
# build/bench/smoke/.  Checks that every scenario produced its numbers and
# the report its tables and plots -- never how fast anything was.
# About 3 minutes once its modules are built (a 40-node DAG and 4
# duplicates of its own, about a minute the first time).
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
w=$top/build/bench
log=$w/smoke.log
mkdir -p "$w"

if ! "$top/bench/run.sh" --smoke >"$log" 2>&1; then
	echo "FAIL: vm/bench-smoke: bench/run.sh --smoke failed (see $log)"
	exit 0
fi
raw=$w/runs/smoke
tsv=$raw/runs.tsv

# shellcheck source=harness/lib/verdict.sh
. "$top/harness/lib/verdict.sh"
# val SCENARIO CONTENDER KEY: the value recorded (first match)
val() {
	awk -F'\t' -v s="$1" -v c="$2" -v k="$3" '$1 == s && $4 == c && $7 == k { print $8; exit }' "$tsv"
}
# atleast SCENARIO CONTENDER KEY MIN
atleast() {
	v=$(val "$1" "$2" "$3")
	if [ -z "$v" ]; then
		fail "$2: no $3"
	elif [ "${v%%.*}" -lt "$4" ]; then
		fail "$2: $3=$v, want at least $4"
	fi
}

atleast storm udev bench.calls 1
atleast storm udev proc_count 1
atleast storm udev bench.window_ms 1
atleast storm udev bench.live_ms 1
verdict bench-smoke/storm

nodes=$(sed -n 's/^DAG_NODES=//p' "$raw/dag-bookworm.env" 2>/dev/null)
[ -n "$nodes" ] || fail "no DAG description"
for c in xargs dataflow; do
	atleast graph "$c" bench.window_ms 1
	atleast graph "$c" bench.calls "${nodes:-1}"
	[ "$(val graph "$c" proc_count.mpb_g)" = "$nodes" ] || fail "$c: not every node loaded"
	[ "$(val graph "$c" bench.unload_left)" = 0 ] || fail "$c: nodes left loaded"
done
verdict bench-smoke/graph

for c in xargs dataflow; do
	atleast dups "$c" bench.calls 1
	atleast dups "$c" bench.loaded 2
	[ -n "$(val dups "$c" bench.refused_read_bytes)" ] || fail "$c: no refused_read_bytes (kprobes?)"
done
[ "$(val dups dataflow bench.calls)" = "$(val dups dataflow bench.loaded)" ] ||
	fail "modpreload made more calls than it loaded modules"
verdict bench-smoke/dups

for k in size.modpreload.binary size.kmod.total size.udev.total image.base image.modpreload \
	image.kmod image.udev plan.modpreload.rss_kib plan.kmod.rss_kib; do
	grep -q "^$k	[0-9]" "$raw/cost.tsv" 2>/dev/null || fail "no $k"
done
verdict bench-smoke/cost

md=$w/smoke/smoke.md
for s in '## 1. ' '## 2. ' '## 3. ' '## 4. '; do
	grep -q "^$s" "$md" 2>/dev/null || fail "no section '$s'"
done
for p in storm-time storm-calls storm-timeline graph-timeline-sleep; do
	[ -s "$w/smoke/smoke/$p.png" ] || fail "no $p.png"
done
verdict bench-smoke/report
