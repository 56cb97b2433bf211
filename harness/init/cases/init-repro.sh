#!/bin/sh
# tier: full
# init/mkinitramfs, on Debian's 6.1 module tree:
#   init-repro-zstd      two builds from the same inputs are byte-identical,
#                        though the inputs' copies, their mtimes and the
#                        temporary directory differ; SOURCE_DATE_EPOCH
#                        changes the bytes
#   init-repro-gzip      the same with --compress gzip --compress-modules zstd
#   init-closure         every dependency in the image's modules.dep is in the
#                        image (named set and --hostonly), and the indexes
#                        list exactly the included files
#   init-zstd-modules    the gzip image with zstd modules boots to an ext4
#                        root: bookworm's kernel cannot decompress, so the
#                        preloader does and calls init_module
# About 20 s (one boot).
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/init/host.sh
. "$top/harness/init/host.sh"
w=$top/build/vm/init/repro
rm -rf "$w"
mkdir -p "$w/in1" "$w/in2" "$w/tmp1" "$w/tmp2"

names="init-repro-zstd init-repro-gzip init-closure init-zstd-modules"
init_prepare
bb=$(command -v busybox) || fail_all "no busybox (busybox-static)"

# The same inputs in two places, with different mtimes.
for i in 1 2; do
	cp "$bb" "$w/in$i/busybox"
	printf '# extra modules\nvirtio_net\n' >"$w/in$i/extra.conf"
	printf 'hello\n' >"$w/in$i/motd"
done
touch -d '2001-01-01' "$w/in2/busybox" "$w/in2/extra.conf" "$w/in2/motd"
build() { # build N OUT [OPTION...]
	n=$1 o=$2
	shift 2
	TMPDIR=$w/tmp$n "$top/init/mkinitramfs" -q -o "$o" -k "$KVER" -d "$KDIR" \
		-m virtio_pci,virtio_blk,ext4 --busybox "$w/in$n/busybox" \
		--config "$w/in$n/extra.conf" --add "$w/in$n/motd:/etc/motd" "$@" >&2
}

# --- zstd, the default ---
if build 1 "$w/a1.img" && build 2 "$w/a2.img"; then
	cmp -s "$w/a1.img" "$w/a2.img" || fail "two builds differ"
	SOURCE_DATE_EPOCH=1700000000 build 1 "$w/a3.img" || fail "build with SOURCE_DATE_EPOCH failed"
	cmp -s "$w/a1.img" "$w/a3.img" && fail "SOURCE_DATE_EPOCH changed nothing"
	zstd -q -dc "$w/a1.img" >"$w/a1.cpio" 2>/dev/null || fail "not a zstd image"
	[ "$(cpio -it <"$w/a1.cpio" 2>/dev/null | LC_ALL=C sort -c 2>&1)" = "" ] ||
		fail "entries not sorted"
	cpio -itv <"$w/a1.cpio" 2>/dev/null | awk '$3 != "root" || $4 != "root" { bad = 1 }
		END { exit bad }' || fail "entries not owned by root"
else
	fail "mkinitramfs failed"
fi
verdict init-repro-zstd "$(($(wc -c <"$w/a1.img") / 1024)) KiB"

# --- gzip, zstd modules ---
if build 1 "$w/b1.img" --compress gzip --compress-modules zstd &&
	build 2 "$w/b2.img" --compress gzip --compress-modules zstd; then
	cmp -s "$w/b1.img" "$w/b2.img" || fail "two builds differ"
	gzip -dc "$w/b1.img" >"$w/b1.cpio" 2>/dev/null || fail "not a gzip image"
	n=$(cpio -it <"$w/b1.cpio" 2>/dev/null | grep -c '\.ko\.zst$')
	[ "$n" -gt 0 ] || fail "no .ko.zst in the image"
	cpio -it <"$w/b1.cpio" 2>/dev/null | grep -q '\.ko$' && fail "uncompressed modules left"
else
	fail "mkinitramfs failed"
fi
verdict init-repro-gzip "$(($(wc -c <"$w/b1.img") / 1024)) KiB, ${n:-0} zstd modules"

# --- the closure and the indexes ---
closure_ok() { # closure_ok CPIO: unpack, check modules.dep against the files
	rm -rf "$w/x"
	mkdir -p "$w/x"
	(cd "$w/x" && cpio -id --quiet <"$1") || return 1
	m=$w/x/lib/modules/$KVER
	(cd "$m" && find . -name '*.ko*' | sed 's|^\./||' | LC_ALL=C sort) >"$w/files"
	sed 's/:.*//' "$m/modules.dep" | LC_ALL=C sort >"$w/listed"
	cmp -s "$w/files" "$w/listed" || { echo "modules.dep and the files differ" >&2; return 1; }
	tr ' ' '\n' <"$m/modules.dep" | sed -n 's/:$//; /\.ko/p' | LC_ALL=C sort -u |
		while read -r f; do [ -f "$m/$f" ] || { echo "missing $f" >&2; exit 1; }; done
}
closure_ok "$w/a1.cpio" || fail "named set: closure or index broken"
if TMPDIR=$w/tmp1 "$top/init/mkinitramfs" -q -o "$w/h.img" -k "$KVER" -d "$KDIR" \
	--hostonly --compress none >&2; then
	closure_ok "$w/h.img" || fail "--hostonly: closure or index broken"
	hn=$(wc -l <"$w/files")
else
	fail "mkinitramfs --hostonly failed"
fi
verdict init-closure "host-only picked ${hn:-0} modules on this machine"

# --- boot the zstd-module image ---
uuid=$(cat /proc/sys/kernel/random/uuid)
if ! init_rootdir "$w/rootdir" || ! init_mkfs ext4 "$w/rootdir" "$w/ext4.img" "$uuid" mpt-root >&2; then
	fail "cannot make the root disk"
fi
init_run "$w/boot.res" "$w/boot.log" "$w/b1.img" "$w/ext4.img" "root=UUID=$uuid"
init_check_root "$w/boot.res" ext4
[ "$(mpt_num init_ok "$w/boot.res")" -gt 0 ] ||
	fail "no init_module: were the zstd modules decompressed?"
[ "$(mpt_num finit_enter "$w/boot.res")" = 0 ] || fail "finit_module on a .ko.zst"
verdict init-zstd-modules "$(mpt_num init_ok "$w/boot.res") modules decompressed by the preloader"
exit 0
