#!/bin/sh
# The static musl libraries modpreload and its /init link: scripts/build-libs.sh
# (libkmod, libzstd, liblzma, zlib), then init/build-blkid.sh (libblkid),
# into OUTDIR. Taken from the test cache (scripts/cache.sh) when they were
# built before from the same Debian sources, compiler, target and scripts;
# stored there after a build.
# Usage: scripts/libs.sh OUTDIR   (the environment as for build-libs.sh)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
# shellcheck source=scripts/cache.sh
. "$top/scripts/cache.sh"
cc=${MUSL_CC:-musl-gcc}
cross=${MP_CROSS:-}

# the source versions apt would fetch (bookworm's deb-src), the compiler
# and the musl it wraps. With the cache off (MP_CACHE=off) there is no key
# to make and apt is not asked: a package build (packaging/arch/PKGBUILD)
# has the sources in build/src already, and may have no network or no apt.
sources=
if mp_cache_on; then
	sources=$("$top/scripts/apt.sh" apt-cache showsrc --only-source kmod libzstd xz-utils zlib util-linux |
		awk '/^Package:/ { p = $2 } /^Version:/ { print p "=" $2 }' | sort -u | tr '\n' ' ')
fi
if [ -n "$cross" ]; then
	# shellcheck disable=SC2012 # Debian package file names
	musl=$(ls "$(dirname "$cc")/debs" 2>/dev/null | tr '\n' ' ')
else
	musl=$(dpkg-query -W -f='${Version}' musl-dev 2>/dev/null || :)
fi
key=$(mp_cache_key "target=${cross:-native}" "sources=$sources" "musl=$musl" \
	"cc=$($cc -dumpfullversion 2>/dev/null || $cc -dumpversion)" \
	"$top/scripts/build-libs.sh" "$top/init/build-blkid.sh" "$top/scripts/musl-cross.sh")
name=libs-${cross:-native}

if [ -z "$sources" ] || ! mp_cache_get "$name" "$key" "$out"; then
	fresh=1
	# built again from nothing: libraries made from other scripts or
	# flags would otherwise stay, and be kept under this key
	rm -rf "${out:?}/lib" "${out:?}/include"
else
	fresh=
fi
# after a cache hit these only make the include links (which point into
# this machine's or this clone's trees, so they are not kept)
"$top/scripts/build-libs.sh" "$out"
"$top/init/build-blkid.sh" "$out"
if [ -n "$fresh" ] && [ -n "$sources" ]; then
	mp_cache_put "$name" "$key" "$out" --exclude=./.lock --exclude=./include/linux \
		--exclude=./include/asm --exclude=./include/asm-generic
fi
