#!/bin/sh
# Builds a module tree of small fake modules for the unit tests: real ELF
# objects with a .modinfo and exported symbols, so that the real depmod
# computes real indexes (dependencies from symbols, aliases, softdeps).
# They are never loaded: the shim stands in for the kernel.
#
# Usage: mktree.sh ROOT KVER < SPEC
# SPEC, one module a line ('#' comments):
#   NAME [DEP...] [alias=A]... [pre=M,M] [post=M,M] [opt=OPTIONS] [builtin]
#        [comp=zstd|xz|gzip] [pad=MIB]
# Module NAME exports sym_NAME and calls sym_DEP for each DEP; pad= adds
# that many MiB of zeros after the object (a decompression bomb when
# compressed: a few KiB on disk).
set -eu
root=$1
kver=$2
dir=$root/lib/modules/$kver
rm -rf "$root"
mkdir -p "$dir/kernel/test" "$root/etc/modprobe.d"
: >"$dir/modules.builtin"
: >"$dir/modules.order"
cc=${CC:-cc}

while read -r line; do
	case $line in '' | '#'*) continue ;; esac
	# shellcheck disable=SC2086 # word splitting is the parser
	set -- $line
	name=$1
	shift
	calls='' aliases='' pre='' post='' builtin='' comp='' pad=''
	for w in "$@"; do
		case $w in
		alias=*) aliases="$aliases\\0alias=${w#alias=}" ;;
		pre=*) pre=$(echo "${w#pre=}" | tr , ' ') ;;
		post=*) post=$(echo "${w#post=}" | tr , ' ') ;;
		opt=*) echo "options $name ${w#opt=}" | tr '+' ' ' >>"$root/etc/modprobe.d/test.conf" ;;
		builtin) builtin=1 ;;
		comp=*) comp=${w#comp=} ;;
		pad=*) pad=${w#pad=} ;;
		*) calls="$calls sym_$w() +" ;;
		esac
	done
	if [ -n "$builtin" ]; then
		echo "kernel/test/$name.ko" >>"$dir/modules.builtin"
		continue
	fi
	soft=
	if [ -n "$pre$post" ]; then
		soft="\\0softdep="
		[ -n "$pre" ] && soft="${soft}pre: $pre"
		[ -n "$pre" ] && [ -n "$post" ] && soft="$soft "
		[ -n "$post" ] && soft="${soft}post: $post"
	fi
	decls=
	for w in $calls; do
		case $w in sym_*) decls="$decls int ${w%()}(void);" ;; esac
	done
	src=$root/$name.c
	cat >"$src" <<EOC
$decls
int sym_$name(void) { return $calls 0; }
__attribute__((section("__ksymtab_strings"), used)) static const char ks[] = "sym_$name";
__attribute__((section(".modinfo"), used, aligned(1))) static const char mi[] =
	"license=GPL\\0name=$name$aliases$soft";
EOC
	$cc -c -O0 -fno-pic -o "$dir/kernel/test/$name.ko" "$src"
	echo "kernel/test/$name.ko" >>"$dir/modules.order"
	rm -f "$src"
	xzopt=
	if [ -n "$pad" ]; then
		head -c $((pad * 1048576)) /dev/zero >>"$dir/kernel/test/$name.ko"
		xzopt=-0 # the default preset takes seconds over that many zeros
	fi
	case $comp in
	zstd) zstd -q --rm "$dir/kernel/test/$name.ko" ;;
	xz) xz $xzopt --check=crc32 "$dir/kernel/test/$name.ko" ;;
	gzip) gzip -n "$dir/kernel/test/$name.ko" ;;
	esac
done
# no modules.builtin.modinfo: these kernels have no builtin parameters
depmod -b "$root" "$kver" 2>&1 | grep -v 'modules.builtin.modinfo' >&2 || true
