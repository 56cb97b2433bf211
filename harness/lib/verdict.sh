# shellcheck shell=sh
# The verdict of every case, host side: checks collect the reasons a case
# fails, then one line says PASS or FAIL with all of them. Source it after
# setting $top (it sources harness/lib/hostlib.sh):
#   . "$top/harness/lib/verdict.sh"
#
#   fail WHY...               add a reason
#   eq WHAT GOT WANT          unless GOT = WANT: "WHAT: got 'GOT', want 'WANT'"
#   expect FILE KEY OP VALUE  unless `test N OP VALUE` holds for KEY's number
#                             in FILE (mpt_num: 0 when absent):
#                             "KEY=N (want OP VALUE)"
#   expect_is FILE KEY STRING unless KEY's value in FILE is STRING:
#                             "KEY=VALUE (want STRING)"
#   check_once RESULT [live]  the central invariant, from the kernel's
#                             trace (below)
#   run_boot BOOT RESULT LOG [ARG...]
#                             BOOT RESULT LOG ARGs: hostlib.sh's mpt_boot,
#                             the one boot, or a family's wrapper of it; a
#                             boot that did not finish is a reason
#   verdict NAME [DETAIL]     "PASS: vm/NAME (DETAIL)" or "FAIL: vm/NAME:
#                             WHY; WHY...", then starts over with no reason
#   fail_all WHY              "FAIL: vm/N: WHY" for every N in $names (or
#                             $name when names is unset), then exit 0: a case
#                             that cannot go on (no kernel, no image)
# A case's name is what follows "vm/" in its lines, e.g. dracut-fail/4cpu.

# shellcheck disable=SC2154 # top: set by the script that sources this
# shellcheck source=harness/lib/hostlib.sh
. "$top/harness/lib/hostlib.sh"

verdict_why=''

# run_boot BOOT RESULT LOG [ARG...]: BOOT RESULT LOG ARGs, a boot that writes
# its "MPT:" lines to RESULT and its console to LOG; one that did not finish
# is a reason that says why (run.sh's status, the phase the guest was in,
# the deadline) and names LOG. Returns BOOT's status.
run_boot() {
	_rb_rc=0
	"$@" || _rb_rc=$?
	[ "$_rb_rc" = 0 ] || fail "$(mpt_boot_why "$_rb_rc" "$2") (see $3)"
	return "$_rb_rc"
}

fail() {
	verdict_why="$verdict_why; $*"
}

eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

expect() {
	_vd_v=$(mpt_num "$2" "$1")
	test "$_vd_v" "$3" "$4" || fail "$2=$_vd_v (want $3 $4)"
}

expect_is() {
	_vd_v=$(mpt_get "$2" "$1")
	[ "$_vd_v" = "$3" ] || fail "$2=${_vd_v:-<none>} (want $3)"
}

# check_once RESULT [live]: one load call per module, each a success: the
# load calls (finit_module and init_module) == the successful ones ==
# module_load events, no module loaded twice, no EEXIST, EBUSY or other
# error, the trace not overrun (so that nothing is missed). With "live":
# all by finit_module (no init_module call), and every module loaded is in
# /proc/modules. Exceptions (the kernel's own modprobe, udev's workers
# after the hand-over) are the families' own checks, beside this one.
check_once() {
	_vd_calls=$(($(mpt_num finit_enter "$1") + $(mpt_num init_enter "$1")))
	_vd_loads=$(mpt_num load_total "$1")
	[ "$_vd_loads" -gt 0 ] || fail "no module_load events (trace missing?)"
	eq "load calls == successful ones" "$_vd_calls" "$(($(mpt_num finit_ok "$1") + $(mpt_num init_ok "$1")))"
	eq "load calls == module_load events" "$_vd_calls" "$_vd_loads"
	eq "modules loaded twice" "$(mpt_num load_dups "$1")" 0
	eq "EEXIST" "$(mpt_num finit_eexist "$1")" 0
	eq "EBUSY" "$(mpt_num finit_ebusy "$1")" 0
	eq "other errors" "$(mpt_num finit_other "$1")" 0
	eq "trace not overrun" "$(mpt_get trace_entries "$1")" "$(mpt_get trace_written "$1")"
	[ "${2:-}" = live ] || return 0
	eq "init_module calls" "$(mpt_num init_enter "$1")" 0
	eq "/proc/modules == modules loaded" "$(mpt_num proc_count "$1")" "$(mpt_num load_modules "$1")"
}

verdict() {
	if [ -z "$verdict_why" ]; then
		echo "PASS: vm/$1${2:+ ($2)}"
	else
		echo "FAIL: vm/$1: ${verdict_why#; }"
	fi
	verdict_why=''
}

fail_all() {
	for _vd_n in ${names:-$name}; do
		echo "FAIL: vm/$_vd_n: $*"
	done
	exit 0
}
