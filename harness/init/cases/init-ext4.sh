#!/bin/sh
# modpreload's /init on Debian's 6.1 kernel boots an image made by
# init/mkinitramfs (-m virtio_pci,virtio_blk,ext4) to a real ext4 root on a
# virtio disk, found three ways: root=UUID=, root=LABEL= (with rw and
# arguments for init after "--"), and root=PARTUUID= on a GPT partition.
# Each boot must reach the root's /sbin/init as PID 1 with /dev, /proc, /sys
# and /run moved over, the preloader's report in /run/modpreload, and the
# virtio and ext4 modules each loaded by exactly one syscall. About 25 s.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/init/host.sh
. "$top/harness/init/host.sh"
w=$top/build/vm/init/ext4
mkdir -p "$w"
uuid=$(cat /proc/sys/kernel/random/uuid)
puuid=$(cat /proc/sys/kernel/random/uuid)
label=mpt-root

names="init-ext4-uuid init-ext4-label init-ext4-partuuid"
init_prepare
init_rootdir "$w/rootdir" || fail_all "no busybox for the root (busybox-static)"
init_mkfs ext4 "$w/rootdir" "$w/ext4.img" "$uuid" "$label" >&2 || fail_all "mkfs.ext4 failed"
"$top/init/mkinitramfs" -q -o "$w/initrd.img" -k "$KVER" -d "$KDIR" \
	-m virtio_pci,virtio_blk,ext4 >&2 || fail_all "mkinitramfs failed"

check_modules() {
	for m in virtio_pci virtio_blk ext4 jbd2 mbcache crc16; do
		[ "$(mpt_get "proc.$m" "$1")" = 1 ] || fail "$m not in /proc/modules"
	done
}

# --- by UUID, read-only (the kernel's default) ---
init_run "$w/uuid.res" "$w/uuid.log" "$w/initrd.img" "$w/ext4.img" "root=UUID=$uuid"
init_check_root "$w/uuid.res" ext4
check_modules "$w/uuid.res"
[ "$(mpt_get root_dev "$w/uuid.res")" = /dev/vda ] || fail "root is not /dev/vda"
case $(mpt_get root_opts "$w/uuid.res") in ro,*) ;; *) fail "root not read-only" ;; esac
verdict init-ext4-uuid "root init at $(mpt_get root_uptime "$w/uuid.res") s, $(mpt_num load_total "$w/uuid.res") modules, $(mpt_get host_wall_s "$w/uuid.res") s wall"

# --- by LABEL, read-write, with arguments for init ---
init_run "$w/label.res" "$w/label.log" "$w/initrd.img" "$w/ext4.img" \
	"root=LABEL=$label rw rootflags=noatime -- mpt-arg1 mpt-arg2"
init_check_root "$w/label.res" ext4
check_modules "$w/label.res"
case $(mpt_get root_opts "$w/label.res") in
rw,noatime*) ;;
*) fail "root mounted $(mpt_get root_opts "$w/label.res"), not rw,noatime" ;;
esac
[ "$(mpt_get argv "$w/label.res")" = "mpt-arg1 mpt-arg2" ] ||
	fail "init got arguments '$(mpt_get argv "$w/label.res")'"
verdict init-ext4-label "rw,noatime; init's arguments passed on"

# --- by PARTUUID, on the second partition of a GPT disk ---
disk=$w/gpt.img
rm -f "$disk"
truncate -s 40M "$disk"
if ! printf 'label: gpt\nstart=2048, size=2048, name=spare\nstart=4096, size=65536, name=%s, uuid=%s\n' \
	"$label" "$puuid" | sfdisk -q "$disk" >&2; then
	fail "sfdisk failed (install fdisk)"
elif ! dd if="$w/ext4.img" of="$disk" bs=512 seek=4096 conv=notrunc status=none; then
	fail "cannot copy the file system into the partition"
else
	init_run "$w/part.res" "$w/part.log" "$w/initrd.img" "$disk" "root=PARTUUID=$puuid"
	init_check_root "$w/part.res" ext4
	[ "$(mpt_get root_dev "$w/part.res")" = /dev/vda2 ] ||
		fail "root is $(mpt_get root_dev "$w/part.res"), not /dev/vda2"
fi
verdict init-ext4-partuuid

exit 0
