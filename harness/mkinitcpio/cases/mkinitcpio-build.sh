#!/bin/sh
# mkinitcpio hook at build time, no boot (a few seconds): install/modpreload
# run through harness/mkinitcpio/'s implementation of the mkinitcpio(8) hook
# API, and what it puts in the image.
#   vm/mkinitcpio-build-busybox   HOOKS=(base modpreload udev): the static
#       binary at /usr/bin/modpreload, /hooks/modpreload, /config running
#       modpreload's early hook before udev's and recording MODULES; the
#       modpreload.d lists (an /etc file hides a /usr/lib one of the same
#       name, a /dev/null link masks one) and the modules they name (by
#       name and by alias), nothing that is hidden; no unit; modpreload
#       plans from the image's stripped module directory (only the *.bin
#       indexes, as mkinitcpio leaves it); help() documents the placement
#   vm/mkinitcpio-build-errors    no modpreload binary, and a modpreload.d
#       list naming a module the kernel lacks: each fails the build (status
#       1, named in the error)
#   vm/mkinitcpio-build-systemd   HOOKS=(base systemd modpreload): the unit
#       and its sysinit.target.wants link instead of the runtime hook;
#       systemd-analyze verifies the unit
#   vm/mkinitcpio-install         make install-mkinitcpio puts the hooks
#       under $(PREFIX)/lib/initcpio/{install,hooks} and the unit under
#       $(PREFIX)/lib/systemd/system
#   vm/mkinitcpio-shellcheck      the hooks (bash / busybox ash), the test
#       harness and these cases pass shellcheck
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/mkinitcpio/host.sh
. "$top/harness/mkinitcpio/host.sh"

name=mkinitcpio-build
mkc_setup || fail_all "setup failed (see stderr)"
work=$MKC_DIR/buildtest
rm -rf "$work"
mkdir -p "$work/empty"

exists() { [ -e "$br$1" ] || [ -L "$br$1" ]; }
has() { exists "$1" || fail "no $1 in the image"; }
hasnt() { if exists "$1"; then fail "$1 should not be in the image"; fi; }
same() { cmp -s "$br$1" "$2" || fail "$1 differs from $2"; }

# build NAME "HOOKS" "MODULES" [PATH]: a build root in $work/NAME, its
# status in $rc, its output in $work/NAME.log
build() {
	printf 'MODULES=(%s)\nHOOKS=(%s)\n' "$3" "$2" >"$work/$1.conf"
	br=$work/$1
	PATH=${4:-$top/build:$PATH} MODPRELOAD_SYSROOT=$work/sysroot \
		MKC_UNITPATH=$top/mkinitcpio-hook "$MKC_SRC/mkinitcpio.sh" -c "$work/$1.conf" \
		-k "$KVER" -r "$MODROOT" -D "$top/mkinitcpio-hook" -D "$MKC_SRC" -d "$br" \
		>"$work/$1.log" 2>&1
	rc=$?
}

# --- the configuration the hook has to get right ------------------------------
s=$work/sysroot
mkdir -p "$s/etc/modpreload.d" "$s/usr/lib/modpreload.d" "$s/usr/local/lib/modpreload.d" "$s/lib/modpreload.d"
printf '# comment\n; comment\n\n  mpt_params  \nmpt-alias-only\n' >"$s/etc/modpreload.d/10-mpt.conf"
printf 'mpt_fail\n' >"$s/usr/lib/modpreload.d/10-mpt.conf"
printf 'mpt_sleep\n' >"$s/usr/lib/modpreload.d/20-sleep.conf"
ln -s /dev/null "$s/etc/modpreload.d/30-masked.conf"
printf 'mpt_hang\n' >"$s/usr/lib/modpreload.d/30-masked.conf"
# every directory the binary reads (modpreload --list-config-files)
printf 'mpt_sleep\n' >"$s/usr/local/lib/modpreload.d/50-local.conf"
printf 'mpt_sleep\n' >"$s/lib/modpreload.d/60-lib.conf"

