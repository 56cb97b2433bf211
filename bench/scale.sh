#!/bin/sh
# The storm at the seeds' scale, in the kernel's own words: the 6.12 kernel
# built with CONFIG_MODULE_STATS (harness/lib/kernels.sh stats: the x86
# CPU-feature crypto modules and kvm as modules, NR_CPUS 256), one boot per
# vCPU count, each loading what the VM's devices and CPUs ask for two
# ways, from nothing each time (harness/bench/guest/bench-scale.sh):
#   modpreload  modpreload --coldplug
#   modprobe    what udev's coldplug does: one modprobe per device
#               modalias, as many at once as udevd's workers; Debian 12's
#               kmod 30 decompresses in userspace and calls init_module
#               (this kernel has no networking, so no udevd itself)
# and /sys/kernel/debug/modules/stats' change across each. modpreload's own
# estimate of what the duplicates cost (its report's duplicate_cost, made
# from the files alone, for kernels without MODULE_STATS) is set against the
# kernel's figure for the same refused loads.
#
# Usage: bench/scale.sh [-c "32 64 128"] [-o DIR] [--report RAWDIR]
#   -c VCPUS        vCPU counts (MP_BENCH_SCALE_VCPUS); above 128 the VM is
#                   q35 (QEMU 7.2 under TCG boots at most 255)
#   -o DIR          where scale-DATE.md and scale-DATE.svg go (default
#                   bench/results); the boots' result lines go to
#                   DIR/scale-DATE/
#   --report RAWDIR only write the report again from a run's result lines
# Measured on a 2-core host: 3 minutes for the 16-vCPU boot, 22 for 32 with
# the host shared with other guests; most of it is the modprobe storm.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
vcpus=${MP_BENCH_SCALE_VCPUS:-32 64 128}
out=$top/bench/results
raw=''
while [ $# -gt 0 ]; do
	case $1 in
	-c) vcpus=$(echo "$2" | tr ',' ' '); shift 2 ;;
	-o) out=$2; shift 2 ;;
	--report) raw=$2; shift 2 ;;
	*) sed -n 's/^# Usage: /usage: /p' "$0" >&2; exit 2 ;;
	esac
done
BENCH_WORK=$top/build/bench/scale
export BENCH_WORK
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
log() { printf 'scale: %s\n' "$*" >&2; }

