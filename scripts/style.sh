#!/bin/sh
# The C sources' layout, as tests/run.sh lint checks it (kernel style, as
# scripts/checkpatch.pl would see it): indentation by tabs (a line may
# align with fewer than 8 spaces after them), no trailing blanks, no space
# before a tab, and no line over 120 columns with tabs at 8. The code is
# written for 100; the bound leaves room for a long format string, which
# the kernel's style also lets run on rather than split.
#
# Usage: scripts/style.sh [FILE...]   (default: every tracked .c and .h)
# Prints FILE:LINE: what, one a line, and exits 1 when there is any.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
# shellcheck disable=SC2046 # a list of files
if [ $# -eq 0 ]; then
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		set -- $(git ls-files '*.c' '*.h')
	else
		# an unpacked `make dist` tarball: every source there is (build/ aside)
		set -- $(find . -path ./build -prune -o -type f \( -name '*.c' -o -name '*.h' \) -print | LC_ALL=C sort)
	fi
fi
awk '
/[ \t]+$/ { print FILENAME ":" FNR ": trailing blanks"; n++ }
/^\t*        / { print FILENAME ":" FNR ": 8 spaces where a tab goes"; n++ }
/ \t/ { print FILENAME ":" FNR ": space before a tab"; n++ }
{
	l = $0
	while ((i = index(l, "\t")) > 0)
		l = substr(l, 1, i - 1) sprintf("%*s", 8 - (i - 1) % 8, "") substr(l, i + 1)
	if (length(l) > 120) { print FILENAME ":" FNR ": " length(l) " columns"; n++ }
}
END { exit n > 0 }
' "$@"
