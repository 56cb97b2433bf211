#!/bin/sh
# More CLI cases against fake module trees and the finit_module shim, in the
# manner of cli.sh (its setup/run/check, copied here so that the two files
# change apart): what the program writes and where, what it logs of its
# input, and the usage errors' cleanup.
#
# Env: MP_BIN (the binary), MP_SUITE (name prefix), MP_CASES (only these).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${MP_BIN:?}
suite=${MP_SUITE:-cli-rel}
shim=$top/build/unit/shim.so
work=$(mktemp -d "${TMPDIR:-/tmp}/mp-cli-rel.XXXXXX")
trap 'rm -rf "$work"' EXIT
t=$work/t

failed=0
check() { # description, then a command that must succeed
	what=$1
	shift
	if ! "$@"; then
		echo "  check failed: $what" >&2
		failed=1
	fi
}

# setup SPEC: a fresh tree (see mktree.sh), sysfs and log
setup() {
	rm -rf "$t"
	mkdir -p "$t/sys/devices" "$t/sys/module"
	printf '%b' "$1" | "$top/tests/unit/mktree.sh" "$t/root" 1.0 >/dev/null 2>"$t/mktree.err" ||
		cat "$t/mktree.err" >&2
	: >"$t/log"
	: >"$t/cmdline"
	RULES=
}

# run ARGS: the binary on the tree, no report unless ARGS ask for one
run() {
	LD_PRELOAD=$shim MP_SHIM_SYSFS=$t/sys MP_SHIM_LOG=$t/log MP_SHIM_RULES=$RULES \
		"$bin" -d "$t/root" -S 1.0 --sysfs "$t/sys" --cmdline "$t/cmdline" \
		--no-default-config -C "$t/root/etc/modprobe.d" \
		"$@" >"$t/out" 2>"$t/err"
	rc=$?
}

starts() { grep -c " start $1 " "$t/log"; }
eq() { [ "$1" = "$2" ] || { echo "    got '$1', want '$2'" >&2; return 1; }; }

# --- the cases ---

# --bake-plan on a tree without a single alias (qsort of nothing), and a
# usage error after -C (the list freed).
t_small() {
	setup 'a\nb a\n'
	"$bin" -d "$t/root" -S 1.0 --cmdline "" -C "$t/root/etc/modprobe.d" --bake-plan "$t/plan" \
		>"$t/out" 2>"$t/err"
	check "bake, no aliases: exit 0" eq "$?" 0
	check "bake, no aliases: a plan" grep -q '^module a ' "$t/plan"
	"$bin" -C "$t/root/etc/modprobe.d" -C x --bogus >"$t/out" 2>"$t/err"
	check "-C then a bad option: exit 2" eq "$?" 2
	"$bin" -C x -j 0 a >"$t/out" 2>>"$t/err"
	check "-C then a bad -j: exit 2" eq "$?" 2
	"$bin" -C x -c y --order z a >"$t/out" 2>>"$t/err"
	check "-C, -c then a bad --order: exit 2" eq "$?" 2
	check "no leak" eval '! grep -q LeakSanitizer "$t/err"'
}

cases="small"

[ -n "${MP_CASES:-}" ] && cases=$MP_CASES
for c in $cases; do
	failed=0
	"t_$c"
	if [ $failed = 0 ] && ! grep -q -e 'ERROR: AddressSanitizer' -e 'runtime error' \
		-e 'ERROR: LeakSanitizer' "$t/err" 2>/dev/null; then
		echo "PASS: $suite/$c"
	else
		echo "FAIL: $suite/$c"
		sed 's/^/    | /' "$t/err" 2>/dev/null | head -20 >&2
	fi
done
