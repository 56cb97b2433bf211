# shellcheck shell=sh
# Host-side helpers of the core-* cases: checks over the guest's
# "call.NAME=ENTER,EXIT,RET,TID" lines (harness/core/guest/core-lib.sh) and
# the steps every core case begins with; verdicts are harness/lib/verdict.sh's.
# The case sets top, name and work, then sources this.

# shellcheck disable=SC2154 # top, name, work: set by the case
# shellcheck source=harness/lib/verdict.sh
. "$top/harness/lib/verdict.sh"

# Calls are named by their key: "call.NAME", or "PREFIX.call.NAME" for
# the checks of core-features.sh.

# core_ncalls KEY FILE: load syscalls under KEY
core_ncalls() {
	mpt_keys "$1=" "$2" | wc -l
}

# core_field KEY N FILE: field N (1 enter, 2 exit, 3 ret) of KEY's call
core_field() {
	mpt_keys "$1=" "$3" | head -n 1 | cut -d= -f2 | cut -d, -f"$2"
}

# core_before A B FILE: module A's call returned before module B's started
core_before() {
	_cb_end=$(core_field "call.$1" 2 "$3")
	_cb_start=$(core_field "call.$2" 1 "$3")
	[ -n "$_cb_end" ] && [ -n "$_cb_start" ] && [ "$_cb_end" -le "$_cb_start" ]
}

# core_started_after A B FILE: module B's call started after module A's did
# (B was asked for by something A's init() made, not by a dependency)
core_started_after() {
	_cb_a=$(core_field "call.$1" 1 "$3")
	_cb_b=$(core_field "call.$2" 1 "$3")
	[ -n "$_cb_a" ] && [ -n "$_cb_b" ] && [ "$_cb_a" -lt "$_cb_b" ]
}

# core_run_calls RUN FILE: "NAME ENTER_US EXIT_US RET" per load syscall
# of RUN (its "RUN.call.NAME=..." lines); RET as the kernel traced it, hex
# ("0x0" on success, "0xffffffffffffffef" for EEXIST)
core_run_calls() {
	mpt_keys "$1.call." "$2" | sed "s/^$1\.call\.//; s/=/,/" | awk -F, '{ print $1, $2, $3, $4 }'
}

# core_run_failed RUN FILE: how many of RUN's load syscalls did not return
# 0. RET is compared as the string "0x0": mawk and busybox awk read "0x0"
# as the number 0, gawk as a string that is not 0 (issue 36: under gawk
# every call of core-sched's runs counted as failed).
core_run_failed() {
	core_run_calls "$1" "$2" | awk '$4 != "0x0"' | wc -l
}

# core_max_parallel FILE: the most load syscalls in flight at once
core_max_parallel() {
	mpt_keys call. "$1" | cut -d= -f2 | awk -F, '{ print $1, 1; print $2, -1 }' |
		sort -n -k1,1 -k2,2 | awk '{ n += $2; if (n > m) m = n } END { print m + 0 }'
}

# core_overlapped NAME FILE: another call started while module NAME's was
# in flight
core_overlapped() {
	s=$(core_field "call.$1" 1 "$2")
	e=$(core_field "call.$1" 2 "$2")
	[ -n "$s" ] && mpt_keys call. "$2" | grep -v "^call.$1=" | cut -d= -f2 |
		awk -F, -v s="$s" -v e="$e" '$1 > s && $1 < e { f = 1 } END { exit !f }'
}

# core_prepare KERNEL [BUILD_ARG...]: the kernel (harness/lib/kernels.sh)
# and the test modules built against it in $work/tree (BUILD_ARGs go to
# tests/modules/build.sh, e.g. --compress zstd); sets kver (and hostlib.sh's KVER, KDIR). On
# failure prints the case's FAIL line and returns 1.
core_prepare() {
	_cp_kernel=$1
	shift
	if ! mpt_test_modules "$_cp_kernel" "$work/tree" "$@" 2>"$work/build.log"; then
		echo "FAIL: vm/$name: no kernel or test modules (see $work/build.log)"
		return 1
	fi
	kver=$KVER
}

# core_image GUEST [MKIMAGE_ARG...]: $work/image.img with every test module,
# modpreload, the guest library and harness/core/guest/GUEST.sh as the
# script. On failure prints the case's FAIL line and returns 1.
core_image() {
	_ci_guest=$1
	shift
	if ! "$top/harness/lib/mkimage.sh" -o "$work/image.img" -k "$kver" -M "$work/tree" \
		--all-test-modules --add "$top/build/modpreload:/sbin/modpreload" \
		--add "$top/harness/core/guest/core-lib.sh:/mpt/core-lib.sh" \
		--script "$top/harness/core/guest/$_ci_guest.sh" "$@" >"$work/mkimage.log" 2>&1; then
		echo "FAIL: vm/$name: mkimage.sh failed (see $work/mkimage.log)"
		return 1
	fi
}
