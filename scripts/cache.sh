# shellcheck shell=sh
# shellcheck disable=SC2154 # top: set by the script that sources this
# The test cache: what the suite builds or downloads that does not depend on
# this tree (Debian's kernels and headers, the stats kernel, the musl
# libraries, the mmdebstrap roots, apt's lists) is made once per machine and
# kept outside the clone, so that a second clone (CI after a developer's own
# runs) does not make it again.
#
#   MP_CACHE=DIR   where (default /var/cache/modpreload-test, or
#                  ~/.cache/modpreload-test where that cannot be written); MP_CACHE=off
#                  (or empty) keeps everything under the clone's build/, as
#                  before the cache existed: nothing is shared.
#
# Each entry is keyed by what it was made from: package versions, the
# options, and the scripts that make it (their sha256). An entry is written
# under a temporary name and renamed into place when whole, with a check
# file written last; an entry whose check fails (half written, truncated,
# edited) is removed and made again, never used.
#
# Sourced (after setting $top):
#   mp_cache_dir NAME     the directory for NAME: $MP_CACHE/NAME, or
#                         $top/build/NAME when the cache is off
#   mp_cache_key WORD...  a key: the sha256 of the words and, for each word
#                         that names a file, of the file's contents (16 hex)
#   mp_cache_get NAME KEY DEST
#                         unpack entry NAME/KEY into DEST (status 0), or
#                         status 1 when there is none or it fails its check
#   mp_cache_put NAME KEY SRC [TAR-ARG...]
#                         keep SRC (a directory; TAR-ARGs such as
#                         --exclude=...) as entry NAME/KEY; the two newest
#                         entries of NAME are kept, older ones removed
#   mp_cache_file NAME KEY FILE
#                         the path of a one-file entry (e.g. a root
#                         tarball): prints it and returns 0 when it is
#                         there and whole; otherwise returns 1 and the
#                         caller makes FILE.tmp, then calls
#                         mp_cache_file_done NAME KEY FILE

mp_cache_on() {
	case ${MP_CACHE-/var/cache/modpreload-test} in
	'' | off | 0 | no) return 1 ;;
	esac
	return 0
}

mp_cache_dir() {
	if mp_cache_on; then
		_cr=${MP_CACHE:-/var/cache/modpreload-test}
		# not root: the default is the user's own cache
		if [ -z "${MP_CACHE:-}" ] && ! mkdir -p "$_cr" 2>/dev/null || [ ! -w "$_cr" ]; then
			_cr=${XDG_CACHE_HOME:-$HOME/.cache}/modpreload-test
		fi
		echo "$_cr/$1"
	else
		echo "$top/build/$1"
	fi
}

mp_cache_key() {
	for _w in "$@"; do
		printf '%s\n' "$_w"
		if [ -f "$_w" ]; then sha256sum <"$_w"; fi
	done | sha256sum | cut -c1-16
}

_mp_cache_prune() { # NAME: keep the two newest entries, and no leftovers
	_pd=$(mp_cache_dir "$1")
	# shellcheck disable=SC2012 # names are our own hex keys
	ls -1dt "$_pd"/*/ 2>/dev/null | tail -n +3 | while read -r _old; do
		rm -rf "$_old"
	done
	# an interrupted mp_cache_put's directory, a day old
	find "$_pd" -maxdepth 1 -name '.new.*' -mmin +1440 -exec rm -rf {} + 2>/dev/null || :
}

mp_cache_get() {
	_e=$(mp_cache_dir "$1")/$2
	[ -f "$_e/data.tar" ] || return 1
	if ! [ -f "$_e/check" ] || ! (cd "$_e" && sha256sum -c --status check); then
		echo "cache: $1/$2 fails its check: made again" >&2
		rm -rf "$_e"
		return 1
	fi
	mkdir -p "$3"
	tar -xf "$_e/data.tar" -C "$3" || return 1
	touch "$_e"
}

mp_cache_put() {
	_n=$1 _k=$2 _src=$3
	shift 3
	_d=$(mp_cache_dir "$_n")
	mkdir -p "$_d" || return 0
	_t=$(mktemp -d "$_d/.new.XXXXXX") || return 0
	if tar -cf "$_t/data.tar" -C "$_src" "$@" . &&
		(cd "$_t" && sha256sum data.tar >check.tmp && mv check.tmp check); then
		rm -rf "${_d:?}/$_k"
		mv "$_t" "$_d/$_k" || rm -rf "$_t"
		_mp_cache_prune "$_n"
	else
		rm -rf "$_t"
	fi
}

mp_cache_file() {
	_e=$(mp_cache_dir "$1")/$2
	_f=$_e/$3
	mkdir -p "$_e"
	if [ -f "$_f" ] && [ -f "$_e/check" ] && (cd "$_e" && sha256sum -c --status check); then
		touch "$_e"
		echo "$_f"
		return 0
	fi
	if [ -e "$_f" ]; then
		echo "cache: $1/$2/$3 fails its check: made again" >&2
	fi
	rm -f "$_f" "$_e/check"
	return 1
}

mp_cache_file_done() {
	_e=$(mp_cache_dir "$1")/$2
	mv "$_e/$3.tmp" "$_e/$3" &&
		(cd "$_e" && sha256sum "$3" >check.tmp && mv check.tmp check) &&
		_mp_cache_prune "$1"
}
