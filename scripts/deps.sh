#!/bin/sh
# Installs what building and testing modpreload needs, from the host's
# Debian/Ubuntu archive. Kernels and sources are not installed: the build
# and the tests fetch them into build/ themselves (scripts/apt.sh).
# Quiet and quick when everything is already there.
set -eu
pkgs="build-essential musl-tools clang libclang-rt-14-dev llvm groff-base
libkmod-dev libzstd-dev liblzma-dev zlib1g-dev libblkid-dev
kmod zstd xz-utils gzip cpio jq file python3
autoconf automake libtool pkg-config gettext autopoint dpkg-dev debian-archive-keyring
qemu-system-x86 qemu-system-arm gcc-aarch64-linux-gnu busybox-static dracut-core initramfs-tools-core systemd udev
e2fsprogs xfsprogs btrfs-progs dosfstools fdisk
flex bison libelf-dev bc libssl-dev rsync
shellcheck gnuplot-nox valgrind
debhelper lintian rpm rpmlint mmdebstrap makepkg libarchive-tools fakeroot"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing" >&2
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086 # a list of package names
$sudo apt-get -q update >/dev/null && $sudo apt-get -q install -y --no-install-recommends $missing >/dev/null
