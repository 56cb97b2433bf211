#!/bin/sh
# Every test: unit (ASan/UBSan, TSan), fuzz smoke, shellcheck, and the real
# kernels under QEMU (tests/vm/cases/*.sh). Each suite prints PASS:, FAIL:
# or SKIP: lines; this counts them. The last line is the verdict.
#
# Usage: tests/run.sh [unit|fuzz|lint|vm]...   (default: all)
# MP_VM_CASES="glob" limits the VM cases (e.g. "core-*").
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
mkdir -p build
# each run its own record (two runs at once must not share one), kept as
# build/test-results.txt at the end
out=$(mktemp "$top/build/test-results.XXXXXX")
suites=${*:-unit fuzz lint vm}

run_suite() {
	echo "== $1" >&2
	shift
	"$@" 2>&1 | tee -a "$out" | grep -E '^(PASS|FAIL|SKIP):' || true
}

lint() {
	files=$(git ls-files '*.sh' 'dracut-module/*' 'mkinitcpio-hook/*' 'init/mkinitramfs' .ci/run \
		'tests/mkinitcpio/install/*' 'tests/mkinitcpio/hooks/*' |
		while read -r f; do head -n 1 "$f" | grep -q '^#!.*sh' && echo "$f"; done)
	# shellcheck disable=SC2086 # a list of files
	if shellcheck -x $files >&2; then
		echo "PASS: lint/shellcheck ($(echo "$files" | wc -l) scripts)"
	else
		echo "FAIL: lint/shellcheck"
	fi
	size=$(stat -c %s build/modpreload)
	if [ "$size" -le 262144 ]; then
		echo "PASS: lint/size (build/modpreload is $size bytes, budget 262144)"
	else
		echo "FAIL: lint/size: build/modpreload is $size bytes, over 256 KiB"
	fi
	if file build/modpreload | grep -q 'statically linked'; then
		echo "PASS: lint/static"
	else
		echo "FAIL: lint/static: $(file build/modpreload)"
	fi
}

vm() {
	pattern=${MP_VM_CASES:-*}
	for c in tests/vm/cases/$pattern.sh; do
		[ -x "$c" ] || continue
		start=$(date +%s)
		if ! "$c"; then
			echo "FAIL: vm/$(basename "$c" .sh): the case script exited non-zero"
		fi
		echo "   ($(basename "$c"): $(($(date +%s) - start)) s)" >&2
	done
}

for s in $suites; do
	case $s in
	unit) run_suite unit tests/unit/run.sh ;;
	fuzz) run_suite fuzz tests/fuzz/run.sh "${MP_FUZZ_SECONDS:-10}" ;;
	lint) run_suite lint lint ;;
	vm) run_suite vm vm ;;
	*) echo "unknown suite $s" >&2; exit 2 ;;
	esac
done

pass=$(grep -c '^PASS:' "$out")
fail=$(grep -c '^FAIL:' "$out")
skip=$(grep -c '^SKIP:' "$out")
if [ "$fail" -gt 0 ]; then
	echo "failed:" >&2
	grep '^FAIL:' "$out" >&2
fi
mv "$out" "$top/build/test-results.txt"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
