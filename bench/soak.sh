#!/bin/sh
# Soak: the three ways modpreload boots, again and again, to find the boot
# that goes wrong once in twenty. Each round boots Debian's 6.1 under QEMU
# (TCG) to a real ext4 root through
#   dracut       Debian's dracut 059 + systemd with --add modpreload
#                (harness/dracut/host.sh's "systemd" image)
#   mkinitcpio   HOOKS=(base modpreload udev mpt) through harness/mkinitcpio/
#   init         modpreload's own /init (init/mkinitramfs -m
#                virtio_pci,virtio_blk,ext4, root=UUID=)
# and counts, from the kernel's tracepoints, the load syscalls and the
# modules loaded. A boot is odd when it did not reach the root, when the
# calls differ from the modules (a repeat, EEXIST, EBUSY, a failure) or when
# a module was loaded twice; every odd boot is listed with its serial log.
#
# Usage: bench/soak.sh [-n ROUNDS] [-s VCPUS] [-k "dracut mkinitcpio init"]
#   (make soak N=20). Writes bench/results/soak-DATE.md and keeps the raw
#   results and logs in build/soak/STAMP/. About 2 minutes a round on a
#   quiet 2-core host with the default 4 vCPUs.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=20 smp=4 kinds="dracut mkinitcpio init"
while [ $# -gt 0 ]; do
	case $1 in
	-n) rounds=$2; shift 2 ;;
	-s) smp=$2; shift 2 ;;
	-k) kinds=$2; shift 2 ;;
	*) sed -n 's/^# Usage: /usage: /p' "$0" >&2; exit 2 ;;
	esac
done
# shellcheck source=harness/dracut/host.sh
. "$top/harness/dracut/host.sh"
# shellcheck source=harness/mkinitcpio/host.sh
. "$top/harness/mkinitcpio/host.sh"
# shellcheck source=harness/init/host.sh
. "$top/harness/init/host.sh"
log() { printf 'soak: %s\n' "$*" >&2; }

stamp=$(date -u +%Y%m%d-%H%M%S)
w=$top/build/soak/$stamp
mkdir -p "$w"

# --- the three images, built once ---
for k in $kinds; do
	case $k in
	dracut)
		deb_setup || { log "dracut setup failed (see $DEB_WORK/setup.log)"; exit 1; }
		dr_image systemd systemd yes || { log "dracut image failed"; exit 1; }
		dr_img=$DEB_WORK/img/systemd.img ;;
	mkinitcpio)
		mkc_setup || { log "mkinitcpio setup failed"; exit 1; }
		mkc_img=$(mkc_image with "base modpreload udev mpt" "ext4") || { log "mkinitcpio image failed"; exit 1; } ;;
	init)
		init_kernel || { log "no bookworm kernel"; exit 1; }
		init_build || { log "make build/modpreload-init failed"; exit 1; }
		init_rootdir "$w/init-root" || { log "no busybox"; exit 1; }
		uuid=$(cat /proc/sys/kernel/random/uuid)
		init_mkfs ext4 "$w/init-root" "$w/init-disk.img" "$uuid" mpt-root >&2 || exit 1
		"$top/init/mkinitramfs" -q -o "$w/init.img" -k "$KVER" -d "$KDIR" \
			-m virtio_pci,virtio_blk,ext4 >&2 || { log "mkinitramfs failed"; exit 1; } ;;
	*) log "unknown kind $k"; exit 2 ;;
	esac
done

