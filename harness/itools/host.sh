# shellcheck shell=sh
# shellcheck disable=SC2154 # top: set by the script that sources this
# Host side of the itools-* VM cases: initramfs images made by Debian's real
# initramfs-tools (mkinitramfs 0.142, its /init, Debian's systemd-udevd) for
# Debian's 6.1 kernel, with or without initramfs-tools/'s hook and boot
# script, booted under QEMU into the same small ext4 root as the dracut
# cases: the setup, boot and checks are harness/lib/debimage.sh's (sourced
# here, in build/vm/itools, with the report key report_run:
# /run/modpreload/report.json, where this integration writes it).
# Source it after setting $top:
#   . "$top/harness/itools/host.sh"
#
#   it_image NAME PRELOAD [LISTS]
#                            $DEB_WORK/img/NAME.img, rebuilt only when what
#                            goes into it changed. PRELOAD: yes (MODPRELOAD=y
#                            in a conf.d snippet) | no (the hook and script
#                            installed but not asked for); LISTS: the root
#                            whose modpreload.d lists go in (default
#                            one without any)
#   it_prepare_image NAME PRELOAD [LISTS]
#                            deb_prepare and it_image, or the case's FAIL
#                            line and exit
#   it_lists_failing         prints a root with modpreload.d lists naming
#                            mpt_fail_child and mpt_hang_child
#                            (deb_sysroot_failing)
#
# mkinitramfs runs with a private configuration directory (-d): Debian's
# initramfs.conf with MODULES=most (its default) and zstd -1, a conf.d
# snippet, this tree's hook and boot script under CONFDIR/hooks and
# CONFDIR/scripts, and a hook adding the test modules (manual_add_modules,
# not force_load: udev or modpreload must be the ones to load them) and
# run-init's wrapper (it_run_init). It
# insists on /lib/modules/KVER and /boot/config-KVER, which the host does not
# have and must not get: it runs in a private mount namespace (unshare -m)
# where an overlay on /usr/lib holds /usr/lib/modules/KVER (a bind mount of
# the test tree) and a tmpfs on /boot holds the config. Nothing of it is
# visible outside that namespace. Needs initramfs-tools-core, util-linux.

# shellcheck source=harness/lib/debimage.sh
. "$top/harness/lib/debimage.sh"

DEB_WORK=$top/build/vm/itools
# MODULES=most takes no arch/x86/crypto module but crc32c_intel (a hidden
# dependency of btrfs' crc32c): that is the CPU-feature module coldplug
# finds in these images.
DEB_CPU_MOD=crc32c_intel

# The initramfs.conf and conf.d the images are built with.
# Every image's run-init is this wrapper of the real one (moved to
# /usr/lib/mpt), which only execs it unless the kernel command line has
# mpt.switch=late. With it, the switch comes late: /init has moved /run,
# /sys and /proc into the root and execs run-init, which would delete the
# initramfs and switch; the wrapper looks whether a modpreload runs (in the
# moved /proc), ends mpt_slowpci's sleep, if it is coming, and waits (at
# most 60 s) until no modpreload is left, then says both in the kernel log
# (the root's switch_found and switch_waited_s). So a loader that handed over ends in the window where
# /run is already the root's and PID 1 is not: itools-once.sh's
# switch-late boot. run-init -n (/init's check of the root's init) is not
# the switch.
it_run_init() {
	# shellcheck disable=SC2016 # the image's code
	printf '%s\n' '#!/bin/sh' \
		'root= dry= skip=' \
		'for a in "$@"; do' \
		'	if [ -n "$skip" ]; then skip=; continue; fi' \
		'	case $a in -d | -c) skip=1 ;; -n) dry=1 ;; -*) ;; *) root=$a; break ;; esac' \
		'done' \
		'[ -z "$dry" ] && [ -n "$root" ] || exec /usr/lib/mpt/run-init "$@"' \
		'case " $(cat "$root/proc/cmdline" 2>/dev/null) " in' \
		'*" mpt.switch=late "*) ;;' \
		'*) exec /usr/lib/mpt/run-init "$@" ;;' \
		'esac' \
		'alive() {' \
		'	for c in "$root"/proc/[0-9]*/comm; do' \
		'		{ read -r n <"$c" && read -r s <"${c%comm}stat"; } 2>/dev/null || continue' \
		'		[ "$n" = modpreload ] || continue' \
		'		case ${s##*) } in Z* | X*) ;; *) return 0 ;; esac' \
		'	done' \
		'	return 1' \
		'}' \
		'found=0' \
		'! alive || found=1' \
		'r=$root/sys/module/mpt_slowpci/parameters/release' \
		'[ ! -w "$r" ] || echo 1 >"$r"' \
		't=0' \
		'while [ $t -lt 60 ] && alive; do sleep 1; t=$((t + 1)); done' \
		'echo "mpt: run-init found $found modpreload, waited $t s for it" >"$root/dev/kmsg"' \
		'exec /usr/lib/mpt/run-init "$@"'
}

