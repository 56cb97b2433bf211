#!/bin/sh
# Builds util-linux's libblkid as a static musl library for /init, which
# finds root=UUID=, LABEL=, PARTUUID= and PARTLABEL= devices with it. The
# source is Debian bookworm's util-linux package, fetched into build/src by
# apt like scripts/build-libs.sh fetches kmod; nothing third-party is
# committed.
# Usage: init/build-blkid.sh OUTDIR     (writes OUTDIR/lib/libblkid.a and
#                                        OUTDIR/include/blkid/blkid.h)
# Cross builds: MUSL_CC, MP_CROSS and MP_SRC_WORK as for scripts/build-libs.sh.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
src=$top/build/src
work=${MP_SRC_WORK:-$src}
cc=${MUSL_CC:-musl-gcc}
cross=${MP_CROSS:-}
# -I: musl-gcc sees only musl's headers; scripts/build-libs.sh links the
# kernel UAPI headers (linux/, asm/) into OUTDIR/include.
cflags="-Os -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables -fno-unwind-tables -fno-stack-protector -I$out/include"
jobs=$(nproc 2>/dev/null || echo 2)

[ -f "$out/lib/libblkid.a" ] && [ -f "$out/include/blkid/blkid.h" ] && exit 0
[ -e "$out/include/linux" ] || {
	echo "build-blkid.sh: run scripts/build-libs.sh $out first (kernel headers)" >&2
	exit 1
}
mkdir -p "$src" "$work" "$out/lib" "$out/include/blkid"

# unpacked afresh, as scripts/build-libs.sh does: no objects of other flags
dir=$work/util-linux
for dsc in "$src"/util-linux_*.dsc; do break; done
if [ ! -f "$dsc" ]; then
	(cd "$src" && "$top/scripts/apt.sh" apt-get -q source --download-only util-linux/bookworm >&2)
	for dsc in "$src"/util-linux_*.dsc; do break; done
fi
rm -rf "$dir" "$dir.tmp"
dpkg-source --no-check -x "$dsc" "$dir.tmp" >/dev/null
mv "$dir.tmp" "$dir"

# Only the library: no programs, no udev/systemd/selinux, no translations.
# The release tarball ships a generated configure, so no autoreconf.
(cd "$dir" && CC=$cc CFLAGS="$cflags" ./configure -q ${cross:+--host="$cross"} \
	--disable-all-programs --enable-libblkid --disable-shared --enable-static \
	--disable-nls --disable-asciidoc --disable-bash-completion --disable-poman \
	--without-udev --without-systemd --without-selinux --without-econf \
	--without-cryptsetup --without-python --without-readline \
	--without-ncursesw --without-ncurses --without-tinfo --without-user \
	--without-btrfs >/dev/null &&
	make -s -j"$jobs" libblkid.la >/dev/null 2>&1)
# libtool folds util-linux's libcommon into the archive.
cp "$dir/.libs/libblkid.a" "$out/lib/libblkid.a.tmp"
mv "$out/lib/libblkid.a.tmp" "$out/lib/libblkid.a"
cp "$dir/libblkid/src/blkid.h" "$out/include/blkid/blkid.h"
for dsc in "$src"/util-linux_*.dsc; do break; done
echo "build-blkid.sh: $out/lib/libblkid.a from $(basename "$dsc" .dsc)" >&2
