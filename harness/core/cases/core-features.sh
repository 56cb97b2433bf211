#!/bin/sh
# modpreload's behaviour on Debian's 6.1 and 6.12 kernels, one boot each,
# asserting on what the kernel did: failure isolation, an unknown symbol, a
# hung init(), options from modprobe.d and the command line, blacklists,
# softdep order, a missing module, a corrupt and a missing modules.dep.bin.
# On 6.12 the modules are .ko.xz, handed to the kernel. A last boot loads
# zstd-compressed modules on 6.1, which cannot decompress them: userspace
# zstd and init_module.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/core/host.sh
. "$top/harness/core/host.sh"
kernel=${1:-bookworm}
comp=none
[ "$kernel" = trixie ] && comp=xz
work=$top/build/vm/core-features/$kernel
name=core-features/$kernel
mkdir -p "$work"

image() { # tree guest image [extra mkimage args]
	tree=$1 guest=$2 img=$3
	shift 3
	"$top/harness/lib/mkimage.sh" -o "$img" -k "$kver" -M "$tree" --all-test-modules \
		--add "$top/build/modpreload:/sbin/modpreload" \
		--add "$top/harness/core/guest/core-lib.sh:/mpt/core-lib.sh" \
		--script "$guest" "$@" >>"$work/mkimage.log" 2>&1
}

core_prepare "$kernel" --compress "$comp" || exit 0
printf 'options mpt_params value=7\nblacklist mpt_aliased\n' >"$work/mpt.conf"
: >"$work/mkimage.log"
if ! image "$work/tree" "$top/harness/core/guest/core-features.sh" "$work/image.img" \
	--add "$work/mpt.conf:/etc/modprobe.d/mpt.conf"; then
	echo "FAIL: vm/$name: mkimage.sh failed (see $work/mkimage.log)"
	exit 0
fi
r=$work/result.txt
run_boot mpt_boot "$r" "$work/serial.log" "$work/image.img" 2 \
	"mpt_params.label=fromcmdline module_blacklist=mpt_chain5 mpt_sleep.delay_ms=100" -t 300

# failure isolation
eq "fail: exit" "$(mpt_get fail.rc "$r")" 1
eq "fail: mpt_fail state" "$(mpt_get state.mpt_fail "$r")" failed
eq "fail: mpt_fail_child state" "$(mpt_get state.mpt_fail_child "$r")" skipped
eq "fail: mpt_fail in /proc/modules" "$(mpt_get proc.mpt_fail "$r")" 0
eq "fail: mpt_fail_child in /proc/modules" "$(mpt_get proc.mpt_fail_child "$r")" 0
eq "fail: mpt_chain3 live" "$(mpt_get proc.mpt_chain3 "$r")" 1
eq "fail: mpt_dia_top live" "$(mpt_get proc.mpt_dia_top "$r")" 1
eq "fail: mpt_fail tried once" "$(core_ncalls fail.call.mpt_fail "$r")" 1
eq "fail: mpt_fail_child never tried" "$(core_ncalls fail.call.mpt_fail_child "$r")" 0
eq "fail: the kernel said ENODEV" "$(core_field fail.call.mpt_fail 3 "$r")" 0xffffffffffffffed
mpt_keys fail.err= "$r" | grep -q "failed: mpt_fail: init() found no device (ENODEV)" ||
	fail "fail: no message naming mpt_fail and ENODEV"
mpt_keys fail.err= "$r" | grep -q "skipped: mpt_fail_child: depends on mpt_fail" ||
	fail "fail: no message saying why mpt_fail_child was skipped"

# unknown symbol
eq "nosym: exit" "$(mpt_get nosym.rc "$r")" 1
mpt_keys nosym.call. "$r" | grep -q ',0xfffffffffffffffe,' || fail "nosym: no finit_module returning ENOENT"
mpt_keys nosym.err= "$r" | grep -q "mpt_nosym: .*(ENOENT)" || fail "nosym: no message naming ENOENT"

# hung init()
eq "hang: exit" "$(mpt_get hang.rc "$r")" 1
# 3 s of timeout plus planning and start-up: 3 s on a quiet host, more on a
# slow one (the guest's clock runs at wall speed, its work at the host's)
hang_bound=$((3000 + $(mpt_scaled 3000 "$r")))
[ "$(mpt_num hang.ms "$r")" -lt "$hang_bound" ] ||
	fail "hang: took $(mpt_get hang.ms "$r") ms with -t 3 (bound $hang_bound ms)"
