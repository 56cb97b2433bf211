#!/bin/sh
# bench/run.sh, scenario "cost": what the tool itself costs, on the host.
# Prints "key<TAB>value" lines on stdout (progress on stderr):
#   size.TOOL.binary / size.TOOL.total   the program, and with the shared
#                     libraries and files it needs in an initramfs
#                     (modpreload, kmod, udev = udevd + udevadm + rules +
#                     kmod's libkmod)
#   image.NAME        a gzip'ed test image with busybox, this VM's storm
#                     modules and: nothing (base), modpreload, kmod,
#                     kmod + udevd
#   plan.TOOL.*       planning every module of Debian's 6.1 tree at once:
#                     modpreload's dry run (-n) and, as kmod's reference,
#                     `modprobe --show-depends -a` over the same names, one
#                     process each: peak RSS (KiB, /usr/bin/time), wall and
#                     CPU seconds, and instructions under
#                     `valgrind --tool=callgrind` (stable on a busy host;
#                     MP_BENCH_COST_CALLGRIND=0 skips it)
# Needs BENCH_WORK (bench/run.sh exports it) for the storm's module list.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BENCH_WORK=${BENCH_WORK:-$top/build/bench}
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
w=$BENCH_WORK/cost
mkdir -p "$w/noconf"
kv() { printf '%s\t%s\n' "$1" "$2"; }

bench_kernel bookworm
mp=$top/build/modpreload

# --- sizes -------------------------------------------------------------------
libs_of() { # a dynamic program's libraries, one path a line
	ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
}
kmodbin=$(readlink -f "$(command -v kmod)")
kv size.modpreload.binary "$(stat -c %s "$mp")"
kv size.modpreload.total "$(stat -c %s "$mp")"
kv size.kmod.binary "$(stat -c %s "$kmodbin")"
# shellcheck disable=SC2046 # a list of files
kv size.kmod.total "$(bench_bytes "$kmodbin" $(libs_of "$kmodbin"))"
bench_udev_stage "$w/udev" >/dev/null
kv size.udev.binary "$(stat -c %s "$w/udev/udevadm")"
# shellcheck disable=SC2046
kv size.udev.total "$(bench_bytes "$w/udev/udevadm" "$w/udev/80-drivers.rules" \
	$(libs_of "$(readlink -f "$(command -v udevadm)")") $(libs_of "$kmodbin"))"

mods=$(bench_storm_modules | paste -sd, -)
printf '%s\n' '# shellcheck shell=sh' ': nothing' >"$w/empty.sh"
image() { # NAME MKIMAGE_ARG...
	n=$1
	shift
	"$top/harness/lib/mkimage.sh" -o "$w/$n.img" -k "$BK_KVER" -M "$BK_KDIR" -m "$mods" \
		--script "$w/empty.sh" "$@" >"$w/$n.log" 2>&1 || bench_die "mkimage.sh failed: $w/$n.log"
	kv "image.$n" "$(stat -c %s "$w/$n.img")"
}
bench_log "cost: image sizes"
image base
image modpreload --add "$mp:/sbin/modpreload"
image kmod --kmod
set --
while read -r a; do set -- "$@" --add "$a"; done <<EOF
$(bench_udev_stage "$w/udev")
EOF
image udev --kmod "$@"
kv image.modules "$(echo "$mods" | tr ',' ' ' | wc -w)"

# --- planning the whole tree -----------------------------------------------------
moddir=$BK_KDIR/lib/modules/$BK_KVER
find "$moddir" -name '*.ko*' | sed 's|.*/||; s|\.ko.*||' | sort -u >"$w/all.txt"
kv plan.modules "$(wc -l <"$w/all.txt")"
run_mp() {
	"$@" "$mp" --no-fork -q -n -d "$BK_KDIR" -S "$BK_KVER" -C "$w/noconf" --no-default-config \
		--cmdline "" -c "$w/all.txt"
}
run_kmod() {
	# shellcheck disable=SC2046 # the names are words
	"$@" modprobe -C "$w/noconf" -d "$BK_KDIR" -S "$BK_KVER" --show-depends -a $(cat "$w/all.txt")
}
measure() { # TOOL RUNNER
	bench_log "cost: planning the whole tree: $1"
	i=0
	: >"$w/$1.time"
	while [ "$i" -lt 3 ]; do
		"$2" /usr/bin/time -a -o "$w/$1.time" -f '%M %e %U %S' >"$w/$1.out" 2>/dev/null
		i=$((i + 1))
	done
	# the median of three runs, field by field
	for f in 1 2 3 4; do
		cut -d' ' -f"$f" "$w/$1.time" | sort -n | sed -n 2p
	done | paste -sd' ' - | {
		read -r rss wall user sys
		kv "plan.$1.rss_kib" "$rss"
		kv "plan.$1.wall_s" "$wall"
		kv "plan.$1.cpu_s" "$(echo "$user $sys" | awk '{ printf "%.2f", $1 + $2 }')"
	}
	kv "plan.$1.output_bytes" "$(stat -c %s "$w/$1.out")"
	if [ "${MP_BENCH_COST_CALLGRIND:-1}" = 1 ] && command -v valgrind >/dev/null; then
		"$2" valgrind --tool=callgrind --callgrind-out-file=/dev/null --log-file="$w/$1.vg" >/dev/null 2>&1 || true
		kv "plan.$1.instructions" "$(sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$w/$1.vg")"
	fi
}
measure modpreload run_mp
measure kmod run_kmod
