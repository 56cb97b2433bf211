#!/bin/sh
# The pipeline's arrows point one way: a source file of preload/ may call
# only functions of its own stage or of the stages before it, and no two
# files call each other, directly or round a circle. Reads the sources:
# every mp_* function defined at the start of a line, every mp_* name of
# one used elsewhere (called, or put in a table). The stage of a file is
# the folder it is in under preload/; a file in no stage's folder is a
# violation too.
#
# The stage map is written here, and only here, as the source: the
# Makefile's CORE (the build's order), internal.h's sections, each
# stage's "Stage N of M" header and docs/design.md's tree repeat it for
# their readers, and a copy that says another order is a violation too.
#
# Usage: scripts/layers.sh [SRCDIR]     (default preload; exit 1 on a violation)
# Prints one line per arrow that runs back, per circle found and per
# place where the stage map differs.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-preload}

# stage order, first to last (the source of every copy); a folder's name is its stage:
#   base     helpers every stage uses (no state of the run)
#   parse    readers of what comes from outside: command line, config,
#            uevents, indexes, kernel stats, the profile's format
#   model    the plan's graph and its states (model.h), without a context
#   context  the run's options, environment and log (ctx.c)
#   plan     requests and their resolution into the plan, the profile in use
#   load     the scheduler, loading, the outcome of each module, hand-over
#   report   the JSON report and summary, the no-device blacklist, costs
#   run      the conductor and the programs
stages="base parse model context plan load report run"
stage_of() { # FILE: its stage, the folder it is in under preload/
	case $1 in
	"$src"/*/*.c) basename "$(dirname "$1")" ;;
	*) echo "?" ;;
	esac
}

# stage_n NAME: its place in the order, from 1; 0 for no stage
stage_n() {
	_sn=0
	for _s in $stages; do
		_sn=$((_sn + 1))
		[ "$_s" = "$1" ] && echo "$_sn" && return
	done
	echo 0
}
nstages=0
for _s in $stages; do nstages=$((nstages + 1)); done
mapbad=0
map_differs() {
	echo "stage map: $*" >&2
	mapbad=1
}
# the Makefile's CORE: the folders in their first appearance's order
if [ -f "$top/Makefile" ]; then
	core=$(awk '/^CORE :=/ { on = 1; sub(/^CORE :=/, "") }
		on { for (i = 1; i <= NF; i++) print $i; if ($0 !~ /\\$/) exit }' "$top/Makefile" |
		sed -n 's|/.*||p' | uniq | tr '\n' ' ')
	[ "$core" = "$stages " ] || map_differs "the Makefile's CORE has the folders as $core"
fi
# internal.h: "====== N. NAME/: ..." sections, the Nth stage's Nth
if [ -f "$src/internal.h" ]; then
	i=0
	while read -r sec; do
		[ -n "$sec" ] || continue
		i=$((i + 1))
		[ "$sec" = "$i:$(echo "$stages" | cut -d' ' -f"$i")" ] ||
			map_differs "$src/internal.h: section $i is ${sec#*:} numbered ${sec%%:*}"
	done <<-EOF
	$(sed -n 's|^/\* ====== \([0-9]*\)\. \([a-z]*\)/:.*|\1:\2|p' "$src/internal.h")
	EOF
	[ "$i" -gt 0 ] || map_differs "$src/internal.h has no ====== N. STAGE/ section"
fi
# each stage's main file: " * Stage N of M, NAME:", once a stage, in its folder
heads=$(grep -H '^ \* Stage [0-9]* of [0-9]*, [a-z]*:' "$src"/*/*.c |
	sed 's|^\([^:]*\):.*Stage \([0-9]*\) of \([0-9]*\), \([a-z]*\):.*|\1 \2 \3 \4|' || :)
for s in $stages; do
	n=$(echo "$heads" | awk -v s="$s" '$4 == s' | wc -l)
	[ "$n" -eq 1 ] || map_differs "$n files of $src/ open with \"Stage N of $nstages, $s:\", not one"