# boot KIND ROUND: one boot; a line of runs.tsv
boot() {
	r=$w/$1-$2.txt l=$w/$1-$2.serial
	rc=0
	case $1 in
	dracut) deb_boot "$r" "$l" "$dr_img" "$smp" "" 420 || rc=$? ;;
	mkinitcpio)
		mkc_boot "$mkc_img" "$smp" "" "$r" || rc=$?
		l=$MKC_DIR/logs/$(basename "$r" .txt).log ;;
	init)
		# a fresh copy: a root left by a power-off may want fsck
		cp "$w/init-disk.img" "$w/init-disk-run.img"
		"$top/harness/lib/run.sh" -k "$KDIR/vmlinuz" -i "$w/init.img" -s "$smp" -t 120 -l "$l" \
			--disk "$w/init-disk-run.img" -a "root=UUID=$uuid" >"$r" 2>>"$w/run.log" || rc=$? ;;
	esac
	calls=$(($(mpt_num finit_enter "$r") + $(mpt_num init_enter "$r")))
	ok=$(($(mpt_num finit_ok "$r") + $(mpt_num init_ok "$r")))
	mods=$(mpt_num load_modules "$r")
	dups=$(mpt_num load_dups "$r")
	root=$(mpt_get root_pid "$r" || echo -)
	why=
	[ "$rc" = 0 ] || why="$why; $(mpt_boot_why "$rc" "$r")"
	[ "$root" = 1 ] || why="$why; the root's init did not run as PID 1"
	[ "$calls" = "$mods" ] || why="$why; $calls load calls for $mods modules"
	[ "$ok" = "$calls" ] || why="$why; $((calls - ok)) calls failed"
	[ "$dups" = 0 ] || why="$why; $dups modules loaded twice"
	[ "$mods" -gt 0 ] || why="$why; no module_load events"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$rc" "$calls" "$mods" \
		"$(mpt_get host_wall_s "$r")" "${why#; }" "$l" >>"$w/runs.tsv"
	log "$1 round $2: $calls calls for $mods modules${why:+ -- ODD:${why#;}}"
}

# write_results DONE: the results file, rewritten after every round so that
# a soak stopped early still says what it saw
out=$top/bench/results/soak-$(date -u +%Y-%m-%d).md
write_results() {
	t1=$(date +%s)
	{
		echo "# Soak, $(date -u +%Y-%m-%d)"
		echo
		echo "\`bench/soak.sh -n $rounds -s $smp -k \"$kinds\"\` (\`make soak N=$rounds\`): Debian's"
		echo "$KVER under QEMU/TCG, $smp vCPUs, to a real ext4 root; $(nproc) host cores;"
		echo "$1 of $rounds rounds in $(((t1 - t0) / 60)) minutes. Counts from the kernel's syscall and"
		echo "\`module_load\` tracepoints. A boot is odd when it did not reach the root's"
		echo "init, made more load calls than it loaded modules, had a failed call, or"
		echo "loaded a module twice."
		echo
		echo "| integration | boots | odd | load calls per boot (min-max) | modules per boot (min-max) | wall s (median) |"
		echo "|---|---:|---:|---:|---:|---:|"
		for k in $kinds; do
			med=$(awk -F'\t' -v k="$k" '$1 == k { print $6 }' "$w/runs.tsv" | sort -n |
				awk '{ v[NR] = $1 } END { if (NR) printf "%.1f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
			awk -F'\t' -v k="$k" -v med="$med" '$1 == k {
				n++; if ($7 != "") odd++
				if (n == 1 || $4 < cmin) cmin = $4; if ($4 > cmax) cmax = $4
				if (n == 1 || $5 < mmin) mmin = $5; if ($5 > mmax) mmax = $5
			}
			END { printf "| %s | %d | %d | %d-%d | %d-%d | %s |\n", k, n, odd, cmin, cmax, mmin, mmax, med }' "$w/runs.tsv"
		done
		echo
		if awk -F'\t' 'NR > 1 && $7 != "" { f = 1 } END { exit !f }' "$w/runs.tsv"; then
			echo "Odd boots:"
			echo
			awk -F'\t' 'NR > 1 && $7 != "" { printf "- %s round %s: %s (`%s`)\n", $1, $2, $7, $8 }' "$w/runs.tsv" |
				sed "s|$top/||"
		else
			echo "No odd boot."
		fi
	} >"$out"
}

printf 'kind\tround\trc\tcalls\tmodules\twall_s\todd\tlog\n' >"$w/runs.tsv"
t0=$(date +%s)
i=1
while [ "$i" -le "$rounds" ]; do
	for k in $kinds; do boot "$k" "$i"; done
	write_results "$i"
	i=$((i + 1))
done
log "wrote $out (raw: $w)"
cat "$out"