it_confdir() { # DIR PRELOAD LISTS
	rm -rf "$1"
	mkdir -p "$1/conf.d" "$1/hooks" "$1/scripts/init-top"
	# initramfs.conf(5)'s settings, Debian's defaults but the compressor:
	# the host's own file may have been changed
	printf '%s\n' MODULES=most BUSYBOX=auto KEYMAP=n COMPRESS=zstd DEVICE= \
		NFSROOT=auto RUNSIZE=10% FSTYPE=auto >"$1/initramfs.conf"
	echo 'COMPRESSLEVEL=1' >>"$1/initramfs.conf"
	if [ "$2" = yes ]; then echo 'MODPRELOAD=y' >"$1/conf.d/modpreload"; fi
	cp "$top/initramfs-tools/hooks/modpreload" "$1/hooks/modpreload"
	cp "$top/initramfs-tools/scripts/init-top/modpreload" "$1/scripts/init-top/modpreload"
	# shellcheck disable=SC2016 # the hook's own code
	{
		echo '#!/bin/sh'
		echo '[ "$1" = prereqs ] && exit 0'
		echo '. /usr/share/initramfs-tools/hook-functions'
		echo "manual_add_modules $DEB_MPT"
		# where klibc-utils' hook put run-init (/usr/sbin on bookworm);
		# none: the build fails, not the boot
		echo 'for d in usr/sbin usr/bin sbin bin; do [ -f "$DESTDIR/$d/run-init" ] && break; done'
		echo '[ -f "$DESTDIR/$d/run-init" ] || { echo "mpt-test: no run-init in the image" >&2; exit 1; }'
		echo 'mkdir -p "$DESTDIR/usr/lib/mpt"'
		echo 'mv "$DESTDIR/$d/run-init" "$DESTDIR/usr/lib/mpt/run-init"'
		echo 'cat >"$DESTDIR/$d/run-init" <<"EOF"'
		it_run_init
		echo 'EOF'
		echo 'chmod 755 "$DESTDIR/$d/run-init"'
	} >"$1/hooks/mpt-test"
	chmod 755 "$1/hooks/"* "$1/scripts/init-top/modpreload"
}

it_image() {
	_it_name=$1 _it_preload=$2 _it_lists=${3:-}
	_it_img=$DEB_WORK/img/$_it_name.img
	_it_key=$({
		echo "$_it_preload"
		it_run_init
		dpkg-query -W initramfs-tools-core systemd udev busybox-static
		sha256sum "$DEB_BIN" "$top"/initramfs-tools/hooks/* "$top"/initramfs-tools/scripts/init-top/*
		sha256sum "$DEB_TREE/modules.dep" "$DEB_TREE"/extra/*.ko
		echo "lists:"
		deb_sum_dir "$_it_lists"
	} | deb_key)
	if deb_fresh "$_it_img" "$_it_key"; then
		return 0
	fi
	deb_log "building $_it_name (modpreload: $_it_preload) with mkinitramfs"
	_it_cfg=$DEB_WORK/conf.$_it_name
	it_confdir "$_it_cfg" "$_it_preload"
	_it_ns=$DEB_WORK/ns.$$
	mkdir -p "$_it_ns" "$DEB_WORK/tmp"
	_it_t0=$(date +%s)
	_it_rc=0
	_it_empty=$DEB_WORK/empty.d
	mkdir -p "$_it_empty"
	# shellcheck disable=SC2016 # expanded by the namespace's shell
	MODPRELOAD_BIN=$DEB_BIN MODPRELOAD_SYSROOT=${_it_lists:-$_it_empty} unshare -m sh -c '
		set -e
		ns=$1 tree=$2 kver=$3 kdir=$4 cfg=$5 out=$6
		mount -t tmpfs tmpfs "$ns"
		mkdir "$ns/upper" "$ns/work" "$ns/boot"
		mount -t overlay overlay -o "lowerdir=/usr/lib,upperdir=$ns/upper,workdir=$ns/work" /usr/lib
		mkdir -p "/usr/lib/modules/$kver"
		mount --bind "$tree" "/usr/lib/modules/$kver"
		# an installed modpreload'"'"'s lists are not the test'"'"'s
		if [ -d /usr/lib/modpreload.d ]; then mount -t tmpfs tmpfs /usr/lib/modpreload.d; fi
		cp "$kdir/boot/config-$kver" "$ns/boot/"
		mount --bind "$ns/boot" /boot
		TMPDIR=$7 mkinitramfs -d "$cfg" -o "$out" "$kver"
	' sh "$_it_ns" "$DEB_TREE" "$KVER" "$KDIR" "$_it_cfg" "$_it_img.tmp" "$DEB_WORK/tmp" \
		>"$DEB_WORK/logs/$_it_name.mkinitramfs.log" 2>&1 || _it_rc=$?
	rmdir "$_it_ns" 2>/dev/null
	if [ "$_it_rc" != 0 ]; then
		deb_log "mkinitramfs failed for $_it_name (see $DEB_WORK/logs/$_it_name.mkinitramfs.log)"
		rm -f "$_it_img.tmp"
		return 1
	fi
	mv "$_it_img.tmp" "$_it_img"
	echo "$_it_key" >"$_it_img.key"
	deb_log "$_it_name: $(du -k "$_it_img" | cut -f1) KiB in $(($(date +%s) - _it_t0)) s"
}

it_prepare_image() {
	deb_prepare
	it_image "$@" || fail_all "mkinitramfs could not build the image (see $DEB_WORK/logs/)"
}

it_lists_failing() {
	deb_sysroot_failing "$DEB_WORK/lists-failing" itools-fail.sh
}
