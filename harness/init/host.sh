# shellcheck shell=sh
# Host-side helpers of the init-* VM cases (harness/init/cases/init-*.sh), which
# boot images made by init/mkinitramfs into real root file systems.
# Source it after setting $top:  . "$top/harness/init/host.sh"
#
#   init_kernel                 sets KVER and KDIR (bookworm), or fails
#   init_build                  make build/modpreload-init (quietly)
#   init_rootdir DIR            a root tree: static busybox ($MPT_BUSYBOX, or
#                               the host's), /sbin/init =
#                               harness/init/guest/init-root.sh, harness/lib/lib.sh
#   init_mkfs TYPE DIR IMG UUID LABEL   ext4, xfs or btrfs from DIR
#   init_arm64                  sets KVER and KDIR (arm64), makes the arm64
#                               /init and sets MPT_BUSYBOX to Debian's arm64
#                               busybox-static (unpacked), or fails
#   init_result KEY FILE        like mpt_get
#   init_prepare                init_kernel, init_build, or fail_all
#   init_boot, init_run, init_check_root   below
# Verdicts: harness/lib/verdict.sh (sourced here).
# Needs e2fsprogs, xfsprogs, btrfs-progs, busybox-static.

: "${top:?set top to the repository before sourcing init-host.sh}"
# shellcheck source=harness/lib/verdict.sh
. "$top/harness/lib/verdict.sh"

init_kernel() {
	mpt_kernel bookworm
}

init_arm64() {
	mpt_kernel arm64 || return 1
	make -s -C "$top" ARCH=arm64 build/arm64/modpreload-init >&2 || return 1
	bbdir=$top/build/arm64/busybox
	MPT_BUSYBOX=$bbdir/bin/busybox
	export MPT_BUSYBOX
	[ -x "$MPT_BUSYBOX" ] && return 0
	rm -rf "$bbdir"
	mkdir -p "$bbdir/deb"
	(cd "$bbdir/deb" &&
		MP_APT_ARCH=arm64 "$top/scripts/apt.sh" apt-get -q download busybox-static/bookworm &&
		dpkg -x busybox-static_*.deb ..) >&2 && [ -x "$MPT_BUSYBOX" ]
}

init_build() {
	make -s -C "$top" build/modpreload-init build/modpreload >&2
}

# init_prepare: init_kernel and init_build, or every case's FAIL line
# (verdict.sh's fail_all) and exit
init_prepare() {
	init_kernel || fail_all "no bookworm kernel (harness/lib/kernels.sh bookworm)"
	init_build || fail_all "make build/modpreload-init failed"
}

init_rootdir() {
	d=$1
	rm -rf "$d"
	mkdir -p "$d/bin" "$d/sbin" "$d/usr/bin" "$d/usr/sbin" "$d/mpt" "$d/etc" \
		"$d/dev" "$d/proc" "$d/sys" "$d/run" "$d/tmp"
	bb=${MPT_BUSYBOX:-$(command -v busybox)} || return 1
	cp "$bb" "$d/bin/busybox"
	for a in sh cat awk sed grep mount umount sleep sync poweroff cut tr wc ls echo; do
		ln -s busybox "$d/bin/$a"
	done
	cp "$top/harness/init/guest/init-root.sh" "$d/sbin/init"
	chmod 755 "$d/sbin/init"
	cp "$top/harness/lib/lib.sh" "$d/mpt/lib.sh"
	# systemd's switch-root (dracut's image) wants it
	printf 'NAME=mpt-root\nID=mpt\n' >"$d/etc/os-release"
}

# An xfs protofile for mkfs.xfs -p: the tree under $1, recursively.
init_xfs_proto() {
	echo "/dev/null"
	echo "0 0"
	echo "d--755 0 0"
	init_xfs_dir "$1" "  "
	echo '$'
}
init_xfs_dir() {
	for e in "$1"/* ; do
		[ -e "$e" ] || [ -L "$e" ] || continue
		n=${e##*/}
		if [ -L "$e" ]; then
			echo "$2$n l--777 0 0 $(readlink "$e")"
		elif [ -d "$e" ]; then
			echo "$2$n d--755 0 0"
			init_xfs_dir "$e" "$2  "
			echo "$2\$"
		elif [ -x "$e" ]; then
			echo "$2$n ---755 0 0 $e"
		else
			echo "$2$n ---644 0 0 $e"
		fi
	done
}

init_mkfs() {
	t=$1 d=$2 img=$3 uuid=$4 label=$5
	rm -f "$img"
	case $t in
	ext4)
		mkfs.ext4 -q -F -d "$d" -L "$label" -U "$uuid" "$img" 32M ;;
	xfs)
		# xfsprogs 6.1 refuses file systems under 300 MB; the file is sparse
		truncate -s 300M "$img"
		init_xfs_proto "$d" >"$img.proto"
		mkfs.xfs -q -f -L "$label" -m uuid="$uuid" -p "$img.proto" "$img"
		rm -f "$img.proto" ;;
	btrfs)
		truncate -s 128M "$img"
		mkfs.btrfs -q -f -L "$label" -U "$uuid" --rootdir "$d" "$img" >/dev/null ;;
	*) return 2 ;;
	esac
}

init_result() {
	mpt_get "$@"
}

# init_run RESULT LOG IMAGE DISK CMDLINE [TIMEOUT]: verdict.sh's run_boot at
# 2 vCPUs with DISK (none when empty), 60 s unless TIMEOUT says otherwise
init_run() {
	run_boot mpt_boot "$1" "$2" "$3" 2 "$5" -t "${6:-60}" ${4:+--disk "$4"}
}

# init_check_root RESULT FSTYPE: the boot reached the root's init as PID 1 on
# FSTYPE, with the API mounts moved, the preloader's report in /run, and
# every module loaded by exactly one successful syscall.
init_check_root() {
	r=$1
	[ "$(mpt_get root_pid "$r")" = 1 ] || fail "the root's init did not run as PID 1"
	[ "$(mpt_get root_fstype "$r")" = "$2" ] ||
		fail "root is '$(mpt_get root_fstype "$r")', not $2"
	for m in /dev /proc /sys /run; do
		[ "$(mpt_get "mnt.$m" "$r")" = 1 ] || fail "$m not mounted on the new root"
	done
	[ "$(mpt_get report "$r")" = present ] || fail "no /run/modpreload/report.json"
	[ "$(mpt_num report.failed "$r")" = 0 ] || fail "the report has failed modules"
	[ "$(mpt_num report.hung "$r")" = 0 ] || fail "the report has hung modules"
	check_once "$r"
}
