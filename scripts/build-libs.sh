#!/bin/sh
# Builds the static musl libraries modpreload links: libkmod (depmod
# indexes), libzstd (decompressor only), liblzma (decoder only) and zlib
# (inflate), from Debian bookworm's source packages. Nothing third-party is
# committed: the sources are fetched into build/src by apt.
# Usage: scripts/build-libs.sh OUTDIR
# Cross builds (the Makefile's ARCH=, see scripts/cross.mk) set MUSL_CC to
# scripts/musl-cross.sh's wrapper, MP_CROSS to the GNU triplet (configure's
# --host), MP_CROSS_INCLUDE to the target's kernel UAPI headers and
# MP_SRC_WORK to a folder of their own for the unpacked sources: a tree
# configured for one architecture is no use to another.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
src=$top/build/src
work=${MP_SRC_WORK:-$src}
cc=${MUSL_CC:-musl-gcc}
cross=${MP_CROSS:-}
ar=${cross:+$cross-}ar
cflags="-Os -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables -fno-unwind-tables -fno-stack-protector"
jobs=$(nproc 2>/dev/null || echo 2)

mkdir -p "$src" "$work" "$out/lib" "$out/include"
# Two makes at once (or two developers) must not build in the same source
# trees: a mixed archive links, then crashes.
exec 9>"$out/.lock"
flock 9

# Unpacked afresh for every build: make would take the objects of an
# earlier build with other flags as up to date.
fetch() { # package -> prints the unpacked directory
	dir=$work/$1
	dsc=$(find "$src/" -maxdepth 1 -name "$1_*.dsc" | head -n 1)
	if [ -z "$dsc" ]; then
		(cd "$src" && "$top/scripts/apt.sh" apt-get -q source --download-only "$1/bookworm" >&2)
		dsc=$(find "$src/" -maxdepth 1 -name "$1_*.dsc" | head -n 1)
	fi
	rm -rf "$dir" "$dir.tmp"
	dpkg-source --no-check -x "$dsc" "$dir.tmp" >&2
	mv "$dir.tmp" "$dir"
	echo "$dir"
}

if [ ! -f "$out/lib/libkmod.a" ]; then
	d=$(fetch kmod)
	# The release tarball lacks gtk-doc's makefile fragment; the docs are
	# not built, so an empty one satisfies automake.
	mkdir -p "$d/libkmod/docs"
	[ -f "$d/libkmod/docs/gtk-doc.make" ] || : >"$d/libkmod/docs/gtk-doc.make"
	(cd "$d" && autoreconf -fi >/dev/null 2>&1 &&
		CC=$cc CFLAGS="$cflags" ./configure -q ${cross:+--host="$cross"} --prefix=/usr --sysconfdir=/etc --disable-manpages \
			--disable-tools --without-openssl --without-xz --without-zlib \
			--without-zstd --disable-gtk-doc --disable-test-modules \
			--disable-logging --disable-debug >/dev/null &&
		make -s -j"$jobs" >/dev/null)
	# (--sysconfdir=/etc: libkmod reads SYSCONFDIR/modprobe.d by default.)
	# kmod 30 refuses --enable-static; its internal convenience archives hold
	# the same objects.
	rm -f "$out/lib/libkmod.a"
	"$ar" -M <<EOT
create $out/lib/libkmod.a
addlib $d/libkmod/.libs/libkmod-internal.a
addlib $d/shared/.libs/libshared.a
save
end
EOT
	cp "$d/libkmod/libkmod.h" "$out/include/"
fi

if [ ! -f "$out/lib/libzstd.a" ]; then
	d=$(fetch libzstd)
	make -s -C "$d/lib" -j"$jobs" libzstd.a CC="$cc" AR="$ar" \
		ZSTD_LIB_COMPRESSION=0 ZSTD_LIB_DICTBUILDER=0 ZSTD_LIB_DEPRECATED=0 \
		ZSTD_LEGACY_SUPPORT=0 \
		CFLAGS="$cflags -DHUF_FORCE_DECOMPRESS_X1 -DZSTD_FORCE_DECOMPRESS_SEQUENCES_SHORT -DZSTD_NO_INLINE -DZSTD_STRIP_ERROR_STRINGS" >/dev/null
	cp "$d/lib/libzstd.a" "$out/lib/"
	cp "$d/lib/zstd.h" "$d/lib/zstd_errors.h" "$out/include/"
fi

if [ ! -f "$out/lib/liblzma.a" ]; then
	d=$(fetch xz-utils)
	(cd "$d" && CC=$cc CFLAGS="$cflags" ./configure -q ${cross:+--host="$cross"} --disable-shared \
		--enable-static --disable-encoders --enable-decoders=lzma1,lzma2,delta,x86 \
		--enable-small --disable-threads --disable-xz --disable-xzdec \
		--disable-lzmadec --disable-lzmainfo --disable-lzma-links \
		--disable-scripts --disable-doc --disable-nls >/dev/null &&
		make -s -j"$jobs" -C src/liblzma >/dev/null)
	cp "$d/src/liblzma/.libs/liblzma.a" "$out/lib/"
	cp -r "$d/src/liblzma/api/lzma.h" "$d/src/liblzma/api/lzma" "$out/include/"
fi

if [ ! -f "$out/lib/libz.a" ]; then
	d=$(fetch zlib)
	# zlib's configure takes the cross tools from CHOST, not --host.
	# DYNAMIC_CRC_TABLE: gzip's CRC tables made at the first use (once,
	# with C11 atomics: workers decompress at once), not 8 KiB of the file.
	(cd "$d" && if [ -n "$cross" ]; then export CHOST="$cross"; fi &&
		CC=$cc CFLAGS="$cflags -DDYNAMIC_CRC_TABLE" ./configure --static >/dev/null &&
		make -s -j"$jobs" libz.a >/dev/null)
	cp "$d/libz.a" "$out/lib/"
	cp "$d/zlib.h" "$d/zconf.h" "$out/include/"
fi

# musl-gcc sees only musl's headers; the few kernel UAPI headers we use
# (netlink) come from the host's linux-libc-dev, or the target's.
if [ -n "$cross" ]; then
	for h in linux asm-generic asm; do
		[ -e "$out/include/$h" ] || ln -s "$MP_CROSS_INCLUDE/$h" "$out/include/$h"
	done
fi
for h in linux asm-generic; do
	[ -e "$out/include/$h" ] || ln -s "/usr/include/$h" "$out/include/$h"
done
[ -e "$out/include/asm" ] || ln -s "/usr/include/$(gcc -print-multiarch)/asm" "$out/include/asm"
