#!/bin/sh
# The Debian package, without installing it (make deb, packaging/mkdeb.sh):
#   build     dpkg-buildpackage from debian/ makes build/deb/*.deb, and
#             nothing outside build/ changes in the tree
#   lintian   no error or warning but the overridden ones (each override
#             says why in debian/modpreload.lintian-overrides)
#   files     dpkg-deb -c: the binaries, man pages, dracut module,
#             initramfs-tools hook and script (executable), mkinitcpio hook,
#             the unit, the /init and its builder; the binary is the tree's
#   scripts   no update-initramfs trigger; postinst and prerm rebuild no
#             initramfs: run in a scratch
#             directory with stand-ins for update-initramfs, dracut and
#             mkinitcpio first on PATH, none of them is called, and both say
#             that no image was rebuilt
# About a minute.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
name=pkg-deb
# shellcheck source=harness/lib/verdict.sh
. "$top/harness/lib/verdict.sh"
tmp=$(mktemp -d "$top/build/pkg-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# --- build ----------------------------------------------------------------
before=$(cd "$top" && git status --porcelain --ignored=no | LC_ALL=C sort)
if ! deb=$(make -s -C "$top" deb 2>"$tmp/make.err"); then
	echo "FAIL: vm/$name/build: make deb failed: $(tail -n 3 "$tmp/make.err" | tr '\n' ' ')"
	exit 0
fi
deb=$(echo "$deb" | tail -n 1)
[ -f "$deb" ] || fail "make deb printed '$deb', which is no file"
case $deb in "$top"/build/deb/modpreload_*_amd64.deb) ;; *) fail "the package is $deb, not build/deb/modpreload_*_amd64.deb" ;; esac
after=$(cd "$top" && git status --porcelain --ignored=no | LC_ALL=C sort)
[ "$before" = "$after" ] || fail "make deb changed the tree: $(printf '%s\n%s\n' "$before" "$after" | sort | uniq -u | tr '\n' ' ')"
verdict "$name/build" "${deb##*/}"
[ -f "$deb" ] || exit 0

# --- lintian --------------------------------------------------------------
lintian "$deb" >"$tmp/lintian.out" 2>&1
grep -E '^[EW]: ' "$tmp/lintian.out" >"$tmp/lintian.bad"
[ ! -s "$tmp/lintian.bad" ] || fail "$(tr '\n' ' ' <"$tmp/lintian.bad")"
verdict "$name/lintian" "$(lintian --show-overrides "$deb" 2>/dev/null | grep -c '^O: ') tags overridden, each with its reason"

# --- files ----------------------------------------------------------------
dpkg-deb -c "$deb" | awk '{ print $1, substr($6, 2) }' >"$tmp/files"
for want in '-rwxr-xr-x /usr/sbin/modpreload' '-rwxr-xr-x /usr/sbin/modpreload-mkinitramfs' \
	'-rwxr-xr-x /usr/lib/modpreload/init' '-rwxr-xr-x /usr/lib/modpreload/analyze' \
	'-rw-r--r-- /usr/share/man/man8/modpreload.8.gz' '-rw-r--r-- /usr/share/man/man8/modpreload-mkinitramfs.8.gz' \
	'-rwxr-xr-x /usr/lib/dracut/modules.d/50modpreload/module-setup.sh' \
	'-rwxr-xr-x /usr/lib/dracut/modules.d/50modpreload/modpreload-pre-udev.sh' \
	'-rwxr-xr-x /usr/share/initramfs-tools/hooks/modpreload' \
	'-rwxr-xr-x /usr/share/initramfs-tools/scripts/init-top/modpreload' \
	'-rw-r--r-- /usr/lib/initcpio/install/modpreload' '-rw-r--r-- /usr/lib/initcpio/hooks/modpreload' \
	'-rw-r--r-- /usr/lib/systemd/system/modpreload.service' \
	'-rw-r--r-- /usr/lib/systemd/system/modpreload-coldplug.service' \
	'-rw-r--r-- /usr/lib/systemd/system/modpreload-names.service' \
	'-rw-r--r-- /usr/lib/systemd/system/modpreload-save-report.service' \
	'-rwxr-xr-x /usr/lib/modpreload/save-report' \
	'-rw-r--r-- /usr/share/doc/modpreload/copyright'; do
	grep -qxF -- "$want" "$tmp/files" || fail "no $want"
done
# nothing in /etc: no conffile turns an integration on
if grep -q ' /etc/' "$tmp/files"; then fail "ships files in /etc: $(grep ' /etc/' "$tmp/files" | tr '\n' ' ')"; fi
dpkg-deb -x "$deb" "$tmp/x"
cmp -s "$tmp/x/usr/sbin/modpreload" "$top/build/modpreload" || fail "/usr/sbin/modpreload is not build/modpreload"
for f in initramfs-tools/hooks/modpreload initramfs-tools/scripts/init-top/modpreload; do
	cmp -s "$tmp/x/usr/share/$f" "$top/$f" || fail "/usr/share/$f differs from the tree's"
done
verdict "$name/files" "$(grep -c '^-' "$tmp/files") files"

# --- scripts --------------------------------------------------------------
dpkg-deb -e "$deb" "$tmp/ctl"
mkdir -p "$tmp/bin"
for t in update-initramfs mkinitramfs dracut mkinitcpio; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/called"\n' "$t" "$tmp" >"$tmp/bin/$t"
	chmod 755 "$tmp/bin/$t"
done
for s in "postinst configure" "prerm remove"; do
	# shellcheck disable=SC2086 # "script argument", split on purpose
	set -- $s
	if [ ! -x "$tmp/ctl/$1" ]; then
		fail "no $1"
		continue
	fi
	out=$(cd "$tmp" && PATH="$tmp/bin:$PATH" "$tmp/ctl/$1" "$2" 2>&1) || fail "$1 $2 failed: $out"
	case $out in *"no initramfs was rebuilt"*) ;; *) fail "$1 $2 does not say that no initramfs was rebuilt: $out" ;; esac
done
[ ! -e "$tmp/called" ] || fail "the maintainer scripts ran $(tr '\n' ' ' <"$tmp/called")"
# dh_installinitramfs' trigger would have dpkg run update-initramfs
if grep -qs 'initramfs' "$tmp/ctl/triggers"; then fail "triggers: $(tr '\n' ' ' <"$tmp/ctl/triggers")"; fi
verdict "$name/scripts"
