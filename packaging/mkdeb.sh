#!/bin/sh
# make deb: the Debian package, built by dpkg-buildpackage with debian/ from
# a copy of the source tree under build/deb, so that nothing it writes (its
# output goes to the parent directory) lands outside build/ or in the tree.
# The copy shares build/libs and build/src with this tree: the static
# libraries are not built again.
#
# Prints the path of the .deb. Needs dpkg-dev and debhelper (scripts/deps.sh).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/deb
ver=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
src=$out/modpreload-${ver%-*}

rm -rf "$out"
mkdir -p "$src/build"
# the files git knows, committed or not, as they are now; in an unpacked
# `make dist` tarball (not a git tree's top, even if it lies inside one)
# every file but build/'s
if [ "$(cd "$top" && git rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$top" && pwd -P)" ]; then
	(cd "$top" && git ls-files -z --cached --others --exclude-standard)
else
	(cd "$top" && find . -path ./build -prune -o -type f -print0)
fi | (cd "$top" && tar -c --null -T - -f -) | tar -x -C "$src" -f -
for d in libs src apt; do
	if [ -e "$top/build/$d" ]; then ln -s "$(readlink -f "$top/build/$d")" "$src/build/$d"; fi
done
(cd "$src" && dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1 || {
	tail -n 20 "$out/build.log" >&2
	echo "mkdeb.sh: dpkg-buildpackage failed (see $out/build.log)" >&2
	exit 1
}
rm -rf "$src"
ls "$out"/modpreload_*.deb
