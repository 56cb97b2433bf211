#!/bin/sh
# Every test: unit (ASan/UBSan, TSan), fuzz smoke, shellcheck, and the real
# kernels under QEMU (harness/*/cases/*.sh). Each suite prints PASS:, FAIL:
# or SKIP: lines; this counts them. The last line is the verdict.
#
# Usage: tests/run.sh [unit|fuzz|lint|vm]...   (default: all)
# MP_VM_CASES="glob" limits the VM cases (e.g. "core-*"). MP_FULL=1 (make
# check-full) adds the cases marked "# tier: full" and the long variants
# of the others (more vCPUs, the storm without modpreload). MP_FAST_FIRST=1:
# when unit, fuzz or lint failed, the vm suite is not run (make check).
#
# The vm suite first boots a calibration guest (harness/lib/calibrate.sh): its
# deadlines grow with how slowly this host boots one now. The whole run ends
# with host/untouched: the host's module, dracut, mkinitcpio, initramfs-tools
# and boot directories and /usr/sbin are as they were when it started.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
mkdir -p build
# each run its own record (two runs at once must not share one), kept as
# build/test-results.txt at the end
out=$(mktemp "$top/build/test-results.XXXXXX")
suites=${*:-unit fuzz lint vm}

# What the suites must leave as they found it: where an installed modpreload,
# its integrations and the host's own kernels live.
# Only what a test could write (an apt upgrade running beside a long run
# must not fail it): modpreload's own names, its integrations' directories,
# the kernels' and their headers'.
host_dirs="/usr/sbin/modpreload /usr/sbin/modpreload-mkinitramfs /usr/bin/modpreload
/usr/lib/modpreload /usr/lib/dracut/modules.d /etc/dracut.conf.d /usr/lib/initcpio /etc/mkinitcpio.conf.d
/usr/share/initramfs-tools/hooks /usr/share/initramfs-tools/scripts /etc/initramfs-tools
/lib/modules /usr/lib/modules /usr/src /boot /etc/modpreload.d /usr/lib/modpreload.d
/etc/modprobe.d /etc/modules-load.d /usr/lib/systemd/system/modpreload.service /usr/lib/systemd/system/modpreload-coldplug.service
/usr/lib/systemd/system/modpreload-names.service /usr/lib/systemd/system/modpreload-save-report.service /var/lib/modpreload /run/modprobe.d
/etc/systemd/system/sysinit.target.wants"
host_state() {
	# shellcheck disable=SC2086 # a list of paths
	find $host_dirs -xdev -printf '%p %y %m %s %T@ %l\n' 2>/dev/null | LC_ALL=C sort
}
host_before=$(mktemp "$top/build/host-before.XXXXXX")
host_state >"$host_before"

# each suite's wall time, for the summary at the end ("time: SUITE N s")
times=$(mktemp "$top/build/test-times.XXXXXX")
if [ -n "${MP_BUILD_S:-}" ]; then
	echo "time: build $MP_BUILD_S s" >>"$times"
fi
run_suite() {
	echo "== $1" >&2
	_rs_name=$1 _rs_t0=$(date +%s)
	shift
	"$@" 2>&1 | tee -a "$out" | grep -E '^(PASS|FAIL|SKIP):' || true
	echo "time: $_rs_name $(($(date +%s) - _rs_t0)) s" >>"$times"
}

# ls_tracked PATTERN...: git's tracked files matching them; in an unpacked
# `make dist` tarball (no .git), every file there is but build/'s, which
# is what the tarball's commit tracked
ls_tracked() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files "$@"
		return
	fi
	find . -path ./build -prune -o -type f -print | sed 's|^\./||' | LC_ALL=C sort |
		while read -r _lt_f; do
			for _lt_p; do
				# shellcheck disable=SC2254 # the pattern is meant as one
				case $_lt_f in $_lt_p) echo "$_lt_f"; break ;; esac
			done
		done
}

