#!/bin/sh
# The dracut module without booting (harness/dracut/host.sh):
#   make-install  `make install-dracut` puts the module under
#                 $(DESTDIR)$(PREFIX)/lib/dracut/modules.d/50modpreload, and
#                 `make install` runs it
#   check         module-setup.sh's check(): 1 without the binary, 255 (only
#                 when asked for: `dracut --add modpreload`) with it
#   image         what dracut put in the image: the binary byte for byte, the
#                 pre-udev hook, the modpreload.d list only where one was given
#   hook          the hook, sourced by the image's own dash and dracut-lib.sh
#                 in a chroot of the image, with a stand-in modpreload: the
#                 options it passes, /etc/cmdline.d reaching it, rd.modpreload=0,
#                 and that no exit status (0-3, a crash) or a missing binary
#                 stops the shell that sourced it
# A few seconds once the images of the other dracut-* cases exist.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/dracut/host.sh
. "$top/harness/dracut/host.sh"
# shellcheck source=harness/lib/scenarios/install.sh
. "$top/harness/lib/scenarios/install.sh"
name=dracut-install

deb_prepare
tmp=$(mktemp -d "$DEB_WORK/tmp/install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# --- make-install ---------------------------------------------------------
scenario_make_install install-dracut usr/lib/dracut/modules.d/50modpreload dracut-module/50modpreload \
	"module-setup.sh modpreload-pre-udev.sh" lib/dracut/modules.d/50modpreload/module-setup.sh \
	DRACUTDIR=/x/modules.d 50modpreload/module-setup.sh 50modpreload "the dracut module"
verdict "$name/make-install"

# --- check ----------------------------------------------------------------
# shellcheck disable=SC2016 # expanded by bash
chk='dinfo() { :; }; . "$1"; check; echo $?'
ms=$top/dracut-module/50modpreload/module-setup.sh
eq "check() without the binary" "$(MODPRELOAD_BIN=$tmp/no-such-binary bash -c "$chk" x "$ms")" 1
eq "check() with it" "$(MODPRELOAD_BIN=$DEB_BIN bash -c "$chk" x "$ms")" 255
verdict "$name/check"

# --- image ----------------------------------------------------------------
conf=$(dr_conf_failing)
if ! dr_image systemd systemd yes || ! dr_image shell-failing shell yes "$conf"; then
	echo "FAIL: vm/$name/image: dracut could not build the images (see $DEB_WORK/logs/)"
	exit 0
fi
for i in systemd shell-failing; do
	img=$DEB_WORK/img/$i.img
	lsinitrd "$img" >"$tmp/$i.list" 2>/dev/null
	lsinitrd -f usr/sbin/modpreload "$img" >"$tmp/$i.bin" 2>/dev/null
	cmp -s "$tmp/$i.bin" "$DEB_BIN" || fail "$i: /usr/sbin/modpreload is not the binary given"
	grep -q ' usr/lib/dracut/hooks/pre-udev/05-modpreload-pre-udev.sh$' "$tmp/$i.list" ||
		fail "$i: no pre-udev hook"
done
deb_check_lists "$tmp/shell-failing.list" shell-failing
lsinitrd -f etc/modpreload.d/50-mpt-failing.conf "$DEB_WORK/img/shell-failing.img" 2>/dev/null |
	cmp -s - "$conf/etc/modpreload.d/50-mpt-failing.conf" || fail "shell-failing: the list differs"
if grep -q 'etc/modpreload.d/' "$tmp/systemd.list"; then
	fail "systemd: a modpreload.d list although none was given"
fi
grep -q ' etc/systemd/system/initrd.target.wants/dracut-pre-udev.service ' "$tmp/systemd.list" ||
	fail "systemd: dracut-pre-udev.service is not wanted by initrd.target"
verdict "$name/image"

# --- hook -----------------------------------------------------------------
# The shell image's own /bin/sh (dash) and dracut-lib.sh, without modules.
root=$tmp/root
mkdir -p "$root"
(cd "$root" && cpio -id --quiet --nonmatching 'usr/lib/modules/*' \
	<"$DEB_WORK/img/shell-failing.img") 2>/dev/null
if [ ! -x "$root/bin/sh" ] || [ ! -f "$root/lib/dracut-lib.sh" ]; then
	echo "FAIL: vm/$name/hook: cannot unpack the shell image"
	exit 0
fi
hook=/lib/dracut/hooks/pre-udev/05-modpreload-pre-udev.sh
# source_hook: what the init does, then proof that the shell went on
# shellcheck disable=SC2016 # expanded in the chroot
src='. /lib/dracut-lib.sh; . '"$hook"'; echo "after=$? left=${_mp_rc-}${_mp_dir-}"'
mkdir -p "$root/etc/cmdline.d" "$root/run"
echo "rd.modpreload.modules=mpt_params" >"$root/etc/cmdline.d/50-test.conf"
for st in 0 1 2 3 segv none; do
	install_stub "$root" "$st"
	out=$(chroot "$root" /bin/sh -c "$src" 2>"$tmp/hook.err")
	eq "shell after the hook (modpreload: $st)" "$out" "after=0 left="
	if [ "$st" = none ]; then
		grep -q 'modpreload is missing' "$tmp/hook.err" || fail "no warning about the missing binary"
		continue
	fi
	eq "options (modpreload: $st)" "$(cat "$root/run/stub.args" 2>/dev/null)" \
		"--coldplug --hold-udev --root-fs --kmsg --cmdline /run/initramfs/modpreload.cmdline --nodev-blacklist /run/modprobe.d/modpreload-nodev.conf --report /run/initramfs/modpreload.json --profile-out /run/modpreload/profile"
	grep -q 'rd.modpreload.modules=mpt_params' "$root/run/stub.cmdline" 2>/dev/null ||
		fail "/etc/cmdline.d did not reach modpreload"
	[ ! -e "$root/run/initramfs/modpreload.cmdline" ] || fail "the command line file was left behind"
	if [ "$st" != 0 ]; then
		grep -q 'Warning: modpreload' "$tmp/hook.err" || fail "no warning for status $st"
	fi
done
install_stub "$root" 0
echo "rd.modpreload=0" >"$root/etc/cmdline.d/60-off.conf"
out=$(chroot "$root" /bin/sh -c "$src" 2>/dev/null)
eq "shell after the hook (rd.modpreload=0)" "$out" "after=0 left="
[ ! -e "$root/run/stub.args" ] || fail "modpreload ran despite rd.modpreload=0"
verdict "$name/hook"
