#!/bin/sh
# The pipeline's arrows point one way: a source file of preload/ may call
# only functions of its own stage or of the stages before it, and no two
# files call each other, directly or round a circle. Reads the sources:
# every mp_* function defined at the start of a line, every mp_*( called
# elsewhere; the stage of a file is its folder under preload/ (or, in a
# flat tree, the table below).
#
# Usage: scripts/layers.sh [SRCDIR]     (default preload; exit 1 on a violation)
# Prints one line per arrow that runs back, and per circle found.
set -eu
src=${1:-preload}

# stage order, first to last; a folder's name is its stage
stages="base parse context plan load report run"
stage_of() { # FILE: its stage
	case $1 in
	*/*/*.c) basename "$(dirname "$1")" ;;
	*) case $(basename "$1" .c) in
		util | limits | strmap | json | sys | initstate) echo base ;;
		cmdline | confparse | uevent | index | kstats | profile) echo parse ;;
		ctx) echo context ;;
		request | coldplug | plan | graph | profile_io) echo plan ;;
		load | decompress | sched | handover) echo load ;;
		outcome | dupcost | nodev | report) echo report ;;
		run | main | analyze) echo run ;;
		*) echo "?" ;;
		esac ;;
	esac
}

files=$(find "$src" -name '*.c' | sort)
tab=$(mktemp)
trap 'rm -f "$tab"' EXIT
for f in $files; do
	st=$(stage_of "$f")
	n=0
	for s in $stages; do
		[ "$s" = "$st" ] && break
		n=$((n + 1))
	done
	printf '%s %s %s\n' "$f" "$st" "$n"
done >"$tab"

# shellcheck disable=SC2086 # the file list
awk -v tabfile="$tab" '
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
		while (match(line, /mp_[a-z0-9_]+\(/)) {
			fn = substr(line, RSTART, RLENGTH - 1)
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
		exit bad || circles
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
