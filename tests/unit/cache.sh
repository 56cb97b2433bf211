#!/bin/sh
# The test cache (scripts/cache.sh): an entry comes back as it was put; one
# that is half written, truncated or edited is made again, never used; with
# the cache off everything stays under the clone's build/.
# Prints PASS:/FAIL: lines.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/mp-cache.XXXXXX")
trap 'rm -rf "$work"' EXIT
MP_CACHE="$work/cache"
export MP_CACHE
# shellcheck source=scripts/cache.sh
. "$top/scripts/cache.sh"

verdict() { # NAME, then a command that must succeed
	_case=$1
	shift
	if "$@"; then echo "PASS: cache/$_case"; else echo "FAIL: cache/$_case"; fi
}

mkdir -p "$work/src/sub"
echo one >"$work/src/a"
echo two >"$work/src/sub/b"
key=$(mp_cache_key "x=1" "$work/src/a")

roundtrip() {
	mp_cache_put t "$key" "$work/src" &&
		mp_cache_get t "$key" "$work/out" &&
		diff -r "$work/src" "$work/out" >/dev/null
}
verdict roundtrip roundtrip

key_follows_inputs() {
	[ "$(mp_cache_key "x=1" "$work/src/a")" = "$key" ] || return 1
	[ "$(mp_cache_key "x=2" "$work/src/a")" != "$key" ] || return 1
	echo changed >"$work/a2"
	[ "$(mp_cache_key "x=1" "$work/a2")" != "$key" ]
}
verdict key-follows-inputs key_follows_inputs

missing() { ! mp_cache_get t 0000000000000000 "$work/none" 2>/dev/null; }
verdict missing-entry missing

cut_short() { # a truncated tarball is refused and removed
	e=$MP_CACHE/t/$key
	size=$(stat -c %s "$e/data.tar")
	truncate -s $((size / 2)) "$e/data.tar"
	rm -rf "$work/out2"
	! mp_cache_get t "$key" "$work/out2" 2>"$work/err" &&
		[ ! -e "$e" ] && [ ! -e "$work/out2/a" ] && grep -q 'fails its check' "$work/err"
}
verdict truncated-refused cut_short

half_written() { # an entry without its check file is not used
	mp_cache_put t "$key" "$work/src"
	rm -f "$MP_CACHE/t/$key/check"
	! mp_cache_get t "$key" "$work/out3" 2>/dev/null && [ ! -e "$MP_CACHE/t/$key" ]
}
verdict half-written-refused half_written

one_file() { # the one-file kind (root tarballs): made, kept, damaged, made again
	mp_cache_file r "$key" base.tar >/dev/null && return 1
	echo payload >"$MP_CACHE/r/$key/base.tar.tmp"
	mp_cache_file_done r "$key" base.tar || return 1
	f=$(mp_cache_file r "$key" base.tar) || return 1
	[ "$(cat "$f")" = payload ] || return 1
	echo edited >"$f"
	! mp_cache_file r "$key" base.tar 2>/dev/null && [ ! -e "$f" ]
}
verdict one-file one_file

prune() { # two entries of a kind are kept, the newest
	for k in k1 k2 k3; do
		mp_cache_put p "$k" "$work/src"
		sleep 1
	done
	[ ! -e "$MP_CACHE/p/k1" ] && [ -e "$MP_CACHE/p/k2" ] && [ -e "$MP_CACHE/p/k3" ]
}
verdict keeps-two prune

off() {
	[ "$(MP_CACHE=off mp_cache_dir kernels)" = "$top/build/kernels" ] &&
		[ "$(MP_CACHE='' mp_cache_dir kernels)" = "$top/build/kernels" ]
}
verdict off-is-build off
