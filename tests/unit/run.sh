#!/bin/sh
# Unit tests: the C tests (ASan/UBSan) and the CLI against the finit_module
# shim (ASan/UBSan, and the scheduler's cases again under TSan).
# Prints PASS:/FAIL: lines; tests/run.sh counts them.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
b=$top/build
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mp-unit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:verify_asan_link_order=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:report_signal_unsafe=0

# data for the decompression tests: a real ELF, compressed three ways,
# truncated, and a zstd frame header over garbage
head -c 400000 "$b/asan/modpreload" >"$tmp/payload"
zstd -q -k -19 "$tmp/payload" -o "$tmp/payload.zst"
xz -k -c "$tmp/payload" >"$tmp/payload.xz"
gzip -n -c "$tmp/payload" >"$tmp/payload.gz"
for s in zst xz gz; do
	size=$(stat -c %s "$tmp/payload.$s")
	head -c $((size / 2)) "$tmp/payload.$s" >"$tmp/payload.cut.$s"
done
# a zstd magic and a small window (descriptor 0, window byte 0), then text:
# the same corrupt frame every run (random bytes sometimes made a header
# asking for a window over the 32 MiB cap: ENOMEM, not EBADMSG)
{ printf '\050\265\057\375\000\000'; yes 'not a zstd block' | head -c 5000; } >"$tmp/payload.bad.zst"
# decompression bombs: zeros, 9 MiB (for an 8 MiB budget) in each format,
# and the real budget's size exactly and one byte more; an xz whose header
# asks for a 64 MiB dictionary
for s in zst xz gz; do
	case $s in zst) c='zstd -q -c' ;; xz) c='xz -0 -c' ;; gz) c='gzip -n -c' ;; esac
	head -c $((9 << 20)) /dev/zero | $c >"$tmp/bomb9.$s"
done
head -c $((256 << 20)) /dev/zero | zstd -q -c >"$tmp/bomb256.zst"
head -c $(((256 << 20) + 1)) /dev/zero | zstd -q -c >"$tmp/bomb256+1.zst"
head -c $((6 << 20)) /dev/zero | zstd -q -c >"$tmp/bomb6.zst"
xz --lzma2=dict=64MiB -c <"$tmp/payload" >"$tmp/payload.dict64.xz"
# from a pipe: the size is unknown, so the frame keeps its 128 MiB window
zstd -q -c --zstd=wlog=27 <"$tmp/payload" >"$tmp/payload.wlog27.zst"
printf 'a\nb a\nc b alias=foo-bar\n' | "$top/tests/unit/mktree.sh" "$tmp/tree" 1.0

# dupcost: the same payload with each format's size field, zstd from a pipe
# (no size), xz with stream padding and with several blocks; and a real module, compressed the way
# the kernel's modules_install does, when one of the cached kernels has one
zstd -q -c <"$tmp/payload" >"$tmp/payload.pipe.zst"
{ cat "$tmp/payload.xz"; head -c 8 /dev/zero; } >"$tmp/payload.pad.xz"
xz --block-size=100000 -c <"$tmp/payload" >"$tmp/payload.blocks.xz"
ko=
# shellcheck source=scripts/cache.sh
. "$top/scripts/cache.sh"
for k in "$(mp_cache_dir kernels)"/bookworm/lib/modules/*/kernel/arch/x86/crypto/aesni-intel.ko; do
	[ -f "$k" ] && ko=$k
done
if [ -n "$ko" ]; then
	cp "$ko" "$tmp/ko"
	zstd -q -T0 -k "$tmp/ko" -o "$tmp/ko.zst"
	xz --check=crc32 --lzma2=dict=1MiB -c "$tmp/ko" >"$tmp/ko.xz"
	ko=$tmp/ko
fi
"$b/unit/test_dupcost" "$tmp" ${ko:+"$ko"} || echo "FAIL: dupcost (exit $?)"
"$b/unit/test_graph" || echo "FAIL: graph (exit $?)"
"$b/unit/test_util" || echo "FAIL: util (exit $?)"
"$b/unit/test_strmap" || echo "FAIL: strmap (exit $?)"
"$b/unit/test_match" || echo "FAIL: match (exit $?)"
"$b/unit/test_cmdline" || echo "FAIL: cmdline (exit $?)"
"$b/unit/test_confparse" || echo "FAIL: confparse (exit $?)"
"$b/unit/test_uevent" || echo "FAIL: uevent (exit $?)"
"$b/unit/test_index" "$tmp" || echo "FAIL: index (exit $?)"
"$b/unit/test_decompress" "$tmp" || echo "FAIL: decompress (exit $?)"
"$b/unit/test_kstats" "$top/tests/data" || echo "FAIL: kstats (exit $?)"
"$b/unit/test_json" "$tmp" || echo "FAIL: json (exit $?)"
"$b/unit/test_profile" || echo "FAIL: profile (exit $?)"
"$b/unit/test_handover" || echo "FAIL: handover (exit $?)"
"$b/unit/test_analyze" || echo "FAIL: analyze (exit $?)"
"$b/unit/test_init" "$tmp" || echo "FAIL: init (exit $?)"

# the two CLI suites side by side: they mostly wait (on the shim's slow
# init()s and the hand-over's children): 7 minutes one after the other on a
# 2-core host, 4.5 together. The TSan one's lines follow the ASan one's.
MP_BIN=$b/tsan/modpreload MP_SUITE=cli-tsan MP_ONLY=sched "$top/tests/unit/cli.sh" >"$tmp/cli-tsan.out" 2>"$tmp/cli-tsan.err" &
tsan=$!
MP_BIN=$b/asan/modpreload MP_SUITE=cli "$top/tests/unit/cli.sh"
wait "$tsan" || echo "FAIL: cli-tsan (exit $?)"
cat "$tmp/cli-tsan.err" >&2
cat "$tmp/cli-tsan.out"
MP_SUITE=hooks "$top/tests/unit/hooks.sh"
# each source of names against kmod's modprobe with its loader's flags, on
# Debian's real module tree (skipped without one in the test cache)
MP_BIN=$b/asan/modpreload MP_SUITE=plan-diff "$top/tests/unit/plan-diff.sh" || :
# the shipped binary, whose libkmod calls base/match.c's fnmatch()
# (--wrap=fnmatch): the same comparison, then depmod's '*', '?' and a
# bracket (which it leaves to musl's) on a fake tree
MP_BIN=$b/modpreload MP_SUITE=plan-diff-static "$top/tests/unit/plan-diff.sh" || :
printf 'a alias=foo:a[bc]*\nb alias=bar:x?y*\nc alias=baz:*q\n' | "$top/tests/unit/mktree.sh" "$tmp/ft" 1.0
mkdir -p "$tmp/ft-sys/devices"
"$b/modpreload" -n -d "$tmp/ft" -S 1.0 --sysfs "$tmp/ft-sys" --cmdline "" --no-default-config \
	-C "$tmp/ft/etc/modprobe.d" -r "$tmp/ft.json" foo:ab1 bar:xzy2 baz:wq foo:ad 2>/dev/null
got=$(jq -r '[.modules[].name] + .requests.missing_names | join(" ")' "$tmp/ft.json" 2>/dev/null)
if [ "$got" = "a b c foo:ad" ]; then
	echo "PASS: static/fnmatch (a[bc]*, x?y*, *q matched; foo:ad not)"
else
	echo "FAIL: static/fnmatch: got '$got', want 'a b c foo:ad'"
fi
"$top/tests/unit/cache.sh"
"$top/tests/unit/vmrun.sh"
