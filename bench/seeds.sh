#!/bin/sh
# The seeds' table, reproduced: /sys/kernel/debug/modules/stats in the
# terms of the LKML thread that started the project (David Hildenbrand,
# "Re: [PATCH 2/2] module: add support to avoid duplicates early on load",
# June 2023: a 448-CPU ThinkSystem SR950, 929ed21dfdb6 "master" against it
# with Linus Torvalds' merge of concurrent loads, "patched"), on one kernel
# source and the same devices, three ways:
#   master      harness/lib/kernel-master.sh: the stats kernel with the
#               merge taken out (finit_module as before 6.5)
#   patched     harness/lib/kernels.sh stats: 6.12 as it is, with the merge
#   modpreload  modpreload given the same requests, on master (and on
#               patched, shown too)
# The requests are the seeds' pattern (harness/bench/guest/bench-seeds.sh):
# each distinct CPU modalias asked for R times (R per -r: this VM's CPUs,
# more, and the seeds' 448), the other devices' once, one loader a request
# as udev's workers run kmod 31 and later, 2 x vCPUs + 16 at once.
#
# Usage: bench/seeds.sh [-c VCPUS] [-r "16 64 448"] [-o DIR] [--report RAWDIR]
#   -c VCPUS        the guest's vCPUs (default 16)
#   -r REQUESTS     requests per CPU alias, a list (default "16 64 448")
#   -o DIR          where seeds-DATE.md goes (default bench/results), the
#                   boots' result lines in DIR/seeds-DATE/
#   --report RAWDIR only write the report again from a run's result lines
# Builds the master kernel the first time (minutes). Each boot about 10
# minutes at 16 vCPUs on 2 host cores, most of it the 448-request storm.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
vcpus=16 requests="16 64 448" out=$top/bench/results raw=''
while [ $# -gt 0 ]; do
	case $1 in
	-c) vcpus=$2; shift 2 ;;
	-r) requests=$2; shift 2 ;;
	-o) out=$2; shift 2 ;;
	--report) raw=$2; shift 2 ;;
	*) sed -n 's/^# Usage: /usage: /p' "$0" >&2; exit 2 ;;
	esac
done
BENCH_WORK=$top/build/bench/seeds
export BENCH_WORK
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
log() { printf 'seeds: %s\n' "$*" >&2; }

