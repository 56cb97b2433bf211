#!/bin/sh
# One row a stack: the whole boot at 16 vCPUs, initramfs and booted system,
# with and without modpreload, on each Debian stack the tests cover
# (bench/booted-storm.sh -r SUITE, the booted-once* VM cases' machinery):
#   bookworm       Debian 12: 6.1, systemd 252, kmod 30; dracut 059's image
#   trixie         Debian 13: 6.12 (.ko.xz), systemd 257, kmod 34; the
#                  image by the host's dracut 059
#   trixie-itools  the same root, the image by its own initramfs-tools
#   trixie-ng      the same root, the image by the current dracut-ng release
#   sid            Debian unstable's root (systemd 259 or later, whose
#                  systemd-modules-load loads in parallel) on trixie's 6.12
#   seven, seven-itools, seven-ng
#                  Debian's newest 7.x (7.3, trixie-backports') in the
#                  trixie root, the image by the host's dracut 059, the
#                  root's initramfs-tools or dracut-ng (not in the default
#                  list: name them)
# The counts are the kernel's tracepoints' over the whole boot: load calls
# (finit_module and init_module), those with no module_load event (refused
# as a duplicate, or failed before init(); a driver whose init() found no
# device has its event), the booted system's udev workers' calls, and the
# module_load events (without modpreload the no-device drivers are tried
# again after switch-root, so there are more). Each is the median
# of the runs (one by default: the counts barely move from boot to boot).
# No times: one pair on a shared host says little about them;
# bench/booted-storm.sh -r SUITE with more runs does (its own table for each
# stack is kept in build/bench/stacks/SUITE.md). Prints markdown on stdout.
#
# Usage: bench/stacks.sh [-n RUNS] [-t] [SUITE...]
# -t: no boots, the table again from the last runs' files
# TCG on 2 host cores: about 5 minutes a stack and run when the host is
# quiet, 10 the first time (mmdebstrap, the image, the root disk).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
runs=1 boot=1
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-t) boot=0; shift ;;
	-*) sed -n 's/^# Usage: /usage: /p' "$0" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- bookworm trixie trixie-itools trixie-ng sid
# shellcheck source=harness/lib/hostlib.sh
. "$top/harness/lib/hostlib.sh"
out=$top/build/bench/stacks
mkdir -p "$out"

# field N of the row for VARIANT in a bench/booted-storm.sh table
cell() { # TABLE VARIANT N
	awk -F' *\\| *' -v v="$2" -v n="$3" '$3 == v { print $(n + 1); exit }' "$1"
}
# the whole boot's load calls (initramfs + booted) and module_load events,
# from the "calls / loaded" cells
calls() { # TABLE VARIANT
	echo $(($(cell "$1" "$2" 4 | cut -d/ -f1) + $(cell "$1" "$2" 5 | cut -d/ -f1)))
}
loaded() { # TABLE VARIANT
	echo $(($(cell "$1" "$2" 4 | cut -d/ -f2 | tr -d ' ') + $(cell "$1" "$2" 5 | sed 's|.*/ *\([0-9]*\).*|\1|')))
}

# each count "with / without" modpreload
echo "| stack | kernel | image by | load calls | calls with no load event | udev workers' calls, booted | module load events |"
echo "|---|---|---|---|---|---|---|"
for suite in "$@"; do
	t=$out/$suite.md
	[ "$boot" = 1 ] && echo "stacks: $suite, $runs run(s) a variant" >&2
	if [ "$boot" = 1 ] && ! "$top/bench/booted-storm.sh" -r "$suite" -s "16:$runs" >"$t" 2>"$out/$suite.log"; then
		echo "| $suite | - | - | the run failed (build/bench/stacks/$suite.log) | | | |"
		continue
	fi
	# the root's versions, from the first "with" boot's report; what made
	# the image, from harness/booted/host.sh's bt_setup
	case $suite in bookworm) tag= ;; *) tag=-$suite ;; esac
	r=$top/build/vm/booted$tag/bench/16-with/run1.txt
	if [ ! -s "$t" ] || [ ! -s "$r" ]; then
		echo "| $suite | - | - | no run yet | | | |"
		continue
	fi
	gen=$(cat "$top/build/vm/booted$tag/generator.txt" 2>/dev/null)
	case $suite in *-itools) gen="$gen (the root's own)" ;; esac
	case $suite in
	bookworm) name="Debian 12 bookworm" ;;
	sid) name="Debian unstable" ;;
	*) name="Debian 13 trixie" ;;
	esac
	cw=$(calls "$t" with) co=$(calls "$t" without) lw=$(loaded "$t" with) lo=$(loaded "$t" without)
	echo "| $name (systemd $(mpt_get systemd_version "$r"), kmod $(mpt_get kmod_version "$r")) | $(mpt_get kernel_release "$r" | cut -d. -f1,2) | ${gen:-?} | $cw / $co | $((cw - lw)) / $((co - lo)) | $(cell "$t" with 6) / $(cell "$t" without 6) | $lw / $lo |"
done
