#!/bin/sh
# The measured tables of README.md, docs/benchmarks.md and docs/testing.md,
# made from the newest committed bench/results files: each sits between
# <!-- BEGIN name --> and <!-- END name --> and ends with a link to the file
# it came from (the README's, which names no dated file, with a link to
# docs/benchmarks.md). A new results file of the same kind replaces it.
#
# Usage: scripts/tables.sh           rewrite the tables in place
#        scripts/tables.sh --check   say which committed table differs from
#                                    what this makes, exit 1 (tests/run.sh lint)
#        scripts/tables.sh NAME      print one table (links relative to docs/)
#
# Most tables are quoted whole from a results file (the first table at or
# after a line holding a given text); storm-headline is computed from a
# run's runs.tsv (bench/stats.awk's medians).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
res=bench/results
docs="README.md docs/benchmarks.md docs/testing.md"

# When FILE was measured: its run's meta.txt date, or the date in its name.
when() {
	if [ -f "${1%.md}/meta.txt" ]; then
		sed -n 's/^date=//p' "${1%.md}/meta.txt" | head -n 1
	else
		printf '%s\n' "${1##*/}" | grep -o '20[0-9][0-9]-[01][0-9]-[0-3][0-9]' | head -n 1
	fi
}
# table_in FILE TEXT: the first markdown table at or after the first line
# holding TEXT
table_in() {
	awk -v a="$2" '!on && index($0, a) { on = 1 } on && /^\|/ { print; t = 1; next } t { exit }' "$1"
}
# verdict_codes: the codes bench/results/boot-verdict.md was made for, as
# its last line names them ("a, b"), comma-separated without blanks
verdict_codes() {
	sed -n 's/^Code \([0-9a-f, ]*[0-9a-f]\) (.*/\1/p' $res/boot-verdict.md | tr -d ' '
}

