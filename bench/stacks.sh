#!/bin/sh
# One row a stack: the whole boot at 16 vCPUs, initramfs and booted system,
# with and without modpreload, on each Debian stack the tests cover
# (bench/booted-storm.sh -r SUITE, the booted-storm* VM cases' machinery):
#   bookworm       Debian 12: 6.1, systemd 252, kmod 30; dracut 059's image
#   trixie         Debian 13: 6.12 (.ko.xz), systemd 257, kmod 34; the
#                  image by the host's dracut 059
#   trixie-itools  the same root, the image by its own initramfs-tools
#   trixie-ng      the same root, the image by the current dracut-ng release
#   sid            Debian unstable's root (systemd 259 or later, whose
#                  systemd-modules-load loads in parallel) on trixie's 6.12
# The counts are the kernel's tracepoints' (finit_module and init_module
# calls, module_load events), over the whole boot; the times are guest
# seconds to multi-user.target. Each cell is the median of the runs (one by
# default: the counts barely move from boot to boot, the times do; for
# times, bench/booted-storm.sh's tables). Prints markdown on stdout; each
# stack's own table is kept in build/bench/stacks/SUITE.md.
#
# Usage: bench/stacks.sh [-n RUNS] [SUITE...]
# TCG on 2 host cores: about 5 minutes a stack and run when the host is
# quiet, 10 the first time (mmdebstrap, the image, the root disk).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
runs=1
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-*) sed -n 's/^# Usage: /usage: /p' "$0" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- bookworm trixie trixie-itools trixie-ng sid
# shellcheck source=harness/lib/lib.sh
. "$top/harness/lib/lib.sh"
out=$top/build/bench/stacks
mkdir -p "$out"

# what made the image, by suite
generator() {
	case $1 in
	trixie-itools) echo "initramfs-tools $2 (the root's own)" ;;
	trixie-ng) echo "dracut-ng $("$top/harness/lib/dracutng.sh" sid 2>/dev/null | cut -d' ' -f1)" ;;
	*) echo "dracut 059" ;;
	esac
}
# field N of the row for VARIANT in a bench/booted-storm.sh table
cell() { # TABLE VARIANT N
	awk -F' *\\| *' -v v="$2" -v n="$3" '$3 == v { print $(n + 1); exit }' "$1"
}
# "A / B" of a cell: A + B of two "X / Y" cells' first numbers
calls() { # TABLE VARIANT
	echo $(($(cell "$1" "$2" 4 | cut -d/ -f1) + $(cell "$1" "$2" 5 | cut -d/ -f1)))
}
loaded() { # TABLE VARIANT
	echo $(($(cell "$1" "$2" 4 | cut -d/ -f2 | tr -d ' ') + $(cell "$1" "$2" 5 | sed 's|.*/ *\([0-9]*\).*|\1|')))
}

echo "| stack | kernel | image by | load calls, with / without | by udev's workers, with / without | modules loaded, with / without | multi-user (s), with / without |"
echo "|---|---|---|---|---|---|---|"
for suite in "$@"; do
	t=$out/$suite.md
	echo "stacks: $suite, $runs run(s) a variant" >&2
	if ! "$top/bench/booted-storm.sh" -r "$suite" -s "16:$runs" >"$t" 2>"$out/$suite.log"; then
		echo "| $suite | - | - | the run failed (build/bench/stacks/$suite.log) | | | |"
		continue
	fi
	# the root's versions, from the first "with" boot's report
	case $suite in bookworm) tag= ;; *) tag=-$suite ;; esac
	r=$top/build/vm/booted$tag/bench/16-with/run1.txt
	itools=
	[ "$suite" != trixie-itools ] || itools=$(mpt_get itools_version "$r")
	case $suite in
	bookworm) name="Debian 12 bookworm" ;;
	sid) name="Debian unstable" ;;
	*) name="Debian 13 trixie" ;;
	esac
	echo "| $name (systemd $(mpt_get systemd_version "$r"), kmod $(mpt_get kmod_version "$r")) | $(mpt_get kernel_release "$r" | cut -d. -f1,2) | $(generator "$suite" "$itools") | $(calls "$t" with) / $(calls "$t" without) | $(cell "$t" with 6) / $(cell "$t" without 6) | $(loaded "$t" with) / $(loaded "$t" without) | $(cell "$t" with 10) / $(cell "$t" without 10) |"
done
