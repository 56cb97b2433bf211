#!/bin/sh
# Write the benchmark's report from one run's data: OUTDIR/DAY.md, its
# plots in OUTDIR/DAY/ (gnuplot), and the data behind it there too
# (runs.tsv: one line per boot and number; meta.txt; cost.tsv).
#
# Usage: bench/report.sh RAWDIR OUTDIR
#   RAWDIR  bench/run.sh's build/bench/runs/STAMP
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 2 ] || { echo "usage: $0 RAWDIR OUTDIR" >&2; exit 2; }
raw=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
b=$top/bench

meta() { sed -n "s/^$1=//p" "$raw/meta.txt" | tail -n 1; }
day=$(meta date | cut -c1-10)
case $raw in */smoke) day=smoke ;; esac
md=$out/$day.md
pd=$out/$day
rel=$day
rm -rf "$pd"
mkdir -p "$pd"
awk -f "$b/stats.awk" "$raw/runs.tsv" >"$raw/summary.tsv"
cp "$raw/runs.tsv" "$raw/meta.txt" "$pd/"
if [ -f "$raw/cost.tsv" ]; then cp "$raw/cost.tsv" "$pd/"; fi
sum=$raw/summary.tsv

# --- what is there ---------------------------------------------------------------
label() {
	case $1 in
	udev) echo "udev coldplug" ;;
	modprobe) echo "modprobe -a" ;;
	xargs) echo "xargs -P modprobe" ;;
	waves) echo "modpreload --waves" ;;
	dataflow) echo "modpreload" ;;
	waves-* | dataflow-*)
		# the options the bench's contender names stand for (bench-lib.sh)
		printf 'modpreload'
		case $1 in waves-*) printf ' --waves' ;; esac
		for o in $(echo "${1#*-}" | tr - ' '); do
			case $o in
			j[0-9]*) printf ' -j %s' "${o#j}" ;;
			fifo) printf ' --order=fifo' ;;
			fixed) printf ' --pool=fixed' ;;
			adaptive) printf ' --pool=adaptive' ;;
			profile) printf ' --profile' ;;
			esac
		done
		echo
		;;
	*) echo "$1" ;;
	esac
}
# values of column N (1-based) of runs.tsv where column 1 is SCENARIO
# (and column 2 KERNEL when given), in first-seen order
seen() {
	awk -F'\t' -v s="$2" -v k="${3:-}" -v c="$1" \
		'$1 == s && (k == "" || $2 == k) && !(($c) in x) { x[$c] = 1; print $c }' "$raw/runs.tsv"
}
order_contenders() { # the usual order, whatever the runs' rotation was
	for c in udev modprobe xargs waves dataflow; do
		if echo "$1" | grep -qx "$c"; then echo "$c"; fi
	done
	echo "$1" | grep -vx -e udev -e modprobe -e xargs -e waves -e dataflow || true
}
rows_of() { # SCENARIO: the table's row spec
	for c in $(order_contenders "$(seen 4 "$1")"); do
		printf '%s:%s ' "$c" "$(label "$c" | tr ' ' _)"
	done
}
table() { # SCENARIO ROWS COLS METRIC [REF]
	awk -v scen="$1" -v rows="$2" -v cols="$3" -v metric="$4" -v ref="${5:-}" \
		-v corner="" -f "$b/table.awk" "$sum"
	echo
}
has() { grep -q "^$1	" "$raw/runs.tsv"; }
med() { # SCENARIO KERNEL VARIANT CONTENDER VCPUS KEY: the median, or nothing
	awk -F'\t' -v s="$1" -v k="$2" -v v="$3" -v c="$4" -v n="$5" -v key="$6" \
		'$1 == s && $2 == k && $3 == v && $4 == c && $5 == n && $6 == key { print $8 + 0; exit }' "$sum"
}

