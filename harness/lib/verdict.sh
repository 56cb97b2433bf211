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
