#!/bin/sh
# make bench: modpreload beside what people load modules with today, on the
# same kernel, the same QEMU VM and the same modules, in one run; writes
# bench/results/DATE.md with its plots in bench/results/DATE/.
#
# Usage: bench/run.sh [-n RUNS] [-s SCENARIOS] [-c VCPUS] [-k KERNELS]
#            [--contenders LIST] [--extras] [--smoke] [-o DIR] [--report RAWDIR]
#
#   -n RUNS           runs of every point (MP_BENCH_RUNS, default 3)
#   -s SCENARIOS      storm,graph,dups,cost,boot,scale,seeds (MP_BENCH_SCENARIOS,
#                     default all; boot is bench/boot-pairs.sh, the whole
#                     boot with and without, MP_BENCH_BOOT_PAIRS (2) pairs
#                     for each of MP_BENCH_BOOT_CELLS (SUITE:VCPUS:COND ...,
#                     default bookworm:16:hwlike trixie:16:hwlike
#                     bookworm:16:asbooted), added to bench/results/boots.tsv
#                     and its verdict boot-verdict.md, about an hour; scale is bench/scale.sh, its own report, and long:
#                     32, 64 and 128 vCPUs, MP_BENCH_SCALE_VCPUS; seeds is
#                     bench/seeds.sh, the seeds' table on the stats kernel
#                     and its build without the merge of concurrent loads)
#   -c VCPUS          the storm's vCPU counts on 6.1 (MP_BENCH_VCPUS, default
#                     4,8,16,32)
#   -k KERNELS        the storm's kernels (MP_BENCH_KERNELS, default
#                     bookworm,trixie); trixie runs at MP_BENCH_TRIXIE_VCPUS
#   --contenders LIST udev,modprobe,xargs,waves,dataflow (MP_BENCH_CONTENDERS;
#                     udev takes part in the storm only)
#   --extras          also bench/init-vs-dracut.sh (and again with --arch
#                     arm64), bench/dracut-storm.sh and bench/mkinitcpio-storm.sh
#                     when they exist (slow: hours; MP_BENCH_EXTRAS=1)
#   --smoke           one run of each scenario at its smallest (a 40-node
#                     DAG and 4 duplicate modules, built apart: MP_BENCH_TAG),
#                     report in build/bench/smoke/
#                     (harness/bench/cases/bench-smoke.sh)
#   -o DIR            where DATE.md and DATE/ go (default bench/results)
#   --report RAWDIR   only write the report again from a run's data
#                     (build/bench/runs/STAMP)
#
# More knobs (environment):
#   MP_BENCH_TRIXIE_VCPUS  vCPU counts of the storm on 6.12 (default 16)
#   MP_BENCH_GRAPH_VCPUS   the DAG's VM, a list (default the host's cores,
#                          at most 4: more vCPUs than cores slow every
#                          load's kernel part under TCG)
#   MP_BENCH_GRAPH_KERNELS default bookworm
#   MP_BENCH_DUPS_VCPUS    default 8
#   MP_BENCH_DUPS_KERNELS  default bookworm,trixie,stats
#   MP_BENCH_DUPS_K        modules in the duplicate storm (default 8, at most
#                          MP_BENCH_DUPS, 16)
#   MP_BENCH_DUPS_COPIES   requests for each (default 64)
#   MP_BENCH_MEM           guest memory in MiB (default 1024)
#   MP_BENCH_TIMEOUT       seconds before a boot is killed (default 2400)
#   MP_BENCH_UDEV_CHILDREN udevd's workers: "cpu" (default) passes
#                          udev.children_max=2*vCPUs+16, udevd's own formula
#                          without its RAM cap (RAM/128 MiB, which a 1 GiB VM
#                          would hit at 10); "ram" leaves udevd's default; or
#                          a number
#   MP_BENCH_XARGS_P       xargs -P (default the same 2*vCPUs+16)
#   MP_BENCH_GRAPH_EXTRA   more contenders for the graph: dataflow or waves,
#                          then -jN, -fifo (--order=fifo), -fixed
#                          (--pool=fixed, the default with -jN), -adaptive
#                          (--pool=adaptive, the default without -jN),
#                          -profile (the warm-up's profile);
#                          default dataflow-fifo-fixed (0.1.0's scheduler),
#                          dataflow-adaptive, dataflow-fifo, dataflow-profile,
#                          dataflow-adaptive-profile,
#                          dataflow-fifo-fixed-jP (P = xargs' -P); "" none
#   MP_BENCH_GRAPH_VARIANTS sleep,cpu
#   MP_BENCH_COST_CALLGRIND 0: no valgrind in the cost scenario
#   MP_BENCH_DAG_*         the DAG (bench/modules/build.sh)
# Boots are round-robin over the contenders (the order rotates every run),
# so whatever else the host does falls on all of them alike.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

