#!/bin/sh
# tier: full
# The .deb in an Ubuntu-style root, where dracut, not initramfs-tools, makes
# the image (as in Ubuntu 25.10): a clean Debian trixie root (mmdebstrap
# minbase with the full dracut package, dracut-ng 106, which conflicts with
# initramfs-tools, and kmod, udev, systemd-sysv, zstd; harness/lib/debpkg.sh),
# trixie's 6.12 and the test modules (.ko.xz) in it. trixie's dracut has no
# update-initramfs (Debian's dracut ships one from 107-2 on, Ubuntu 25.10's
# too): the root gets a stand-in that calls dracut as that one does
# (harness/pkg/update-initramfs-dracut.sh). The test root's own setting,
# /etc/dracut.conf.d/90-mpt-test.conf: a generic image (hostonly="no": it is
# for the VM, not for this host) with the test modules (add_drivers).
#   install      no initramfs-tools in the root; apt installs the package,
#                postinst says no image was rebuilt and names the dracut.conf.d
#                line, the image made before
#                is byte for byte the same, and update-initramfs -u makes one
#                with nothing of modpreload in it
#   dracut-8cpu  the documented one-liner (docs/integrations/dracut.md's
#                add_dracutmodules line in /etc/dracut.conf.d/modpreload.conf),
#                update-initramfs -u -k KVER: the image holds the binary and
#                the pre-udev hook and boots with one load per module, by
#                modpreload, the report in /run/initramfs; the kernel's own
#                modprobe before /init (Debian's 6.12 asks for crypto-aes
#                from a built-in initcall) is counted apart (debimage.sh's
#                deb_check_once_kernel) and named in the details
#   kernel-hook  /etc/kernel/postinst.d/dracut KVER (what installing a
#                kernel package runs there) makes an image with modpreload too
#   off          the conf.d file removed, update-initramfs -u: nothing of
#                modpreload in the image
# Everything happens in build/vm/pkg-dracut, in a private mount namespace for
# /proc and /dev; the host is not touched. About 4 minutes the first time
# (mmdebstrap), 2 to 4 after on a busy 2-core host.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/lib/debimage.sh
. "$top/harness/lib/debimage.sh"
name=pkg-deb-dracut
names="$name/install $name/dracut-8cpu $name/kernel-hook $name/off"
DEB_WORK=$top/build/vm/pkg-dracut
DEB_KERNEL=trixie DEB_COMPRESS=xz
deb_prepare
# shellcheck source=harness/lib/debpkg.sh
. "$top/harness/lib/debpkg.sh"
pkg_deb
pkg_root dracut,kmod,udev,systemd-sysv,zstd trixie
root=$PKG_ROOT

if [ -e "$root/usr/sbin/update-initramfs" ]; then
	ui="the root's update-initramfs"
else
	install -m 0755 "$top/harness/pkg/update-initramfs-dracut.sh" "$root/usr/sbin/update-initramfs"
	ui="update-initramfs: the stand-in for dracut 107's"
fi
printf 'hostonly="no"\nadd_drivers+=" %s "\n' "$DEB_MPT" >"$root/etc/dracut.conf.d/90-mpt-test.conf"
img=/boot/initrd.img-$KVER
log=$DEB_WORK/logs/install.log

# lists IMAGE OUT: the image's paths (the root's lsinitrd), one a line
lists() {
	in_root "lsinitrd $1" 2>&1 | awk '/^[-dlcbps][-rwxsStT]/ && NF >= 9 { sub(/ -> .*/, ""); print $NF }' >"$2"
	[ -s "$2" ] || fail "lsinitrd listed nothing in $1 (see $2)"
}

# holds OUT: the image listed in OUT has the package's binary and hook
holds() {
	grep -qx 'usr/sbin/modpreload' "$1" || fail "no usr/sbin/modpreload in the image"
	grep -q 'hooks/pre-udev/05-modpreload' "$1" || fail "no pre-udev hook of modpreload in the image"
}

# none OUT: nothing of modpreload in the image listed in OUT
none() {
	left=$(grep modpreload "$1" | tr '\n' ' ')
	[ -z "$left" ] || fail "the image holds $left"
}

# --- install --------------------------------------------------------------
if [ -e "$root/usr/sbin/mkinitramfs" ] || in_root "dpkg -s initramfs-tools" >/dev/null 2>&1; then
	fail "initramfs-tools is in the root"
