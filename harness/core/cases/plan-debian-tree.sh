#!/bin/sh
# The plan against Debian's real 6.1 module tree: for a sample of modules
# (every 40th in modules.dep plus some with softdeps and builtins in their
# closure), the set of modules in modpreload's dry-run plan equals what
# kmod's `modprobe --show-depends` lists. Also times planning the whole tree.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
name=vm/plan-debian-tree
# shellcheck source=harness/lib/hostlib.sh
. "$top/harness/lib/hostlib.sh"
if ! mpt_kernel bookworm; then
	echo "FAIL: $name: no bookworm kernel (harness/lib/kernels.sh bookworm)"
	exit 0
fi
kver=$KVER dir=$KDIR
moddir=$dir/lib/modules/$kver
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/conf"

{
	awk -F: 'NR % 40 == 1 { n = $1; sub(".*/", "", n); sub("\\.ko.*", "", n); print n }' \
		"$moddir/modules.dep"
	echo ext4 xfs btrfs virtio_blk aesni_intel crc32c_intel nvme e1000e snd_hda_intel \
		drm_kms_helper | tr ' ' '\n'
} | sort -u >"$tmp/sample"

bad=0
n=0
while read -r m; do
	n=$((n + 1))
	modprobe -C "$tmp/conf" -d "$dir" -S "$kver" --show-depends "$m" 2>/dev/null |
		awk '$1 == "insmod" { n = $2; sub(".*/", "", n); sub("\\.ko.*", "", n); gsub("-", "_", n); print n }
		     $1 == "builtin" { n = $2; gsub("-", "_", n); print n }' | sort -u >"$tmp/want"
	"$top/build/modpreload" -n -C "$tmp/conf" -d "$dir" -S "$kver" --cmdline '' \
		--no-default-config "$m" 2>/dev/null | jq -r '.modules[].name' | sort -u >"$tmp/got"
	if ! cmp -s "$tmp/want" "$tmp/got"; then
		echo "  $m: modprobe and modpreload disagree:" >&2
		diff "$tmp/want" "$tmp/got" | sed 's/^/    /' >&2
		bad=$((bad + 1))
	fi
done <"$tmp/sample"
if [ "$bad" = 0 ] && [ "$n" -gt 50 ]; then
	echo "PASS: $name ($n modules compared with modprobe --show-depends)"
else
	echo "FAIL: $name: $bad of $n modules differ"
fi

# The whole tree at once: every module requested, planned in one go.
awk -F: '{ n = $1; sub(".*/", "", n); sub("\\.ko.*", "", n); print n }' "$moddir/modules.dep" >"$tmp/all"
all=$(wc -l <"$tmp/all")
# shellcheck disable=SC2046 # one argument per module
if "$top/build/modpreload" -n -C "$tmp/conf" -d "$dir" -S "$kver" --cmdline '' --no-default-config \
	-r "$tmp/all.json" $(cat "$tmp/all") >/dev/null 2>&1 &&
	[ "$(jq .unique "$tmp/all.json")" -ge "$all" ]; then
	echo "PASS: $name/whole-tree ($all modules, $(jq '.waves | length' "$tmp/all.json") waves)"
else
	echo "FAIL: $name/whole-tree: could not plan all $all modules"
fi
