#!/bin/sh
# Smoke test of the VM harness: build the test modules for a kernel, make an
# image whose guest runs kmod's own `modprobe mpt_chain9` and
# `modprobe mpt_dia_top`, boot it with 2 vCPUs and check, on the host, that
# the trace counts one successful load syscall per module loaded and that
# the 14 expected modules are live.
#
# Usage: harness/lib/smoke.sh [bookworm|trixie|stats|seven|all]...   (default: bookworm;
# all: the first three, seven (Debian's 7.x, harness/lib/kernels.sh) only by name)
#
# Per kernel, the test modules are compressed as that kernel's own are
# (bookworm: none, trixie and seven: xz, stats: zstd), and the kernel's in-kernel
# decompression is checked (/sys/module/compression: none, xz, zstd); on
# trixie, seven and stats the guest also loads ext4 and its dependencies, the
# kernel's own compressed modules; on stats, /sys/kernel/debug/modules/stats
# must be readable.  Bookworm's kmod calls finit_module for plain .ko files
# and init_module after unpacking a compressed one, so the check counts both
# syscalls: one successful call per module_load event and per module in
# /proc/modules, and no failed call.
#
# Prints one line per kernel, "PASS: vm/smoke/KERNEL: ..." or "FAIL: ...",
# as tests/run.sh counts them, then a verdict line "smoke: PASS (...)" or
# "smoke: FAIL (...)"; exits 0 or 1.  Work files: build/vm/smoke/KERNEL/.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=harness/lib/hostlib.sh
. "$here/hostlib.sh"

[ $# -gt 0 ] || set -- bookworm
if [ "$*" = all ]; then set -- bookworm trixie stats; fi

chain="mpt_chain0 mpt_chain1 mpt_chain2 mpt_chain3 mpt_chain4 mpt_chain5
mpt_chain6 mpt_chain7 mpt_chain8 mpt_chain9"
dia="mpt_dia_base mpt_dia_left mpt_dia_right mpt_dia_top"
expected=14

failed=''
passed=''
for name in "$@"; do
	case $name in
	bookworm) comp=none mods=mpt_chain9,mpt_dia_top ;;
	trixie) comp=xz mods=mpt_chain9,mpt_dia_top,ext4 ;;
	stats) comp=zstd mods=mpt_chain9,mpt_dia_top,ext4 ;;
	seven) comp=xz mods=mpt_chain9,mpt_dia_top,ext4 ;;
	*) echo "usage: $0 [bookworm|trixie|stats|seven|all]..." >&2; exit 2 ;;
	esac
	work=$top/build/vm/smoke/$name
	mkdir -p "$work"
	if ! mpt_test_modules "$name" "$work/tree" --compress "$comp"; then
		echo "FAIL: vm/smoke/$name: no kernel or test modules (see above)"
		failed="$failed $name"
		continue
	fi
	kver=$KVER
	kdir=$KDIR
	if ! "$here/mkimage.sh" -o "$work/image.img" -k "$kver" -M "$work/tree" \
		-m "$mods" --kmod --script "$here/guest/smoke.sh"; then
		echo "FAIL: vm/smoke/$name: mkimage.sh failed"
		failed="$failed $name"
		continue
	fi
	res=$work/result.txt
	rc=0
	"$here/run.sh" -k "$kdir/vmlinuz" -i "$work/image.img" -s 2 -t 180 \
		-l "$work/serial.log" >"$res" || rc=$?

	why=''
	fail() { why="$why; $*"; }
	[ "$rc" = 0 ] || fail "run.sh exit $rc"
	[ "$(mpt_get guest_rc "$res")" = 0 ] || fail "guest script failed"
	[ "$(mpt_get rc_chain9 "$res")" = 0 ] || fail "modprobe mpt_chain9 failed"
	[ "$(mpt_get rc_dia_top "$res")" = 0 ] || fail "modprobe mpt_dia_top failed"
	for m in $chain $dia; do
		[ "$(mpt_get "proc.$m" "$res")" = 1 ] || fail "$m not in /proc/modules"
	done
	mpt=$(mpt_num proc_count.mpt_ "$res")
	[ "$mpt" = "$expected" ] || fail "$mpt mpt_ modules live, expected $expected"
	live=$(mpt_num proc_count "$res")
	case $mods in
	*ext4*)
		[ "$(mpt_get rc_ext4 "$res")" = 0 ] || fail "modprobe ext4 failed"
		[ "$(mpt_get proc.ext4 "$res")" = 1 ] || fail "ext4 not in /proc/modules"
		;;
	esac
	finit=$(mpt_num finit_enter "$res")
	init=$(mpt_num init_enter "$res")
	ok=$(($(mpt_num finit_ok "$res") + $(mpt_num init_ok "$res")))
	calls=$((finit + init))
	loads=$(mpt_num load_total "$res")
	eexist=$(($(mpt_num finit_eexist "$res") + $(mpt_num init_eexist "$res")))
	[ "$calls" = "$loads" ] || fail "$calls load syscalls for $loads module_load events"
	[ "$calls" = "$live" ] || fail "$calls load syscalls for $live modules loaded"
	[ "$ok" = "$calls" ] || fail "only $ok of $calls load syscalls succeeded"
	[ "$eexist" = 0 ] || fail "$eexist EEXIST"
	[ "$(mpt_num load_dups "$res")" = 0 ] || fail "a module was loaded twice"
	[ "$(mpt_get trace_entries "$res")" = "$(mpt_get trace_written "$res")" ] ||
		fail "the trace buffer lost events"
	compression=$(mpt_get compression "$res" || echo '?')
	[ "$compression" = "$comp" ] || fail "/sys/module/compression: $compression, expected $comp"
	extra=''
	if [ "$name" = stats ]; then
		[ "$(mpt_get modstats "$res")" = present ] ||
			fail "/sys/kernel/debug/modules/stats not readable"
		extra=", modstats: $(mpt_num modstats.Mods_ever_loaded "$res") ever loaded"
	fi
	summary="$kver smp=2: $calls load syscalls (finit $finit, init $init), $loads module_load events, $live modules live ($mpt mpt_), compression $compression$extra; /init at $(mpt_get uptime_init "$res") s guest, $(mpt_get host_wall_s "$res") s wall"
	if [ -z "$why" ]; then
		echo "PASS: vm/smoke/$name: $summary"
		passed="$passed $name"
	else
		echo "FAIL: vm/smoke/$name: ${why#; } ($summary; log: $work/serial.log)"
		failed="$failed $name"
	fi
done
if [ -n "$failed" ]; then
	echo "smoke: FAIL (${failed# })"
	exit 1
fi
echo "smoke: PASS (${passed# })"
