# shellcheck shell=sh
# shellcheck disable=SC2154 # top, name, DEB_WORK, KVER, KDIR, DEB_TREE: set by the case and deb_setup
# The package cases' Debian root (harness/pkg/cases/pkg-deb-install.sh,
# pkg-deb-dracut.sh): the .deb `make deb` builds, a clean root made by
# mmdebstrap (harness/lib/debroot.sh's tarball) unpacked in $DEB_WORK/root
# with deb_setup's kernel module tree, and apt installing the one into the
# other. Source it after harness/lib/debimage.sh, then deb_prepare:
#   pkg_deb                 make deb; PKG_DEB, its path (or the case's FAIL
#                           line, and exit)
#   pkg_root PKGS [SUITE]   the root of mp_debroot PKGS SUITE unpacked in
#                           PKG_ROOT ($DEB_WORK/root, made again), with the
#                           module tree as /usr/lib/modules/KVER, the
#                           kernel's config in /boot and the .deb in /tmp
#                           (or the case's FAIL line, and exit)
#   in_root SCRIPT          debimage.sh's deb_in_root in this root
#   pkg_install LOG IMG     apt-get install the .deb in the root, its output
#                           to LOG; reasons (verdict.sh's fail) when that
#                           fails, when postinst does not say that no image
#                           was rebuilt, when there is no /usr/sbin/modpreload
#                           after it, and when IMG (a path in the root, an
#                           initramfs made before) is not byte for byte the
#                           same afterwards
# Needs mmdebstrap, unshare and chroot (root).

# shellcheck source=harness/lib/debroot.sh
. "$top/harness/lib/debroot.sh"

PKG_ROOT=$DEB_WORK/root

pkg_deb() {
	if ! PKG_DEB=$(make -s -C "$top" deb 2>"$DEB_WORK/logs/deb.log" | tail -n 1) || [ ! -f "$PKG_DEB" ]; then
		fail_all "make deb failed (see $DEB_WORK/logs/deb.log)"
	fi
}

pkg_root() {
	if ! _pk_base=$(mp_debroot "$1" "$DEB_WORK/logs/mmdebstrap.log" "${2:-bookworm}"); then
		fail_all "mmdebstrap failed (see $DEB_WORK/logs/mmdebstrap.log)"
	fi
	rm -rf "$PKG_ROOT"
	mkdir -p "$PKG_ROOT"
	tar -xf "$_pk_base" -C "$PKG_ROOT" || fail_all "unpacking $_pk_base failed"
	mkdir -p "$PKG_ROOT/usr/lib/modules"
	cp -al "$DEB_TREE" "$PKG_ROOT/usr/lib/modules/$KVER"
	cp "$KDIR/boot/config-$KVER" "$PKG_ROOT/boot/"
	cp "$PKG_DEB" "$PKG_ROOT/tmp/"
}

in_root() { deb_in_root "$PKG_ROOT" "$1"; }

pkg_install() {
	_pk_sum=$(sha256sum <"$PKG_ROOT$2")
	if ! in_root "apt-get install -y /tmp/${PKG_DEB##*/}" >>"$1" 2>&1; then
		fail "apt-get install failed (see $1)"
	fi
	grep -q 'no initramfs was rebuilt' "$1" || fail "postinst did not say that no initramfs was rebuilt"
	[ -x "$PKG_ROOT/usr/sbin/modpreload" ] || fail "no /usr/sbin/modpreload after apt install"
	eq "the initramfs after apt install" "$(sha256sum <"$PKG_ROOT$2")" "$_pk_sum"
}