# report RAWDIR: the markdown table and the plot from the boots' lines
report() {
	rd=$1
	name=$(basename "$rd")
	md=$out/$name.md
	svg=$out/$name.svg
	for f in "$rd"/s*.txt; do
		[ -f "$f" ] || continue
		awk -v f="$f" '
		function num(k) { return (k in v) ? v[k] + 0 : 0 }
		/^MPT: / { l = substr($0, 6); i = index(l, "="); k = substr(l, 1, i - 1); x = substr(l, i + 1)
			if (k == "scale.mod") { split(x, a, ","); size[a[1]] = a[3]; cost[a[1]] = a[4]; next }
			v[k] = x }
		END {
			n = num("scale.ncpus"); if (n == 0) exit
			est = num("scale.report.dupcost_bytes")
			for (c = 1; c <= 2; c++) {
				cn = c == 1 ? "modpreload" : "modprobe"
				p = "scale." cn "."
				failed = num(p "ks.Mods_failed_on_becoming") + num(p "ks.Mods_failed_on_load")
				dups = ""; same = 0; nd = 0
				for (k in v) if (index(k, p "dup.") == 1) {
					m = substr(k, length(p "dup.") + 1)
					nd++; dn[nd] = m; dc[nd] = v[k] + 0
					# the estimate for exactly these refusals: the
					# path this contender took (init_module: the image)
					one = cost[m]; if (cn == "modprobe" && one > 0) one = cost[m] - size[m]
					same += v[k] * one
				}
				for (i = 1; i <= nd; i++) {	# the most refused first
					b = i
					for (j = i + 1; j <= nd; j++) if (dc[j] > dc[b] || (dc[j] == dc[b] && dn[j] < dn[b])) b = j
					t = dn[i]; dn[i] = dn[b]; dn[b] = t; t = dc[i]; dc[i] = dc[b]; dc[b] = t
					dups = dups sprintf("%s%s %d", i > 1 ? ", " : "", dn[i], dc[i])
				}
				printf "%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", n, cn, num("scale.devices"), num("scale.cpu_aliases"),
					failed, num(p "ks.Failed_becoming_bytes"), num(p "ks.Failed_kmod_bytes"),
					num(p "ks.Virtual_mem_wasted_bytes"), same, est, num(p "wall_ms"), dups == "" ? "-" : dups
			}
		}' "$f"
	done | sort -n -k1,1 >"$rd/table.tsv"
	[ -s "$rd/table.tsv" ] || { log "no finished boot in $rd"; return 1; }
	{
		echo "# The storm at scale, in the kernel's own words ($(date -u +%Y-%m-%d))"
		echo
		echo "Kernel: $(cat "$rd/kver" 2>/dev/null) (tinyconfig + CONFIG_MODULE_STATS, 6.12 from Debian's"
		echo "linux-source-6.12, built by harness/lib/kernels.sh), QEMU $(qemu-system-x86_64 --version | sed -n '1s/.*version \([^ ]*\).*/\1/p') TCG, \`-cpu max\`,"
		echo "$(nproc)-core host. Made by \`bench/scale.sh\`; raw result lines in \`$name/\`."
		echo "Each boot loads what its devices ask for twice, from nothing (everything"
		echo "unloaded in between): **modpreload** (\`--coldplug\`), then **modprobe**: what udev's"
		echo "coldplug does, one \`modprobe\` per device modalias, as many at once as udevd has"
		echo "workers (2 per CPU + 16), with Debian 12's kmod 30 (userspace decompression,"
		echo "init_module, which the kernel never merges)."
		echo "Failed loads, bytes: the change of \`/sys/kernel/debug/modules/stats\` across each."
		echo "*estimate, same refusals*: modpreload's per-module cost (report: \`duplicate_cost_bytes\`,"
		echo "from the files alone) times the kernel's own duplicate counts. *estimate, every"
		echo "duplicate*: the report's \`duplicate_cost.bytes\`, if every duplicate request reached the kernel."
		echo
		echo "| vCPUs | devices (CPUs) | loader | failed loads | Failed becoming bytes | Failed kmod bytes | Virtual mem wasted bytes | estimate, same refusals (error) | estimate, every duplicate | loader wall (guest) | duplicate failed modules |"
		echo "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"
		awk -F'\t' '
		function mib(b) { return b >= 1048576 ? sprintf("%.1f MiB", b / 1048576) : sprintf("%.0f KiB", b / 1024) }
		{
			err = $8 > 0 ? sprintf(" (%+.2f%%)", ($9 - $8) * 100 / $8) : ""
			printf "| %d | %d (%d) | %s | %d | %s | %s | **%s** | %s%s | %s | %.1f s | %s |\n", $1, $3, $4, $2, $5,
				mib($6), mib($7), mib($8), $2 == "modpreload" ? "-" : mib($9), err,
				$2 == "modpreload" ? "-" : mib($10), $11 / 1000, $12
		}' "$rd/table.tsv"
		echo
		echo "The seeds' figures (Luis Chamberlain's MODULE_STATS commit, 2023, a 6.3-era kernel"
		echo "without 6.5's merging of concurrent loads of the same file, booted system's udev):"
		echo
		echo "| vCPUs | failed loads | Virtual mem wasted bytes | duplicate failed modules |"
		echo "|---:|---:|---:|---|"
		echo "| 8 | - | 226.5 MiB | - |"
		echo "| 255 | 1411 | 13.58 GiB (14,588,526,272) | kvm_intel 249, kvm 249, aesni_intel 249 |"
		echo
		echo "![Virtual mem wasted bytes against vCPUs]($name.svg)"
	} >"$md"
	plot "$rd/table.tsv" >"$svg"
	log "wrote $md and $svg"
}

