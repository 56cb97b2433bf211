#!/bin/sh
# The seeds' "master" (bench/seeds.sh): the stats kernel (harness/lib/
# kernels.sh stats: Debian's linux-source-6.12, tinyconfig and
# CONFIG_MODULE_STATS) with the kernel's merge of concurrent loads of one
# file taken out. Since 6.5 (9b9879fc0327, "modules: catch concurrent
# module loads, treat them as idempotent") finit_module goes through
# idempotent_init_module(): a second load of a file already in flight
# waits for the first and returns its result, reading nothing. Here it
# goes straight to init_module_from_file(), as before 6.5: every concurrent
# load of a module reads its file (and has it decompressed), checks it,
# and is refused only at the name check. 6.4's early check stays
# (early_mod_check(): a module already live or coming is refused before
# its memory is laid out and allocated, 064f4536d139), which is simpler
# than reverting it too: the seeds' "master" was a 6.4 merge-window tree
# that had it, and what it wastes is the file read and the decompression.
#
# The source is the stats kernel's, linked (cp -l) but for the one file
# changed; the configuration is the stats kernel's with LOCALVERSION
# -mpmaster. Built in the kernels' cache as kernels/master, laid out as
# kernels.sh lays out its kernels (kernel.env, manifest), and made again
# only when the stats kernel's key or this script changes.
#
# Usage: harness/lib/kernel-master.sh    prints "master KVER DIR"
# About as long to build as the stats kernel (minutes on 2 cores).
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/cache.sh
. "$top/scripts/cache.sh"
kdir=${MP_KERNELS_DIR:-$(mp_cache_dir kernels)}
jobs=${MP_JOBS:-$(nproc)}
log() { printf 'kernel-master.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

sline=$("$top/harness/lib/kernels.sh" stats) || die "no stats kernel"
sdir=$(echo "$sline" | cut -d' ' -f3)
skey=$(sed -n "s/^KEY='\(.*\)'\$/\1/p" "$sdir/kernel.env")
dir=$kdir/master
key="stats:$(printf '%s' "$skey" | sha256sum | cut -c1-16) script:$(sha256sum <"$0" | cut -c1-16)"

env_get() { sed -n "s/^$1='\(.*\)'\$/\1/p" "$dir/kernel.env" 2>/dev/null; }
manifest_of() {
	(cd "$1" && find -H vmlinuz lib/modules build/Makefile -type f -printf '%p %s\n' 2>/dev/null | LC_ALL=C sort)
}
whole() { [ -s "$dir/manifest" ] && manifest_of "$dir" | cmp -s - "$dir/manifest"; }

(
	exec 8>"$kdir/.lock-master"
	flock 8
	if [ "$(env_get KEY)" = "$key" ] && whole; then
		exit 0
	fi
	log "building the stats kernel's source without the merge of concurrent loads (minutes)"
	rm -rf "$dir"
	mkdir -p "$dir/obj"
	cp -al "$sdir/src" "$dir/src"
	main=kernel/module/main.c
	# a new file in place of the link: the stats kernel's source stays as it is
	awk '
		/^static int idempotent_init_module\(/ { in_f = 1 }
		{ print }
		in_f && /return -EBADF;/ {
			print ""
			print "\t/* modpreload'"'"'s \"master\" (harness/lib/kernel-master.sh): no merge of"
			print "\t * concurrent loads of one file, as before 6.5 */"
			print "\treturn init_module_from_file(f, uargs, flags);"
			in_f = 0; done = 1
		}
		END { exit !done }' "$sdir/src/$main" >"$dir/src/$main.new" ||
		die "$main: no idempotent_init_module() to change"
	mv -f "$dir/src/$main.new" "$dir/src/$main"
	cp "$sdir/obj/.config" "$dir/obj/.config"
	mk() { make -s -C "$dir/src" O="$dir/obj" "$@" >&2; }
	"$dir/src/scripts/config" --file "$dir/obj/.config" --set-str LOCALVERSION -mpmaster
	mk olddefconfig
	grep -q '^CONFIG_MODULE_STATS=y' "$dir/obj/.config" || die "CONFIG_MODULE_STATS did not stick"
	t0=$(date +%s)
	mk -j"$jobs" bzImage modules
	log "built in $(($(date +%s) - t0)) s"
	kver=$(make -s -C "$dir/src" O="$dir/obj" kernelrelease)
	mk INSTALL_MOD_PATH="$dir" modules_install
	rm -f "$dir/lib/modules/$kver/build" "$dir/lib/modules/$kver/source"
	cp "$dir/obj/arch/x86/boot/bzImage" "$dir/vmlinuz-$kver"
	ln -sfn "vmlinuz-$kver" "$dir/vmlinuz"
	ln -sfn obj "$dir/build"
	manifest_of "$dir" >"$dir/manifest"
	{
		echo "# Written by harness/lib/kernel-master.sh"
		echo "KVER='$kver'"
		echo "VMLINUZ='$dir/vmlinuz-$kver'"
		echo "BUILD='$dir/obj'"
		echo "KMAKE_ARGS=''"
		echo "MODCOMP='$(sed -n "s/^MODCOMP='\(.*\)'\$/\1/p" "$sdir/kernel.env")'"
		echo "KEY='$key'"
	} >"$dir/kernel.env.tmp"
	mv "$dir/kernel.env.tmp" "$dir/kernel.env"
)
echo "master $(env_get KVER) $dir"
