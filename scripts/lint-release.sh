#!/bin/sh
# What a release must agree on, checked by tests/run.sh lint: one PASS: or
# FAIL: line each.
#   lint/version   VERSION is what the binaries say (when built), the man
#                  pages' .TH lines, the top entries of debian/changelog and
#                  the RPM spec's %changelog, and NEWS.md's newest heading
#   lint/man       every manual page renders without a warning (groff -ww)
#   lint/tables    the tables between <!-- BEGIN name --> and <!-- END name -->
#                  markers are what scripts/tables.sh makes of bench/results
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
mans="preload/modpreload.8 init/modpreload-mkinitramfs.8"

# --- one version -----------------------------------------------------------------
v=$(cat VERSION)
why=
add() { why="$why${why:+; }$*"; }
printf '%s\n' "$v" | grep -Eqx '[0-9]+\.[0-9]+\.[0-9]+' || add "VERSION is '$v', not N.N.N"
for b in build/modpreload build/modpreload-init; do
	[ -x "$b" ] || continue
	got=$("$b" --version 2>&1 | head -n 1)
	case $got in *" $v") ;; *) add "$b --version says '$got'" ;; esac
done
for m in $mans; do
	grep -q "^\.TH [A-Z-]* 8 [0-9-]* \"modpreload $v\"" "$m" || add "$m: .TH is not \"modpreload $v\""
done
deb=$(sed -n '1s/^modpreload (\([^)]*\)).*/\1/p' debian/changelog)
[ "${deb%-*}" = "$v" ] || add "debian/changelog's top entry is $deb"
# shellcheck disable=SC2016 # sed's $, not the shell's
rpm=$(sed -n '/^%changelog/,${s/^\* .* - \([^ ]*\)$/\1/p}' packaging/modpreload.spec | head -n 1)
[ "${rpm%-*}" = "$v" ] || add "the spec's top %changelog entry is $rpm"
grep -Eq 'Version: +%\{mp_version\}' packaging/modpreload.spec || add "the spec's Version: is not %{mp_version}"
news=$(sed -n 's/^## \([0-9][^ ]*\) .*/\1/p' NEWS.md | head -n 1)
[ "$news" = "$v" ] || add "NEWS.md's newest entry is $news"
if [ -z "$why" ]; then
	echo "PASS: lint/version ($v everywhere)"
else
	echo "FAIL: lint/version: $why"
fi

# --- manual pages ----------------------------------------------------------------
why=
for m in $mans; do
	w=$(LC_ALL=C.UTF-8 groff -ww -man -z "$m" 2>&1)
	[ -z "$w" ] || add "$m: $(printf '%s' "$w" | head -n 3 | tr '\n' ' ')"
	LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$m" >/dev/null 2>&1 || add "man -l $m failed"
done
if [ -z "$why" ]; then
	echo "PASS: lint/man ($(echo "$mans" | wc -w) pages, groff -ww)"
else
	echo "FAIL: lint/man: $why"
fi

# --- generated tables --------------------------------------------------------------
if out=$(scripts/tables.sh --check 2>&1); then
	echo "PASS: lint/tables ($out)"
else
	echo "FAIL: lint/tables: $(printf '%s' "$out" | tr '\n' ' ') (scripts/tables.sh rewrites them)"
fi
