#!/bin/sh
# The manual page is written by hand; the options are one table in
# preload/run/main.c, from which getopt_long()'s array and --help are made.
# This checks that the two name the same options, each with the same short
# letter: every entry of the table has an item (.TP) in modpreload.8's
# OPTIONS, and every item there is in the table. One PASS: or FAIL: line
# (tests/run.sh lint).
#
# Usage: scripts/lint-options.sh [MAIN.C] [MAN.8]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
src=${1:-preload/run/main.c}
man=${2:-preload/modpreload.8}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the table: { "name", 'x' or OPT_..., ...: "--name -x" or "--name"
awk '
	/^static const struct cli_option options\[\] = \{/ { on = 1; next }
	on && /^\};/ { exit }
	on && match($0, /^\t\{ "[a-z0-9-]+", /) {
		split(substr($0, RSTART, RLENGTH), f, "\"")
		s = $0; sub(/^\t\{ "[a-z0-9-]+", /, "", s)
		printf "--%s%s\n", f[2], s ~ /^\047.\047/ ? " -" substr(s, 2, 1) : ""
	}
' "$src" | LC_ALL=C sort >"$tmp/table"

# the page: the line after each .TP of OPTIONS, roff's \- unescaped
awk '
	/^\.SH OPTIONS/ { on = 1; next }
	/^\.SH/ { on = 0 }
	on && prev == ".TP" {
		l = $0; gsub(/\\-/, "-", l)
		long = ""; short = ""
		if (match(l, /--[a-z0-9-]+/)) long = substr(l, RSTART, RLENGTH)
		if (match(l, /(^|[ "])-[A-Za-z]([ "]|$)/)) {
			short = substr(l, RSTART, RLENGTH); gsub(/[ "]/, "", short)
		}
		if (long != "") printf "%s%s\n", long, short != "" ? " " short : ""
	}
	{ prev = $0 }
' "$man" | LC_ALL=C sort >"$tmp/man"

n=$(wc -l <"$tmp/table")
if [ "$n" -lt 10 ]; then
	echo "FAIL: lint/options: found $n options in $src's table: has its layout changed?"
elif cmp -s "$tmp/table" "$tmp/man"; then
	echo "PASS: lint/options ($n options: $src's table and $man agree)"
else
	why=$(diff "$tmp/table" "$tmp/man" | sed -n 's/^< \(.*\)/table only: \1;/p; s/^> \(.*\)/page only: \1;/p' |
		tr '\n' ' ' | sed 's/; $//')
	echo "FAIL: lint/options: $why"
fi