usage() {
	sed -n 's/^# Usage: /usage: /p; s/^#            /            /p' "$0" >&2
	exit 2
}

runs=${MP_BENCH_RUNS:-3}
scenarios=${MP_BENCH_SCENARIOS:-storm,graph,dups,cost,boot,scale,seeds}
vcpus=${MP_BENCH_VCPUS:-4,8,16,32}
kernels=${MP_BENCH_KERNELS:-bookworm,trixie}
contenders=${MP_BENCH_CONTENDERS:-udev,modprobe,xargs,waves,dataflow}
extras=${MP_BENCH_EXTRAS:-0}
results=$top/bench/results
smoke=0
report_only=''
storm_contenders=''
cmd="bench/run.sh $*"
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-s) scenarios=$2; shift 2 ;;
	-c) vcpus=$2; shift 2 ;;
	-k) kernels=$2; shift 2 ;;
	--contenders) contenders=$2; shift 2 ;;
	--extras) extras=1; shift ;;
	--smoke) smoke=1; shift ;;
	-o) results=$2; shift 2 ;;
	--report) report_only=$2; shift 2 ;;
	*) usage ;;
	esac
done

BENCH_WORK=$top/build/bench
export BENCH_WORK
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"

if [ -n "$report_only" ]; then
	exec "$top/bench/report.sh" "$report_only" "$results"
fi

if [ "$smoke" = 1 ]; then
	runs=1
	vcpus=2
	kernels=bookworm
	results=$BENCH_WORK/smoke
	export MP_BENCH_GRAPH_VCPUS="${MP_BENCH_GRAPH_VCPUS:-2}" MP_BENCH_DUPS_VCPUS="${MP_BENCH_DUPS_VCPUS:-2}"
	export MP_BENCH_DUPS_KERNELS="${MP_BENCH_DUPS_KERNELS:-bookworm}" MP_BENCH_DUPS_K="${MP_BENCH_DUPS_K:-2}"
	export MP_BENCH_DUPS_COPIES="${MP_BENCH_DUPS_COPIES:-8}" MP_BENCH_GRAPH_VARIANTS=sleep
	export MP_BENCH_COST_CALLGRIND=0 MP_BENCH_GRAPH_EXTRA=''
	# a DAG and a duplicate set of its own, small: on a fresh machine
	# building the full 217 modules was most of make check's smoke case
	export MP_BENCH_TAG=smoke MP_BENCH_DAG_NODES="${MP_BENCH_DAG_NODES:-40}" MP_BENCH_DUPS="${MP_BENCH_DUPS:-4}"
	# one boot per scenario: udev alone in the storm (the contender with
	# the most moving parts), two contenders in the others
	storm_contenders=udev
	contenders=xargs,dataflow
fi
[ -x "$top/build/modpreload" ] || bench_die "no build/modpreload: run make first"

stamp=$(date +%Y%m%d-%H%M%S)
if [ "$smoke" = 1 ]; then stamp=smoke; fi
BENCH_RAW=$BENCH_WORK/runs/$stamp
rm -rf "$BENCH_RAW"
mkdir -p "$BENCH_RAW"
export BENCH_RAW
: >"$BENCH_RAW/runs.tsv"

