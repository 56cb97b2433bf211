#!/bin/sh
# tier: full
# make pkg-arch (packaging/arch/build.sh: makepkg from packaging/arch/PKGBUILD
# and `make dist`'s tarball, offline, --nodeps: pacman has no database here):
#   build     the package is build/arch/modpreload-VERSION-1-x86_64.pkg.tar.zst,
#             makepkg checked every source's sha256, and nothing outside
#             build/ changes in the tree
#   files     bsdtar -tvf: the binary and the image builder in /usr/bin
#             (Arch merged /usr/sbin into it: nothing in /usr/sbin), the
#             mkinitcpio hook and install script in /usr/lib/initcpio, the
#             units in /usr/lib/systemd/system, the dracut module, the /init
#             and the analyzer in /usr/lib/modpreload, the man pages, the
#             licence in /usr/share/licenses/modpreload; nothing in /etc and
#             no initramfs-tools file; the hook files are the tree's, the
#             coldplug unit runs /usr/bin/modpreload, the binary is static
#             and says VERSION
#   pkginfo   .PKGINFO: name, VERSION-1, x86_64, the licences, no run-time
#             depends (static), mkinitcpio among the optdepends; no .INSTALL
#             (no scriptlet rebuilds an image)
# The package is built and inspected here, never installed. Several minutes:
# makepkg builds the static libraries from their Debian sources.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
name='pkg-arch'
# shellcheck source=harness/lib/verdict.sh
. "$top/harness/lib/verdict.sh"
mkdir -p "$top/build"
tmp=$(mktemp -d "$top/build/pkg-arch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# makepkg, bsdtar and their kind (quick when they are there)
"$top/scripts/deps.sh" >&2 || { echo "FAIL: vm/$name/build: scripts/deps.sh failed"; exit 0; }
ver=$(cat "$top/VERSION")

# --- build ----------------------------------------------------------------
before=$(cd "$top" && git status --porcelain --ignored=no | LC_ALL=C sort)
if ! pkg=$(make -s -C "$top" pkg-arch 2>"$tmp/make.err" | tail -n 1) || [ ! -f "$pkg" ]; then
	echo "FAIL: vm/$name/build: make pkg-arch failed: $(tail -n 3 "$tmp/make.err" | tr '\n' ' ')"
	exit 0
fi
eq "the package" "$pkg" "$top/build/arch/modpreload-$ver-1-x86_64.pkg.tar.zst"
grep -q 'Validating source files with sha256sums' "$top/build/arch/makepkg.log" ||
	fail "makepkg did not validate the sources' sha256sums"
if grep -E '(FAILED|SKIPPED)$' "$top/build/arch/makepkg.log" | grep -q .; then
	fail "sources not verified: $(grep -E '(FAILED|SKIPPED)$' "$top/build/arch/makepkg.log" | tr '\n' ' ')"
fi
grep -q "'@DIST_SHA256@'" "$top/build/arch/PKGBUILD" && fail "build/arch/PKGBUILD kept the placeholder"
after=$(cd "$top" && git status --porcelain --ignored=no | LC_ALL=C sort)
[ "$before" = "$after" ] || fail "make pkg-arch changed the tree: $(printf '%s\n%s\n' "$before" "$after" | sort | uniq -u | tr '\n' ' ')"
verdict "$name/build" "${pkg##*/}, $(grep -c ' Passed$' "$top/build/arch/makepkg.log") sources verified"

# --- files ----------------------------------------------------------------
# mode and path, directories with their trailing /
bsdtar -tvf "$pkg" | awk '{ print $1, $NF }' | grep -v ' \.[A-Z]' >"$tmp/files"
for want in '-rwxr-xr-x usr/bin/modpreload' '-rwxr-xr-x usr/bin/modpreload-mkinitramfs' \
	'-rwxr-xr-x usr/lib/modpreload/init' '-rwxr-xr-x usr/lib/modpreload/analyze' \
	'-rwxr-xr-x usr/lib/modpreload/save-report' \
	'-rw-r--r-- usr/lib/initcpio/hooks/modpreload' '-rw-r--r-- usr/lib/initcpio/install/modpreload' \
	'-rw-r--r-- usr/lib/systemd/system/modpreload.service' \
	'-rw-r--r-- usr/lib/systemd/system/modpreload-coldplug.service' \
	'-rw-r--r-- usr/lib/systemd/system/modpreload-names.service' \
	'-rw-r--r-- usr/lib/systemd/system/modpreload-save-report.service' \
	'-rwxr-xr-x usr/lib/dracut/modules.d/50modpreload/module-setup.sh' \
	'-rwxr-xr-x usr/lib/dracut/modules.d/50modpreload/modpreload-pre-udev.sh' \
	'-rw-r--r-- usr/share/man/man8/modpreload.8.gz' '-rw-r--r-- usr/share/man/man8/modpreload-mkinitramfs.8.gz' \
	'-rw-r--r-- usr/share/licenses/modpreload/copyright' \
	'-rw-r--r-- usr/share/doc/modpreload/README.md' '-rw-r--r-- usr/share/doc/modpreload/NEWS.md'; do
	grep -qxF -- "$want" "$tmp/files" || fail "no $want"
done
# every file is one of those: nothing else slipped in
n=$(grep -c '^-' "$tmp/files")
[ "$n" = 17 ] || fail "$n files, want 17: $(grep '^-' "$tmp/files" | cut -d' ' -f2 | tr '\n' ' ')"
for bad in usr/sbin/ etc/ usr/share/initramfs-tools/ usr/local/; do
	if grep -q " $bad" "$tmp/files"; then fail "ships $bad: $(grep " $bad" "$tmp/files" | tr '\n' ' ')"; fi
done
mkdir -p "$tmp/x"
bsdtar -xf "$pkg" -C "$tmp/x"
for f in hooks/modpreload install/modpreload; do
	cmp -s "$tmp/x/usr/lib/initcpio/$f" "$top/mkinitcpio-hook/$f" || fail "/usr/lib/initcpio/$f differs from the tree's"
done
cmp -s "$tmp/x/usr/lib/systemd/system/modpreload.service" "$top/mkinitcpio-hook/modpreload.service" ||
	fail "modpreload.service differs from the tree's"
grep -q '^ExecStart=-/usr/bin/modpreload ' "$tmp/x/usr/lib/systemd/system/modpreload-coldplug.service" ||
	fail "modpreload-coldplug.service: $(grep '^ExecStart' "$tmp/x/usr/lib/systemd/system/modpreload-coldplug.service")"
if grep -rq '/usr/sbin/modpreload' "$tmp/x/usr/lib/systemd/system"; then fail "a unit names /usr/sbin/modpreload"; fi
file "$tmp/x/usr/bin/modpreload" | grep -q 'statically linked' || fail "/usr/bin/modpreload: $(file -b "$tmp/x/usr/bin/modpreload")"
got=$("$tmp/x/usr/bin/modpreload" --version 2>&1 | head -n 1)
case $got in *" $ver") ;; *) fail "/usr/bin/modpreload --version says '$got'" ;; esac
verdict "$name/files" "$n files"

# --- pkginfo --------------------------------------------------------------
bsdtar -xOf "$pkg" .PKGINFO >"$tmp/pkginfo"
expect_line() { grep -qxF -- "$1" "$tmp/pkginfo" || fail ".PKGINFO has no '$1'"; }
expect_line 'pkgname = modpreload'
expect_line "pkgver = $ver-1"
expect_line 'arch = x86_64'
expect_line 'license = LGPL-2.1-or-later'
expect_line 'makedepend = musl'
grep -q '^optdepend = mkinitcpio: ' "$tmp/pkginfo" || fail ".PKGINFO has no optdepend on mkinitcpio"
if grep -q '^depend = ' "$tmp/pkginfo"; then fail "run-time depends: $(grep '^depend = ' "$tmp/pkginfo" | tr '\n' ' ')"; fi
if bsdtar -tf "$pkg" | grep -qx '.INSTALL'; then fail "an .INSTALL scriptlet: $(bsdtar -xOf "$pkg" .INSTALL | tr '\n' ' ')"; fi
size=$(sed -n 's/^size = //p' "$tmp/pkginfo")
verdict "$name/pkginfo" "$(grep -c ' = ' "$tmp/pkginfo") fields, installed size $size bytes"