# plot TABLE: an SVG of the kernel's wasted bytes against vCPUs, one line
# per loader (no plotting package needed)
plot() {
	awk -F'\t' '
	{ n[NR] = $1; c[NR] = $2; y[NR] = $8 / 1048576; if (y[NR] > ymax) ymax = y[NR]; if ($1 > xmax) xmax = $1 }
	END {
		W = 640; H = 400; L = 70; R = 130; T = 30; B = 50
		if (ymax <= 0) ymax = 1
		ymax = ymax * 1.1; xmax = xmax * 1.05
		printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H
		printf "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		printf "<text x=\"%d\" y=\"18\" font-size=\"14\">Virtual mem wasted bytes (kernel 6.12, MODULE_STATS)</text>\n", L
		printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", L, H - B, W - R, H - B
		printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", L, T, L, H - B
		for (i = 0; i <= 4; i++) {
			yy = H - B - i * (H - B - T) / 4
			printf "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.0f MiB</text>\n", L - 5, yy + 4, ymax * i / 4
			printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n", L, yy, W - R, yy
		}
		printf "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">vCPUs</text>\n", (L + W - R) / 2, H - 10
		split("modpreload modprobe", names, " "); split("#2a7 #d62", cols, " ")
		for (k = 1; k <= 2; k++) {
			pts = ""; ly = 0
			for (i = 1; i <= NR; i++) if (c[i] == names[k]) {
				xx = L + n[i] / xmax * (W - L - R); yy = H - B - y[i] / ymax * (H - B - T)
				pts = pts sprintf("%.1f,%.1f ", xx, yy); ly = yy
				printf "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", xx, yy, cols[k]
				if (k == 1) printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", xx, H - B + 15, n[i]
			}
			if (pts != "") {
				printf "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n", pts, cols[k]
				printf "<text x=\"%d\" y=\"%.1f\" fill=\"%s\">%s</text>\n", W - R + 8, ly + 4 + (k - 2) * 12, cols[k], names[k]
			}
		}
		print "</svg>"
	}' "$1"
}

if [ -n "$raw" ]; then
	report "$raw"
	exit 0
fi

[ -x "$top/build/modpreload" ] || bench_die "no build/modpreload: run make first"
line=$("$top/harness/lib/kernels.sh" stats) || bench_die "no stats kernel"
BK_NAME=stats
BK_KVER=$(echo "$line" | cut -d' ' -f2)
BK_KDIR=$(echo "$line" | cut -d' ' -f3)
BK_VMLINUZ=$BK_KDIR/vmlinuz
BK_TREE=$BK_KDIR
mkdir -p "$BENCH_WORK"
img=$BENCH_WORK/scale.img
log "image: the stats kernel's modules, kmod, modpreload"
bench_mkimage "$img" "$top/harness/bench/guest/bench-scale.sh" --all-modules
rd=$out/scale-$(date -u +%Y-%m-%d)
mkdir -p "$rd"
echo "$BK_KVER" >"$rd/kver"
for n in $vcpus; do
	m=''
	if [ "$n" -gt 128 ]; then m=q35; fi
	mem=$((1024 + 16 * n))
	log "$n vCPUs ($mem MiB${m:+, $m}) $(date -u +%H:%M:%S)"
	t0=$(date +%s)
	rc=0
	"$top/harness/lib/run.sh" -k "$BK_VMLINUZ" -i "$img" -s "$n" -m "$mem" -t 3600 --no-trace \
		${m:+-M "$m"} -a "no_timer_check" \
		-l "$BENCH_WORK/s$n.log" >"$rd/s$n.txt" 2>"$BENCH_WORK/s$n.err" || rc=$?
	echo "MPT: host.rc=$rc" >>"$rd/s$n.txt"
	echo "MPT: host.wall_s=$(($(date +%s) - t0))" >>"$rd/s$n.txt"
	log "   rc $rc in $(($(date +%s) - t0)) s: $(grep -c '^MPT: ' "$rd/s$n.txt") lines"
done
report "$rd"
