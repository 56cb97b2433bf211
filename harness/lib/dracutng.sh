#!/bin/sh
# dracut-ng as its users have it, built from its source into a private
# prefix: the release a Debian suite carries (sid: dracut-ng 112 in
# 2026-12), its upstream tarball from Debian's mirror, never installed on the
# host. The harness builds images with it (harness/lib/dracutimage.sh,
# DR_DRACUT) beside Debian bookworm's own dracut 059.
#
# Usage: harness/lib/dracutng.sh [SUITE]      (default: sid)
#   prints "VERSION DIR": DIR holds usr/bin/dracut and usr/lib/dracut
#   (dracutbasedir), as `make install DESTDIR=DIR` left them
#   exit 2: the mirror could not be read and nothing is cached; 1: the
#   build failed
#
# Only deb.debian.org (MP_DEBIAN_MIRROR), the way apt trusts it: the
# suite's InRelease checked by gpgv against debian-archive-keyring, the
# sha256 of main/source/Sources.xz from it, the sha256 of the source's
# files from that Sources stanza. The mirror here holds the .orig tarball
# but not always the .dsc or the Debian diff, so what is built is the
# upstream release (./configure, make, make install): Debian's patches
# are not applied. Its C helpers (dracut-install, skipcpio, dracut-util)
# need gcc, pkg-config and libkmod-dev; no documentation, no dracut-cpio
# (Rust).
#
# The result is a test-cache entry (scripts/cache.sh, "dracut-ng"), keyed by
# the suite, the .dsc's and the tarball's sha256 (from Sources), this
# script, the compiler and libkmod; what Sources says is looked up at most
# once a day (MP_DRACUT_NG_REFRESH=1: now). Without the network, the last
# lookup is used. Cold (look-up, download, configure, make, install) it
# took 5 s here on a busy 2-core host; from the cache a fraction of one.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/cache.sh
. "$top/scripts/cache.sh"
suite=${1:-sid}
mirror=${MP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
work=$top/build/dracut-ng/$suite
cdir=$(mp_cache_dir dracut-ng)
lookup=$cdir/lookup-$suite

log() { printf 'dracutng.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# the mirror gave nothing usable (no network, a mirror mid-sync): exit 2,
# which the harness reports as a skip naming the cause, not as dracut's fault
unreachable() { log "error: $*"; exit 2; }

# get URL FILE [SHA256]: FILE from the mirror, checked when a sum is given;
# three tries, a few seconds apart, for a mirror or proxy that fails a
# request for a moment
get() {
	for _try in 1 2 3; do
		rm -f "$2"
		_err=$(/usr/lib/apt/apt-helper -o APT::Sandbox::User=root download-file "$1" "$2" 2>&1 >/dev/null) &&
			break
		log "could not fetch $1 (try $_try of 3): $(printf '%s\n' "$_err" | tail -n 1)"
		[ "$_try" = 3 ] && return 1
		sleep $((_try * 3))
	done
	[ -z "${3:-}" ] || printf '%s  %s\n' "$3" "$2" | sha256sum -c --status ||
		{ log "$1: sha256 is not $3"; rm -f "$2"; return 1; }
}

# look_up: the suite's dracut stanza, from signed metadata, as lines
# "version V", "dir D", "dsc SHA NAME", "orig SHA NAME"
look_up() {
	mkdir -p "$work"
	get "$mirror/dists/$suite/InRelease" "$work/InRelease" || return 1
	gpgv --keyring "$keyring" --output "$work/Release" "$work/InRelease" 2>"$work/gpgv.log" ||
		{ log "$suite's InRelease: bad signature (see $work/gpgv.log)"; return 1; }
	_sum=$(awk '/^SHA256:/ { s = 1; next } /^[^ ]/ { s = 0 }
		s && $3 == "main/source/Sources.xz" { print $1 }' "$work/Release")
	[ -n "$_sum" ] || { log "$suite's Release names no main/source/Sources.xz"; return 1; }
	# by hash first: the file Release was signed with, even while the
	# mirror updates
	get "$mirror/dists/$suite/main/source/by-hash/SHA256/$_sum" "$work/Sources.xz" "$_sum" ||
		get "$mirror/dists/$suite/main/source/Sources.xz" "$work/Sources.xz" "$_sum" || return 1
	xz -dc "$work/Sources.xz" | awk '
		/^$/ { if (p) exit; next }
		/^Package: / { p = ($2 == "dracut"); next }
		!p { next }
		/^Version: / { print "version " $2 }
		/^Directory: / { print "dir " $2 }
		/^[^ ]/ { sha = ($1 == "Checksums-Sha256:"); next }
		sha && $3 ~ /\.dsc$/ { print "dsc " $1 " " $3 }
		sha && $3 ~ /\.orig\.tar\.[a-z0-9]+$/ { print "orig " $1 " " $3 }'
}

field() { awk -v k="$1" -v n="${2:-2}" '$1 == k { print $n; exit }' "$lookup"; }

mkdir -p "$cdir"
if [ -n "${MP_DRACUT_NG_REFRESH:-}" ] || [ ! -s "$lookup" ] || [ -n "$(find "$lookup" -mmin +1440)" ]; then
	if out=$(look_up) && printf '%s\n' "$out" | grep -q '^orig ' && printf '%s\n' "$out" | grep -q '^version '; then
		printf '%s\n' "$out" >"$lookup.tmp"
		mv "$lookup.tmp" "$lookup"
	elif [ -s "$lookup" ]; then
		log "no fresh look-up of $suite's dracut: using the last one ($(field version))"
		touch "$lookup"
	else
		unreachable "could not find dracut in $suite's Sources on $mirror"
	fi
fi
version=$(field version)
# the upstream release the Debian version packages (112 for 112-7)
upstream=${version#*:}
upstream=${upstream%-*}
key=$(mp_cache_key "suite=$suite" "version=$version" "dsc=$(field dsc)" "orig=$(field orig)" \
	"self=$(sha256sum <"$0" | cut -c1-16)" "cc=$(gcc -dumpfullversion)" \
	"kmod=$(dpkg-query -W -f='${Version}' libkmod-dev)")
root=$work/root

if [ -f "$root/.key" ] && [ "$(cat "$root/.key")" = "$key" ] && [ -x "$root/usr/bin/dracut" ]; then
	echo "$upstream $root"
	exit 0
fi
rm -rf "$root"
if mp_cache_get dracut-ng "$key" "$root"; then
	echo "$key" >"$root/.key"
	echo "$upstream $root"
	exit 0
fi

t0=$(date +%s)
# look_up made it, but only when it ran: with a look-up from the cache (a
# day's) and no built entry for this key, the download had no directory
mkdir -p "$work"
orig=$(field orig 3)
log "building dracut $upstream ($orig, Debian $suite $version)"
[ -f "$work/$orig" ] && printf '%s  %s\n' "$(field orig)" "$work/$orig" | sha256sum -c --status ||
	get "$mirror/$(field dir)/$orig" "$work/$orig" "$(field orig)" || unreachable "could not fetch $orig"
src=$work/src
rm -rf "$src" "$root.new"
mkdir -p "$src"
tar -xf "$work/$orig" -C "$src" --strip-components=1
(
	cd "$src"
	# the profile Debian's package has where the release has one
	# (dracut.conf.d/debian/01-debian.conf: 108 and later), systemd units
	# where Debian keeps them
	profile=
	[ ! -d dracut.conf.d/debian ] || profile=debian
	./configure --prefix=/usr --sysconfdir=/etc --libdir=/usr/lib --disable-documentation \
		--disable-dracut-cpio --systemdsystemunitdir=/usr/lib/systemd/system --configprofile="$profile"
	make -j"${MP_JOBS:-$(nproc)}" all
	make install DESTDIR="$root.new" DRACUT_FULL_VERSION="$upstream" DRACUT_MAIN_VERSION="$upstream"
) >"$work/build.log" 2>&1 || die "the build failed (see $work/build.log)"
if ! [ -x "$root.new/usr/bin/dracut" ] || ! [ -x "$root.new/usr/lib/dracut/dracut-install" ]; then
	die "make install left no usr/bin/dracut or dracut-install (see $work/build.log)"
fi
rm -rf "$src"
mv "$root.new" "$root"
mp_cache_put dracut-ng "$key" "$root"
echo "$key" >"$root/.key"
log "dracut $upstream (Debian $suite $version) built and installed in $(($(date +%s) - t0)) s"
echo "$upstream $root"
