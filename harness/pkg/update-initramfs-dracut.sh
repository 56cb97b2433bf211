#!/bin/sh
# A stand-in for the update-initramfs that Debian's dracut package ships
# from 107-2 on (LP: #2098525), the one Ubuntu 25.10 runs, for a root whose
# dracut is older (trixie's 106-6 has only /etc/kernel/postinst.d/dracut).
# pkg-deb-dracut installs it as /usr/sbin/update-initramfs when the root has
# none. What it keeps of that script's behaviour (the script itself is
# initramfs-tools' adapted to dracut):
#   -c|-u|-d  create, update or delete /boot/initrd.img-VERSION (-b: another
#             directory); dracut makes it with no option but -q (without
#             -v) and --force, so /etc/dracut.conf and dracut.conf.d decide
#             what goes in, as they do for the kernel's hook
#   -k VER    the kernel; "all": every one linux-version lists (-u and -d:
#             those that have an image); -u without -k: the newest that has
#             one
#   after an image is made, /etc/initramfs/post-update.d's hooks (the
#   boot loaders') run with the version and the image
# Left out: update-initramfs.conf, the .bak copies, -s, the read-only /boot
# check.
set -eu
boot=/boot mode='' ver='' quiet=-q
usage() {
	echo "usage: update-initramfs {-c|-u|-d} [-k VERSION|all] [-b DIR] [-v]" >&2
	exit 2
}
while getopts cudk:b:vh o; do
	case $o in
	c | u | d) mode=$o ;;
	k) ver=$OPTARG ;;
	b) boot=$OPTARG ;;
	v) quiet= ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
if [ $# != 0 ] || [ -z "$mode" ]; then
	usage
fi

# the kernels that have an image here, newest first
with_image() {
	linux-version list | while read -r v; do
		[ ! -e "$boot/initrd.img-$v" ] || echo "$v"
	done | linux-version sort --reverse
}

one() {
	img=$boot/initrd.img-$1
	if [ "$mode" = d ]; then
		echo "update-initramfs: Deleting $img"
		rm -f "$img"
		return
	fi
	echo "update-initramfs: Generating $img"
	# shellcheck disable=SC2086 # -q or nothing
	dracut $quiet --force "$img" "$1"
	[ ! -d /etc/initramfs/post-update.d ] ||
		run-parts --arg="$1" --arg="$img" /etc/initramfs/post-update.d
}

case $mode:$ver in
c:) usage ;;
d:) usage ;;
c:all) vers=$(linux-version list) ;;
*:all) vers=$(with_image) ;;
u:) vers=$(with_image | head -n 1) ;;
*) vers=$ver ;;
esac
for v in $vers; do
	one "$v"
done
