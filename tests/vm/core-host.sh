# shellcheck shell=sh
# Host-side helpers of the core-* cases: checks over the guest's
# "call.NAME=ENTER,EXIT,RET,TID" lines (tests/vm/guest/core-lib.sh) and a
# small verdict collector. Source after tests/vm/hostlib.sh.

core_why=''
core_fail() { core_why="$core_why; $*"; }
core_eq() { # what got want
	[ "$2" = "$3" ] || core_fail "$1: got '$2', want '$3'"
}
core_verdict() { # name
	if [ -z "$core_why" ]; then
		echo "PASS: $1"
	else
		echo "FAIL: $1: ${core_why#; }"
	fi
	core_why=''
}

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