[ "$(mpt_num hang.ms "$r")" -ge 3000 ] || fail "hang: returned before the timeout"
eq "hang: mpt_hang state" "$(mpt_get state.mpt_hang "$r")" hung
eq "hang: mpt_hang_child state" "$(mpt_get state.mpt_hang_child "$r")" skipped
eq "hang: kernel still in mpt_hang's init" "$(mpt_get initstate.mpt_hang "$r")" coming
eq "hang: mpt_hang_child never loaded" "$(mpt_get initstate.mpt_hang_child "$r")" none
eq "hang: mpt_sleep loaded meanwhile" "$(mpt_get initstate.mpt_sleep "$r")" live
eq "hang: mpt_hang_child never tried" "$(core_ncalls hang.call.mpt_hang_child "$r")" 0
mpt_keys hang.err= "$r" | grep -q "hung: mpt_hang" || fail "hang: no message naming mpt_hang"

# options
eq "opts: exit" "$(mpt_get opts.rc "$r")" 0
eq "opts: modprobe.d value" "$(mpt_get param.mpt_params.value "$r")" 7
eq "opts: command-line label" "$(mpt_get param.mpt_params.label "$r")" fromcmdline

# blacklists
eq "blacklist: alias blacklisted" "$(mpt_num blalias.blacklisted "$r")" 1
eq "blacklist: alias exit" "$(mpt_get blalias.rc "$r")" 0
eq "blacklist: name loads" "$(mpt_get proc.mpt_aliased "$r")" 1
eq "module_blacklist: exit" "$(mpt_get kbl.rc "$r")" 1
eq "module_blacklist: mpt_chain5" "$(mpt_get state.mpt_chain5 "$r")" skipped
eq "module_blacklist: mpt_chain7" "$(mpt_get state.mpt_chain7 "$r")" skipped
eq "module_blacklist: mpt_chain4 live" "$(mpt_get proc.mpt_chain4 "$r")" 1
eq "module_blacklist: never asked the kernel" "$(core_ncalls kbl.call.mpt_chain5 "$r")" 0
mpt_keys kbl.call. "$r" | grep -v ',0x0,' | grep -q . && fail "module_blacklist: a load syscall failed"

# softdeps
eq "softdep: exit" "$(mpt_get soft.rc "$r")" 0
eq "softdep: pre first" "$(mpt_get seq.mpt_soft_pre "$r")" 1
eq "softdep: then main" "$(mpt_get seq.mpt_soft_main "$r")" 2
eq "softdep: post last" "$(mpt_get seq.mpt_soft_post "$r")" 3

# missing module
eq "missing: exit" "$(mpt_get missing.rc "$r")" 1
eq "missing: the rest loads" "$(mpt_get proc.mpt_fan00 "$r")" 1
mpt_keys missing.err= "$r" | grep -q "not found: nosuch_module" || fail "missing: no message"

# a dependency's file gone from the tree
eq "gone: exit" "$(mpt_get gone.rc "$r")" 1
eq "gone: mpt_drvlib" "$(mpt_get state.mpt_drvlib "$r")" failed
eq "gone: mpt_drv2" "$(mpt_get state.mpt_drv2 "$r")" skipped
eq "gone: mpt_drv2 never asked the kernel" "$(core_ncalls gone.call.mpt_drv2 "$r")" 0
eq "gone: mpt_drv2 not live" "$(mpt_get proc.mpt_drv2 "$r")" 0
eq "gone: the rest loads" "$(mpt_get proc.mpt_fan03 "$r")" 1
eq "gone: load syscalls" "$(mpt_keys gone.call. "$r" | wc -l)" 1
mpt_get gone.message "$r" | grep -q "mpt_drvlib.ko.*: No such file or directory" ||
	fail "gone: the report does not name the file"
mpt_keys gone.err= "$r" | grep -q "skipped: mpt_drv2: depends on mpt_drvlib, which failed (ENOENT)" ||
	fail "gone: no message for mpt_drv2"

# the summary through /dev/kmsg: the control (one record a line) loses
# lines to the kernel's rate limit; --kmsg's grouped lines all arrive
mpt_keys kmsgctl.line= "$r" | grep -q "lines suppressed due to ratelimiting" ||
	fail "kmsg: the control was not rate-limited (the case proves nothing)"
