#!/bin/sh
# make pkg-arch: the Arch Linux package, built by makepkg from
# packaging/arch/PKGBUILD and `make dist`'s tarball, offline, in build/arch:
#   build/arch/PKGBUILD   the tree's, with pkgver checked against VERSION and
#                         the tarball's sha256 filled in (it changes with
#                         every commit, so the tree's file has a placeholder)
#   build/arch/src        makepkg's SRCDEST: the tarball and the Debian
#                         source packages the PKGBUILD names (from build/src
#                         when `make` fetched them there, else through apt,
#                         scripts/apt.sh), so makepkg downloads nothing
#   build/arch/modpreload-VERSION-1-x86_64.pkg.tar.zst
#
# makepkg runs with --skippgpcheck: two upstream tarballs come with their
# .asc (libzstd's, xz-utils'), whose keys are not in this machine's keyring
# (no keyserver offline); the sha256sums pin every file all the same.
# And with --nodeps: its dependency check asks pacman, which has no
# database outside Arch; the Debian packages that stand in for makedepends
# are scripts/deps.sh's (musl-tools, dpkg-dev, autoconf, ...). makepkg
# refuses to run as root: as root, it runs as nobody. The checksums are
# checked all the same (build/arch/src against the PKGBUILD's sha256sums).
#
# Prints the path of the package. Needs makepkg, fakeroot, libarchive-tools
# and zstd (scripts/deps.sh). Several minutes: the static libraries are
# built from their sources, as on Arch.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/arch
ver=$(cat "$top/VERSION")

for t in makepkg fakeroot bsdtar zstd dpkg-source musl-gcc; do
	command -v "$t" >/dev/null 2>&1 || { echo "build.sh: no $t (scripts/deps.sh installs it)" >&2; exit 1; }
done
pkgver=$(sed -n 's/^pkgver=//p' "$top/packaging/arch/PKGBUILD")
[ "$pkgver" = "$ver" ] || { echo "build.sh: the PKGBUILD's pkgver is $pkgver, VERSION is $ver" >&2; exit 1; }

tarball=$(make -s -C "$top" dist | tail -n 1)
[ -f "$tarball" ] || { echo "build.sh: make dist made no tarball ($tarball)" >&2; exit 1; }
sum=$(sha256sum "$tarball" | cut -d' ' -f1)

rm -rf "$out"
mkdir -p "$out/src" "$out/work" "$out/home"
cp "$tarball" "$out/src/"
sed "s/'@DIST_SHA256@'/'$sum'/" "$top/packaging/arch/PKGBUILD" >"$out/PKGBUILD"
grep -q "'$sum'" "$out/PKGBUILD" || { echo "build.sh: no @DIST_SHA256@ in the PKGBUILD" >&2; exit 1; }

# the Debian sources, by the names the PKGBUILD gives them
# shellcheck disable=SC2016 # expanded by that bash
files=$(cd "$out" && bash -c '. ./PKGBUILD && printf "%s\n" "${source[@]:1}"' | sed 's|.*/||')
for f in $files; do
	if [ -f "$top/build/src/$f" ]; then cp "$top/build/src/$f" "$out/src/"; fi
done
for dsc in $(echo "$files" | grep '\.dsc$'); do
	[ -f "$out/src/$dsc" ] && continue
	# NAME_VERSION.dsc -> NAME=VERSION (the epoch-less version apt knows)
	base=${dsc%.dsc}
	(cd "$out/src" && "$top/scripts/apt.sh" apt-get -q source --download-only "${base%%_*}=${base#*_}" >&2)
done
for f in $files; do
	[ -f "$out/src/$f" ] || { echo "build.sh: $f: neither in build/src nor from apt" >&2; exit 1; }
done

# makepkg will not run as root
run=
if [ "$(id -u)" = 0 ]; then
	chown -R nobody:nogroup "$out"
	run="setpriv --reuid=nobody --regid=nogroup --clear-groups --reset-env"
fi
# the commit's time, for the files' times and .PKGINFO's builddate
epoch=$(git -C "$top" log -1 --format=%ct 2>/dev/null) || epoch=$(date +%s)
rc=0
(cd "$out" && $run env PATH="$PATH" HOME="$out/home" LC_ALL=C.UTF-8 \
	SRCDEST="$out/src" BUILDDIR="$out/work" PKGDEST="$out" LOGDEST="$out" \
	PKGEXT=.pkg.tar.zst SOURCE_DATE_EPOCH="$epoch" \
	PACKAGER="modpreload maintainers <maintainers@users.noreply.a-seed-be1cf513.example>" \
	makepkg --nodeps --skippgpcheck --noconfirm --nocolor --cleanbuild --clean --log) >"$out/makepkg.log" 2>&1 || rc=$?
if [ "$(id -u)" = 0 ]; then chown -R 0:0 "$out"; fi
if [ "$rc" != 0 ]; then
	tail -n 20 "$out/makepkg.log" >&2
	echo "build.sh: makepkg failed (see $out/makepkg.log)" >&2
	exit 1
fi
ls "$out"/modpreload-"$ver"-*-x86_64.pkg.tar.zst