done
echo "$heads" | while read -r f n m name; do
	[ -n "$f" ] || continue
	[ "$n" = "$(stage_n "$name")" ] && [ "$m" = "$nstages" ] && [ "$f" = "$src/$name/${f##*/}" ] ||
		echo "stage map: $f says Stage $n of $m, $name"
done | grep . >&2 && mapbad=1
# docs/design.md's tree: "  NAME/    N. what"
if [ -f "$top/docs/design.md" ]; then
	tree=$(sed -n 's|^  \([a-z]*\)/ *\([0-9]*\)\. .*|\2:\1|p' "$top/docs/design.md" | tr '\n' ' ')
	want=$(i=0; for s in $stages; do i=$((i + 1)); printf '%s:%s ' "$i" "$s"; done)
	[ "$tree" = "$want" ] || map_differs "docs/design.md's tree numbers the folders $tree"
fi

files=$(find "$src" -name '*.c' | sort)
tab=$(mktemp)
trap 'rm -f "$tab"' EXIT
astray=0
for f in $files; do
	st=$(stage_of "$f")
	case " $stages " in
	*" $st "*) ;;
	*)
		echo "stage: $f is in no stage's folder ($stages)" >&2
		astray=1
		;;
	esac
	n=0
	for s in $stages; do
		[ "$s" = "$st" ] && break
		n=$((n + 1))
	done
	printf '%s %s %s\n' "$f" "$st" "$n"
done >"$tab"

# shellcheck disable=SC2086 # the file list
awk -v tabfile="$tab" -v astray=$astray -v mapbad=$mapbad '
	BEGIN {
		while ((getline l < tabfile) > 0) { split(l, a, " "); stage[a[1]] = a[2]; rank[a[1]] = a[3] }
	}
	FNR == 1 { file = FILENAME; incomment = 0 }
	{
		line = $0
		# comments and strings do not call anything
		gsub(/"([^"\\]|\\.)*"/, "\"\"", line)
		if (incomment) { if (sub(/^.*\*\//, "", line)) incomment = 0; else next }
		gsub(/\/\*.*\*\//, "", line)
		if (sub(/\/\*.*$/, "", line)) incomment = 1
		sub(/\/\/.*$/, "", line)
		if (line ~ /^[a-z][a-z_ 0-9*]*[ *]mp_[a-z0-9_]+\(/) {
			d = line; sub(/\(.*/, "", d); sub(/.*[ *]/, "", d)
			def[d] = file
			sub(/^[^(]*\(/, "", line)
		}
		# a call, or a function named to be called later (a table of them)
		while (match(line, /mp_[a-z0-9_]+/)) {
			fn = substr(line, RSTART, RLENGTH)
			calls[file, fn] = 1
			line = substr(line, RSTART + RLENGTH)
		}
	}
	END {
		bad = 0
		for (k in calls) {
			split(k, p, SUBSEP)
			from = p[1]; fn = p[2]
			if (!(fn in def)) continue
			to = def[fn]
			if (to == from) continue
			edge[from, to] = edge[from, to] (edge[from, to] == "" ? "" : ",") fn
			if (rank[to] > rank[from]) {
				printf "back: %s (%s) calls %s of %s (%s)\n", from, stage[from], fn, to, stage[to]
				bad = 1
			}
		}
		# circles: a depth-first walk of the file graph
		for (k in edge) { split(k, p, SUBSEP); adj[p[1]] = adj[p[1]] " " p[2] }
		for (f in rank) if (!(f in color)) visit(f, "")
		exit bad || circles || astray || mapbad
	}
	function visit(f, path,    n, i, t, nb, c) {
		color[f] = 1
		n = split(adj[f], nb, " ")
		for (i = 1; i <= n; i++) {
			t = nb[i]
			if (!(t in color))
				visit(t, path f " -> ")
			else if (color[t] == 1) {
				c = path f " -> " t
				printf "circle: %s\n", substr(c, index(c, t " -> "))
				circles = 1
			}
		}
		color[f] = 2
	}
' $files