eq "kmsg: exit" "$(mpt_get kmsg.rc "$r")" 1
eq "kmsg: nothing on stderr" "$(mpt_keys kmsg.err= "$r" | wc -l)" 0
mpt_keys kmsg.line= "$r" | grep -q "suppressed" && fail "kmsg: lines were suppressed"
mpt_keys kmsg.line= "$r" | grep -q "modpreload: [0-9]* loaded, " ||
	fail "kmsg: no summary line"
mpt_keys kmsg.line= "$r" | grep -q "modpreload: failed (1): mpt_fail: init() found no device (ENODEV)" ||
	fail "kmsg: no line for the failure"
mpt_keys kmsg.line= "$r" | grep -q "modpreload: skipped (1): mpt_fail_child: depends on mpt_fail" ||
	fail "kmsg: no line for the skipped module"
kline=$(mpt_keys kmsg.line= "$r" | grep "modpreload: not found (16): ")
for i in 00 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15; do
	case $kline in *"nosuch_$i"*) ;; *) fail "kmsg: nosuch_$i not named" ;; esac
done
eq "kmsg: the control loaded mpt_fan01" "$(mpt_get proc.mpt_fan01 "$r")" 1
eq "kmsg: mpt_fan02 live" "$(mpt_get proc.mpt_fan02 "$r")" 1

# bad index
eq "corrupt index: exit" "$(mpt_get corrupt.rc "$r")" 3
mpt_keys corrupt.err= "$r" | grep -q "modules.dep.bin: corrupt" || fail "corrupt index: no message"
eq "missing index: exit" "$(mpt_get nodep.rc "$r")" 3
mpt_keys nodep.err= "$r" | grep -q "modules.dep.bin: missing" || fail "missing index: no message"
eq "bad index: no load syscalls" "$(mpt_num badidx.finit_enter "$r")" 0
# how the modules reached the kernel: plain finit_module on 6.1, the .ko.xz
# file itself with MODULE_INIT_COMPRESSED_FILE on 6.12
want=finit,0
[ "$kernel" = trixie ] && want=finit,4
eq "load syscalls not $want" "$(mpt_keys fail.call. "$r" | cut -d, -f5,6 | grep -vcx "$want")" 0
[ "$(mpt_keys fail.call. "$r" | wc -l)" -ge 9 ] || fail "fewer than 9 load calls traced"
verdict "$name"
[ "$kernel" = bookworm ] || exit 0

# userspace zstd on 6.1
if ! "$top/tests/modules/build.sh" --compress zstd bookworm "$work/tree-zstd" >/dev/null 2>>"$work/build.log"; then
	echo "FAIL: vm/core-features/zstd-userspace: no zstd test modules"
	exit 0
fi
cat >"$work/zstd-guest.sh" <<'EOG'
# shellcheck shell=sh
# shellcheck source=/dev/null
. /mpt/core-lib.sh
core_run zstd -r /run/r.json mpt_chain9 mpt_dia_top mpt_soft_main
core_report /run/r.json
mpt_trace_counts
mpt_proc_count mpt_
mpt_compression
EOG
if image "$work/tree-zstd" "$work/zstd-guest.sh" "$work/zstd.img"; then
	r=$work/zstd-result.txt
	run_boot mpt_boot "$r" "$work/zstd-serial.log" "$work/zstd.img" 2 "" -t 200
	eq "kernel cannot decompress" "$(mpt_get compression "$r")" none
	eq "exit" "$(mpt_get zstd.rc "$r")" 0
	loaded=$(mpt_num report.loaded "$r")
	eq "init_module calls == modules loaded" "$(mpt_num init_enter "$r")" "$loaded"
	eq "all succeeded" "$(mpt_num init_ok "$r")" "$loaded"
	eq "no finit_module" "$(mpt_num finit_enter "$r")" 0
	eq "module_load events" "$(mpt_num load_total "$r")" "$loaded"
	eq "live" "$(mpt_num proc_count.mpt_ "$r")" "$loaded"
	[ "$loaded" -ge 17 ] || fail "only $loaded loaded"
else
	fail "mkimage.sh failed for the zstd tree"
fi
verdict core-features/zstd-userspace
