#!/bin/sh
# The duplicate storm on real kernels: coldplug of many vCPUs plus the same
# names requested many times. What the kernel saw (tracepoints,
# /proc/modules) must be exactly one successful load syscall per module,
# no EEXIST, no EBUSY; dependencies returned before their dependents
# started; independent loads overlapped; second-level devices got their
# drivers once.
#   bookworm (6.1):  16 vCPUs, plain .ko, finit_module
#   trixie (6.12):    8 vCPUs, .ko.xz handed to the kernel (in-kernel xz)
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/core/host.sh
. "$top/harness/core/host.sh"

storm() { # kernel smp compression
	name=core-storm/$1
	work=$top/build/vm/core-storm/$1
	mkdir -p "$work"
	core_prepare "$1" --compress "$3" || return
	core_image core-storm || return
	r=$work/result.txt
	run_boot mpt_boot "$r" "$work/serial.log" "$work/image.img" "$2" "mpt_sleep.delay_ms=400" -m 1024 -t 400
	eq "modpreload exit" "$(mpt_get storm.rc "$r")" 0
	loaded=$(mpt_num load_modules "$r")
	check_once "$r" live
	eq "the report's loaded == the kernel's" "$(mpt_num report.loaded "$r")" "$loaded"
	eq "test modules live == planned" "$(mpt_num proc_count.mpt_ "$r")" "$(mpt_num report.mpt_modules "$r")"
	[ "$loaded" -ge 80 ] || fail "only $loaded modules loaded"
	for m in mpt_spawn mpt_drv mpt_drv2 mpt_drvlib; do
		eq "$m live" "$(mpt_get "proc.$m" "$r")" 1
		eq "$m load calls" "$(core_ncalls "call.$m" "$r")" 1
	done
	[ "$(mpt_num report.coldplug "$r")" -ge "$2" ] || fail "fewer coldplug requests than CPUs"
	[ "$(mpt_num report.uevent "$r")" -ge 20 ] || fail "the spawned devices were not heard"
	[ "$(mpt_num report.duplicates_collapsed "$r")" -ge 100 ] || fail "no duplicates collapsed?"
	i=0
	while [ $i -lt 9 ]; do
		core_before "mpt_chain$i" "mpt_chain$((i + 1))" "$r" || fail "mpt_chain$i not live before mpt_chain$((i + 1))"
		i=$((i + 1))
	done
	for pair in "mpt_dia_base mpt_dia_left" "mpt_dia_base mpt_dia_right" "mpt_dia_left mpt_dia_top" \
		"mpt_dia_right mpt_dia_top" "mpt_fanbase mpt_fan63" "mpt_drvlib mpt_drv2"; do
		# shellcheck disable=SC2086 # two names
		core_before $pair "$r" || fail "order: $pair"
	done
	# mpt_drv is no dependency of mpt_spawn: the devices it serves appear
	# during mpt_spawn's init(), and their uevents may start its load
	# before mpt_spawn's own syscall has returned (seen on 6.12, whose
	# finit_module does more after init()). Only "after it started" holds.
	core_started_after mpt_spawn mpt_drv "$r" || fail "mpt_drv loaded before mpt_spawn made its devices"
	[ "$(core_max_parallel "$r")" -ge 2 ] || fail "no two loads ever overlapped"
	core_overlapped mpt_sleep "$r" || fail "nothing loaded while mpt_sleep slept"
	echo "  $1 at $2 vCPUs: $(mpt_get requested "$r") names + $(mpt_num report.coldplug "$r") coldplug + $(mpt_num report.uevent "$r") uevent requests -> $loaded loads, max $(core_max_parallel "$r") in flight, $(mpt_get storm.ms "$r") ms" >&2
	verdict "$name"
}

storm bookworm 16 none
storm trixie 8 xz