# --- plots -------------------------------------------------------------------------
gp() { # gnuplot with the common settings; the script on stdin
	{
		echo 'set terminal pngcairo size 900,520 font ",10" noenhanced'
		echo 'set grid ytics lc rgb "#dddddd"'
		echo 'set key inside left top reverse Left'
		echo 'set border 3; set tics nomirror'
		cat
	} | gnuplot 2>>"$raw/gnuplot.log" || echo "report.sh: gnuplot failed (see $raw/gnuplot.log)" >&2
}
# series SCENARIO KERNEL KEY SCALE: one block per contender, "vcpus median
# min max", for gnuplot's index
series() {
	for c in $(order_contenders "$(seen 4 "$1" "$2")"); do
		echo "\"$(label "$c")\""
		awk -F'\t' -v s="$1" -v k="$2" -v c="$c" -v key="$3" -v sc="$4" \
			'$1 == s && $2 == k && $4 == c && $6 == key { printf "%s %g %g %g\n", $5, $8 / sc, $9 / sc, $10 / sc }' \
			"$sum" | sort -n
		printf '\n\n'
	done
}
# calls_of FILE VARIANT CONTENDER: the per-call lines of one contender's
# run in a boot's output (all of the file when it ran one contender)
segment() {
	tr -d '\r' <"$1" | sed -n 's/.*MPT: //p' | awk -F= -v var="$2" -v c="$3" -v what="$4" '
		$1 == "bench.variant" { v = $2; next }
		$1 == "bench.begin" { b = $2; multi = 1; next }
		$1 == what && (!multi || (b == c && (var == "-" || v == var))) { print substr($0, length(what) + 2) }'
}
# timeline FILE VARIANT CONTENDER: "row start_s end_s failed parity" per
# load (parity tells neighbours on a row apart);
# modpreload's from its JSON report (a row per worker), the others from the
# trace (a row per loading thread, in order of first load)
timeline() {
	case $3 in
	waves* | dataflow*)
		segment "$1" "$2" "$3" bench.mod | awk -F, '$4 != "" && $6 >= 0 {
			printf "%d %.3f %.3f %d %d\n", $6 + 1, $4 / 1000, $5 / 1000, ($3 == "failed" || $3 == "hung"), k[$6]++ % 2 }'
		;;
	*)
		segment "$1" "$2" "$3" bench.call | awk -F, '{
			if (!($1 in row)) row[$1] = ++n
			printf "%d %.3f %.3f %d %d\n", row[$1], $2 / 1000, $3 / 1000, $4 != 0, k[$1]++ % 2 }'
		;;
	esac
}
# timelines PNG TITLE FILE VARIANT CONTENDER...: one panel per contender
# chain_tables FILE KERNEL VCPUS: the graph's run 1, split on the chain of
# loads that decided the last one (chain.awk) into the kernel's time and
# the loader's; writes chain-VARIANT-sVCPUS.tsv beside the report
chain_tables() {
	[ -f "$raw/dag-$2.tsv" ] || return 0
	for v in $(seen 3 graph "$2"); do
		for c in $(order_contenders "$(seen 4 graph "$2")"); do
			segment "$1" "$v" "$c" bench.call | sed "s/^/$c	/"
		done | awk -v ncpus="$([ "$v" = cpu ] && echo "$3" || echo 0)" -f "$b/chain.awk" \
			"$raw/dag-$2.tsv" - >"$pd/chain-$v-s$3.tsv"
		[ -s "$pd/chain-$v-s$3.tsv" ] || continue
		for c in $(seen 4 graph "$2"); do printf '%s\t%s\n' "$c" "$(label "$c")"; done >"$raw/labels.tsv"
		kb=$(awk -F'\t' 'NR == 1 { printf "%.2f", $7 / 1000 }' "$pd/chain-$v-s$3.tsv")
		echo "Run 1, $v, $3 vCPUs: the chain of loads that decided when the last module"
		echo "went live, each load waiting for the one before it (its last parent to"
		echo "return). Its time is the kernel's (load calls, enter to return) plus the"
		echo "loader's (from that return to the next call entering). The kernel's bound,"
		echo "$kb s, is the DAG's longest path when every module costs the least"
		echo "enter-to-return any contender of this boot took for it: the init() times"
		echo "plus what the kernel spends on a load before and after init() on this host"
		if [ "$v" = cpu ]; then
			echo "(here the sum of those loads over the $3 vCPUs, which is more: a"
			echo "CPU-bound load's kernel time is CPU time too)."
		else
			echo "(on the chain: only the kernel's work stands between one link and the next)."
		fi
		echo
		echo "The last column: what a load call took beyond its init(), the mean over all"
		echo "the loads: the kernel's own work around init() on this host."
		echo
		echo "| | last live | loads on the chain | kernel | loader | init() on the chain | over the kernel's bound | kernel per load beyond init() |"
		echo "|---|---:|---:|---:|---:|---:|---:|---:|"
		awk -F'\t' 'function s(v) { return sprintf("%.2f s", v / 1000) }
			NR == FNR { lab[$1] = $2; next }
			{ printf "| %s | %s | %d | %s | %s (%.0f %%) | %s | ×%.2f | %.1f ms |\n", lab[$1], s($2), $3, s($4), s($5),
				($2 > 0 ? 100 * $5 / $2 : 0), s($6), ($7 > 0 ? $2 / $7 : 0), $8 }' \
			"$raw/labels.tsv" "$pd/chain-$v-s$3.tsv"
		echo
	done
}
timelines() {
	png=$1 title=$2 f=$3 var=$4
	shift 4
	n=0
	for c in "$@"; do
		timeline "$f" "$var" "$c" >"$raw/tl-$c-$var.dat"
		if [ -s "$raw/tl-$c-$var.dat" ]; then n=$((n + 1)); fi
	done
	[ "$n" -gt 0 ] || return 0
	xmax=$(cat "$raw"/tl-*-"$var".dat | awk '$3 > m { m = $3 } END { print m * 1.02 + 0.01 }')
	{
		echo "set terminal pngcairo size 1000,$((200 * n + 80)) font \",10\" noenhanced"
		echo "set output '$png'"
		echo "set multiplot layout $n,1 title '$title'"
		echo "set xrange [0:$xmax]; unset key"
		echo 'set tmargin 1.5; set bmargin 3; set ylabel "worker / thread"'
		for c in "$@"; do
			d=$raw/tl-$c-$var.dat
			[ -s "$d" ] || continue
			if [ "$c" = "$(echo "$@" | awk '{ print $NF }')" ]; then echo 'set xlabel "seconds since the loader started"'; fi
			echo "set title '$(label "$c"): $(wc -l <"$d") load calls, $(awk '$4 == 1' "$d" | wc -l) refused or failed' offset 0,-0.8"
			rows=$(awk '$1 > m { m = $1 } END { print m }' "$d")
			step=1
			if [ "$rows" -gt 8 ]; then step=$(((rows + 7) / 8)); fi
			echo "set ytics $step; set yrange [0.5:$rows.5]"
			echo "plot '$d' using 2:(\$4 == 0 && \$5 == 0 ? \$1 : 1/0):(\$3 - \$2):(0) with vectors nohead lw 4 lc rgb '#2a7ab0', \\"
			echo "     '$d' using 2:(\$4 == 0 && \$5 == 1 ? \$1 : 1/0):(\$3 - \$2):(0) with vectors nohead lw 4 lc rgb '#7fb8dc', \\"
			echo "     '$d' using 2:(\$4 == 1 ? \$1 : 1/0):(\$3 - \$2):(0) with vectors nohead lw 4 lc rgb '#d0342c'"
		done
		echo 'unset multiplot'
	} | gnuplot 2>>"$raw/gnuplot.log" || echo "report.sh: gnuplot failed (see $raw/gnuplot.log)" >&2
}