# newest GLOB TEXT [ROW]: the files of bench/results/GLOB measured last
# (all of them when several share that date) whose table at TEXT has a row
# "| ROW |", one a line
newest() {
	for f in $res/$1; do
		[ -f "$f" ] || continue
		t=$(table_in "$f" "$2")
		[ -n "$t" ] || continue
		if [ -n "${3:-}" ] && ! printf '%s\n' "$t" | grep -qF "| $3 |"; then continue; fi
		printf '%s\t%s\n' "$(when "$f")" "$f"
	done | LC_ALL=C sort | awk -F'\t' '{ d[NR] = $1; f[NR] = $2 } END {
		for (i = 1; i <= NR; i++) if (d[i] == d[NR]) print f[i] }'
}
# quote TEXT FILE...: each file's table at TEXT, and where it is from
quote() {
	q=$1
	shift
	[ $# -gt 0 ] || { echo "(no results file has this table yet)"; return; }
	for f in "$@"; do
		# a link in the table is relative to its file: make it the document's
		table_in "$f" "$q" | sed -E "s#\]\(([^):/\#][^):]*)\)#](${rel}${f%/*}/\1)#g"
		echo
		echo "From [$f]($rel$f)."
		[ "$f" = "$(printf '%s\n' "$@" | tail -n 1)" ] || echo
	done
}

# The README's table: udev's coldplug against modpreload at the most vCPUs of
# the newest storm run that has both, from its runs.tsv.
storm_headline_run() {
	best=
	for f in "$res"/*/runs.tsv; do
		if ! grep -q '^storm	bookworm	-	udev	' "$f" || ! grep -q '^storm	bookworm	-	dataflow	' "$f"; then
			continue
		fi
		best=$(printf '%s\n%s\t%s\n' "$best" "$(when "${f%/runs.tsv}.md")" "$f" | LC_ALL=C sort | tail -n 1)
	done
	printf '%s\n' "$best" | cut -f2
}
# seeds_row FILE: "R=MASTER=MODPRELOAD", the Virtual mem wasted bytes at the
# most requests per CPU alias of a bench/seeds.sh table (nothing without one)
seeds_row() {
	awk -F'|' '
		function t(s) { gsub(/^ +| +$/, "", s); return s }
		t($2) ~ /^[0-9]+$/ { r = t($2) }
		t($3) == "Virtual mem wasted bytes" && r + 0 >= best { best = r + 0; v = r "=" t($4) "=" t($6) }
		END { if (v != "") print v }' "$1"
}
storm_headline() {
	f=$(storm_headline_run)
	[ -n "$f" ] || { echo "(no storm run with udev yet)"; return; }
	rd=${f%/runs.tsv}
	# the kernel's own count of what refused loads cost (issue 37): the
	# newest scale run's row at the same vCPUs, counted by a kernel with
	# CONFIG_MODULE_STATS (6.1 has none)
	sc=$(newest 'scale-*.md' 'Virtual mem wasted bytes' | tail -n 1)
	# and the seeds' pattern (issue 38): the most requests per CPU alias of
	# the newest bench/seeds.sh table, master (no merge) against modpreload
	se=$(newest 'seeds-*.md' '| requests per CPU alias |' | tail -n 1)
	awk -f bench/stats.awk "$f" | awk -F'\t' -v ver="$(sed -n 's/^modpreload=//p' "$rd/meta.txt")" \
		-v runs="$(sed -n 's/^runs=//p' "$rd/meta.txt")" -v scale="$sc" \
		-v scale_rows="$(grep -E '^\| [0-9]+ \| [0-9]+ \([0-9]+\) \| (modprobe|modpreload) \|' "${sc:-/dev/null}" 2>/dev/null |
			awk -F'|' '{ gsub(/[ *]/, "", $2); gsub(/^ +| +$/, "", $4); gsub(/\*/, "", $8); gsub(/^ +| +$/, "", $8); print $2 "=" $4 "=" $8 }' | paste -sd';' -)" \
		-v scale_kernel="$(sed -n 's/^Kernel: \([^ ]*\).*/\1/p' "${sc:-/dev/null}" 2>/dev/null | head -n 1)" \
		-v seeds="$(seeds_row "${se:-/dev/null}")" '
		$1 == "storm" && $2 == "bookworm" && $3 == "-" {
			v[$4, $5, $6] = $8
			if ($4 == "udev" && $5 + 0 > n) n = $5 + 0
		}
		function g(c, k) { return v[c, n, k] + 0 }
		function row(label, k, fmt) { printf "| %s | " fmt " | " fmt " |\n", label, g("udev", k), g("dataflow", k) }
		END {
			printf "| Debian 6.1, %d vCPUs | udev coldplug | modpreload |\n|---|---:|---:|\n", n
			row("load syscalls (`finit_module`, `init_module`)", "bench.calls", "%d")
			row("refused: already loaded (`EEXIST`)", "bench.errno.17", "%d")
			row("refused: still loading (`EBUSY`)", "bench.errno.16", "%d")
			printf "| failed otherwise (drivers with no device) | %d | %d |\n",
				g("udev", "bench.failed") - g("udev", "bench.errno.17") - g("udev", "bench.errno.16"),
				g("dataflow", "bench.failed") - g("dataflow", "bench.errno.17") - g("dataflow", "bench.errno.16")
			row("modules live afterwards", "proc_count", "%d")
			printf "| first load to last module live | %.1f s | %.1f s |\n", g("udev", "bench.window_ms") / 1000,
				g("dataflow", "bench.window_ms") / 1000
			k = split(scale_rows, sr, ";")
			for (i = 1; i <= k; i++) {
				split(sr[i], f3, "=")
				if (f3[1] + 0 == n) mem[f3[2]] = f3[3]
			}
			if (("modprobe" in mem) && ("modpreload" in mem))
				printf "| memory the kernel spent on loads it refused (`Virtual mem wasted bytes`: %s, %d vCPUs) | %s | %s |\n",
					scale_kernel, n, mem["modprobe"], mem["modpreload"]
			if (seeds != "") {
				split(seeds, sd, "=")
				printf "| the same, the seeds\047 %s requests per CPU alias (16 vCPUs; 6.12 without its merge of concurrent loads) | %s | %s |\n",
					sd[1], sd[2], sd[3]
			}
			printf "\nMedians of %d boots each under QEMU/TCG, emulated CPUs on a 2-core host:\n", runs
			printf "the times are long, the counts are what the kernel saw. Measured with\n"
			printf "%s; the run and its file: [docs/benchmarks.md](docs/benchmarks.md#the-storm).\n", ver
			if (("modprobe" in mem) && ("modpreload" in mem))
				printf "Memory: counted by the kernel (CONFIG_MODULE_STATS, not in 6.1): [the storm at scale](docs/benchmarks.md#the-storm-at-scale-in-the-kernels-own-words)%s.\n",
					seeds != "" ? ", [the seeds\047 table](docs/benchmarks.md#the-seeds-table-reproduced)" : ""
		}'
}