# --- busybox image ----------------------------------------------------------
build busybox "base modpreload udev" "ext4"
[ "$rc" = 0 ] || fail "build status $rc ($(grep -m1 ERROR "$work/busybox.log"))"
has /usr/bin/modpreload
same /usr/bin/modpreload "$top/build/modpreload"
[ -x "$br/usr/bin/modpreload" ] || fail "/usr/bin/modpreload not executable"
has /hooks/modpreload
same /hooks/modpreload "$top/mkinitcpio-hook/hooks/modpreload"
[ -x "$br/hooks/modpreload" ] || fail "/hooks/modpreload not executable"
grep -qx 'EARLYHOOKS="modpreload udev"' "$br/config" ||
	fail "config: $(grep EARLYHOOKS "$br/config") (want modpreload before udev)"
grep -qx 'MODULES="ext4"' "$br/config" || fail "config: no MODULES=\"ext4\""
grep modpreload "$br/config" | grep -qv '^EARLYHOOKS=' && fail "modpreload at another hook point"
same /etc/modpreload.d/10-mpt.conf "$s/etc/modpreload.d/10-mpt.conf"
same /usr/lib/modpreload.d/20-sleep.conf "$s/usr/lib/modpreload.d/20-sleep.conf"
hasnt /usr/lib/modpreload.d/10-mpt.conf
hasnt /etc/modpreload.d/30-masked.conf
hasnt /usr/lib/modpreload.d/30-masked.conf
same /usr/local/lib/modpreload.d/50-local.conf "$s/usr/local/lib/modpreload.d/50-local.conf"
same /lib/modpreload.d/60-lib.conf "$s/lib/modpreload.d/60-lib.conf"
m=/usr/lib/modules/$KVER
for f in extra/mpt_params.ko extra/mpt_aliased.ko extra/mpt_sleep.ko kernel/fs/ext4/ext4.ko; do
	has "$m/$f"
done
hasnt "$m/extra/mpt_fail.ko"
hasnt "$m/extra/mpt_hang.ko"
hasnt "$m/modules.dep"
hasnt /usr/lib/systemd/system/modpreload.service
busybox sh -n "$br/hooks/modpreload" 2>"$work/sh-n.err" || fail "busybox sh -n: $(cat "$work/sh-n.err")"
# modpreload plans from what mkinitcpio leaves of the module directory
plan=$work/plan.json
if "$top/build/modpreload" -n -d "$br" -S "$KVER" -C "$work/empty" --no-default-config \
	--cmdline '' -c "$br/etc/modpreload.d/10-mpt.conf" \
	-c "$br/usr/lib/modpreload.d/20-sleep.conf" ext4 >"$plan" 2>"$work/plan.err"; then
	for n in ext4 jbd2 mpt_params mpt_aliased mpt_sleep; do
		grep -q "\"name\": \"$n\"" "$plan" || fail "the image's plan lacks $n"
	done
else
	fail "modpreload -n on the image: $(tail -n 1 "$work/plan.err")"
fi
help=$(bash -c '. "$1"; help' _ "$top/mkinitcpio-hook/install/modpreload")
case $help in
*"HOOKS=(base modpreload udev"*"HOOKS=(base systemd modpreload"*) ;;
*) fail "help() does not document the placement" ;;
esac
verdict mkinitcpio-build-busybox

# --- errors ---------------------------------------------------------------------
# The host's tools without any modpreload, whether or not one is installed
# (make install, the package): a PATH of links to everything else.
nobin=$work/nobin-path
mkdir -p "$nobin"
for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
	for f in "$d"/*; do
		n=${f##*/}
		[ "$n" = modpreload ] || [ -e "$nobin/$n" ] || [ ! -x "$f" ] || [ -d "$f" ] ||
			ln -s "$f" "$nobin/$n"
	done
