#!/bin/sh
# make demo: boot Debian's 6.1 kernel twice on the same 16-vCPU VM with the
# same image. Once the modules this VM's devices ask for are loaded the way
# udev's coldplug does it (one modprobe per device), once by modpreload.
# Then what the kernel saw, side by side, and modpreload's own report.
# Debian's kernel has no CONFIG_MODULE_STATS: the memory the storm made the
# kernel allocate for loads it refused comes from the kernel's own counters
# on a 6.12 built with it (harness/lib/kernels.sh stats), booted the same two
# ways, and from modpreload's estimate for Debian's.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/harness/lib/hostlib.sh"
work=$top/build/demo
smp=${MP_DEMO_SMP:-16}
mkdir -p "$work"
say() { printf '%s\n' "$*" >&2; }

say "== Debian bookworm's kernel (fetched, not installed)"
line=$("$top/harness/lib/kernels.sh" bookworm)
kver=$(echo "$line" | cut -d' ' -f2)
kdir=$(echo "$line" | cut -d' ' -f3)
say "   $kver"

# 1. Which modules does this VM's hardware ask for? A first boot lists the
#    devices' modaliases; kmod resolves them against Debian's tree.
if [ ! -s "$work/modules.txt" ]; then
	say "== discovering the VM's devices (one short boot)"
	printf '%s\n' '# shellcheck shell=sh' \
		'mpt_coldplug_modaliases | sort -u | sed "s/^/MPT: alias=/"' >"$work/discover.sh"
	"$top/harness/lib/mkimage.sh" -o "$work/discover.img" -k "$kver" -M "$kdir" \
		--script "$work/discover.sh" >"$work/mkimage.log" 2>&1
	"$top/harness/lib/run.sh" -k "$kdir/vmlinuz" -i "$work/discover.img" -s 2 -t 300 --no-trace \
		-l "$work/discover.log" >"$work/discover.txt" 2>/dev/null
	mkdir -p "$work/noconf"
	mpt_keys alias= "$work/discover.txt" | cut -d= -f2- | while read -r a; do
		modprobe -C "$work/noconf" -d "$kdir" -S "$kver" --show-depends "$a" 2>/dev/null |
			awk '$1 == "insmod" { n = $2; sub(".*/", "", n); sub("\\.ko.*", "", n); print n }'
	done | sort -u >"$work/modules.txt"
fi
say "   $(wc -l <"$work/modules.txt") modules match its devices"

say "== one image with both loaders"
"$top/harness/lib/mkimage.sh" -o "$work/demo.img" -k "$kver" -M "$kdir" \
	-m "$(paste -sd, "$work/modules.txt")" --kmod \
	--add "$top/build/modpreload:/sbin/modpreload" \
	--script "$top/harness/bench/guest/demo.sh" >"$work/mkimage.log" 2>&1

for mode in naive modpreload; do
	say "== booting with $smp vCPUs: $mode"
	"$top/harness/lib/run.sh" -k "$kdir/vmlinuz" -i "$work/demo.img" -s "$smp" -m 1024 -t 600 \
		-a "mpt.demo=$mode" -l "$work/$mode.log" >"$work/$mode.txt" 2>/dev/null
done

say "== the same on 6.12 with CONFIG_MODULE_STATS (built once, ~5 minutes)"
if sline=$("$top/harness/lib/kernels.sh" stats 2>"$work/kernels.log"); then
	skver=$(echo "$sline" | cut -d' ' -f2)
	skdir=$(echo "$sline" | cut -d' ' -f3)
	"$top/harness/lib/mkimage.sh" -o "$work/demo-stats.img" -k "$skver" -M "$skdir" --all-modules --kmod \
		--add "$top/build/modpreload:/sbin/modpreload" \
		--script "$top/harness/bench/guest/demo.sh" >"$work/mkimage-stats.log" 2>&1
	for mode in naive modpreload; do
		say "== booting 6.12 with $smp vCPUs: $mode"
		"$top/harness/lib/run.sh" -k "$skdir/vmlinuz" -i "$work/demo-stats.img" -s "$smp" -m 1024 -t 600 \
			-a "mpt.demo=$mode" -l "$work/stats-$mode.log" >"$work/stats-$mode.txt" 2>/dev/null || :
	done