lint() {
	files=$(ls_tracked '*.sh' 'dracut-module/*' 'mkinitcpio-hook/*' 'initramfs-tools/*' 'systemd/*' 'init/mkinitramfs' .ci/run \
		'packaging/buildroot/package/*/S[0-9]*' \
		'harness/mkinitcpio/install/*' 'harness/mkinitcpio/hooks/*' |
		while read -r f; do head -n 1 "$f" | grep -q '^#!.*sh' && echo "$f"; done)
	# shellcheck disable=SC2086 # a list of files
	if shellcheck -x $files >&2; then
		echo "PASS: lint/shellcheck ($(echo "$files" | wc -l) scripts)"
	else
		echo "FAIL: lint/shellcheck"
	fi
	# no merge left half done (issue 36: harness/README.md once held both
	# sides of one): no conflict marker in any tracked file
	markers=$(ls_tracked '*' | tr '\n' '\0' | xargs -0 -r grep -I -n -E '^(<<<<<<<|>>>>>>>)( |$)|^=======$' -- \
		2>/dev/null | cut -d: -f1,2)
	if [ -z "$markers" ]; then
		echo "PASS: lint/conflicts (no conflict marker in $(ls_tracked '*' | wc -l) tracked files)"
	else
		echo "FAIL: lint/conflicts: conflict markers at $(echo "$markers" | head -n 5 | tr '\n' ' ')"
	fi
	if scripts/style.sh >&2; then
		echo "PASS: lint/style (tabs, no trailing blanks, <= 120 columns: scripts/style.sh)"
	else
		echo "FAIL: lint/style (scripts/style.sh lists the lines)"
	fi
	if scripts/layers.sh >&2; then
		echo "PASS: lint/layers (preload's calls go down the pipeline, no circle, one stage map: scripts/layers.sh)"
	else
		echo "FAIL: lint/layers (scripts/layers.sh names the arrows back, the circles and the stage map's copies that differ)"
	fi
	# no file of preload/ over 600 lines (issue 23): one that grows past it
	# does two things, and splits along the seam between them
	long=$(find preload -name '*.[ch]' | sort | while read -r f; do
		n=$(wc -l <"$f")
		[ "$n" -le 600 ] || printf ' %s (%s lines)' "$f" "$n"
	done)
	if [ -z "$long" ]; then
		echo "PASS: lint/lines (preload/: no .c or .h over 600 lines)"
	else
		echo "FAIL: lint/lines: over 600 lines:$long"
	fi
	# 252 KiB: 250,456 bytes when set (issue 23: no plan read at boot, no
	# unwind tables, no RELRO, zlib's CRC tables made at run time), and one
	# 4 KiB page of the file's layout to spare; 256 KiB since the holds name
	# their holder (257,912 bytes: bench/results/sizes-2026-12-04.md); 264
	# KiB since the initramfs loads the root's file system module (266,712
	# bytes, a page more: bench/results/sizes-2026-12-05b.md); 268 KiB
	# since the booted run keeps the last boot's lookups (271,896 bytes:
	# bench/results/sizes-2026-12-06.md); 272 KiB since --wait-runs, whose
	# 773 bytes took the code past a 4 KiB boundary (276,344 bytes:
	# bench/results/sizes-2026-12-06c.md); 284 KiB since the booted run
	# hands over before its plan, whose 2,272 bytes of code took the file
	# past another (282,744 bytes: bench/results/sizes-2026-12-06e.md)
	size=$(stat -c %s build/modpreload)
	if [ "$size" -le 290816 ]; then
		echo "PASS: lint/size (build/modpreload is $size bytes, budget 290816)"
	else
		echo "FAIL: lint/size: build/modpreload is $size bytes, over 284 KiB"
	fi
	if file build/modpreload | grep -q 'statically linked'; then
		echo "PASS: lint/static"
	else
		echo "FAIL: lint/static: $(file build/modpreload)"
	fi
	# the cross build (make ARCH=arm64), when there is one
	if [ -f build/arm64/modpreload ]; then
		# 260 KiB: 261,952 bytes at 0.2.0 (without RELRO the 64 KiB
		# alignment no longer pads the file: it grows byte by byte),
		# 262,576 with the blacklist per source, the log's C1 escaping
		# and the hand-over's urgent order, and one 4 KiB page to spare;
		# 264 KiB since the holds name their holder (266,608 bytes); 268
		# KiB since the booted run leaves a driver of one device to udev
		# and a file found with another compression after the switch
		# (270,888 bytes: bench/results/sizes-2026-12-04b.md); 272 KiB
		# since the booted run's planning waits less for the disk and its
		# loads wait for udev's coldplug (274,456 bytes:
		# bench/results/sizes-2026-12-05.md); 276 KiB since the booted
		# run leaves names to systemd-modules-load and holds its loads
		# back until the hand-over (278,584 bytes:
		# bench/results/sizes-2026-12-05c.md); 280 KiB since the booted
		# run keeps the last boot's lookups (283,520 bytes:
		# bench/results/sizes-2026-12-06.md); 284 KiB since it keeps
		# the hand-over's alias kinds too, and its code crossed a page
		# (286,848 bytes: bench/results/sizes-2026-12-06b.md); 288 KiB
		# since the booted run keeps the drivers that found no device
		# for after udev's queue (290,976 bytes:
		# bench/results/sizes-2026-12-06d.md); 292 KiB since
		# --handover-early (295,104 bytes: bench/results/sizes-2026-12-06e.md)
		size=$(stat -c %s build/arm64/modpreload)
		if [ "$size" -le 299008 ]; then
			echo "PASS: lint/size-arm64 (build/arm64/modpreload is $size bytes, budget 299008)"
		else
			echo "FAIL: lint/size-arm64: build/arm64/modpreload is $size bytes, over 292 KiB"
		fi
	fi
	# one version, the manual pages, the generated tables, the docs' links
	scripts/lint-release.sh
	# the options' table and the manual page name the same options
	scripts/lint-options.sh
	# the harness's awk programs read a trace alike under mawk, gawk and
	# busybox awk (issue 36)
	scripts/lint-awk.sh
}