# report RAWDIR: the table from master.txt and patched.txt
report() {
	rd=$1
	md=$out/$(basename "$rd").md
	if [ ! -s "$rd/master.txt" ] || [ ! -s "$rd/patched.txt" ]; then
		log "no boots' lines in $rd"
		return 1
	fi
	{
		echo "# The seeds' table, reproduced ($(basename "$rd" | sed 's/^seeds-//'))"
		echo
		echo "Kernel: $(cat "$rd/kver" 2>/dev/null) built twice from the same source (Debian's"
		echo "linux-source-6.12, tinyconfig + CONFIG_MODULE_STATS): **patched** as it is (6.5's merge"
		echo "of concurrent loads of one file), **master** with \`finit_module\` going straight to the"
		echo "load, as before 6.5 (harness/lib/kernel-master.sh; 6.4's early name check kept, as in the"
		echo "seeds' master). QEMU TCG, $(mpt_get seeds.ncpus "$rd/master.txt") vCPUs, \`-cpu max\`, $(nproc)-core host. Each distinct"
		echo "CPU modalias asked for R times, the other $(mpt_get seeds.other_aliases "$rd/master.txt") devices' once; each"
		echo "request one process that loads what the alias resolves to as kmod 31+ does"
		echo "(\`finit_module\`, the kernel decompressing; a live module skipped, a coming one loaded"
		echo "again), $(mpt_get seeds.workers "$rd/master.txt") at once (udevd's 2 per CPU + 16). modpreload: the same"
		echo "requests on its command line. Each loader from nothing, everything unloaded between."
		echo "Figures: the change of \`/sys/kernel/debug/modules/stats\` across each. Made by"
		echo "\`bench/seeds.sh\`; raw lines in \`$(basename "$rd")/\`."
		echo
		echo "| requests per CPU alias | | master | patched | modpreload on master | modpreload on patched |"
		echo "|---:|---|---:|---:|---:|---:|"
		for r in $(tr ' ' '\n' <"$rd/requests"); do
			for row in calls failed wasted dups wall; do
				line="| $r |"
				case $row in
				calls) line="$line requests |" ;;
				failed) line="| | Mods failed on becoming + on load |" ;;
				wasted) line="| | Virtual mem wasted bytes |" ;;
				dups) line="| | Duplicate failed modules (most) |" ;;
				wall) line="| | loader wall (guest) |" ;;
				esac
				for cell in master:udev patched:udev master:modpreload patched:modpreload; do
					f=$rd/${cell%%:*}.txt p=seeds.$r.${cell#*:}
					case $row in
					calls) v=$(mpt_num "$p.requests" "$f") ;;
					failed) v=$(($(mpt_num "$p.ks.Mods_failed_on_becoming" "$f") + $(mpt_num "$p.ks.Mods_failed_on_load" "$f"))) ;;
					wasted) v=$(mpt_num "$p.ks.Virtual_mem_wasted_bytes" "$f" |
						awk '{ if ($1 >= 1048576) printf "%.1f MiB", $1 / 1048576; else printf "%.0f KiB", $1 / 1024 }') ;;
					dups) v=$(mpt_keys "$p.dup." "$f" | sed "s/^$p\.dup\.//; s/=/ /" | sort -k2,2nr -k1,1 |
						head -n 4 | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')
						v=${v:--} ;;
					wall) v=$(mpt_num "$p.wall_ms" "$f" | awk '{ printf "%.1f s", $1 / 1000 }') ;;
					esac
					line="$line $v |"
				done
				echo "$line"
			done
		done
		echo
		echo "The seeds' own (448 CPUs, RHEL 9-based !debug config, one boot each):"
		echo
		echo "| | master (929ed21dfdb6) | patched |"
		echo "|---|---:|---:|"
		echo "| Mods failed on becoming + on load | 8,052 + 531 | 0 |"
		echo "| Virtual mem wasted bytes | 20,358,550,424 (19.0 GiB) | 0 |"
		echo "| Duplicate failed modules (most) | intel_rapl_common 447, kvm 447, kvm_intel 447, coretemp 447, ... | - |"
	} >"$md"
	log "wrote $md"
}

if [ -n "$raw" ]; then
	report "$raw"
	exit 0
fi

[ -x "$top/build/modpreload" ] || bench_die "no build/modpreload: run make first"
rd=$out/seeds-$(date -u +%Y-%m-%d)
mkdir -p "$rd" "$BENCH_WORK"
echo "$requests" >"$rd/requests"
for k in master patched; do
	if [ "$k" = master ]; then
		line=$("$top/harness/lib/kernel-master.sh") || bench_die "no master kernel"
	else
		line=$("$top/harness/lib/kernels.sh" stats) || bench_die "no stats kernel"
	fi
	# shellcheck disable=SC2034 # bench_mkimage's
	BK_NAME=$k BK_KVER=$(echo "$line" | cut -d' ' -f2) BK_KDIR=$(echo "$line" | cut -d' ' -f3)
	# shellcheck disable=SC2034 # bench_mkimage's
	BK_TREE=$BK_KDIR
	[ "$k" = master ] || echo "$BK_KVER" >"$rd/kver"
	img=$BENCH_WORK/$k.img
	log "$k ($BK_KVER): the image (its modules, kmod, modpreload)"
	bench_mkimage "$img" "$top/harness/bench/guest/bench-seeds.sh" --all-modules
	mem=$((1024 + 16 * vcpus))
	log "$k: $vcpus vCPUs, $mem MiB, requests per CPU alias: $requests ($(date -u +%H:%M:%S))"
	t0=$(date +%s)
	rc=0
	"$top/harness/lib/run.sh" -k "$BK_KDIR/vmlinuz" -i "$img" -s "$vcpus" -m "$mem" -t 7200 --no-trace \
		-a "no_timer_check bench.requests=$(echo "$requests" | tr ' ' ,)" \
		-l "$BENCH_WORK/$k.log" >"$rd/$k.txt" 2>"$BENCH_WORK/$k.err" || rc=$?
	echo "MPT: host.rc=$rc" >>"$rd/$k.txt"
	echo "MPT: host.wall_s=$(($(date +%s) - t0))" >>"$rd/$k.txt"
	log "   rc $rc in $(($(date +%s) - t0)) s"
done
report "$rd"