else
	say "   no stats kernel (see $work/kernels.log)"
	: >"$work/stats-naive.txt"
	: >"$work/stats-modpreload.txt"
fi

n=$work/naive.txt
p=$work/modpreload.txt
row() { printf '| %-40s | %18s | %18s |\n' "$1" "$2" "$3"; }
ms() { awk -v v="$1" 'BEGIN { printf "%.2f s", v / 1000 }'; }
echo
echo "What the kernel saw, $smp vCPUs, $(mpt_get devices_with_modalias "$p") devices with a modalias ($kver):"
echo
row "" "modprobe per device" "modpreload"
row "----------------------------------------" "------------------" "------------------"
row "finit_module calls" "$(mpt_num finit_enter "$n")" "$(mpt_num finit_enter "$p")"
row "  failed with EEXIST (already loaded)" "$(mpt_num finit_eexist "$n")" "$(mpt_num finit_eexist "$p")"
row "  failed with EBUSY (still loading)" "$(mpt_num finit_ebusy "$n")" "$(mpt_num finit_ebusy "$p")"
row "  failed otherwise" "$(mpt_num finit_other "$n")" "$(mpt_num finit_other "$p")"
row "modules live afterwards" "$(mpt_num proc_count "$n")" "$(mpt_num proc_count "$p")"
row "first load syscall to last one returned" "$(ms "$(mpt_num load_window_ms "$n")")" "$(ms "$(mpt_num load_window_ms "$p")")"
row "loader's wall time" "$(ms "$(mpt_num wall_ms "$n")")" "$(ms "$(mpt_num wall_ms "$p")")"
# what the kernel allocated for loads it refused: its own count on 6.12
# with MODULE_STATS, modpreload's estimate (from the files) on Debian's
kwaste() { # FILE: Virtual mem wasted bytes' change, or "-"
	if mpt_get ks1.Virtual_mem_wasted_bytes "$1" >/dev/null; then
		mib $(($(mpt_num ks1.Virtual_mem_wasted_bytes "$1") - $(mpt_num ks0.Virtual_mem_wasted_bytes "$1")))
	else
		echo -
	fi
}
mib() { awk -v v="$1" 'BEGIN { printf "%.2f MiB", v / 1048576 }'; }
row "memory wasted on refused loads:" "" ""
row "  6.12 + MODULE_STATS (kernel's count)" "$(kwaste "$work/stats-naive.txt")" "$(kwaste "$work/stats-modpreload.txt")"
row "  $kver (modpreload's estimate)" "up to $(mib "$(mpt_num report.dupcost_bytes "$p")")" "$(mib 0)"
echo
echo "modpreload's own report:"
mpt_keys summary= "$p" | sed 's/^summary=/  /'
# the guest's report, kept: what modpreload analyze reads
grep -a '^MPT: report_b64=' "$p" | cut -d= -f2- | base64 -d >"$work/report.json" 2>/dev/null || :
if [ -s "$work/report.json" ] && "$top/build/modpreload-analyze" --svg "$work/timeline.svg" "$work/report.json"; then
	echo
	echo "modpreload analyze $work/report.json (the guest's report, kept):"
	"$top/build/modpreload-analyze" "$work/report.json" | sed 's/^/  /'
	echo
	echo "Its report: $work/report.json; its timeline: $work/timeline.svg"
	echo "(open it in a browser; build/modpreload analyze reads the report again)."
else
	rm -f "$work/report.json"
	echo
	echo "The guest's report did not come back (see $work/modpreload.log)."
fi
echo
echo "Serial logs and results: $work/"
