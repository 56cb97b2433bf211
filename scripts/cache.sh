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
	if ! mp_cache_on; then
		echo "$top/build/$1"
		return
	fi
	_mpc_root=${MP_CACHE:-/var/cache/modpreload-test}
	if [ -z "${MP_CACHE:-}" ] && ! { mkdir -p "$_mpc_root" 2>/dev/null && [ -w "$_mpc_root" ]; }; then
		# not root: the default is the user's own cache
		_mpc_root=${XDG_CACHE_HOME:-$HOME/.cache}/modpreload-test
	fi
	echo "$_mpc_root/$1"
}

mp_cache_key() {
	for _mpc_w in "$@"; do
		printf '%s\n' "$_mpc_w"
		if [ -f "$_mpc_w" ]; then sha256sum <"$_mpc_w"; fi
	done | sha256sum | cut -c1-16
}

_mp_cache_prune() { # NAME: keep the two newest entries, and no leftovers
	_mpc_pd=$(mp_cache_dir "$1")
	# shellcheck disable=SC2012 # names are our own hex keys
	ls -1dt "$_mpc_pd"/*/ 2>/dev/null | tail -n +3 | while read -r _mpc_old; do
		rm -rf "$_mpc_old"
	done
	# an interrupted mp_cache_put's directory, a day old
	find "$_mpc_pd" -maxdepth 1 -name '.new.*' -mmin +1440 -exec rm -rf {} + 2>/dev/null || :
}

mp_cache_get() {
	_mpc_e=$(mp_cache_dir "$1")/$2
	[ -f "$_mpc_e/data.tar" ] || return 1
	if ! [ -f "$_mpc_e/check" ] || ! (cd "$_mpc_e" && sha256sum -c --status check); then
		echo "cache: $1/$2 fails its check: made again" >&2
		rm -rf "$_mpc_e"
		return 1
	fi
	mkdir -p "$3"
	tar -xf "$_mpc_e/data.tar" -C "$3" || return 1
	touch "$_mpc_e"
}

mp_cache_put() {
	_mpc_n=$1 _mpc_k=$2 _mpc_src=$3
	shift 3
	_mpc_d=$(mp_cache_dir "$_mpc_n")
	mkdir -p "$_mpc_d" || return 0
	_mpc_t=$(mktemp -d "$_mpc_d/.new.XXXXXX") || return 0
	if tar -cf "$_mpc_t/data.tar" -C "$_mpc_src" "$@" . &&
		(cd "$_mpc_t" && sha256sum data.tar >check.tmp && mv check.tmp check); then
		rm -rf "${_mpc_d:?}/$_mpc_k"
		mv "$_mpc_t" "$_mpc_d/$_mpc_k" || rm -rf "$_mpc_t"
		_mp_cache_prune "$_mpc_n"
	else
		rm -rf "$_mpc_t"
	fi
}

mp_cache_file() {
	_mpc_e=$(mp_cache_dir "$1")/$2
	_mpc_f=$_mpc_e/$3
	mkdir -p "$_mpc_e"
	if [ -f "$_mpc_f" ] && [ -f "$_mpc_e/check" ] && (cd "$_mpc_e" && sha256sum -c --status check); then
		touch "$_mpc_e"
		echo "$_mpc_f"
		return 0
	fi
	if [ -e "$_mpc_f" ]; then
		echo "cache: $1/$2/$3 fails its check: made again" >&2
	fi
	rm -f "$_mpc_f" "$_mpc_e/check"
	return 1
}

mp_cache_file_done() {
	_mpc_e=$(mp_cache_dir "$1")/$2
	mv "$_mpc_e/$3.tmp" "$_mpc_e/$3" &&
		(cd "$_mpc_e" && sha256sum "$3" >check.tmp && mv check.tmp check) &&
		_mp_cache_prune "$1"
}