# readme_quote GLOB TEXT NONE CAPTION...: for the README, which names no
# dated file: the table at TEXT of the newest bench/results/GLOB, then the
# caption's lines (a link to docs/benchmarks.md); NONE when there is none
readme_quote() {
	f=$(newest "$1" "$2" | tail -n 1)
	[ -n "$f" ] || { echo "$3"; return; }
	table_in "$f" "$2"
	echo
	shift 3
	printf '%s\n' "$@"
}

# make_table NAME: the table's lines ($rel: the way from the document to the top)
make_table() {
	lsc='Load syscalls ('
	first='First load syscall to the last module live'
	graph='First load to the last module live (seconds, and over the bound)'
	# newest prints file names, one a line, without blanks; `make check` is no expansion
	# shellcheck disable=SC2046,SC2016
	case $1 in
	storm-headline) storm_headline ;;
	storm-headline-from)
		f=$(storm_headline_run)
		if [ -n "$f" ]; then echo "The README's storm table: [${f%/runs.tsv}.md]($rel${f%/runs.tsv}.md)."; else echo "(no storm run with udev yet)"; fi ;;
	storm-calls) quote "$lsc" $(newest '[0-9]*.md' "$lsc" 'udev coldplug') ;;
	storm-time) quote "$first" $(newest '[0-9]*.md' "$lsc" 'udev coldplug') ;;
	storm-latest-calls) quote "$lsc" $(newest '[0-9]*.md' "$lsc") ;;
	storm-latest-time) quote "$first" $(newest '[0-9]*.md' "$lsc") ;;
	graph-contenders) quote "$graph" $(newest '[0-9]*.md' "$graph" 'modprobe -a') ;;
	graph-variants) quote "$graph" $(newest '[0-9]*.md' "$graph" 'modpreload --order=fifo') ;;
	graph-latest) quote "$graph" $(newest '[0-9]*.md' "$graph") ;;
	graph-chain) quote 'Run 1, sleep,' $(newest '[0-9]*.md' 'Run 1, sleep,') ;;
	dups) quote 'Bytes the kernel took in for calls it refused' \
		$(newest '[0-9]*.md' 'Bytes the kernel took in for calls it refused') ;;
	demo) quote '| finit_module calls' $(newest 'demo-*.md' '| finit_module calls') ;;
	demo-memory) quote 'memory wasted' $(newest 'demo-*.md' 'memory wasted') ;;
	scale) quote '| vCPUs |' $(newest 'scale-*.md' '| vCPUs |') ;;
	seeds) quote '| requests per CPU alias |' $(newest 'seeds-*.md' '| requests per CPU alias |') ;;
	boot) quote '| vCPUs |' $(newest 'boot*.md' '| vCPUs |') ;;
	boot-ratios) readme_quote 'boot*.md' 'With / without' "(no whole-boot run with ratios yet)" \
		"With / without, the same image and root back to back, medians under TCG" \
		"(below 1: sooner with modpreload): [docs/benchmarks.md](docs/benchmarks.md#the-whole-boot)." ;;
	stacks) quote '| stack |' $(newest 'stacks-*.md' '| stack |') ;;
	stacks-readme) readme_quote 'stacks-*.md' '| stack |' "(no run of bench/stacks.sh yet)" \
		"With modpreload / without, the whole boot at 16 vCPUs, from the kernel's" \
		"tracepoints (\`bench/stacks.sh\`): [docs/benchmarks.md](docs/benchmarks.md#the-stacks)." ;;
	boot-ratios-file) quote 'With / without' $(newest 'boot*.md' 'With / without') ;;
	# the accumulated pairs' verdict (bench/boot-pairs.sh, bench/boot-verdict.sh)
	boot-verdict) quote '| stack | vCPUs | condition |' $res/boot-verdict.md ;;
	boot-verdict-readme)
		if [ -f $res/boot-verdict.md ]; then
			table_in $res/boot-verdict.md '| stack | vCPUs | condition |' |
				awk -F' [|] ' 'NR <= 2 || $3 == "hwlike" || $3 == "lean"'
			echo
			echo "With / without modpreload per pair: the median, its 95% interval (n pairs). lean: kvm, kvm_amd, ccp"
			echo "and powernow_k8 (their loads stall TCG for minutes) kept out of both boots, one host thread, no VGA"
			echo "or NIC. The code: $(verdict_codes | sed 's/,/, /g') ([method](docs/benchmarks.md#the-whole-boot))."
		else
			echo "(no boot pairs recorded yet)"
		fi ;;
	integrations) quote '| image |' $(newest 'integrations-*.md' '| image |') ;;
	init) quote '| image |' $(newest 'init-vs-dracut-*.md' '| image |') ;;
	init-arm64) quote '| architecture |' $(newest 'init-arm64-*.md' '| architecture |') ;;
	soak) quote '| integration |' $(newest 'soak-*.md' '| integration |') ;;
	plancost) quote 'valgrind --tool=callgrind' $(newest 'plancost-*.md' 'valgrind --tool=callgrind') ;;
	sched) quote '| | what |' $(newest 'sched-*.md' '| | what |') ;;
	sizes) quote '| architecture |' $(newest 'sizes-*.md' '| architecture |') ;;
	check) quote '| `make check` |' $(newest 'check-*.md' '| `make check` |') ;;
	*) echo "tables.sh: no table called $1" >&2; return 1 ;;
	esac
}

