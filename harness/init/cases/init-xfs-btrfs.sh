#!/bin/sh
# tier: full
# modpreload's /init finds xfs and btrfs roots by UUID on Debian's 6.1
# kernel. The image names no module to load (--include only): coldplug
# loads the virtio drivers, and /init loads the file system's driver when
# libblkid has read the type off the disk (the kernel's "fs-TYPE" alias).
# The btrfs boot also mounts read-write with rootflags=. About 20 s.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/init/host.sh
. "$top/harness/init/host.sh"
w=$top/build/vm/init/fs
mkdir -p "$w"

names="init-xfs-uuid init-btrfs-uuid"
init_prepare
init_rootdir "$w/rootdir" || fail_all "no busybox for the root (busybox-static)"
"$top/init/mkinitramfs" -q -o "$w/initrd.img" -k "$KVER" -d "$KDIR" \
	--include virtio_pci,virtio_blk,xfs,btrfs >&2 || fail_all "mkinitramfs failed"

for fs in xfs btrfs; do
	if ! command -v "mkfs.$fs" >/dev/null; then
		echo "FAIL: vm/init-$fs-uuid: no mkfs.$fs (install ${fs}progs)"
		continue
	fi
	# a new UUID every run: mkfs.btrfs refuses one blkid has seen
	uuid=$(cat /proc/sys/kernel/random/uuid)
	if ! init_mkfs "$fs" "$w/rootdir" "$w/$fs.img" "$uuid" "mpt-$fs" >&2; then
		echo "FAIL: vm/init-$fs-uuid: mkfs.$fs failed"
		continue
	fi
	extra=''
	[ "$fs" = btrfs ] && extra="rw rootflags=noatime,compress=zstd"
	init_run "$w/$fs.res" "$w/$fs.log" "$w/initrd.img" "$w/$fs.img" "root=UUID=$uuid $extra"
	init_check_root "$w/$fs.res" "$fs"
	for m in virtio_pci virtio_blk "$fs" libcrc32c; do
		[ "$(mpt_get "proc.$m" "$w/$fs.res")" = 1 ] || fail "$m not in /proc/modules"
	done
	other=xfs
	[ "$fs" = xfs ] && other=btrfs
	[ "$(mpt_get "proc.$other" "$w/$fs.res")" = 0 ] || fail "$other loaded too"
	if [ "$fs" = btrfs ]; then
		case $(mpt_get root_opts "$w/$fs.res") in
		rw,noatime,*compress=zstd*) ;;
		*) fail "root mounted $(mpt_get root_opts "$w/$fs.res")" ;;
		esac
	fi
	verdict "init-$fs-uuid" "root init at $(mpt_get root_uptime "$w/$fs.res") s, $(mpt_num load_total "$w/$fs.res") modules"
done
exit 0
