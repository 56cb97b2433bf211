#!/bin/sh
# A private apt configuration (its lists in the test cache, scripts/cache.sh:
# $MP_CACHE/apt, or build/apt with the cache off): source packages and
# trixie's kernel come from Debian without touching the host's sources.list.
# Usage: scripts/apt.sh apt-get|apt-cache ARGS...
# MP_APT_ARCH=arm64 (or armhf): the same archive for that architecture only,
# with its own lists under apt-ARCH (cross builds: musl-dev, busybox
# and the kernel of that architecture, downloaded and unpacked, never
# installed).
# MP_APT_SET=new: a second private apt (its lists under apt-new) with
# trixie, trixie-backports and sid, for the kernels newer than trixie's
# (harness/lib/kernels.sh seven); kept apart so that a package asked for
# without a suite still comes from bookworm or trixie here, and the roots
# harness/lib/debroot.sh makes see the same lists as before.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
arch=${MP_APT_ARCH:-}
set_=${MP_APT_SET:-}
case $set_ in '' | new) ;; *) echo "apt.sh: unknown MP_APT_SET '$set_' (new)" >&2; exit 2 ;; esac
# shellcheck source=scripts/cache.sh
. "$top/scripts/cache.sh"
# (MP_APT_DIR: the default set's lists; the other set's go beside it)
dir=${MP_APT_DIR:-$(mp_cache_dir "apt${arch:+-$arch}")}${set_:+-$set_}
key=/usr/share/keyrings/debian-archive-keyring.gpg
mirror=${MP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
secmirror=${MP_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

if [ ! -f "$dir/sources.list" ] && [ "$set_" = new ]; then
	mkdir -p "$dir/empty.d" "$dir/state/lists/partial" "$dir/cache/archives/partial"
	cat >"$dir/sources.list" <<EOT
deb [signed-by=$key] $mirror trixie main
deb [signed-by=$key] $mirror trixie-backports main
deb [signed-by=$key] $mirror sid main
EOT
elif [ ! -f "$dir/sources.list" ]; then
	mkdir -p "$dir/empty.d" "$dir/state/lists/partial" "$dir/cache/archives/partial"
	cat >"$dir/sources.list" <<EOT
deb [signed-by=$key] $mirror bookworm main
deb-src [signed-by=$key] $mirror bookworm main
deb [signed-by=$key] $secmirror bookworm-security main
deb [signed-by=$key] $mirror trixie main
EOT
fi

tool=$1
shift
opts="-o Dir::Etc::SourceList=$dir/sources.list
-o Dir::Etc::SourceParts=$dir/empty.d
-o Dir::Etc::Preferences=$dir/empty.d
-o Dir::Etc::PreferencesParts=$dir/empty.d
-o Dir::State=$dir/state
-o Dir::Cache=$dir/cache
-o APT::Sandbox::User=root
-o Debug::NoLocking=1"
if [ -n "$arch" ]; then
	opts="$opts
-o APT::Architecture=$arch
-o APT::Architectures=$arch"
fi

# The lists are refreshed at most once a day, by one apt.sh at a time
# (apt's own locks are off: a second one waits here, then finds them fresh).
stamp="$dir/state/updated"
stale() { [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +1440 2>/dev/null)" ]; }
if stale; then
	exec 8>"$dir/.update-lock"
	flock 8
	if stale; then
		# shellcheck disable=SC2086 # $opts is a list of words on purpose
		apt-get $opts -q update >&2
		touch "$stamp"
	fi
	exec 8>&-
fi
# shellcheck disable=SC2086
exec "$tool" $opts "$@"
