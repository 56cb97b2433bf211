#!/bin/sh
# The initramfs-tools integration without booting (harness/itools/host.sh):
#   make-install  `make install-initramfs-tools` puts the hook and the boot
#                 script, executable, under $(DESTDIR)$(PREFIX)/share/
#                 initramfs-tools (ITOOLSDIR), and `make install` runs it
#   image         what mkinitramfs made: with MODPRELOAD=y the binary byte
#                 for byte, the boot script, init-top's ORDER running it
#                 before udev, the modpreload.d list and the modules it
#                 names; without it, nothing of modpreload at all
#   script        the boot script run by the image's own busybox sh and
#                 /scripts/functions in a chroot of the image, with a
#                 stand-in modpreload: the options it gets, /conf/modules'
#                 bare names, initramfs-tools' blacklist=, rd.modpreload=0,
#                 a udevd already running,
#                 a missing binary, and that it ends with status 0 and logs
#                 to the kernel log whatever modpreload's status (0-3, a crash)
# About 2 minutes when the images must be built, seconds otherwise.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/itools/host.sh
. "$top/harness/itools/host.sh"
# shellcheck source=harness/lib/scenarios/install.sh
. "$top/harness/lib/scenarios/install.sh"
name=itools-install

deb_prepare
tmp=$(mktemp -d "$DEB_WORK/tmp/install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# --- make-install ---------------------------------------------------------
scenario_make_install install-initramfs-tools usr/share/initramfs-tools initramfs-tools \
	"hooks/modpreload scripts/init-top/modpreload" share/initramfs-tools/hooks/modpreload \
	ITOOLSDIR=/x/it scripts/init-top/modpreload initramfs-tools/hooks/modpreload "the initramfs-tools hook"
verdict "$name/make-install"

# --- image ----------------------------------------------------------------
lists=$(it_lists_failing)
if ! it_image with yes || ! it_image without no || ! it_image failing yes "$lists"; then
	echo "FAIL: vm/$name/image: mkinitramfs could not build the images (see $DEB_WORK/logs/)"
	exit 0
fi
for i in with without failing; do
	mkdir -p "$tmp/$i"
	if ! unmkinitramfs "$DEB_WORK/img/$i.img" "$tmp/$i" 2>"$tmp/$i.err"; then
		fail "$i: unmkinitramfs failed: $(head -n 2 "$tmp/$i.err")"
	fi
	# with early microcode the main archive is in main/
	[ -d "$tmp/$i/main" ] && mv "$tmp/$i" "$tmp/$i.all" && mv "$tmp/$i.all/main" "$tmp/$i"
done
for i in with failing; do
	cmp -s "$tmp/$i/usr/sbin/modpreload" "$DEB_BIN" || fail "$i: /usr/sbin/modpreload is not the binary given"
	[ -x "$tmp/$i/scripts/init-top/modpreload" ] || fail "$i: no executable boot script"
	order=" $(sed -n 's|^/scripts/init-top/\([^ ]*\) .*|\1|p' "$tmp/$i/scripts/init-top/ORDER" | tr '\n' ' ')"
	case $order in
	*" modpreload "*) case " ${order#*" modpreload "}" in *" udev "*) ;; *) order=bad ;; esac ;;
	*) order=bad ;;
	esac
	[ "$order" != bad ] || fail "$i: init-top's ORDER does not run modpreload before udev"
done
for m in mpt_fail_child mpt_hang_child mpt_fail mpt_hang; do
	[ -n "$(find "$tmp/failing/usr/lib/modules" -name "$m.ko")" ] || fail "failing: $m.ko not in the image"
done
cmp -s "$tmp/failing/etc/modpreload.d/50-mpt-failing.conf" "$lists/etc/modpreload.d/50-mpt-failing.conf" ||
	fail "failing: the modpreload.d list is not in the image"
(cd "$tmp/failing" && find . -print) >"$tmp/failing.list"
deb_check_lists "$tmp/failing.list" failing
[ ! -e "$tmp/with/etc/modpreload.d" ] || fail "with: a modpreload.d list although none was given"
left=$(cd "$tmp/without" && find . -name '*modpreload*' | tr '\n' ' ')
[ -z "$left" ] || fail "without MODPRELOAD=y the image holds $left"
verdict "$name/image"

