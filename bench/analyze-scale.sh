#!/bin/sh
# How `modpreload analyze` grows with the report (issue 34): made-up reports
# of 10,000 and 100,000 modules, each read, said as text and drawn as SVG,
# counted in instructions under callgrind (a count, not a time: the same on
# a busy host). Two shapes a report can take:
#   typical  16 workers, a critical chain of 8, 4 modules held
#   wide     every module its own worker, every module on the chain and
#            held (what no run writes, but what a made-up report can say)
# The time a shape takes should grow with the report's size, not its square.
#
# Usage: bench/analyze-scale.sh [-b BINARY] [-n "10000 100000"] [-s "typical wide"]
#   -b  the analyzer to measure (default: analyze/*.c built -O2 into build/bench/)
# Prints a Markdown table on stdout: size, shape, report bytes, instructions,
# text and SVG bytes. Needs cc, awk and valgrind.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
w=$top/build/bench/analyze-scale
bin=
sizes="10000 100000"
shapes="typical wide"
while getopts b:n:s: o; do
	case $o in
	b) bin=$OPTARG ;;
	n) sizes=$OPTARG ;;
	s) shapes=$OPTARG ;;
	*) exit 2 ;;
	esac
done
mkdir -p "$w"
if [ -z "$bin" ]; then
	bin=$w/analyze
	# shellcheck disable=SC2046 # the analyzer's sources
	cc -std=gnu11 -O2 -D_GNU_SOURCE -I"$top/preload" -DMP_VERSION="\"$(cat "$top/VERSION")\"" \
		-o "$bin" $(ls "$top"/analyze/*.c)
fi

# report N SHAPE: a report as preload/report/report.c writes one, made up
report() {
	awk -v n="$1" -v shape="$2" 'BEGIN {
		wide = shape == "wide"
		workers = wide ? n : 16
		chain = wide ? n : 8
		held = wide ? n : 4
		printf "{\"modpreload\": \"bench\", \"kernel\": \"6.1.0-bench\", \"dry_run\": false,"
		printf " \"mode\": \"dataflow\", \"jobs\": %d, \"timeout_ms\": 30000, \"elapsed_ms\": %d,\n", workers, n + 10
		printf "\"handover\": {\"at_ms\": %d, \"held\": [", n / 2
		for (i = 0; i < held; i++)
			printf "%s\"m%d\"", i ? ", " : "", n - 1 - i
		printf "], \"replayed\": 0},\n"
		printf "\"requests\": {\"total\": %d, \"missing_names\": []}, \"unique\": %d,", n, n
		printf " \"duplicates_collapsed\": 0, \"bytes_not_read\": 0, \"duplicate_cost\": null,\n"
		printf "\"counts\": {\"loaded\": %d, \"live\": 0, \"builtin\": 0, \"failed\": 0,", n
		printf " \"skipped\": 0, \"hung\": 0, \"no_device\": 0},\n"
		printf "\"critical_path\": {\"ms\": %d, \"modules\": [", chain
		for (i = 0; i < chain; i++)
			printf "%s\"m%d\"", i ? ", " : "", i * int(n / chain)
		printf "]},\n\"modules\": [\n"
		for (i = 0; i < n; i++) {
			start = wide ? i : int(i / workers) * 16
			printf "{\"name\": \"m%d\", \"path\": \"kernel/drivers/bench/m%d.ko\", \"wave\": %d,", i, i, i % 7
			printf " \"state\": \"loaded\", \"errno\": null, \"ms\": %.3f, \"start_ms\": %.3f,", 1 + i % 13, start
			printf " \"end_ms\": %.3f, \"worker\": %d, \"no_device\": false}%s\n", start + 1 + i % 13, i % workers,
				i + 1 < n ? "," : ""
		}
		printf "],\n\"warnings\": []}\n"
	}'
}

echo "| modules | shape | report bytes | instructions | text bytes | SVG bytes |"
echo "|---:|---|---:|---:|---:|---:|"
for n in $sizes; do
	for s in $shapes; do
		r=$w/$s-$n.json
		report "$n" "$s" >"$r"
		valgrind --tool=callgrind --callgrind-out-file=/dev/null --log-file="$w/$s-$n.vg" \
			"$bin" --svg "$w/$s-$n.svg" "$r" >"$w/$s-$n.txt" 2>"$w/$s-$n.err"
		ir=$(sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$w/$s-$n.vg")
		printf '| %s | %s | %s | %s | %s | %s |\n' "$n" "$s" "$(stat -c %s "$r")" "$ir" \
			"$(stat -c %s "$w/$s-$n.txt")" "$(stat -c %s "$w/$s-$n.svg")"
	done
done
