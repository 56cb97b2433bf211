# shellcheck shell=sh
# shellcheck disable=SC2154 # top: set by the script that sources this
# A Debian bookworm root made by mmdebstrap from the project's private apt
# sources (scripts/apt.sh), as a tarball kept in the test cache
# (scripts/cache.sh), keyed by the packages asked for and the archive's
# state (the Release files apt last fetched: a point release or a security
# update makes it again). Source it after setting $top:
#   mp_debroot PKGS LOG   prints the tarball's path (status 1: mmdebstrap
#                         failed, its output in LOG)
# shellcheck source=scripts/cache.sh
. "$top/scripts/cache.sh"

mp_debroot() {
	_dr_apt=$(mp_cache_dir apt)
	# the lists are what mmdebstrap's apt will see too
	"$top/scripts/apt.sh" apt-cache policy >/dev/null 2>&1 || :
	_dr_src=$(sed -n 's/^deb \(.* bookworm\(-security\)\{0,1\} main\)$/deb \1/p' "$_dr_apt/sources.list" 2>/dev/null)
	[ -n "$_dr_src" ] || _dr_src="deb http://deb.debian.org/debian bookworm main"
	_dr_rel=$(cat "$_dr_apt"/state/lists/*bookworm*Release 2>/dev/null | grep -E '^(Date|Suite):')
	_dr_key=$(mp_cache_key "pkgs=$1" "sources=$_dr_src" "release=$_dr_rel" "$top/harness/lib/debroot.sh")
	_dr_name=root-$(echo "$1" | sha256sum | cut -c1-8)
	if mp_cache_file "$_dr_name" "$_dr_key" base.tar; then
		return 0
	fi
	_dr_tar=$(mp_cache_dir "$_dr_name")/$_dr_key/base.tar
	echo "mmdebstrap: a bookworm minbase root with $1" >&2
	if ! printf '%s\n' "$_dr_src" | mmdebstrap --variant=minbase --format=tar --include="$1" \
		bookworm "$_dr_tar.tmp" - >"$2" 2>&1; then
		rm -f "$_dr_tar.tmp"
		return 1
	fi
	mp_cache_file_done "$_dr_name" "$_dr_key" base.tar && echo "$_dr_tar"
}
