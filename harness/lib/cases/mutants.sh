#!/bin/sh
# tier: full
# The cases fail on broken builds. Each exactly-once case of the
# initramfs families (dracut-once, itools-once, mkinitcpio-once) is run
# again with a mutant modpreload in its images (MPT_MUTANT, hostlib.sh's
# mpt_binary; tests/mutants/mutant.c wraps the binary's syscall()):
#   twice    every load the kernel accepts is made again (EEXIST)
#   noload   no load reaches the kernel, each is answered 0: the report
#            says every module loaded, udev's coldplug loads them
# and its exactly-once verdict must be a FAIL, with check_once's reasons,
# which come from the kernel's tracepoints, not from the program.
#   vm/mutants/MUTANT/CASE   PASS when CASE's verdict failed on MUTANT
# Their default variants only (8 vCPUs); about 7 minutes for both mutants.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/lib/verdict.sh
. "$top/harness/lib/verdict.sh"
out=$top/build/vm/mutants
mkdir -p "$out"
# CASE-FILE VERDICT-NAME: the case and its exactly-once verdict
cases="dracut/cases/dracut-once.sh:dracut-once/modpreload-8cpu
itools/cases/itools-once.sh:itools-once/modpreload-8cpu
mkinitcpio/cases/mkinitcpio-once.sh:mkinitcpio-once-smp8"
for m in twice noload; do
	for c in $cases; do
		f=${c%%:*} v=${c#*:}
		log=$out/$m-$(basename "$f" .sh).txt
		MPT_MUTANT=$m MP_FULL=0 DR_SYSTEMD_SMP=8 MP_ITOOLS_CPUS=8 MKC_SMP=8 \
			"$top/harness/$f" >"$log" 2>"$log.err"
		line=$(grep -E "^(PASS|FAIL): vm/$v( |:|$)" "$log" | head -n 1)
		case $line in
		"FAIL: vm/$v:"*)
			# the reasons must be the kernel's word: check_once's
			echo "$line" | grep -qE 'EEXIST: got|load calls ==|modules loaded twice|udev' ||
				fail "$v failed, but not on the counts: $line"
			;;
		"PASS: vm/$v"*) fail "$v passed on the $m mutant ($log)" ;;
		*) fail "no verdict vm/$v in $log" ;;
		esac
		verdict "mutants/$m/$(basename "$f" .sh)" "$(echo "$line" | sed "s|^FAIL: vm/$v: ||" | cut -c1-160)"
	done
done
exit 0