done
build nobin "base modpreload" "" "$nobin"
[ "$rc" = 1 ] || fail "no binary: build status $rc (want 1)"
if [ "$(grep -c ERROR "$work/nobin.log")" != 1 ] ||
	! grep -q 'ERROR: modpreload: binary not found' "$work/nobin.log"; then
	fail "no binary: not the one error naming it ($(grep -m1 ERROR "$work/nobin.log"))"
fi
printf 'no_such_module\n' >"$s/etc/modpreload.d/40-missing.conf"
build missing "base modpreload" ""
rm -f "$s/etc/modpreload.d/40-missing.conf"
[ "$rc" = 1 ] || fail "missing module: build status $rc (want 1)"
if [ "$(grep -c ERROR "$work/missing.log")" != 1 ] ||
	! grep -q "ERROR: module not found: 'no_such_module'" "$work/missing.log"; then
	fail "missing module: not the one error naming it ($(grep -m1 ERROR "$work/missing.log"))"
fi
verdict mkinitcpio-build-errors

# --- systemd image ------------------------------------------------------------------
build systemd "base systemd modpreload" "ext4"
[ "$rc" = 0 ] || fail "build status $rc ($(grep -m1 ERROR "$work/systemd.log"))"
u=/usr/lib/systemd/system/modpreload.service
same "$u" "$top/mkinitcpio-hook/modpreload.service"
w=/usr/lib/systemd/system/sysinit.target.wants/modpreload.service
[ "$(readlink "$br$w")" = "$u" ] || fail "$w -> $(readlink "$br$w") (want $u)"
same /usr/bin/modpreload "$top/build/modpreload"
hasnt /hooks/modpreload
grep -q modpreload "$br/config" && fail "config names modpreload: $(grep modpreload "$br/config")"
grep -qx ext4 "$br/etc/modules-load.d/MODULES.conf" || fail "no ext4 in MODULES.conf"
if ! systemd-analyze --man=no verify "$top/mkinitcpio-hook/modpreload.service" \
	>"$work/verify.log" 2>&1 || [ -s "$work/verify.log" ]; then
	fail "systemd-analyze verify: $(head -n 1 "$work/verify.log")"
fi
verdict mkinitcpio-build-systemd

# --- make install -------------------------------------------------------------------
d=$work/destdir
if make -s -C "$top" install-mkinitcpio DESTDIR="$d" PREFIX=/usr >"$work/install.log" 2>&1; then
	for f in lib/initcpio/install/modpreload lib/initcpio/hooks/modpreload \
		lib/systemd/system/modpreload.service; do
		[ -f "$d/usr/$f" ] || fail "make install: no /usr/$f"
	done
	cmp -s "$d/usr/lib/initcpio/hooks/modpreload" "$top/mkinitcpio-hook/hooks/modpreload" ||
		fail "make install: hooks/modpreload differs"
else
	fail "make install-mkinitcpio failed: $(tail -n 1 "$work/install.log")"
fi
verdict mkinitcpio-install

# --- shellcheck -------------------------------------------------------------------------
if command -v shellcheck >/dev/null; then
	cd "$top" || exit 0
	# shellcheck disable=SC2046 # file lists
	if ! shellcheck -x mkinitcpio-hook/install/modpreload mkinitcpio-hook/hooks/modpreload \
		harness/mkinitcpio/*.sh harness/mkinitcpio/install/* harness/mkinitcpio/hooks/* \
		harness/mkinitcpio/cases/mkinitcpio-*.sh $(ls bench/mkinitcpio-*.sh 2>/dev/null) \
		>"$work/shellcheck.log" 2>&1; then
		fail "$(grep -c '^In ' "$work/shellcheck.log") findings (build/mkinitcpio/buildtest/shellcheck.log)"
		cat "$work/shellcheck.log" >&2
	fi
	verdict mkinitcpio-shellcheck
else
	echo "SKIP: vm/mkinitcpio-shellcheck: no shellcheck"
fi
exit 0