# rewrite DOC: DOC with every marked table made again, on stdout
rewrite() {
	case $1 in */*) rel=$(dirname "$1" | sed 's|[^/]*|..|g')/ ;; *) rel= ;; esac
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case $line in
		'<!-- BEGIN '*' -->')
			name=${line#<!-- BEGIN }
			name=${name% -->}
			make_table "$name" || return 1
			# skip the old table up to its END marker, which is kept
			while IFS= read -r line; do
				case $line in "<!-- END $name -->") printf '%s\n' "$line"; break ;; esac
			done
			;;
		esac
	done <"$1"
}

case ${1:-} in
--check)
	bad='' n=0
	for doc in $docs; do
		[ -f "$doc" ] || continue
		n=$((n + $(grep -c '^<!-- BEGIN ' "$doc" || :)))
		new=$(rewrite "$doc") || exit 2
		if [ "$new" != "$(cat "$doc")" ]; then
			bad="$bad $doc:$(printf '%s\n' "$new" | diff "$doc" - | sed -n 's/^[<>] //p' | head -n 1 | cut -c1-60)"
		fi
	done
	# the verdict file against the records it was made from, for the code it names
	v=$res/boot-verdict.md
	if [ -f "$v" ]; then
		c=$(verdict_codes)
		[ "$(bench/boot-verdict.sh "$c")" = "$(cat "$v")" ] || bad="$bad $v:not what bench/boot-verdict.sh $c makes of boots.tsv"
	fi
	if [ -n "$bad" ]; then
		echo "differs from bench/results:$bad"
		exit 1
	fi
	echo "$n tables as bench/results make them"
	;;
'')
	for doc in $docs; do
		[ -f "$doc" ] || continue
		rewrite "$doc" >"$doc.tmp" && mv "$doc.tmp" "$doc"
	done
	;;
-*) echo "usage: scripts/tables.sh [--check | NAME]" >&2; exit 2 ;;
*) rel=../ make_table "$1" ;;
esac
