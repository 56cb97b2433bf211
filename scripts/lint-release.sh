#!/bin/sh
# What a release must agree on, checked by tests/run.sh lint: one PASS: or
# FAIL: line each.
#   lint/version   VERSION is what the binaries say (when built), the man
#                  pages' .TH lines, the top entries of debian/changelog and
#                  the RPM spec's %changelog, the Arch PKGBUILD's pkgver, and
#                  NEWS.md's newest heading
#   lint/man       every manual page renders without a warning (groff -ww)
#   lint/tables    the tables between <!-- BEGIN name --> and <!-- END name -->
#                  markers are what scripts/tables.sh makes of bench/results
#   lint/readme    README.md: at most 250 lines and no dated measurement
#   lint/links     every relative link in README.md, NEWS.md and docs/
#                  names a file of the tree
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
arch=$(sed -n 's/^pkgver=//p' packaging/arch/PKGBUILD)
[ "$arch" = "$v" ] || add "packaging/arch/PKGBUILD's pkgver is $arch"
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

# --- the README ------------------------------------------------------------------
why=
n=$(wc -l <README.md)
[ "$n" -le 250 ] || add "$n lines, over 250"
if grep -Eq '20[0-9]{2}-[01][0-9]-[0-3][0-9]' README.md; then
	add "a dated line: $(grep -Em 1 '20[0-9]{2}-[01][0-9]-[0-3][0-9]' README.md)"
fi
if [ -z "$why" ]; then
	echo "PASS: lint/readme ($n lines, no dates)"
else
	echo "FAIL: lint/readme: $why"
fi

# --- links -----------------------------------------------------------------------
why=
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for f in README.md NEWS.md docs/*.md docs/*/*.md; do
	[ -f "$f" ] || continue
	d=$(dirname "$f")
	# ](target) and ](target#anchor), not http: nor mailto: nor #anchor alone
	grep -o '](\([^)# ]*\)[^) ]*)' "$f" | sed 's/^](\([^)#]*\).*/\1/' | grep -v -e '^[a-z]*:' -e '^$' |
		sort -u >"$tmp"
	while IFS= read -r l; do
		[ -e "$d/$l" ] || add "$f: $l"
	done <"$tmp"
done
if [ -z "$why" ]; then
	echo "PASS: lint/links (README.md, NEWS.md, docs/)"
else
	echo "FAIL: lint/links: no such file: $why"
fi
