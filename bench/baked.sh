#!/bin/sh
# The baked plan (modpreload --bake-plan, --plan): what it saves in
# planning, on the host. Callgrind instructions of a dry run (-n: the plan
# and the report; a real run makes its first load syscall right after the
# plan) of:
#   initrd.*   bench/baked-requests.txt against an initramfs-sized tree:
#              the closure of those requests in Debian's 6.1 tree, depmod'ed
#              on its own (as modpreload-mkinitramfs makes one)
#   tree.*     the same requests against the whole 6.1 tree
#   all.*      every module of the whole tree by name
# each without a plan (libkmod, .libkmod) and with the tree's own (.baked),
# whose plan is the same (checked here, as tests/unit/cli.sh does).
# Prints "key<TAB>value" lines; progress and the check on stderr.
# Usage: bench/baked.sh [WORKDIR]   (default build/bench/baked)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
w=${1:-$top/build/bench/baked}
mp=$top/build/modpreload
kv() { printf '%s\t%s\n' "$1" "$2"; }
die() { echo "bench/baked.sh: $*" >&2; exit 1; }
command -v valgrind >/dev/null || die "needs valgrind"
line=$("$top/harness/lib/kernels.sh" bookworm) || die "no bookworm kernel"
kver=$(echo "$line" | cut -d' ' -f2)
kdir=$(echo "$line" | cut -d' ' -f3)
mods=$(cd "$kdir/lib/modules/$kver" && pwd -P)
rm -rf "$w"
mkdir -p "$w/noconf"
grep -v '^#' "$top/bench/baked-requests.txt" >"$w/req.txt"
find "$mods" -name '*.ko*' | sed 's|.*/||; s|\.ko.*||' | sort -u >"$w/all.txt"

dry() { # BASEDIR LIST PLAN [RUNNER...]
	b=$1 l=$2 p=$3
	shift 3
	"$@" "$mp" --no-fork -q -n -d "$b" -S "$kver" -C "$w/noconf" --no-default-config \
		--cmdline "" -c "$l" --plan "$p" -r -
}
plan_of() { jq -S '{modules: [.modules[] | del(.ms, .start_ms, .end_ms, .worker)], waves, requests}'; }
measure() { # NAME BASEDIR LIST PLANFILE
	dry "$2" "$3" "" | plan_of >"$w/$1.libkmod.json"
	dry "$2" "$3" "$4" | plan_of >"$w/$1.baked.json"
	cmp -s "$w/$1.libkmod.json" "$w/$1.baked.json" || die "$1: not the same plan with the baked one"
	for v in libkmod baked; do
		p=$4
		[ $v = baked ] || p=''
		dry "$2" "$3" "$p" valgrind --tool=callgrind --callgrind-out-file=/dev/null \
			--log-file="$w/$1.$v.vg" >/dev/null 2>&1 || true
		kv "$1.$v.instructions" "$(sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$w/$1.$v.vg")"
	done
	kv "$1.modules" "$(jq '.modules | length' "$w/$1.baked.json")"
}

echo "baked: the initramfs-sized tree" >&2
dry "$kdir" "$w/req.txt" "" | jq -r '.modules[] | .path // empty' >"$w/closure"
img=$w/initrd/lib/modules/$kver
mkdir -p "$img"
while read -r f; do
	rel=${f#"$mods"/}
	mkdir -p "$img/$(dirname "$rel")"
	cp "$f" "$img/$rel"
done <"$w/closure"
for f in modules.builtin modules.builtin.modinfo modules.order; do cp "$mods/$f" "$img/"; done
depmod -C "$w/noconf" -b "$w/initrd" "$kver"
"$mp" --no-fork -q -d "$w/initrd" -S "$kver" -C "$w/noconf" --cmdline "" --bake-plan "$w/initrd.plan"
"$mp" --no-fork -q -d "$kdir" -S "$kver" -C "$w/noconf" --cmdline "" --bake-plan "$w/tree.plan"
kv initrd.plan_bytes "$(stat -c %s "$w/initrd.plan")"
kv tree.plan_bytes "$(stat -c %s "$w/tree.plan")"
kv requests "$(wc -l <"$w/req.txt")"
measure initrd "$w/initrd" "$w/req.txt" "$w/initrd.plan"
echo "baked: the whole tree" >&2
measure tree "$kdir" "$w/req.txt" "$w/tree.plan"
echo "baked: every module of the whole tree" >&2
measure all "$kdir" "$w/all.txt" "$w/tree.plan"
