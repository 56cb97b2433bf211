# shellcheck shell=sh
# Host-side helpers of the benchmark (bench/run.sh and bench/scenario-*.sh):
# kernels and module trees, the images, one boot, the data file.
# Source after setting $top:  . "$top/bench/lib.sh"
#
# Every boot leaves its "MPT:" lines in RAW/SCENARIO/KERNEL/POINT.txt;
# bench_record appends them to RAW/runs.tsv as
#   scenario kernel variant contender vcpus run key value
# which bench/report.sh turns into tables and plots.

# shellcheck source=harness/lib/hostlib.sh
. "${top:?}/harness/lib/hostlib.sh"

bench_log() { printf 'bench: %s\n' "$*" >&2; }
bench_die() { bench_log "error: $*"; exit 1; }

# bench_kernel NAME: BK_NAME BK_KVER BK_KDIR BK_VMLINUZ, and BK_TREE: the
# kernel's modules plus the benchmark's (bench/modules/build.sh), with the
# DAG's description in BK_TREE/dag.env.  Remembered for bench_use.
bench_kernel() {
	BK_NAME=$1
	bk_line=$("$top/harness/lib/kernels.sh" "$1") || bench_die "no $1 kernel"
	BK_KVER=$(echo "$bk_line" | cut -d' ' -f2)
	BK_KDIR=$(echo "$bk_line" | cut -d' ' -f3)
	BK_VMLINUZ=$BK_KDIR/vmlinuz
	BK_TREE=$BENCH_WORK/tree/$1${MP_BENCH_TAG:+-$MP_BENCH_TAG}
	mkdir -p "$BENCH_WORK"
	bench_log "$1: $BK_KVER; the benchmark's modules (the first build takes minutes)"
	"$top/bench/modules/build.sh" "$1" "$BK_TREE" >/dev/null 2>"$BENCH_WORK/modules-$1.log" ||
		bench_die "building the benchmark modules for $1 failed: $BENCH_WORK/modules-$1.log"
	printf "BK_NAME='%s'\nBK_KVER='%s'\nBK_KDIR='%s'\nBK_VMLINUZ='%s'\nBK_TREE='%s'\n" \
		"$BK_NAME" "$BK_KVER" "$BK_KDIR" "$BK_VMLINUZ" "$BK_TREE" >"$BENCH_WORK/kernel-$1.env"
}

# bench_use NAME: the BK_* of a kernel bench_kernel prepared
bench_use() {
	# shellcheck source=/dev/null
	. "$BENCH_WORK/kernel-$1.env"
}

# bench_udev_stage DIR: systemd-udevd, udevadm and their libraries, and
# 80-drivers.rules (the rule that loads modules: `kmod load` for every
# MODALIAS), staged in DIR; prints one "SRC:DEST" a line for mkimage.sh's
# --add.  Libraries are copied dereferenced (mkimage.sh copies links as
# links).  kmod's libraries come with --kmod.
bench_udev_stage() {
	bu_dir=$1
	rm -rf "$bu_dir"
	mkdir -p "$bu_dir/lib"
	bu_adm=$(command -v udevadm) || bench_die "udevadm not found (apt-get install udev)"
	bu_adm=$(readlink -f "$bu_adm")
	cp "$bu_adm" "$bu_dir/udevadm"
	echo "$bu_dir/udevadm:/bin/udevadm"
	# udevd is udevadm called by that name
	ln -s /bin/udevadm "$bu_dir/systemd-udevd"
	echo "$bu_dir/systemd-udevd:/lib/systemd/systemd-udevd"
	for bu_r in /usr/lib/udev/rules.d/80-drivers.rules /lib/udev/rules.d/80-drivers.rules; do
		if [ -f "$bu_r" ]; then
			cp "$bu_r" "$bu_dir/80-drivers.rules"
			echo "$bu_dir/80-drivers.rules:/lib/udev/rules.d/80-drivers.rules"
			break
		fi
	done
	[ -f "$bu_dir/80-drivers.rules" ] || bench_die "no 80-drivers.rules on this host"
	ldd "$bu_adm" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
		while read -r bu_l; do
			bu_s=$bu_dir/lib/$(echo "$bu_l" | tr / _)
			cp -L "$bu_l" "$bu_s"
			echo "$bu_s:$bu_l"
		done
}

# bench_sizes_of FILE...: total bytes, links followed
bench_bytes() {
	du -cbL "$@" 2>/dev/null | tail -n 1 | cut -f1
}

# bench_mkimage OUT SCRIPT [--udev] [MKIMAGE_ARG...]: an image for the
# current kernel (bench_kernel) with kmod, modpreload, bench-lib.sh and the
# guest script; --udev adds udevd (bench_udev_stage)
bench_mkimage() {
	bm_out=$1
	bm_script=$2
	shift 2
	bm_udev=0
	if [ "${1:-}" = --udev ]; then
		bm_udev=1
		shift
	fi
	set -- -o "$bm_out" -k "$BK_KVER" -M "$BK_TREE" --script "$bm_script" --kmod \
		--add "$top/build/modpreload:/sbin/modpreload" \
		--add "$top/harness/bench/guest/bench-lib.sh:/mpt/bench-lib.sh" "$@"
	if [ "$bm_udev" = 1 ]; then
		bench_udev_stage "$BENCH_WORK/udev" >"$BENCH_WORK/udev.adds"
		while read -r bm_a; do set -- "$@" --add "$bm_a"; done <"$BENCH_WORK/udev.adds"
	fi
	"$top/harness/lib/mkimage.sh" "$@" >"$bm_out.log" 2>&1 ||
		bench_die "mkimage.sh failed: $bm_out.log"
}

