# shellcheck shell=sh
# The VM scenarios of bench/run.sh (sourced by it, after bench/lib.sh).
# Each boots the images round-robin, run after run, and records every
# boot's numbers with bench_record.  Raw output: $BENCH_RAW/SCENARIO/KERNEL/.
#   storm  this VM's own devices and CPUs, coldplugged by each contender,
#          one fresh boot per contender (what a boot really does)
#   graph  the benchmark's DAG (bench/modules), every contender in one boot
#   dups   K modules asked for 64 times each, every contender in one boot

: "${top:?}"

bench_boot_args() { # SMP: what every boot's command line has
	# IO-APIC timer check: fails now and then when TCG vCPUs starve
	printf 'no_timer_check'
	if [ -n "${MP_BENCH_XARGS_P:-}" ]; then printf ' bench.xargs_p=%s' "$MP_BENCH_XARGS_P"; fi
	case ${MP_BENCH_UDEV_CHILDREN:-cpu} in
	cpu) printf ' udev.children_max=%s' $((2 * $1 + 16)) ;;
	ram) ;;
	*) printf ' udev.children_max=%s' "$MP_BENCH_UDEV_CHILDREN" ;;
	esac
}

# bench_try IMAGE SMP CMDLINE OUT: one boot, once more if it does not
# finish (a stalled TCG guest); status 1 when neither did
bench_try() {
	bt_a="$(bench_boot_args "$2") $3"
	bt_t=${MP_BENCH_TIMEOUT:-2400}
	bt_m=${MP_BENCH_MEM:-1024}
	if bench_boot "$1" "$2" "$bt_m" "$bt_t" "$bt_a" "$4"; then return 0; fi
	bench_log "the boot did not finish ($(tail -n 1 "${4%.txt}.err")); once more"
	mv "$4" "${4%.txt}.failed.txt"
	mv "${4%.txt}.log" "${4%.txt}.failed.log"
	if bench_boot "$1" "$2" "$bt_m" "$bt_t" "$bt_a" "$4"; then return 0; fi
	bench_log "failed again: ${4%.txt}.err"
	return 1
}

# bench_point SCENARIO KERNEL SMP RUN IMAGE OUT CMDLINE [CONTENDER]
bench_point() {
	bp_t0=$(date +%s)
	if bench_try "$5" "$3" "$7" "$6"; then
		bench_record "$6" "$1" "$2" "$3" "$4" "${8:-}"
	else
		printf '%s\t%s\t-\t%s\t%s\t%s\tbench.boot_failed\t1\n' "$1" "$2" "${8:-all}" "$3" "$4" \
			>>"$BENCH_RAW/runs.tsv"
	fi
	bench_log "   $(($(date +%s) - bp_t0)) s"
}

bench_max() { bench_words "$1" | sort -n | tail -n 1; }

# the contenders of a list that apply to a scenario without devices
bench_no_udev() {
	bench_words "$1" | grep -vx udev | paste -sd, -
}

scenario_storm() { # RUNS VCPUS KERNELS CONTENDERS
	ks=''
	for k in $(bench_words "$3"); do
		case $k in
		stats) bench_log "storm: the stats kernel has no drivers for this VM; skipped"; continue ;;
		esac
		bench_kernel "$k"
		bench_log "storm: $k: the modules this VM's devices ask for (cached after one boot)"
		mods=$(bench_storm_modules | paste -sd, -)
		[ -n "$mods" ] || bench_die "storm: no modules found for this VM under $k"
		mkdir -p "$BENCH_WORK/img"
		bench_mkimage "$BENCH_WORK/img/storm-$k.img" "$top/harness/bench/guest/bench-storm.sh" --udev -m "$mods"
		echo "storm_modules.$k=$(echo "$mods" | tr ',' ' ' | wc -w)" >>"$BENCH_RAW/meta.txt"
		echo "kernel.$k=$BK_KVER" >>"$BENCH_RAW/meta.txt"
		ks="$ks $k"
	done
	r=1
	while [ "$r" -le "$1" ]; do
		for k in $ks; do
			bench_use "$k"
			smps=$2
			if [ "$k" != bookworm ]; then smps=${MP_BENCH_TRIXIE_VCPUS:-16}; fi
			big=$(bench_max "$smps")
			for smp in $(bench_words "$smps"); do
				calls=0
				if [ "$r" = 1 ] && [ "$smp" = "$big" ]; then calls=1; fi
				for c in $(bench_words "$(bench_rotate $((r - 1)) "$4")"); do
					bench_log "storm: $k, $smp vCPUs, $c (run $r of $1)"
					bench_point storm "$k" "$smp" "$r" "$BENCH_WORK/img/storm-$k.img" \
						"$BENCH_RAW/storm/$k/$c-s$smp-r$r.txt" "bench.mode=$c bench.calls=$calls" "$c"
				done
			done
		done
		r=$((r + 1))
	done
}

