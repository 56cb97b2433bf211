#!/bin/sh
# make rpmlint: rpmlint (Debian's) on the binary RPM and the source RPM,
# with the filters of packaging/modpreload.rpmlintrc (each says why). Builds
# both first (make rpm, make srpm). Passes when rpmlint reports no error and
# no warning that a filter does not take; every filter must still match
# something (rpmlint's own unused-rpmlintrc-filter), so none outlives its
# reason unseen.
#
# Prints rpmlint's report, then its summary as the last line:
#   2 packages and 0 specfiles checked; 0 errors, 0 warnings, N filtered, ...
# Exit status 0 when clean, 1 otherwise. Needs rpm and rpmlint
# (scripts/deps.sh). Seconds once the binaries are built.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
command -v rpmlint >/dev/null 2>&1 || { echo "rpmlint.sh: no rpmlint (scripts/deps.sh installs it)" >&2; exit 1; }
rpm=$(make -s -C "$top" rpm | tail -n 1)
srpm=$(make -s -C "$top" srpm | tail -n 1)
for f in "$rpm" "$srpm"; do
	[ -f "$f" ] || { echo "rpmlint.sh: no package ($f)" >&2; exit 1; }
done
# rpmlint's own configuration, not the user's (~/.config/rpmlint): the
# same verdict on every machine. An empty home of its own, removed after:
# rpmlint writes there (an rpm database, its spelling lists), and a home
# that does not exist it makes (as root, /nonexistent appeared on the host)
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
out=$(cd "$top" && HOME=$home XDG_CONFIG_HOME=$home/.config \
	rpmlint -r packaging/modpreload.rpmlintrc "$rpm" "$srpm" 2>&1) || :
printf '%s\n' "$out"
summary=$(printf '%s\n' "$out" | grep -E '^ *[0-9]+ packages and [0-9]+ specfiles checked' | tail -n 1 | sed 's/^ *//')
[ -n "$summary" ] || { echo "rpmlint.sh: rpmlint printed no summary" >&2; exit 1; }
echo "$summary"
case $summary in
*" 0 errors, 0 warnings"*) exit 0 ;;
*) exit 1 ;;
esac
