#!/bin/sh
# make rpm (packaging/modpreload.spec, rpmbuild -bb with Debian's rpm):
#   files   rpm -qlp lists exactly the binary, the builder, the man pages,
#           the dracut module, the /init, the analyzer, the booted system's
#           units and their save-report script, README, NEWS and licence (no
#           initramfs-tools or mkinitcpio file: not on RPM distributions);
#           the binary is the tree's; no scriptlet rebuilds an image
#   rpmlint the RPM and the source RPM (make srpm): no error and no warning
#           but those packaging/modpreload.rpmlintrc filters, each with its
#           reason, and no filter that matches nothing (packaging/rpmlint.sh)
# The package is built and inspected here, never installed. Seconds.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
name=pkg-rpm
tmp=$(mktemp -d "$top/build/pkg-rpm.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=harness/lib/verdict.sh
. "$top/harness/lib/verdict.sh"

if ! rpm=$(make -s -C "$top" rpm 2>"$tmp/make.err" | tail -n 1) || [ ! -f "$rpm" ]; then
	echo "FAIL: vm/$name/files: make rpm failed: $(tail -n 3 "$tmp/make.err" | tr '\n' ' ')"
	exit 0
fi
ver=$(cat "$top/VERSION")
cat >"$tmp/want" <<EOT
/usr/lib/dracut/modules.d/50modpreload
/usr/lib/dracut/modules.d/50modpreload/modpreload-pre-udev.sh
/usr/lib/dracut/modules.d/50modpreload/module-setup.sh
/usr/lib/modpreload
/usr/lib/modpreload/analyze
/usr/lib/modpreload/init
/usr/lib/modpreload/save-report
/usr/lib/systemd/system/modpreload-coldplug.service
/usr/lib/systemd/system/modpreload-names.service
/usr/lib/systemd/system/modpreload-save-report.service
/usr/sbin/modpreload
/usr/sbin/modpreload-mkinitramfs
/usr/share/doc/modpreload-$ver
/usr/share/doc/modpreload-$ver/NEWS.md
/usr/share/doc/modpreload-$ver/README.md
/usr/share/licenses/modpreload-$ver
/usr/share/licenses/modpreload-$ver/copyright
/usr/share/man/man8/modpreload-mkinitramfs.8.gz
/usr/share/man/man8/modpreload.8.gz
EOT
rpm -qlp "$rpm" 2>/dev/null | LC_ALL=C sort >"$tmp/got"
cmp -s "$tmp/want" "$tmp/got" || fail "rpm -qlp differs: $(diff "$tmp/want" "$tmp/got" | grep '^[<>]' | tr '\n' ' ')"
mkdir -p "$tmp/x"
(cd "$tmp/x" && rpm2cpio "$rpm" | cpio -id --quiet) 2>/dev/null
cmp -s "$tmp/x/usr/sbin/modpreload" "$top/build/modpreload" || fail "/usr/sbin/modpreload is not build/modpreload"
if rpm -qp --scripts "$rpm" 2>/dev/null | grep -qE 'dracut|initramfs|mkinitcpio'; then
	fail "a scriptlet builds images: $(rpm -qp --scripts "$rpm" | tr '\n' ' ')"
fi
verdict "$name/files" "${rpm##*/}: $(wc -l <"$tmp/got") paths"

# --- rpmlint --------------------------------------------------------------
# rpmlint (quick when it is there)
"$top/scripts/deps.sh" >&2 || fail "scripts/deps.sh failed"
if "$top/packaging/rpmlint.sh" >"$tmp/rpmlint.out" 2>&1; then
	verdict "$name/rpmlint" "$(tail -n 1 "$tmp/rpmlint.out" | sed 's/; has taken.*//'), $(grep -c '^addFilter' \
		"$top/packaging/modpreload.rpmlintrc") filters, each with its reason"
else
	fail "$(grep -E ': [EW]: |rpmlint.sh:' "$tmp/rpmlint.out" | head -n 5 | tr '\n' ' ')$(tail -n 1 "$tmp/rpmlint.out")"
	verdict "$name/rpmlint"
fi