# The graph's VM: as many vCPUs as the host has cores, at most 4. Under
# TCG a vCPU is a host thread, and the kernel's cross-CPU calls during a
# load (TLB flushes, text patching) wait for every vCPU's thread: with more
# vCPUs than cores each load's kernel time grows with what runs beside it
# (bench/results/2026-12-02.md, 2-core host: a load's kernel work around
# init() 14 ms at 2 vCPUs, 73 ms at 4), which no loader can help.
bench_graph_vcpus() {
	n=$(nproc)
	echo $((n < 4 ? n : 4))
}

scenario_graph() { # RUNS VCPUS KERNELS CONTENDERS
	ks=${MP_BENCH_GRAPH_KERNELS:-bookworm}
	cs=$(bench_no_udev "$4")
	for k in $(bench_words "$ks"); do
		bench_kernel "$k"
		mkdir -p "$BENCH_WORK/img"
		bench_mkimage "$BENCH_WORK/img/graph-$k.img" "$top/harness/bench/guest/bench-graph.sh" \
			--add "$BK_TREE/requests.txt:/mpt/requests.txt" -m "$(cut -f1 "$BK_TREE/dag.tsv" | paste -sd, -)"
		cp "$BK_TREE/dag.env" "$BENCH_RAW/dag-$k.env"
		cp "$BK_TREE/dag.tsv" "$BENCH_RAW/dag-$k.tsv"
		echo "kernel.$k=$BK_KVER" >>"$BENCH_RAW/meta.txt"
	done
	r=1
	while [ "$r" -le "$1" ]; do
		for k in $(bench_words "$ks"); do
			bench_use "$k"
			for smp in $(bench_words "${MP_BENCH_GRAPH_VCPUS:-$(bench_graph_vcpus)}"); do
				calls=0
				if [ "$r" = 1 ]; then calls=1; fi
				# modpreload as it was (arrival order, -j workers), each of
				# the two changes alone, and with the warm-up's profile;
				# and with xargs' parallelism, as the fixed pool needed
				extra=${MP_BENCH_GRAPH_EXTRA-dataflow-fifo-fixed,dataflow-adaptive,dataflow-fifo,dataflow-profile,dataflow-adaptive-profile,dataflow-fifo-fixed-j$((2 * smp + 16))}
				order=$(bench_rotate $((r - 1)) "$cs${extra:+,$extra}")
				bench_log "graph: $k, $smp vCPUs, $order (run $r of $1)"
				bench_point graph "$k" "$smp" "$r" "$BENCH_WORK/img/graph-$k.img" \
					"$BENCH_RAW/graph/$k/s$smp-r$r.txt" \
					"bench.contenders=$order bench.variants=${MP_BENCH_GRAPH_VARIANTS:-sleep,cpu} bench.calls=$calls"
			done
		done
		r=$((r + 1))
	done
}

scenario_dups() { # RUNS VCPUS KERNELS CONTENDERS
	ks=${MP_BENCH_DUPS_KERNELS:-bookworm,trixie,stats}
	cs=$(bench_no_udev "$4")
	nk=${MP_BENCH_DUPS_K:-8}
	copies=${MP_BENCH_DUPS_COPIES:-64}
	mods=$(i=0; while [ "$i" -lt "$nk" ]; do printf 'mpb_dup%02d\n' "$i"; i=$((i + 1)); done | paste -sd, -)
	for k in $(bench_words "$ks"); do
		bench_kernel "$k"
		mkdir -p "$BENCH_WORK/img"
		bench_mkimage "$BENCH_WORK/img/dups-$k.img" "$top/harness/bench/guest/bench-dups.sh" -m "$mods"
		echo "kernel.$k=$BK_KVER" >>"$BENCH_RAW/meta.txt"
	done
	echo "dups_k=$nk" >>"$BENCH_RAW/meta.txt"
	echo "dups_copies=$copies" >>"$BENCH_RAW/meta.txt"
	r=1
	while [ "$r" -le "$1" ]; do
		for k in $(bench_words "$ks"); do
			bench_use "$k"
			for smp in $(bench_words "${MP_BENCH_DUPS_VCPUS:-8}"); do
				order=$(bench_rotate $((r - 1)) "$cs")
				bench_log "dups: $k, $smp vCPUs, $nk x $copies requests, $order (run $r of $1)"
				bench_point dups "$k" "$smp" "$r" "$BENCH_WORK/img/dups-$k.img" \
					"$BENCH_RAW/dups/$k/s$smp-r$r.txt" \
					"bench.contenders=$order bench.k=$nk bench.copies=$copies bench.calls=0"
			done
		done
		r=$((r + 1))
	done
}
