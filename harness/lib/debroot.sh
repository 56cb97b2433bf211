# shellcheck shell=sh
# shellcheck disable=SC2154 # top: set by the script that sources this
# A Debian root (bookworm, or trixie for the booted-once-trixie case) made
# by mmdebstrap from the project's private apt sources (scripts/apt.sh), as
# a tarball kept in the test cache (scripts/cache.sh), keyed by the suite,
# the packages asked for and the archive's state (the Release files apt
# last fetched: a point release or a security update makes it again).
# Source it after setting $top:
#   mp_debroot PKGS LOG [SUITE]
#                         prints the tarball's path (status 1: mmdebstrap
#                         failed, its output in LOG); SUITE: bookworm (the
#                         default) or another suite scripts/apt.sh lists
#                         (trixie); sid, which it does not list, comes
#                         from deb.debian.org, and its key has no Release
#                         date: made once, kept until PKGS or this file
#                         changes (a test of a newer systemd, not of sid)
# shellcheck source=scripts/cache.sh
. "$top/scripts/cache.sh"

mp_debroot() {
	_dr_suite=${3:-bookworm}
	_dr_apt=$(mp_cache_dir apt)
	# the lists are what mmdebstrap's apt will see too
	"$top/scripts/apt.sh" apt-cache policy >/dev/null 2>&1 || :
	_dr_src=$(sed -n "s/^deb \(.* $_dr_suite\(-security\)\{0,1\} main\)\$/deb \1/p" "$_dr_apt/sources.list" 2>/dev/null)
	[ -n "$_dr_src" ] || _dr_src="deb http://deb.debian.org/debian $_dr_suite main"
	_dr_rel=$(cat "$_dr_apt"/state/lists/*"_dists_$_dr_suite"*Release 2>/dev/null | grep -E '^(Date|Suite):')
	_dr_key=$(mp_cache_key "suite=$_dr_suite" "pkgs=$1" "sources=$_dr_src" "release=$_dr_rel" \
		"$top/harness/lib/debroot.sh")
	# bookworm's entries keep their old name; another suite's have their own
	# (the cache keeps a name's two newest entries: one suite must not push
	# the other's out)
	_dr_name=root-$(echo "$1" | sha256sum | cut -c1-8)
	[ "$_dr_suite" = bookworm ] || _dr_name=root-$_dr_suite-$(echo "$1" | sha256sum | cut -c1-8)
	if mp_cache_file "$_dr_name" "$_dr_key" base.tar; then
		return 0
	fi
	_dr_tar=$(mp_cache_dir "$_dr_name")/$_dr_key/base.tar
	echo "mmdebstrap: a $_dr_suite minbase root with $1" >&2
	# sid's Release is valid for a week; a mirror that lags behind (this
	# project's test hosts see one) serves it expired
	_dr_opt=
	# apt's own syntax, quotes included, as one word
	# shellcheck disable=SC2089
	[ "$_dr_suite" != sid ] || _dr_opt='--aptopt=Acquire::Check-Valid-Until "false"'
	# shellcheck disable=SC2090
	if ! printf '%s\n' "$_dr_src" | mmdebstrap --variant=minbase --format=tar --include="$1" \
		${_dr_opt:+"$_dr_opt"} "$_dr_suite" "$_dr_tar.tmp" - >"$2" 2>&1; then
		rm -f "$_dr_tar.tmp"
		return 1
	fi
	mp_cache_file_done "$_dr_name" "$_dr_key" base.tar && echo "$_dr_tar"
}
