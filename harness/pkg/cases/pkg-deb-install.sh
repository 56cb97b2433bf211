#!/bin/sh
# tier: full
# The .deb, not the build tree: installed with apt into a clean Debian
# bookworm root (mmdebstrap minbase with initramfs-tools, dracut-core,
# busybox, zstd, through the project's private apt sources; the root and apt
# are harness/lib/debpkg.sh's), and the images that root's own tools then
# build, booted (harness/lib/debimage.sh's root disk and checks):
#   install   apt installs the package; the initramfs made before is byte
#             for byte the same afterwards (nothing rebuilt it), and
#             update-initramfs -u without MODPRELOAD=y makes an image with
#             nothing of modpreload in it
#   itools    MODPRELOAD=y in conf.d, update-initramfs -u: the image holds
#             the package's binary and boots with one load per module and
#             none by udev's workers, the report in /run/modpreload
#   dracut    dracut --add modpreload (the package's dracut module) in the
#             same root: the same, the report in /run/initramfs
# The root's kernel modules are the test tree (Debian's 6.1 plus the mpt_*
# modules, which a user hook in /etc/initramfs-tools/hooks adds to the
# image). Everything happens in build/vm/pkg, under a private mount
# namespace for /proc and /dev; the host is not touched. About 10 minutes
# the first time (mmdebstrap), 5 after.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/lib/debimage.sh
. "$top/harness/lib/debimage.sh"
name=pkg-deb-install
DEB_WORK=$top/build/vm/pkg
deb_prepare
# shellcheck source=harness/lib/debpkg.sh
. "$top/harness/lib/debpkg.sh"
pkg_deb

# --- a clean root, cached as a tarball of what mmdebstrap made --------------
pkg_root initramfs-tools,dracut-core,busybox,zstd,kmod,udev
root=$PKG_ROOT
mkdir -p "$root/etc/initramfs-tools/hooks"
# the test modules, as a user's own hook would add them
# shellcheck disable=SC2016 # the hook's own code
printf '#!/bin/sh\n[ "$1" = prereqs ] && exit 0\n. /usr/share/initramfs-tools/hook-functions\nmanual_add_modules %s\n' \
	"$DEB_MPT" >"$root/etc/initramfs-tools/hooks/mpt-test"
chmod 755 "$root/etc/initramfs-tools/hooks/mpt-test"

# --- install --------------------------------------------------------------
img=$root/boot/initrd.img-$KVER
log=$DEB_WORK/logs/install.log
if ! in_root "update-initramfs -c -k $KVER" >"$log" 2>&1; then
	echo "FAIL: vm/$name/install: update-initramfs -c in the clean root failed (see $log)"
	exit 0
fi
pkg_install "$log" "/boot/initrd.img-$KVER"
in_root "update-initramfs -u -k $KVER" >>"$log" 2>&1 || fail "update-initramfs -u failed (see $log)"
left=$(lsinitramfs "$img" 2>/dev/null | grep modpreload | tr '\n' ' ')
[ -z "$left" ] || fail "without MODPRELOAD=y the image holds $left"
verdict "$name/install"

# --- itools ---------------------------------------------------------------
# MODULES=most takes crc32c_intel (see harness/itools/host.sh)
DEB_CPU_MOD=crc32c_intel
if ! in_root "echo MODPRELOAD=y >/etc/initramfs-tools/conf.d/modpreload; update-initramfs -u -k $KVER" \
	>>"$log" 2>&1; then
	echo "FAIL: vm/$name/itools: update-initramfs -u with MODPRELOAD=y failed (see $log)"
else
	lsinitramfs "$img" >"$DEB_WORK/logs/itools.list" 2>/dev/null
	grep -qx 'usr/sbin/modpreload' "$DEB_WORK/logs/itools.list" || fail "no usr/sbin/modpreload in the image"
	grep -qx 'scripts/init-top/modpreload' "$DEB_WORK/logs/itools.list" || fail "no init-top script in the image"
	cp "$img" "$DEB_WORK/img/itools.img"
	res=$DEB_WORK/logs/itools-8.txt
	deb_run "$res" "$DEB_WORK/img/itools.img" 8 ""
	deb_check_with "$res" report_run
	deb_details "package, initramfs-tools, 8 vCPUs" "$res"
	verdict "$name/itools-8cpu" "$(mpt_num finit_enter "$res") calls for $(mpt_num load_modules "$res") modules"
fi

# --- dracut ---------------------------------------------------------------
# --no-hostonly: the image is for the VM, not for this build host
dimg=/boot/initrd-dracut.img
if ! in_root "dracut --no-hostonly --add modpreload --add-drivers '$DEB_MPT' --kver $KVER --force $dimg" \
	>"$DEB_WORK/logs/dracut.log" 2>&1; then
	echo "FAIL: vm/$name/dracut: dracut --add modpreload failed (see $DEB_WORK/logs/dracut.log)"
	exit 0
fi
DEB_CPU_MOD=aesni_intel
cp "$root$dimg" "$DEB_WORK/img/dracut.img"
res=$DEB_WORK/logs/dracut-8.txt
deb_run "$res" "$DEB_WORK/img/dracut.img" 8 ""
deb_check_with "$res" report
deb_details "package, dracut, 8 vCPUs" "$res"
verdict "$name/dracut-8cpu" "$(mpt_num finit_enter "$res") calls for $(mpt_num load_modules "$res") modules"