# --- the report ----------------------------------------------------------------------
runs=$(meta runs)
{
	echo "# modpreload benchmark, $day"
	echo
	echo "Reproduce: \`$(meta command | sed 's/ *$//')\` (\`make bench\` runs \`bench/run.sh\` with its defaults)."
	echo "$(meta elapsed | awk '{ printf "%d min", $1 / 60 }') on the machine below, git \`$(meta git)\`."
	echo
	echo "| | |"
	echo "|---|---|"
	echo "| host | $(meta cpu), $(meta cores) cores, $(meta mem_gib) GiB, $(meta host_os), Linux $(meta host_kernel); shared with other work |"
	echo "| host load average during the boots | $(awk -F'\t' '$7 == "host.load_before" { print $8 }' "$raw/runs.tsv" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) printf "%s – %s (median %s)", v[1], v[NR], v[int((NR + 1) / 2)] }') |"
	echo "| QEMU | $(meta qemu), \`-accel tcg,thread=multi -cpu max\`, no KVM, $(mem=$(meta env.MP_BENCH_MEM); echo "${mem:-1024}") MiB guest memory |"
	for k in bookworm trixie stats; do
		v=$(meta "kernel.$k")
		[ -z "$v" ] || echo "| kernel $k | $v |"
	done
	echo "| in the guest | busybox $(meta busybox), kmod $(meta kmod), systemd-udevd $(meta udev), $(meta modpreload) ($(meta modpreload_bytes) bytes, static musl) |"
	echo
	echo "Each cell: the median of $runs runs, [min–max] when they differ; ×N: the"
	echo "median over modpreload's (dataflow, the default) in the same column."
	echo "Times are guest seconds from the kernel's trace clock. TCG runs guest"
	echo "time at wall-clock rate but executes far fewer instructions per second"
	echo "than hardware, all the more on a busy 2-core host: absolute times are"
	echo "long, so compare within a column. Counts do not depend on speed."
	echo
	echo "| contender | what runs in the guest |"
	echo "|---|---|"
	echo "| udev coldplug | \`systemd-udevd --daemon\`, \`udevadm trigger --type=subsystems --action=add\`, \`udevadm trigger --type=devices --action=add\`, \`udevadm settle\`, as dracut does; rules: 80-drivers.rules (\`kmod load\` of every MODALIAS); \`udev.children_max=\`2·vCPUs+16 (udevd's own default without its RAM cap) |"
	echo "| modprobe -a | one \`modprobe -a -b -q\` over the list, in order (mkinitcpio's MODULES); storm: every device's MODALIAS, then again for devices that appeared |"
	echo "| xargs -P modprobe | \`xargs -P\` 2·vCPUs+16 \`-n 1 modprobe -b -q\` (udev's worker count); storm: as above |"
	echo "| modpreload --waves | \`modpreload --waves\` (\`--coldplug\` in the storm, \`-c LIST\` otherwise), \`-t 900\` |"
	echo "| modpreload | \`modpreload\`, the same, dataflow (the default); \`-j\` defaults to the vCPUs (at most 16) |"
	echo
	echo "Columns of the load-syscall tables: finit_module + init_module calls, then"
	echo "(failed: EEXIST / EBUSY / other errno) when any failed. Every boot has the"
	echo "syscall and \`module_load\` tracepoints on (\`harness/lib/run.sh\`)."
	echo

	# --- the headline: one row per contender, the largest storm, the graph, the duplicates
	hs=$(seen 5 storm bookworm | sort -n | tail -n 1)
	hk=$(seen 2 graph | head -n 1)
	hg=$(seen 5 graph "$hk" | sort -n | head -n 1)
	hd=$(seen 5 dups bookworm | sort -n | head -n 1)
	if [ -n "$hs$hg$hd" ]; then
		echo "## Summary"
		echo
		printf '| |'
		[ -z "$hs" ] || printf ' storm, 6.1, %s vCPUs: load calls (failed) | first load → last live, s |' "$hs"
		if [ -n "$hg" ]; then
			for v in $(seen 3 graph "$hk"); do printf ' graph (%s, %s vCPUs): time over the bound |' "$v" "$hg"; done
		fi
		[ -z "$hd" ] || printf ' duplicates, 6.1: MiB read for refused calls |'
		echo
		printf '|---|'
		[ -z "$hs" ] || printf -- '---:|---:|'
		if [ -n "$hg" ]; then for v in $(seen 3 graph "$hk"); do printf -- '---:|'; done; fi
		[ -z "$hd" ] || printf -- '---:|'
		echo
		if [ -n "$hg" ]; then
			# shellcheck source=/dev/null
			. "$raw/dag-$hk.env"
		fi
		for c in $(order_contenders "$(seen 4 storm; seen 4 graph; seen 4 dups)" | awk '!x[$0]++'); do
			printf '| %s |' "$(label "$c")"
			if [ -n "$hs" ]; then
				v=$(med storm bookworm - "$c" "$hs" bench.calls)
				f=$(med storm bookworm - "$c" "$hs" bench.failed)
				w=$(med storm bookworm - "$c" "$hs" bench.window_ms)
				printf ' %s |' "$(awk -v v="$v" -v f="$f" 'BEGIN {
					if (v == "") print "–"; else if (f > 0) printf "%.0f (%.0f)", v, f; else printf "%.0f", v }')"
				printf ' %s |' "$(awk -v v="$w" 'BEGIN { if (v == "") print "–"; else printf "%.1f", v / 1000 }')"
			fi
			if [ -n "$hg" ]; then
				for v in $(seen 3 graph "$hk"); do
					w=$(med graph "$hk" "$v" "$c" "$hg" bench.window_ms)
					printf ' %s |' "$(awk -v w="$w" -v v="$v" -v cp="$DAG_CP_MS" -v t="$DAG_TOTAL_MS" -v n="$hg" 'BEGIN {
						b = cp; if (v == "cpu" && t / n > b) b = t / n
						if (w == "") print "–"; else printf "×%.2f", w / b }')"
				done
			fi
			if [ -n "$hd" ]; then
				w=$(med dups bookworm - "$c" "$hd" bench.refused_read_bytes)
				printf ' %s |' "$(awk -v v="$w" 'BEGIN { if (v == "") print "–"; else printf "%.1f", v / 1048576 }')"
			fi
			echo
		done
		echo
		echo "Medians of $runs runs; details, ranges and the other kernels below."
		echo
	fi

	# --- 1. the storm
	if has storm; then
		nmods=$(meta storm_modules.bookworm)
		nmods12=$(meta storm_modules.trixie)
		echo "## 1. The storm: this VM's own devices and CPUs"
		echo
		echo "QEMU's default i440FX machine with -cpu max; the image holds the modules"
		echo "its devices ask for (found by one boot and kmod, as \`make demo\` does) and"
		echo "their dependencies: ${nmods:-?} on 6.1${nmods12:+, $nmods12 on 6.12}. Every CPU asks for the same"
		echo "CPU-feature modules. One fresh boot per contender and point, round-robin."
		echo
		cols=''
		for k in $(seen 2 storm); do
			for s in $(seen 5 storm "$k" | sort -n); do
				case $k in
				bookworm) l="6.1,_${s}_vCPUs" ;;
				trixie) l="6.12,_${s}_vCPUs" ;;
				*) l="${k},_${s}_vCPUs" ;;
				esac
				cols="$cols $k:-:$s:$l"
			done
		done
		rows=$(rows_of storm)
		echo "Load syscalls (\"other\" failures here are ENODEV: drivers whose init()"
		echo "finds no device, e.g. cpufreq and EDAC drivers the CPU model asks for):"
		echo
		table storm "$rows" "$cols" calls
		echo "Modules live afterwards (\`/proc/modules\`):"
		echo
		table storm "$rows" "$cols" "int proc_count"
		echo "First load syscall to the last module live (seconds):"
		echo
		table storm "$rows" "$cols" "time bench.window_ms" dataflow
		echo "Kernel start to the last module live (guest uptime, seconds):"
		echo
		table storm "$rows" "$cols" "time bench.live_ms" dataflow
		echo "The loader's own wall time, start to exit (seconds; udev: udevd's start to \`settle\` returning):"
		echo
		table storm "$rows" "$cols" "time bench.wall_ms" dataflow
		series storm bookworm bench.window_ms 1000 >"$raw/storm-time.dat"
		series storm bookworm bench.calls 1 >"$raw/storm-calls.dat"
		gp <<-EOF
			set output '$pd/storm-time.png'
			set title "The storm on 6.1: first load to last module live (median, min–max)"
			set xlabel "vCPUs"; set ylabel "guest seconds"; set logscale x 2; set xtics (4, 8, 16, 32, 64)
			set yrange [0:*]
			plot for [i=0:*] '$raw/storm-time.dat' index i using 1:2:3:4 with yerrorlines lw 2 dt 1+i%3 pt 4+i title columnheader(1)
		EOF
		gp <<-EOF
			set output '$pd/storm-calls.png'
			set title "The storm on 6.1: finit_module + init_module calls (median, min–max)"
			set xlabel "vCPUs"; set ylabel "load syscalls"; set logscale x 2; set xtics (4, 8, 16, 32, 64)
			set yrange [0:*]
			plot for [i=0:*] '$raw/storm-calls.dat' index i using 1:2:3:4 with yerrorlines lw 2 dt 1+i%3 pt 4+i title columnheader(1)
		EOF
		echo "![load time against vCPUs]($rel/storm-time.png)"
		echo "![load syscalls against vCPUs]($rel/storm-calls.png)"
		echo
		big=$(seen 5 storm bookworm | sort -n | tail -n 1)
		set --
		for c in $(order_contenders "$(seen 4 storm bookworm)"); do
			if [ -f "$raw/storm/bookworm/$c-s$big-r1.txt" ]; then set -- "$@" "$c"; fi
		done
		if [ $# -gt 0 ]; then
			for c in "$@"; do cp "$raw/storm/bookworm/$c-s$big-r1.txt" "$raw/tl-storm-$c.txt"; done
			# one file per contender: timeline() reads one file, so merge them as segments
			for c in "$@"; do
				echo "MPT: bench.begin=$c"
				cat "$raw/tl-storm-$c.txt"
			done >"$raw/tl-storm.txt"
			timelines "$pd/storm-timeline.png" "The storm on 6.1 at $big vCPUs, run 1: which load ran when (red: refused or failed)" \
				"$raw/tl-storm.txt" - "$@"
			echo "![storm timeline]($rel/storm-timeline.png)"
			echo
		fi
	fi

	# --- 2. the known graph
	if has graph; then
		k=$(seen 2 graph | head -n 1)
		# shellcheck source=/dev/null
		. "$raw/dag-$k.env"
		echo "## 2. A known graph: $DAG_NODES modules, fixed dependencies and init() times"
		echo
		echo "\`bench/modules/\`: a DAG generated from seed $DAG_SEED ($DAG_NODES nodes, $DAG_EDGES edges,"
		echo "$DAG_DEPTH levels); each node's init() works a fixed time, $(dagms=$(meta env.MP_BENCH_DAG_MS); echo "${dagms:-20:200}" | sed 's/:/–/') ms,"
		echo "Σ $(awk -v v="$DAG_TOTAL_MS" 'BEGIN { printf "%.2f", v / 1000 }') s. Every node is requested, in a fixed shuffled order."
		echo "**sleep**: init() sleeps; the lower bound is the critical path,"
		echo "$(awk -v v="$DAG_CP_MS" 'BEGIN { printf "%.2f", v / 1000 }') s. **cpu**: init() burns that much of its own CPU time; the"
		echo "bound is max(critical path, Σ / vCPUs). In brackets: the time over the bound."
		echo "All contenders run in one boot per run, after a warm-up load, order"
		echo "rotating, the modules unloaded in between (\`harness/bench/guest/bench-graph.sh\`)."
		echo "\"modpreload -j N\" runs with xargs' parallelism: by default \`-j\` is the"
		echo "number of CPUs, which caps sleeping inits below what the DAG allows."
		echo
		cols=''
		for s in $(seen 5 graph "$k" | sort -n); do
			for v in $(seen 3 graph "$k"); do
				case $v in
				cpu) bound=$(awk -v cp="$DAG_CP_MS" -v t="$DAG_TOTAL_MS" -v n="$s" 'BEGIN { b = t / n; print (b > cp ? b : cp) }') ;;
				*) bound=$DAG_CP_MS ;;
				esac
				cols="$cols $k:$v:$s:${v},_${s}_vCPUs,_bound_$(awk -v v="$bound" 'BEGIN { printf "%.2f_s", v / 1000 }'):$bound"
			done
		done
		rows=$(rows_of graph)
		echo "First load to the last module live (seconds, and over the bound):"
		echo
		table graph "$rows" "$cols" "bound bench.window_ms"
		echo "Load syscalls:"
		echo
		table graph "$rows" "$cols" calls
		s=$(seen 5 graph "$k" | sort -n | head -n 1)
		f=$raw/graph/$k/s$s-r1.txt
		if [ -f "$f" ]; then
			for v in $(seen 3 graph "$k"); do
				# shellcheck disable=SC2046 # the contenders are words
				timelines "$pd/graph-timeline-$v.png" "The graph ($v) on 6.1 at $s vCPUs, run 1 (red: refused)" \
					"$f" "$v" $(order_contenders "$(seen 4 graph "$k")")
				echo "![graph timeline, $v]($rel/graph-timeline-$v.png)"
			done
			echo
		fi
		for s in $(seen 5 graph "$k" | sort -n); do
			f=$raw/graph/$k/s$s-r1.txt
			if [ -f "$f" ]; then chain_tables "$f" "$k" "$s"; fi
		done
	fi

	# --- 3. duplicates
	if has dups; then
		cols=''
		for k in $(seen 2 dups); do
			for s in $(seen 5 dups "$k" | sort -n); do
				cols="$cols $k:-:$s:$(meta "kernel.$k" | tr ' ' _),_${s}_vCPUs"
			done
		done
		rows=$(rows_of dups)
		echo "## 3. Duplicates at scale: $(meta dups_copies) requests for each of $(meta dups_k) modules"
		echo
		echo "\`mpb_dup00\`… each carry a 256 KiB payload and need \`mpb_dupbase\` (as the CPU"
		echo "crypto modules need crypto_simd); requested in $(meta dups_copies) rounds of all $(meta dups_k). Same"
		echo "one-boot-per-run method as the graph. 6.1 reads and allocates every"
		echo "duplicate before refusing it; 6.12 refuses a sequential repeat early and"
		echo "merges concurrent \`finit_module\` calls on the same file — but bookworm's"
		echo "kmod 30 (in every image) decompresses .ko.xz/.ko.zst itself and calls"
		echo "\`init_module\` with the bytes, which no merge catches. Most of the"
		echo "requests never reach the kernel: modprobe skips a module that is already"
		echo "live, so only requests made while it is still coming are duplicates, and"
		echo "these modules' init() is empty (a real crypto module's runs self-tests,"
		echo "which widens that window)."
		echo
		echo "Load syscalls:"
		echo
		table dups "$rows" "$cols" calls
		echo "Calls beyond one per module loaded:"
		echo
		table dups "$rows" "$cols" extra
		echo "Bytes the kernel took in for calls it refused (MiB): kernel_read_file for"
		echo "\`finit_module\` (a kprobe), the buffer's length for \`init_module\` (the tracepoint):"
		echo
		table dups "$rows" "$cols" "mib bench.refused_read_bytes"
		echo "Module memory the kernel allocated for calls it refused (MiB, kprobe on"
		echo "\`module_alloc\` / \`execmem_alloc\`; – where the kernel has no kprobes):"
		echo
		table dups "$rows" "$cols" "mib bench.refused_alloc_bytes"
		if grep -q '	bench\.ks\.' "$raw/runs.tsv"; then
			for ks in Mods_failed_on_kread Mods_failed_on_becoming Mods_failed_on_load \
				Failed_kread_bytes Failed_becoming_bytes Failed_kmod_bytes Virtual_mem_wasted_bytes; do
				kc=''
				for c in $cols; do
					case $c in stats:*) kc="$kc $c" ;; esac
				done
				[ -n "$kc" ] || break
				case $ks in
				*bytes) m="mib bench.ks.$ks"; u=" (MiB)" ;;
				*) m="int bench.ks.$ks"; u="" ;;
				esac
				echo "\`/sys/kernel/debug/modules/stats\`, $(echo "$ks" | tr _ ' ')$u, during each contender:"
				echo
				table dups "$rows" "$kc" "$m"
			done
		fi
		echo "First load to the last module live (seconds):"
		echo
		table dups "$rows" "$cols" "time bench.window_ms" dataflow
	fi

	# --- 4. cost
	if [ -f "$raw/cost.tsv" ]; then
		c() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$raw/cost.tsv"; }
		kib() { awk -v v="$1" 'BEGIN { if (v == "") print "–"; else printf "%.0f KiB", v / 1024 }'; }
		mi() { awk -v v="$1" 'BEGIN { if (v == "") print "–"; else printf "%.0f M", v / 1e6 }'; }
		base=$(c image.base)
		echo "## 4. The tool's own cost"
		echo
		echo "| | modpreload | kmod (modprobe) | udev coldplug (udevd + kmod) |"
		echo "|---|---:|---:|---:|"
		echo "| program | $(kib "$(c size.modpreload.binary)") static | $(kib "$(c size.kmod.binary)") | $(kib "$(c size.udev.binary)") (udevadm) |"
		echo "| with the shared libraries and files it needs | $(kib "$(c size.modpreload.total)") | $(kib "$(c size.kmod.total)") | $(kib "$(c size.udev.total)") |"
		echo "| added to a gzip'ed busybox image with this VM's $(c image.modules) modules ($(kib "$base")) | $(kib $(($(c image.modpreload) - base))) | $(kib $(($(c image.kmod) - base))) | $(kib $(($(c image.udev) - base))) |"
		echo "| planning all $(c plan.modules) modules of Debian's 6.1 tree: peak RSS | $(c plan.modpreload.rss_kib) KiB | $(c plan.kmod.rss_kib) KiB | |"
		echo "| … instructions (callgrind) | $(mi "$(c plan.modpreload.instructions)") | $(mi "$(c plan.kmod.instructions)") | |"
		echo "| … CPU seconds on the host (median of 3) | $(c plan.modpreload.cpu_s) | $(c plan.kmod.cpu_s) | |"
		echo "| … output | $(kib "$(c plan.modpreload.output_bytes)") JSON plan | $(kib "$(c plan.kmod.output_bytes)") insmod lines | |"
		echo
		echo "Planning: \`modpreload --no-fork -n -c ALL\` (resolve, softdeps, waves, critical"
		echo "path, JSON plan) against kmod's own resolution, \`modprobe --show-depends -a ALL\`,"
		echo "both reading the same tree with an empty modprobe.d. Instructions from"
		echo "\`valgrind --tool=callgrind\` do not depend on how busy the host is."
		echo
	fi

	# --- extras
	if [ -d "$raw/extras" ]; then
		for x in "$raw"/extras/*.md; do
			[ -s "$x" ] || continue
			# NAME.ARCH.md: bench/NAME.sh --arch ARCH
			n=$(basename "$x" .md) xa=''
			case $n in *.*) xa=" --arch ${n#*.}" n=${n%%.*} ;; esac
			echo "## Extra: \`bench/$n.sh$xa\`"
			echo
			cat "$x"
			echo
		done
	fi

	echo "## How this was measured"
	echo
	echo "- \`bench/run.sh\` (options and knobs in its header) builds the images with"
	echo "  \`harness/lib/mkimage.sh\` and boots them with \`harness/lib/run.sh\`; guest side:"
	echo "  \`harness/bench/guest/bench-*.sh\`. Raw numbers: [$rel/runs.tsv]($rel/runs.tsv)"
	echo "  (one line per boot, contender and number), [$rel/meta.txt]($rel/meta.txt)."
	echo "- Times come from the trace: a \`trace_marker\` when the loader starts, the"
	echo "  first \`sys_enter_finit_module\`/\`sys_enter_init_module\`, the last successful"
	echo "  exit. Failed calls' errno from \`sys_exit_*\`."
	echo "- Boots that did not finish are retried once; a point that failed twice is"
	echo "  missing from its table (\`bench.boot_failed\` in runs.tsv)."
	n_fail=$(awk -F'\t' '$7 == "bench.boot_failed"' "$raw/runs.tsv" | wc -l)
	n_retry=$(find "$raw" -name '*.failed.txt' | wc -l)
	echo "  This run: $n_retry boot(s) retried, $n_fail point(s) missing."
	echo "- Contender order rotates every run, so a change in host load falls on all"
	echo "  of them alike."
} >"$md"
echo "$md"
