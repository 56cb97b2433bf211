#!/bin/sh
# modpreload's minimal initramfs against dracut's, on the same kernel
# (Debian's 6.1, harness/lib/kernels.sh bookworm), the same QEMU VM (TCG) and
# the same ext4 root on a virtio disk found by UUID. Prints a markdown
# table on stdout (progress on stderr):
#   image            how it was made
#   size             the image file
#   build            seconds to make it
#   root init        kernel start to the root's /sbin/init (its /proc/uptime),
#                    median of the runs
#   wall             QEMU start to power-off, median
#   load syscalls    finit_module + init_module calls, and how many of them
#                    failed with EEXIST (a module loaded twice), median
#
# Usage: bench/init-vs-dracut.sh [-n RUNS] [-s SMP] [--arch arm64] [--images LIST]
#   (default 3 runs, 2 vCPUs, every image)
# --arch arm64: the same modpreload images for Debian's arm64 6.1 under
# qemu-system-aarch64 -M virt (no dracut: it builds for the host only).
# --images "modpreload modpreload-busybox": only those (e.g. to put x86-64
# and arm64 side by side in the same hour of a busy host).
# Images: build/bench/init-vs-dracut/. dracut (dracut-core) wants
# /lib/modules/KVER to exist: made as a link for the run when missing.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
runs=3 smp=2 arch='' images=''
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-s) smp=$2; shift 2 ;;
	--arch) arch=$2; shift 2 ;;
	--images) images=$2; shift 2 ;;
	*) sed -n 's/^# Usage: /usage: /p' "$0" >&2; exit 2 ;;
	esac
done
# shellcheck source=harness/init/host.sh
. "$top/harness/init/host.sh"
log() { printf 'init-vs-dracut: %s\n' "$*" >&2; }
w=$top/build/bench/init-vs-dracut${arch:+-$arch}
mkdir -p "$w"

names="modpreload modpreload-busybox dracut-min dracut-default"
case $arch in
'')
	init_kernel || { log "no bookworm kernel"; exit 1; }
	init_build
	;;
arm64)
	init_arm64 || { log "no arm64 kernel, /init or busybox"; exit 1; }
	names="modpreload modpreload-busybox"
	;;
*) log "--arch: only arm64"; exit 2 ;;
esac
[ -z "$images" ] || names=$images
moddir=$KDIR/lib/modules/$KVER
link=''
# (dracut's need: only when a dracut image is made)
case " $names " in *" dracut-"*) need_link=1 ;; *) need_link=0 ;; esac
if [ "$need_link" = 1 ] && [ ! -e "/lib/modules/$KVER" ]; then
	ln -s "$moddir" "/lib/modules/$KVER"
	link=/lib/modules/$KVER
fi
trap '[ -z "$link" ] || rm -f "$link"' EXIT

uuid=$(cat /proc/sys/kernel/random/uuid)
init_rootdir "$w/rootdir"
init_mkfs ext4 "$w/rootdir" "$w/root.img" "$uuid" mpt-root >&2
describe() {
	case $1 in
	modpreload) echo "modpreload-mkinitramfs -m virtio_pci,virtio_blk,ext4" ;;
	modpreload-busybox) echo "the same with --busybox for a rescue shell" ;;
	dracut-min) echo "dracut --no-hostonly, modules systemd, kernel-modules, rootfs-block; --drivers virtio_pci virtio_blk ext4" ;;
	dracut-default) echo "dracut --no-hostonly, its default modules and drivers" ;;
	esac
}
build_image() { # build_image NAME OUT
	case $1 in
	modpreload)
		"$top/init/mkinitramfs" -q ${arch:+--arch "$arch"} -k "$KVER" -d "$KDIR" \
			-m virtio_pci,virtio_blk,ext4 -o "$2" ;;
	modpreload-busybox)
		"$top/init/mkinitramfs" -q ${arch:+--arch "$arch"} -k "$KVER" -d "$KDIR" \
			-m virtio_pci,virtio_blk,ext4 --busybox "${MPT_BUSYBOX:-$(command -v busybox)}" -o "$2" ;;
	dracut-min)
		dracut -q --no-hostonly --kver "$KVER" --kmoddir "$moddir" \
			-m "systemd systemd-initrd dracut-systemd kernel-modules rootfs-block udev-rules base fs-lib" \
			--drivers "virtio_pci virtio_blk ext4" --force "$2" ;;
	dracut-default)
		dracut -q --no-hostonly --kver "$KVER" --kmoddir "$moddir" --force "$2" ;;
	esac
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "?" }'; }

# Build everything first, then boot round-robin, so that whatever else the
# host is doing falls on every image alike.
built=''
for name in $names; do
	log "building $name"
	t0=$(date +%s.%N)
	if ! build_image "$name" "$w/$name.img" >"$w/$name.build.log" 2>&1; then
		log "$name: build failed, see $w/$name.build.log"
		continue
	fi
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' >"$w/$name.build"
	: >"$w/$name.runs"
	built="$built $name"
done
i=0
while [ "$i" -lt "$runs" ]; do
	i=$((i + 1))
	for name in $built; do
		res=$w/$name.$i.res
		log "booting $name ($i of $runs)"
		if "$top/harness/lib/run.sh" ${arch:+--arch "$arch"} -k "$KDIR/vmlinuz" -i "$w/$name.img" -s "$smp" -t 120 \
			-l "$w/$name.$i.log" --disk "$w/root.img" -a "root=UUID=$uuid" >"$res" 2>/dev/null &&
			[ "$(mpt_get root_pid "$res")" = 1 ]; then
			echo "$(mpt_get root_uptime "$res") $(mpt_get host_wall_s "$res") \
$(($(mpt_num finit_enter "$res") + $(mpt_num init_enter "$res"))) \
$(($(mpt_num finit_eexist "$res") + $(mpt_num init_eexist "$res")))" >>"$w/$name.runs"
		else
			log "$name: run $i did not reach the root (log $w/$name.$i.log)"
		fi
	done
done

echo "| image | size | build | root init (s) | wall (s) | load syscalls (EEXIST) |"
echo "|---|---|---|---|---|---|"
for name in $built; do
	size=$(wc -c <"$w/$name.img")
	up=$(cut -d' ' -f1 "$w/$name.runs" | median)
	wall=$(cut -d' ' -f2 "$w/$name.runs" | median)
	calls=$(cut -d' ' -f3 "$w/$name.runs" | median)
	eexist=$(cut -d' ' -f4 "$w/$name.runs" | median)
	ok=$(wc -l <"$w/$name.runs")
	printf '| %s: %s | %s KiB | %s s | %s | %s | %s (%s) |%s\n' "$name" "$(describe "$name")" \
		"$((size / 1024))" "$(cat "$w/$name.build")" "$up" "$wall" "$calls" "$eexist" \
		"$([ "$ok" = "$runs" ] || echo " $ok of $runs runs booted")"
done
echo
echo "Kernel $KVER, QEMU TCG${arch:+ (qemu-system-aarch64 -M virt -cpu max)}, $smp vCPUs, $runs runs each (round-robin), medians; \
$(nproc) host cores, load average $(cut -d' ' -f1 /proc/loadavg) at the end."
