#!/bin/sh
# Post-build script of modpreload_qemu_aarch64_virt_defconfig: Debian's
# arm64 kernel modules into the root, when MODPRELOAD_BR_MODULES names a
# folder with lib/modules/VERSION/ in it (linux-image-VERSION's .deb
# unpacked with dpkg -x; no kernel is built here). The .deb has no
# modules.dep and no index files (its postinst makes them): the host's
# depmod makes them here, for that tree.
# Usage (Buildroot): post-build.sh TARGET_DIR
set -eu
target=$1
mods=${MODPRELOAD_BR_MODULES:-}
if [ -z "$mods" ]; then
	echo "post-build.sh: MODPRELOAD_BR_MODULES is not set: no kernel modules in the image"
	exit 0
fi
found=
for m in "$mods"/lib/modules/*/; do
	[ -d "$m/kernel" ] || continue
	ver=$(basename "$m")
	mkdir -p "$target/lib/modules"
	rm -rf "${target:?}/lib/modules/$ver"
	cp -a "${m%/}" "$target/lib/modules/$ver"
	depmod=$(command -v depmod || echo /sbin/depmod)
	"$depmod" -b "$target" "$ver"
	echo "post-build.sh: $ver's modules ($(find "$target/lib/modules/$ver" -name '*.ko*' | wc -l)) in the image"
	found=1
done
[ -n "$found" ] || { echo "post-build.sh: no lib/modules/VERSION/kernel under $mods" >&2; exit 1; }