fi
if ! in_root "update-initramfs -c -k $KVER" >"$log" 2>&1; then
	echo "FAIL: vm/$name/install: update-initramfs -c in the clean root failed (see $log)"
	exit 0
fi
pkg_install "$log" "$img"
# the persistent line, not a one-off --add that the next rebuild drops
grep -qF "echo 'add_dracutmodules+=\" modpreload \"'" "$log" || fail "postinst does not name the dracut.conf.d line"
in_root "update-initramfs -u -k $KVER" >>"$log" 2>&1 || fail "update-initramfs -u failed (see $log)"
lists "$img" "$DEB_WORK/logs/install.list"
none "$DEB_WORK/logs/install.list"
verdict "$name/install" "$ui; $(in_root 'dracut --version' 2>/dev/null)"

# --- dracut-8cpu ----------------------------------------------------------
# the line as the documentation has it; the chroot is root's: no sudo
on=$(sed -n "s/^ *\(echo 'add_dracutmodules+=.*\) | sudo tee \(.*\)\$/\1 | tee \2/p" \
	"$top/docs/integrations/dracut.md")
case $on in
"echo 'add_dracutmodules+=\" modpreload \"' | tee /etc/dracut.conf.d/modpreload.conf") ;;
*) fail "docs/integrations/dracut.md's one-liner is '$on'" ;;
esac
if ! in_root "$on; update-initramfs -u -k $KVER" >"$DEB_WORK/logs/dracut.log" 2>&1; then
	echo "FAIL: vm/$name/dracut-8cpu: update-initramfs -u with modpreload.conf failed (see $DEB_WORK/logs/dracut.log)"
	exit 0
fi
lists "$img" "$DEB_WORK/logs/dracut.list"
holds "$DEB_WORK/logs/dracut.list"
cp "$root$img" "$DEB_WORK/img/dracut.img"
boot_why=$verdict_why
verdict_why=

# --- kernel-hook ----------------------------------------------------------
if in_root "/etc/kernel/postinst.d/dracut $KVER" >"$DEB_WORK/logs/kernel-hook.log" 2>&1; then
	lists "$img" "$DEB_WORK/logs/kernel-hook.list"
	holds "$DEB_WORK/logs/kernel-hook.list"
else
	fail "/etc/kernel/postinst.d/dracut failed (see $DEB_WORK/logs/kernel-hook.log)"
fi
verdict "$name/kernel-hook"

# --- off ------------------------------------------------------------------
if in_root "rm /etc/dracut.conf.d/modpreload.conf; update-initramfs -u -k $KVER" \
	>"$DEB_WORK/logs/off.log" 2>&1; then
	lists "$img" "$DEB_WORK/logs/off.list"
	none "$DEB_WORK/logs/off.list"
else
	fail "update-initramfs -u without modpreload.conf failed (see $DEB_WORK/logs/off.log)"
fi
verdict "$name/off"

# --- the boot of dracut-8cpu's image, last: it is the long part ------------
# deb_check_with, but the kernel's own crypto-aes requests before /init are
# counted apart (harness/lib/debimage.sh's deb_check_once_kernel): they
# load aesni_intel before modpreload runs, so the CPU-feature module it
# must load is crc32c_intel
verdict_why=$boot_why
DEB_CPU_MOD=crc32c_intel
res=$DEB_WORK/logs/dracut-8.txt
deb_run "$res" "$DEB_WORK/img/dracut.img" 8 ""
deb_check_root "$res"
deb_check_once_kernel "$res"
deb_check_preloaded "$res" report
deb_check_analyze "$res"
deb_details "package, dracut-ng 106 via update-initramfs, 8 vCPUs" "$res"
echo "  the kernel's modprobe before /init: $(mpt_num init_enter "$res") init_module calls" \
	"($(mpt_num init_ok "$res") loaded, $(mpt_num init_eexist "$res") EEXIST, $(mpt_num init_errno_19 "$res") ENODEV)" >&2
verdict "$name/dracut-8cpu" "$(mpt_num finit_enter "$res") finit_module calls for $(mpt_num finit_ok "$res") \
modules; the kernel's modprobe: $(mpt_num init_enter "$res") init_module calls before /init"
