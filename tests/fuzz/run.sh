#!/bin/sh
# Runs every libFuzzer target for SECONDS each, from the seed corpus plus
# what earlier runs found (kept in build/fuzz/corpus). Prints PASS:/FAIL:.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
for t in cmdline conf uevent kstats index profile analyze known; do
	work=$top/build/fuzz/corpus/$t
	mkdir -p "$work"
	log=$top/build/fuzz/$t.log
	# a target's words (tests/fuzz/NAME.dict), when it has them
	dict=$top/tests/fuzz/$t.dict
	[ -f "$dict" ] || dict=
	if "$top/build/fuzz/fuzz_$t" -max_total_time="$secs" -max_len=65536 -timeout=10 \
		-rss_limit_mb=2048 -artifact_prefix="$top/build/fuzz/$t-" ${dict:+"-dict=$dict"} \
		"$work" "$top/tests/fuzz/corpus/$t" >"$log" 2>&1; then
		echo "PASS: fuzz/$t ($(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log") runs)"
	else
		echo "FAIL: fuzz/$t: see $log"
		tail -30 "$log" >&2
	fi
done