# bench_storm_modules: the modules this VM's devices ask for under the
# current kernel, one a line (cached): one short boot lists the devices'
# modaliases, kmod resolves them against the kernel's tree (bench/demo.sh's
# way).
bench_storm_modules() {
	bs_d=$BENCH_WORK/discover/$BK_NAME
	if [ ! -s "$bs_d/modules.txt" ]; then
		mkdir -p "$bs_d/noconf"
		printf '%s\n' '# shellcheck shell=sh' \
			'mpt_coldplug_modaliases | sort -u | sed "s/^/MPT: alias=/"' >"$bs_d/discover.sh"
		"$top/harness/lib/mkimage.sh" -o "$bs_d/discover.img" -k "$BK_KVER" -M "$BK_KDIR" \
			--script "$bs_d/discover.sh" >"$bs_d/mkimage.log" 2>&1 ||
			bench_die "mkimage.sh failed: $bs_d/mkimage.log"
		"$top/harness/lib/run.sh" -k "$BK_VMLINUZ" -i "$bs_d/discover.img" -s 2 -t 600 --no-trace \
			-l "$bs_d/discover.log" >"$bs_d/discover.txt" 2>"$bs_d/run.log" ||
			bench_die "the discovery boot failed: $bs_d/run.log"
		mpt_keys alias= "$bs_d/discover.txt" | cut -d= -f2- | while read -r bs_a; do
			modprobe -C "$bs_d/noconf" -d "$BK_KDIR" -S "$BK_KVER" --show-depends "$bs_a" 2>/dev/null |
				awk '$1 == "insmod" { n = $2; sub(".*/", "", n); sub("\\.ko.*", "", n); print n }'
		done | sort -u >"$bs_d/modules.tmp"
		mv "$bs_d/modules.tmp" "$bs_d/modules.txt"
	fi
	cat "$bs_d/modules.txt"
}

# bench_boot IMAGE SMP MEM TIMEOUT CMDLINE OUT: one boot; OUT gets the
# guest's MPT lines plus the host's load average before and after.
# Returns run.sh's status.
bench_boot() {
	bb_out=$6
	mkdir -p "$(dirname "$bb_out")"
	bb_l0=$(cut -d' ' -f1 /proc/loadavg)
	bb_rc=0
	"$top/harness/lib/run.sh" -k "$BK_VMLINUZ" -i "$1" -s "$2" -m "$3" -t "$4" -a "$5" \
		-l "${bb_out%.txt}.log" >"$bb_out.tmp" 2>"${bb_out%.txt}.err" || bb_rc=$?
	{
		cat "$bb_out.tmp"
		echo "MPT: host.load_before=$bb_l0"
		echo "MPT: host.load_after=$(cut -d' ' -f1 /proc/loadavg)"
		echo "MPT: host.rc=$bb_rc"
	} >"$bb_out"
	rm -f "$bb_out.tmp"
	return "$bb_rc"
}

# bench_record OUT SCENARIO KERNEL VCPUS RUN [CONTENDER]: one boot's numbers
# into runs.tsv (the per-call and per-module lines stay in OUT).  A boot
# that ran several contenders (bench_each in the guest) says so with
# "bench.variant=" and "bench.begin=" lines: what comes before the first
# begin belongs to every contender.  Otherwise it ran CONTENDER, variant "-".
bench_record() {
	mpt_lines_ "$1" | awk -v pre="$2	$3" -v smp="$4" -v run="$5" -v dflt="${6:-}" '
	{ i = index($0, "="); if (i < 2) next; k = substr($0, 1, i - 1); v = substr($0, i + 1) }
	k !~ /^(bench\.|host\.|host_wall_s$|uptime_init$|proc_count|guest_rc$)/ { next }
	k == "bench.call" || k == "bench.mod" || k == "bench.summary" { next }
	k == "bench.variant" { var = v; next }
	k == "bench.begin" {
		cont = v == "end" ? "" : v
		if (cont != "") { nseg++; sv[nseg] = var; sc[nseg] = cont }
		next
	}
	cont == "" { ng++; gk[ng] = k; gv[ng] = v; next }
	{ printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", pre, var == "" ? "-" : var, cont, smp, run, k, v }
	END {
		if (nseg == 0 && dflt != "") { nseg = 1; sv[1] = "-"; sc[1] = dflt }
		for (s = 1; s <= nseg; s++)
			for (g = 1; g <= ng; g++)
				printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", pre, sv[s] == "" ? "-" : sv[s], sc[s], smp, run, gk[g], gv[g]
	}' >>"$BENCH_RAW/runs.tsv"
}

# bench_rotate N LIST: LIST (comma-separated) rotated left N times, so the
# contenders take turns at going first
bench_rotate() {
	echo "$2" | tr ',' '\n' | awk -v n="$1" '{ a[NR - 1] = $0 }
		END { for (i = 0; i < NR; i++) printf "%s%s", (i ? "," : ""), a[(i + n) % NR]; print "" }'
}

# bench_words LIST: a comma- or space-separated list, one word a line
bench_words() {
	echo "$*" | tr ',' ' ' | tr -s ' ' '\n' | sed '/^$/d'
}