# --- script ---------------------------------------------------------------
root=$tmp/with
mkdir -p "$root/dev" "$root/proc" "$root/run" "$root/conf"
: >"$root/dev/null"
# run_script [BLACKLIST]: as /init does, with its exported quiet and
# blacklist; prints the status, the console output goes to $root/run/console
run_script() {
	: >"$root/dev/kmsg"
	rm -f "$root/run/stub.args" "$root/run/stub.cmdline"
	chroot "$root" /usr/bin/env quiet=n blacklist="${1-}" /bin/sh -c \
		'/scripts/init-top/modpreload >/run/console 2>&1; echo "status=$?"'
}
echo "console=ttyS0 root=/dev/vda mpt_params.value=7" >"$root/proc/cmdline"
printf '# options go to load_modules\nmpt_params value=3\nmpt_drv\n\nmpt_drv2\n' >"$root/conf/modules"
for st in 0 1 2 3 segv none; do
	install_stub "$root" "$st"
	eq "status (modpreload: $st)" "$(run_script a,b)" "status=0"
	if [ "$st" = none ]; then
		grep -q 'modpreload is missing' "$root/dev/kmsg" || fail "no kernel log line about the missing binary"
		grep -q 'Warning: modpreload: /usr/sbin/modpreload is missing' "$root/run/console" ||
			fail "no console warning about the missing binary"
		continue
	fi
	eq "options (modpreload: $st)" "$(cat "$root/run/stub.args" 2>/dev/null)" \
		"--coldplug --hold-udev --root-fs --kmsg --cmdline /run/modpreload/cmdline --nodev-blacklist /run/modprobe.d/modpreload-nodev.conf \
--report /run/modpreload/report.json --profile-out /run/modpreload/profile -- mpt_drv mpt_drv2"
	eq "command line (modpreload: $st)" "$(cat "$root/run/stub.cmdline" 2>/dev/null)" \
		"console=ttyS0 root=/dev/vda mpt_params.value=7 modprobe.blacklist=a,b "
	[ ! -e "$root/run/modpreload/cmdline" ] || fail "the command line file was left behind"
	case $st in
	0)
		[ ! -s "$root/dev/kmsg" ] || fail "status 0 logged: $(cat "$root/dev/kmsg")"
		[ ! -s "$root/run/console" ] || fail "status 0 on the console: $(cat "$root/run/console")"
		;;
	1)
		grep -q '^<4>modpreload: some modules failed' "$root/dev/kmsg" || fail "no kernel log line for status 1"
		grep -q '^Warning: modpreload: some modules failed' "$root/run/console" || fail "no console warning for status 1"
		;;
	*)
		grep -q '^<3>modpreload: exit status' "$root/dev/kmsg" || fail "no kernel log line for status $st"
		grep -q '^Warning: modpreload: exit status' "$root/run/console" || fail "no console warning for status $st"
		;;
	esac
done
install_stub "$root" 0
run_script >/dev/null
eq "no blacklist=" "$(cat "$root/run/stub.cmdline" 2>/dev/null)" "console=ttyS0 root=/dev/vda mpt_params.value=7 "
# udevd started before it (a PREREQ gone wrong): said, and loaded anyway
mkdir -p "$root/run/udev"
: >"$root/run/udev/control"
run_script >/dev/null
grep -q '^<4>modpreload: udevd is running already' "$root/dev/kmsg" || fail "a running udevd was not reported"
[ -e "$root/run/stub.args" ] || fail "modpreload did not run with udevd running"
rm -rf "$root/run/udev"
echo "console=ttyS0 rd.modpreload=0 root=/dev/vda" >"$root/proc/cmdline"
eq "status (rd.modpreload=0)" "$(run_script)" "status=0"
[ ! -e "$root/run/stub.args" ] || fail "modpreload ran despite rd.modpreload=0"
grep -q 'modpreload: off' "$root/dev/kmsg" || fail "rd.modpreload=0 not logged"
verdict "$name/script"