# What the report says about how it was made.
{
	echo "command=$cmd"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "runs=$runs"
	echo "scenarios=$scenarios"
	echo "vcpus=$vcpus"
	echo "kernels=$kernels"
	echo "trixie_vcpus=${MP_BENCH_TRIXIE_VCPUS:-16}"
	echo "contenders=$contenders"
	env | grep '^MP_BENCH_' | sed 's/^/env./' || true
	echo "git=$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "modpreload=$("$top/build/modpreload" --version 2>&1 | head -n 1)"
	echo "modpreload_bytes=$(stat -c %s "$top/build/modpreload")"
	echo "cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	echo "cores=$(nproc)"
	echo "mem_gib=$(awk '/^MemTotal/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)"
	echo "host_kernel=$(uname -r)"
	echo "host_os=$(. /etc/os-release && echo "$PRETTY_NAME")"
	echo "qemu=$(qemu-system-x86_64 --version | head -n 1)"
	echo "kmod=$(dpkg-query -W -f '${Version}' kmod 2>/dev/null)"
	echo "udev=$(dpkg-query -W -f '${Version}' udev 2>/dev/null)"
	echo "busybox=$(dpkg-query -W -f '${Version}' busybox-static 2>/dev/null)"
	echo "gcc=$(gcc -dumpfullversion 2>/dev/null)"
	echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg)"
} >"$BENCH_RAW/meta.txt"

t_start=$(date +%s)
for s in $(bench_words "$scenarios"); do
	case $s in
	storm | graph | dups)
		# shellcheck source=bench/scenarios.sh
		. "$top/bench/scenarios.sh"
		cs=$contenders
		if [ "$s" = storm ] && [ -n "$storm_contenders" ]; then cs=$storm_contenders; fi
		"scenario_$s" "$runs" "$vcpus" "$kernels" "$cs"
		;;
	cost) "$top/bench/cost.sh" >"$BENCH_RAW/cost.tsv" ;;
	scale)
		if [ "$smoke" = 1 ]; then
			bench_log "scale: not in the smoke run (hours of 128-vCPU boots)"
		else
			"$top/bench/scale.sh" -o "$results"
		fi
		;;
	seeds)
		if [ "$smoke" = 1 ]; then
			bench_log "seeds: not in the smoke run (a kernel build and two long boots)"
		else
			"$top/bench/seeds.sh" -o "$results"
		fi
		;;
	boot)
		if [ "$smoke" = 1 ]; then
			bench_log "boot: not in the smoke run (an hour or two of whole boots)"
		else
			# pairs that add to bench/results/boots.tsv: each cell of the
			# verdict (bench/boot-verdict.sh) grows by MP_BENCH_BOOT_PAIRS
			for c in ${MP_BENCH_BOOT_CELLS:-bookworm:16:hwlike trixie:16:hwlike bookworm:16:asbooted}; do
				st=${c%%:*} vc=${c#*:}
				co=${vc#*:} vc=${vc%%:*}
				"$top/bench/boot-pairs.sh" -r "$st" -c "$vc" -C "$co" -n "${MP_BENCH_BOOT_PAIRS:-2}" \
					2>>"$BENCH_RAW/boot.log" || bench_log "bench/boot-pairs.sh $c failed: $BENCH_RAW/boot.log"
			done
		fi
		;;
	*) bench_die "unknown scenario $s (storm, graph, dups, cost, boot, scale, seeds)" ;;
	esac
	echo "elapsed.$s=$(($(date +%s) - t_start))" >>"$BENCH_RAW/meta.txt"
done

if [ "$extras" = 1 ]; then
	mkdir -p "$BENCH_RAW/extras"
	for x in init-vs-dracut dracut-storm mkinitcpio-storm; do
		if [ -x "$top/bench/$x.sh" ]; then
			bench_log "extra: bench/$x.sh"
			"$top/bench/$x.sh" >"$BENCH_RAW/extras/$x.md" 2>"$BENCH_RAW/extras/$x.log" ||
				bench_log "bench/$x.sh failed: $BENCH_RAW/extras/$x.log"
		fi
	done
	# the same minimal /init images on arm64 (qemu-system-aarch64 -M virt)
	bench_log "extra: bench/init-vs-dracut.sh --arch arm64"
	"$top/bench/init-vs-dracut.sh" --arch arm64 >"$BENCH_RAW/extras/init-vs-dracut.arm64.md" \
		2>"$BENCH_RAW/extras/init-vs-dracut.arm64.log" ||
		bench_log "bench/init-vs-dracut.sh --arch arm64 failed: $BENCH_RAW/extras/init-vs-dracut.arm64.log"
fi
{
	echo "elapsed=$(($(date +%s) - t_start))"
	echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)"
} >>"$BENCH_RAW/meta.txt"

"$top/bench/report.sh" "$BENCH_RAW" "$results"
