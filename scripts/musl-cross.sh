#!/bin/sh
# A musl-gcc for another architecture, made from Debian's own parts: the
# host's cross gcc (gcc-aarch64-linux-gnu, gcc-arm-linux-gnueabihf), and
# musl-dev and linux-libc-dev of the target architecture, downloaded by
# scripts/apt.sh and unpacked under OUTDIR/sysroot, never installed. Debian's
# musl-gcc.specs names /usr/...-linux-musl paths: they are rewritten to point
# into the sysroot. No third-party toolchain is downloaded.
# Usage: scripts/musl-cross.sh ARCH OUTDIR    (ARCH: arm64 or armhf)
# Writes OUTDIR/musl-gcc (a wrapper like musl-tools' own) and
# OUTDIR/sysroot/usr/include/{linux,asm,asm-generic} (the kernel's UAPI).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
arch=$1
out=$(mkdir -p "$2" && cd "$2" && pwd)
case $arch in
arm64) gnu=aarch64-linux-gnu musl=aarch64-linux-musl ;;
armhf) gnu=arm-linux-gnueabihf musl=arm-linux-musleabihf ;;
*) echo "musl-cross.sh: unknown architecture '$arch' (arm64 or armhf)" >&2; exit 2 ;;
esac
command -v "$gnu-gcc" >/dev/null || {
	echo "musl-cross.sh: no $gnu-gcc (scripts/deps.sh installs it)" >&2
	exit 1
}

sys=$out/sysroot
debs=$out/debs
if [ ! -f "$sys/.done" ]; then
	rm -rf "$sys" "$debs"
	mkdir -p "$sys" "$debs"
	# bookworm's musl, as the host's musl-tools
	(cd "$debs" && MP_APT_ARCH=$arch "$top/scripts/apt.sh" apt-get -q download \
		musl-dev/bookworm musl/bookworm linux-libc-dev/bookworm >&2)
	for d in "$debs"/*.deb; do dpkg -x "$d" "$sys"; done
	: >"$sys/.done"
fi
lib=$sys/usr/lib/$musl
[ -f "$lib/musl-gcc.specs" ] || { echo "musl-cross.sh: no $lib/musl-gcc.specs" >&2; exit 1; }
# armhf: libgcc's division by zero (__aeabi_ldiv0) calls libc's raise(),
# and the specs name libgcc after libc: every dynamic link test of a
# configure script then fails, and it guesses functions missing.
libc_again=
[ "$arch" != armhf ] || libc_again=' -lc'
sed -e "s|/usr/include/$musl|$sys/usr/include/$musl|g" \
	-e "s|/usr/lib/$musl|$lib|g" \
	-e "s|^libgcc.a%s %:if-exists(libgcc_eh.a%s)\$|&$libc_again|" \
	"$lib/musl-gcc.specs" >"$out/musl-gcc.specs"
# linux-libc-dev:ARCH puts asm/ under the multiarch folder
inc=$sys/usr/include
[ -e "$inc/asm" ] || ln -s "$gnu/asm" "$inc/asm"
cat >"$out/musl-gcc.tmp" <<EOT
#!/bin/sh
# Written by scripts/musl-cross.sh: $gnu-gcc with $arch's musl.
exec $gnu-gcc "\$@" -specs "$out/musl-gcc.specs"
EOT
chmod 755 "$out/musl-gcc.tmp"
mv "$out/musl-gcc.tmp" "$out/musl-gcc"
