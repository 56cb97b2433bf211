# shellcheck shell=sh
# shellcheck disable=SC2154 # top, DEB_WORK: set by the script that sources this
# An initramfs image made by Debian's real dracut (059) for Debian's 6.1
# kernel (or the one debimage.sh's DEB_KERNEL names: trixie's 6.12 for
# booted-once-trixie), with or without dracut-module/50modpreload: what the dracut family
# (harness/dracut/host.sh) boots to the small ext4 root and the booted
# family (harness/booted/host.sh) boots into a whole Debian root. Source it
# after setting $top, then set $DEB_WORK:
#   . "$top/harness/lib/dracutimage.sh"
#
#   dr_image NAME INIT PRELOAD [SYSROOT [DRIVERS]]
#                            $DEB_WORK/img/NAME.img, rebuilt only when what
#                            goes into it changed. INIT: systemd | shell |
#                            systemd-explicit (systemd from a short module
#                            list without dracut-systemd: see dr_image);
#                            PRELOAD: yes (--add modpreload) | no; SYSROOT:
#                            the root whose modpreload.d lists go in
#                            (default: one without any); DRIVERS: dracut --drivers (default: what
#                            --no-hostonly takes, plus $DEB_MPT);
#                            DR_DRACUT_ARGS: more dracut arguments;
#                            DR_DRACUT: another dracut, the DESTDIR of its
#                            `make install` (usr/bin/dracut,
#                            usr/lib/dracut): dracut-ng built from its
#                            source by harness/lib/dracutng.sh
#
# dracut runs with no host configuration (--conf /dev/null, an empty
# --confdir), leaves the image uncompressed and its binaries unstripped
# (--no-compress --nostrip: a build takes 15 s instead of 50 s to minutes
# on a busy machine; what the kernel loads is the same), and finds 50modpreload through a private dracutbasedir: a
# directory of links to /usr/lib/dracut's files and modules plus this tree's
# module, made for the build and removed after. The host's /usr/lib/dracut
# and /lib/modules are not touched: --kmoddir is all dracut 059 needs.
# With DR_DRACUT the links are to that dracut's files and its own
# usr/bin/dracut runs; the host's dracut-core is not used at all.
# Needs dracut-core and what harness/lib/debimage.sh needs.

# shellcheck source=harness/lib/debimage.sh
. "$top/harness/lib/debimage.sh"

dr_image() {
	_dr_name=$1 _dr_init=$2 _dr_preload=$3 _dr_conf=${4:-} _dr_drivers=${5:-}
	_dr_img=$DEB_WORK/img/$_dr_name.img
	case $_dr_init in
	systemd) _dr_mods="bash systemd systemd-initrd dracut-systemd udev-rules base fs-lib rootfs-block kernel-modules" ;;
	shell) _dr_mods="dash udev-rules base fs-lib rootfs-block kernel-modules" ;;
	# An image made from an explicit list that has systemd but not
	# dracut-systemd, whose dracut-pre-udev.service is the only thing that
	# runs pre-udev hooks under systemd (DR_DRACUT_ARGS may add -o ...).
	systemd-explicit) _dr_mods="systemd systemd-initrd udev-rules base kernel-modules qemu rootfs-block" ;;
	*) deb_log "dr_image: INIT is systemd, shell or systemd-explicit"; return 2 ;;
	esac
	# CONF: the root whose modpreload.d lists the image gets (default: one
	# without any)
	_dr_empty=$DEB_WORK/empty.d
	mkdir -p "$_dr_empty"
	# shellcheck disable=SC2086 # DR_DRACUT_ARGS: a list of dracut arguments
	set -- --conf /dev/null --confdir "$_dr_empty" --no-hostonly --kver "$KVER" \
		--kmoddir "$DEB_TREE" --tmpdir "$DEB_WORK/tmp" --no-compress --nostrip \
		-m "$_dr_mods" ${DR_DRACUT_ARGS:-}
	if [ -n "$_dr_drivers" ]; then
		set -- "$@" --drivers "$_dr_drivers $DEB_MPT"
	else
		set -- "$@" --add-drivers "$DEB_MPT"
	fi
	if [ "$_dr_preload" = yes ]; then set -- "$@" --add modpreload; fi
	_dr_key=$({
		echo "$*"
		if [ -n "${DR_DRACUT:-}" ]; then
			"$DR_DRACUT/usr/bin/dracut" --version
			cat "$DR_DRACUT/.key" 2>/dev/null
		else
			dpkg-query -W dracut-core
		fi
		sha256sum "$DEB_BIN" "$top"/dracut-module/50modpreload/*
		sha256sum "$DEB_TREE/modules.dep" "$DEB_TREE"/extra/*.ko*
		echo "conf:"
		deb_sum_dir "$_dr_conf"
	} | deb_key)
	if deb_fresh "$_dr_img" "$_dr_key"; then
		return 0
	fi
	_dr_lib=${DR_DRACUT:-}/usr/lib/dracut
	deb_log "building $_dr_name ($_dr_init, modpreload: $_dr_preload) with $_dr_lib"
	_dr_base=$DEB_WORK/base.$$
	rm -rf "$_dr_base"
	mkdir -p "$_dr_base/modules.d"
	for _dr_f in "$_dr_lib"/*; do
		[ "${_dr_f##*/}" = modules.d ] || ln -s "$_dr_f" "$_dr_base/"
	done
	for _dr_f in "$_dr_lib"/modules.d/*; do
		case ${_dr_f##*/} in
		[0-9][0-9]modpreload) ;; # an installed copy: this tree's goes in
		*) ln -s "$_dr_f" "$_dr_base/modules.d/" ;;
		esac
	done
	ln -s "$top/dracut-module/50modpreload" "$_dr_base/modules.d/50modpreload"
	_dr_t0=$(date +%s)
	_dr_rc=0
	dracutbasedir=$_dr_base MODPRELOAD_BIN=$DEB_BIN MODPRELOAD_SYSROOT=${_dr_conf:-$_dr_empty} \
		"${DR_DRACUT:+$DR_DRACUT/usr/bin/}dracut" "$@" --force "$_dr_img.tmp" \
		>"$DEB_WORK/logs/$_dr_name.dracut.log" 2>&1 || _dr_rc=$?
	rm -rf "$_dr_base"
	if [ "$_dr_rc" != 0 ]; then
		deb_log "dracut failed for $_dr_name (see $DEB_WORK/logs/$_dr_name.dracut.log)"
		rm -f "$_dr_img.tmp"
		return 1
	fi
	mv "$_dr_img.tmp" "$_dr_img"
	echo "$_dr_key" >"$_dr_img.key"
	deb_log "$_dr_name: $(du -k "$_dr_img" | cut -f1) KiB in $(($(date +%s) - _dr_t0)) s"
}