vm() {
	pattern=${MP_VM_CASES:-*}
	# Once now, so that the first case's deadlines are already the host's;
	# harness/lib/run.sh calibrates again when this is 15 minutes old.
	harness/lib/calibrate.sh --force >/dev/null
	# every family's cases (harness/FAMILY/cases/), by name across them
	# A case whose header says "# tier: full" is make check-full's
	# (MP_FULL=1), as are the long variants inside cases that read MP_FULL.
	later=
	# shellcheck disable=SC2231 # $pattern is a glob
	for c in $(for f in harness/*/cases/$pattern.sh; do
		[ -x "$f" ] && echo "$(basename "$f") $f"
	done | sort | cut -d' ' -f2); do
		if [ "${MP_FULL:-0}" != 1 ] && grep -q '^# tier: full$' "$c"; then
			later="$later $(basename "$c" .sh)"
			continue
		fi
		start=$(date +%s)
		if ! "$c"; then
			echo "FAIL: vm/$(basename "$c" .sh): the case script exited non-zero"
		fi
		echo "   ($(basename "$c"): $(($(date +%s) - start)) s)" >&2
	done
	if [ -n "$later" ]; then
		echo "in make check-full only:$later" >&2
	fi
}

for s in $suites; do
	case $s in
	unit) run_suite unit tests/unit/run.sh ;;
	fuzz) run_suite fuzz tests/fuzz/run.sh "${MP_FUZZ_SECONDS:-10}" ;;
	lint) run_suite lint lint ;;
	vm)
		if [ "${MP_FAST_FIRST:-}" = 1 ] && grep -q '^FAIL:' "$out"; then
			echo "the fast tier failed: the vm suite is not run" >&2
			echo "SKIP: vm (the fast tier failed)" | tee -a "$out"
			continue
		fi
		run_suite vm vm ;;
	*) echo "unknown suite $s" >&2; exit 2 ;;
	esac
done

host_after=$(mktemp "$top/build/host-after.XXXXXX")
host_state >"$host_after"
if cmp -s "$host_before" "$host_after"; then
	echo "PASS: host/untouched ($(wc -l <"$host_after") paths as they were)" | tee -a "$out"
else
	echo "FAIL: host/untouched: $(diff "$host_before" "$host_after" | grep -c '^[<>]') paths changed: $(diff "$host_before" "$host_after" | grep '^[<>]' | head -n 5 | tr '\n' ' ')" | tee -a "$out"
fi
rm -f "$host_before" "$host_after"

# where the time went: each VM case, slowest first, then the phases
{
	echo "== time"
	grep -E '^   \([a-z0-9-]+\.sh: [0-9]+ s\)$' "$out" | tr -d '():' |
		awk '{ printf "  %-28s %6d s\n", $1, $2 }' | sort -k2,2 -n -r
	awk '{ printf "  phase %-22s %6d s\n", $2, $3; t += $3 } END { printf "  total %-22s %6d s (%d min)\n", "", t, t / 60 }' "$times"
} | tee -a "$out" >&2
rm -f "$times"

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
