#!/bin/sh
# Fetch (or build) the kernels the VM tests boot and keep them in the test
# cache (scripts/cache.sh) under kernels/NAME/: $MP_CACHE/kernels/NAME, or
# build/kernels/NAME with the cache off.
#
# Usage: harness/lib/kernels.sh [bookworm|trixie|stats|arm64|seven|all]...
#
# Prints one line per kernel on stdout:  NAME KVER DIR
# Progress goes to stderr.  Every DIR has the same layout:
#   DIR/vmlinuz                 the kernel image to boot (symlink)
#   DIR/lib/modules/KVER/       the kernel's own modules, depmod'ed
#   DIR/build                   the tree external modules build against (symlink)
#   DIR/kernel.env              sourceable: KVER, VMLINUZ, BUILD (the build
#                               tree), KMAKE_ARGS (extra make arguments for
#                               external modules), MODCOMP (none|xz|zstd: how
#                               the kernel's modules are compressed), KEY
# A kernel is cached when DIR/kernel.env exists, its KEY matches what the
# Debian archive and this script ask for (package versions, config options,
# this script's own sha256) and every file DIR/manifest lists (the kernel,
# its modules and indexes, written last with kernel.env) is there with its
# size: a half-written or damaged kernel is made again, never used;
# the versions found are remembered while apt's lists are unchanged, so a
# rerun with everything cached takes a fraction of a second.
#
# bookworm  Debian bookworm's (or bookworm-security's) current 6.1 kernel,
#           with its headers and linux-kbuild extracted here (never
#           installed on the host: /usr/src and /lib/modules stay as they were).
# trixie    Debian trixie's 6.12 kernel (.ko.xz, in-kernel xz), with its
#           headers extracted here; needs the stats kernel's build tree for
#           host tools (see trixie_kbuild).
# stats     6.12 from bookworm-security's linux-source-6.12 with
#           CONFIG_MODULE_STATS (tinyconfig plus the options listed at
#           stats_kernel below), built here in about 4.5 minutes on 2 quiet
#           cores before kvm and the crypto modules were added (1391 objects
#           now, 1255 then); with them, 18.6 minutes on a host shared with
#           other builds and guests (load average 8 to 17);
#           the build tree is kept (DIR/obj).
# arm64     Debian bookworm's 6.1 kernel for arm64 (linux-image-arm64), for
#           qemu-system-aarch64 -M virt; its headers with the amd64
#           linux-kbuild (host tools), modules cross-built with
#           aarch64-linux-gnu-gcc.  kernel.env adds ARCH (arm64) and
#           CROSS_COMPILE.  Not part of "all".
# seven     Debian's newest 7.x (trixie-backports', else sid's), with its
#           headers extracted here and modpost and objtool built from the
#           same version's linux-source (see seven_tools).  Not part of
#           "all".
#
# Environment: MP_KERNELS_DIR (default: kernels/ in the test cache), MP_JOBS (make -j),
# MP_KERNELS_REFRESH=1 (look the versions up again now).
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/cache.sh
. "$top/scripts/cache.sh"
kdir=${MP_KERNELS_DIR:-$(mp_cache_dir kernels)}
# every key names this script: a change to how a kernel is made makes it again
self_key=$(sha256sum <"$0" | cut -c1-16)
apt="$top/scripts/apt.sh"
# which of scripts/apt.sh's sets of lists aptq asks: the default one
# (bookworm, trixie), or "new" (trixie-backports, sid) for seven
apt_set=
aptq() { MP_APT_SET=$apt_set "$apt" "$@"; }
jobs=${MP_JOBS:-$(nproc)}

log() { printf 'kernels.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# memo NAME CMD [ARG...]: CMD's output, remembered while apt's package lists
# stay the same (scripts/apt.sh refreshes them once a day), so a rerun with
# everything cached asks apt nothing.  MP_KERNELS_REFRESH=1 asks anyway.
memo() {
	m=$kdir/.memo/$1
	stamp=${MP_APT_DIR:-$(mp_cache_dir apt)}${apt_set:+-$apt_set}/state/updated
	shift
	if [ -z "${MP_KERNELS_REFRESH:-}" ] && [ -s "$m" ] && [ -f "$stamp" ] &&
		[ -n "$(find "$m" -newer "$stamp")" ] &&
		[ -z "$(find "$stamp" -mmin +1440)" ]; then
		cat "$m"
		return 0
	fi
	mkdir -p "$kdir/.memo"
	memo_out=$("$@")
	[ -n "$memo_out" ] || return 1
	printf '%s\n' "$memo_out" >"$m.tmp"
	mv "$m.tmp" "$m"
	printf '%s\n' "$memo_out"
}

# Highest version of PKG in the given suites (suite names as madison prints
# them, e.g. bookworm bookworm-security); nothing when there is none.
newest_version() {
	pkg=$1
	shift
	best=
	for v in $(aptq apt-cache madison "$pkg" | awk -F'|' -v suites=" $* " '
		$3 ~ / Packages$/ {
			split($3, w, " "); split(w[2], s, "/")
			if (index(suites, " " s[1] " ")) { gsub(/ /, "", $2); print $2 }
		}'); do
		if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then
			best=$v
		fi
	done
	echo "$best"
}

best_version() {
	best=$(newest_version "$@")
	if [ -z "$best" ]; then
		pkg=$1
		shift
		die "no version of $pkg in: $*"
	fi
	echo "$best"
}

# ABI of the kernel that linux-image-amd64=VERSION depends on.
image_abi() {
	aptq apt-cache show "linux-image-amd64=$1" |
		sed -n 's/^Depends:.*linux-image-\([^ ,]*\)-amd64.*/\1-amd64/p' | head -n 1
}

# Download packages (name=version or name) into $1 if not already there.
download() {
	dest=$1
	shift
	mkdir -p "$dest"
	(cd "$dest" && aptq apt-get -q download "$@" >&2)
}

# have_deb DIR PKG VERSION: DIR holds PKG's .deb of VERSION
have_deb() {
	for f in "$1/$2_$(echo "$3" | sed 's/:/%3a/')"_*.deb; do
		[ -f "$f" ] && return 0
	done
	return 1
}

# env_get DIR VAR: VAR's value in DIR/kernel.env
env_get() {
	if [ -f "$1/kernel.env" ]; then
		sed -n "s/^$2='\(.*\)'\$/\1/p" "$1/kernel.env"
	fi
}

# the list of what must be there, by size: the kernel image, the module
# tree (modules, indexes) and the build tree's Makefile
manifest_of() {
	(cd "$1" && find -H vmlinuz lib/modules build/Makefile -type f -printf '%p %s\n' 2>/dev/null | LC_ALL=C sort)
}

# DIR's KEY when the kernel there is whole, else nothing
kernel_env_key() {
	[ -s "$1/manifest" ] || return 0
	if ! manifest_of "$1" | cmp -s - "$1/manifest"; then
		log "$(basename "$1"): files missing or cut short since it was made: making it again"
		return 0
	fi
	env_get "$1" KEY
}

print_line() {
	echo "$1 $(env_get "$2" KVER) $2"
}

# --- Debian kernels ---------------------------------------------------------

# debian_kernel NAME SUITES...
debian_kernel_unlocked() {
	name=$1
	shift
	dir=$kdir/$name
	ver=$(memo "version-$name" best_version linux-image-amd64 "$@")
	abi=$(memo "abi-$name-$ver" image_abi "$ver")
	[ -n "$abi" ] || die "cannot find the ABI linux-image-amd64=$ver depends on"
	key="deb:linux-image-$abi-unsigned:$ver headers:extracted script:$self_key"
	if [ "$name" = trixie ]; then
		# Its module-building tools come from the stats kernel's source.
		key="$key tools:linux-source-6.12=$(stats_source_version)"
	fi
	if [ "$(kernel_env_key "$dir")" = "$key" ]; then
		print_line "$name" "$dir"
		return
	fi
	log "$name: fetching linux-image-$abi-unsigned ($ver)"
	rm -rf "$dir"
	mkdir -p "$dir"
	dl=$kdir/debs/$name
	if ! have_deb "$dl" "linux-image-$abi-unsigned" "$ver"; then
		rm -rf "$dl"
		download "$dl" "linux-image-$abi-unsigned=$ver"
	fi
	dpkg -x "$dl/linux-image-$abi-unsigned_"*.deb "$dir"
	# Trixie ships usr/lib/modules only (merged /usr): depmod -b wants lib/.
	if [ ! -e "$dir/lib" ] && [ -d "$dir/usr/lib/modules" ]; then
		ln -s usr/lib "$dir/lib"
	fi
	[ -d "$dir/lib/modules/$abi" ] || die "$name: no lib/modules/$abi in the package"
	[ -f "$dir/boot/vmlinuz-$abi" ] || die "$name: no boot/vmlinuz-$abi in the package"
	depmod -b "$dir" "$abi"
	ln -sfn "boot/vmlinuz-$abi" "$dir/vmlinuz"
	modcomp=$(modcomp_of "$dir/lib/modules/$abi")

	# Extracted, not installed: the headers, their -common half and the
	# matching linux-kbuild with the host tools (modpost...).
	kb=${abi%-amd64}
	hdl=$kdir/debs/$name-headers
	# the kbuild package is named by the kernel's version (linux-kbuild-6.1
	# for bookworm, linux-kbuild-6.12.N+debX for trixie): ask the headers
	kbuild=$(memo "kbuild-$name-$ver" headers_kbuild "$abi" "$ver")
	[ -n "$kbuild" ] || die "$name: cannot find the linux-kbuild linux-headers-$abi=$ver needs"
	if ! have_deb "$hdl" "linux-headers-$abi" "$ver" ||
		! have_deb "$hdl" "linux-headers-$kb-common" "$ver" ||
		! have_deb "$hdl" "$kbuild" "$ver"; then
		rm -rf "$hdl"
		download "$hdl" "linux-headers-$abi=$ver" \
			"linux-headers-$kb-common=$ver" "$kbuild=$ver"
	fi
	hroot=$dir/headers
	mkdir -p "$hroot"
	for deb in "$hdl"/*.deb; do dpkg -x "$deb" "$hroot"; done
	build=$hroot/usr/src/linux-headers-$abi
	fix_abs_links "$hroot"
	# the amd64 Makefile includes the -common one by absolute path
	sed -i "s|^include /usr/src/|include $hroot/usr/src/|" "$build/Makefile"
	kmake=
	if [ "$name" = trixie ]; then
		trixie_kbuild "$hroot" "${kbuild#linux-kbuild-}"
		kmake="CC=gcc CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT="
	fi
	ln -sfn "$build" "$dir/build"
	write_env "$dir" "$abi" "$dir/boot/vmlinuz-$abi" "$build" "$key" "$modcomp" "$kmake"
	print_line "$name" "$dir"
}

# headers_kbuild ABI VERSION: the linux-kbuild package linux-headers-ABI needs
headers_kbuild() {
	aptq apt-cache show "linux-headers-$1=$2" |
		sed -n 's/^Depends: //p' | tr ',' '\n' | sed -n 's/^ *\(linux-kbuild-[^ ]*\).*/\1/p' | head -n 1
}

# Absolute symlinks inside an extracted tree point at the host: make them
# point inside the tree.
fix_abs_links() {
	root=$1
	find "$root" -type l | while read -r l; do
		t=$(readlink "$l")
		case $t in
		/*) ln -sfn "$root$t" "$l" ;;
		esac
	done
}

# Make trixie's headers usable here (bookworm: glibc 2.36, gcc-12) to build
# external modules, with two changes:
# - modpost and objtool in trixie's linux-kbuild need glibc 2.38: use the
#   ones built from the same 6.12 source for the stats kernel instead;
# - (in KMAKE_ARGS) the kernel was built with gcc-14: build with the host's
#   gcc and without -fmin-function-alignment, which gcc-12 lacks (it falls
#   back to -falign-functions, as for any compiler without it).
trixie_kbuild() {
	hroot=$1
	kb=$2
	(stats_kernel) >/dev/null
	sobj=$kdir/stats/obj
	kbd=$hroot/usr/lib/linux-kbuild-$kb
	[ -d "$kbd" ] || die "trixie: no $kbd"
	cp "$sobj/scripts/mod/modpost" "$kbd/scripts/mod/modpost"
	cp "$sobj/tools/objtool/objtool" "$kbd/tools/objtool/objtool"
}

modcomp_of() {
	f=$(find "$1" -name '*.ko*' -print | head -n 1)
	case $f in
	*.ko.zst) echo zstd ;;
	*.ko.xz) echo xz ;;
	*.ko.gz) echo gzip ;;
	*) echo none ;;
	esac
}

# write_env DIR KVER VMLINUZ BUILD KEY MODCOMP [KMAKE_ARGS]
write_env() {
	manifest_of "$1" >"$1/manifest.tmp"
	mv "$1/manifest.tmp" "$1/manifest"
	{
		echo "# Written by harness/lib/kernels.sh"
		echo "KVER='$2'"
		echo "VMLINUZ='$3'"
		echo "BUILD='$4'"
		echo "KMAKE_ARGS='${7:-}'"
		echo "MODCOMP='$6'"
		echo "KEY='$5'"
	} >"$1/kernel.env.tmp"
	mv "$1/kernel.env.tmp" "$1/kernel.env"
}

# --- A 6.12 kernel with CONFIG_MODULE_STATS ---------------------------------

# The recipe: tinyconfig plus these.  Changing the list
# changes the cache key and rebuilds.
STATS_Y="64BIT KERNEL_GZIP PRINTK TTY SERIAL_8250 SERIAL_8250_CONSOLE
BINFMT_ELF BINFMT_SCRIPT BLK_DEV_INITRD RD_GZIP DEVTMPFS DEVTMPFS_MOUNT
PROC_FS SYSFS DEBUG_FS MAGIC_SYSRQ ACPI PCI SMP FUTEX MULTIUSER
MODULES MODULE_UNLOAD MODULE_DEBUG MODULE_STATS MODULE_COMPRESS
MODULE_COMPRESS_ZSTD MODULE_COMPRESS_ALL MODULE_DECOMPRESS FTRACE
FTRACE_SYSCALLS BLOCK VIRTIO_MENU"
STATS_M="VIRTIO VIRTIO_PCI VIRTIO_BLK EXT4_FS"
# Beyond the recipe: printk timestamps (boot-time measurements), room for
# 256 CPUs (tinyconfig leaves NR_CPUS at 2 once SMP is switched on; 512 is
# the most without CPUMASK_OFFSTACK) with x2apic, which QEMU's q35 needs
# past 255 APIC IDs, and a local version so the kver never collides with a
# Debian one.
# The scale benchmark's storm needs the modules every CPU's modalias asks
# for on a real machine: the x86 CPU-feature crypto modules and kvm (kvm_intel
# and kvm_amd match the vmx and svm flags; TCG's -cpu max has svm).  They add
# 136 of the build's 1391 objects.
STATS_EXTRA_Y="PRINTK_TIME HYPERVISOR_GUEST X86_X2APIC CRYPTO VIRTUALIZATION"
STATS_EXTRA_M="KVM KVM_INTEL KVM_AMD CRYPTO_AES_NI_INTEL CRYPTO_CRC32C_INTEL
CRYPTO_GHASH_CLMUL_NI_INTEL CRYPTO_SHA256_SSSE3 CRYPTO_SHA512_SSSE3
CRC_T10DIF CRYPTO_CRCT10DIF_PCLMUL"
STATS_VAL="NR_CPUS=256"
STATS_LOCALVERSION=-mpstats
# The other members of the choices the recipe picks from.
STATS_OFF="KERNEL_BZIP2 KERNEL_LZMA KERNEL_XZ KERNEL_LZO KERNEL_LZ4 KERNEL_ZSTD
MODULE_COMPRESS_GZIP MODULE_COMPRESS_XZ"

stats_source_version() {
	memo version-stats best_version linux-source-6.12 bookworm-security bookworm
}

words() { # a list as one comma-separated word
	printf '%s\n' "$1" | tr -s ' \t\n' ',' | sed 's/,$//'
}

stats_kernel_unlocked() {
	dir=$kdir/stats
	ver=$(stats_source_version)
	key="src:linux-source-6.12=$ver script:$self_key y:$(words "$STATS_Y $STATS_EXTRA_Y") m:$(words "$STATS_M $STATS_EXTRA_M") off:$(words "$STATS_OFF") val:$(words "$STATS_VAL") lv:$STATS_LOCALVERSION"
	if [ "$(kernel_env_key "$dir")" = "$key" ]; then
		print_line stats "$dir"
		return
	fi
	log "stats: building linux-source-6.12=$ver (takes several minutes)"
	rm -rf "$dir"
	mkdir -p "$dir"
	dl=$kdir/debs/stats
	if ! have_deb "$dl" linux-source-6.12 "$ver"; then
		rm -rf "$dl"
		download "$dl" "linux-source-6.12=$ver"
	fi
	dpkg-deb --fsys-tarfile "$dl"/linux-source-6.12_*_all.deb |
		tar -xO --wildcards '*/linux-source-6.12.tar.xz' | tar -xJ -C "$dir"
	mv "$dir/linux-source-6.12" "$dir/src"
	obj=$dir/obj
	mkdir -p "$obj"
	mk() { make -s -C "$dir/src" O="$obj" "$@" >&2; }
	mk tinyconfig
	cfg() { "$dir/src/scripts/config" --file "$obj/.config" "$@"; }
	for o in $STATS_Y $STATS_EXTRA_Y; do cfg -e "$o"; done
	for o in $STATS_M $STATS_EXTRA_M; do cfg -m "$o"; done
	# Choices: what tinyconfig picked stays unless switched off.
	for o in $STATS_OFF; do cfg -d "$o"; done
	for o in $STATS_VAL; do cfg --set-val "${o%%=*}" "${o#*=}"; done
	cfg --set-str LOCALVERSION "$STATS_LOCALVERSION" -d LOCALVERSION_AUTO
	mk olddefconfig
	# olddefconfig silently drops what has unmet dependencies: check.
	for o in $STATS_Y $STATS_EXTRA_Y; do
		grep -q "^CONFIG_$o=y" "$obj/.config" || die "stats: CONFIG_$o did not stick"
	done
	for o in $STATS_M $STATS_EXTRA_M; do
		grep -q "^CONFIG_$o=m" "$obj/.config" || die "stats: CONFIG_$o=m did not stick"
	done
	for o in $STATS_VAL; do
		grep -q "^CONFIG_$o\$" "$obj/.config" || die "stats: CONFIG_$o did not stick"
	done
	t0=$(date +%s)
	mk -j"$jobs" bzImage modules
	log "stats: built in $(($(date +%s) - t0)) s"
	kver=$(make -s -C "$dir/src" O="$obj" kernelrelease)
	# modules_install compresses (zstd) and runs depmod.  Its
	# lib/modules/KVER/build link is dropped: DIR/build is the one to use,
	# and module trees copied from here should not carry it.
	mk INSTALL_MOD_PATH="$dir" modules_install
	rm -f "$dir/lib/modules/$kver/build" "$dir/lib/modules/$kver/source"
	cp "$obj/arch/x86/boot/bzImage" "$dir/vmlinuz-$kver"
	ln -sfn "vmlinuz-$kver" "$dir/vmlinuz"
	ln -sfn obj "$dir/build"
	write_env "$dir" "$kver" "$dir/vmlinuz-$kver" "$obj" "$key" \
		"$(modcomp_of "$dir/lib/modules/$kver")"
	print_line stats "$dir"
}

# --- Debian's arm64 kernel --------------------------------------------------
# Fetched by the private apt for arm64 (scripts/apt.sh, MP_APT_ARCH), never
# installed.  Its headers point their scripts at linux-kbuild-6.1, a package
# of the build machine's architecture: the amd64 one of the same version,
# with ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-, builds modules for it.

arm64_apt() { MP_APT_ARCH=arm64 "$apt" "$@"; }

arm64_best_version() {
	best=
	for v in $(arm64_apt apt-cache madison linux-image-arm64 | awk -F'|' '
		$3 ~ / Packages$/ {
			split($3, w, " "); split(w[2], s, "/")
			if (s[1] == "bookworm" || s[1] == "bookworm-security") { gsub(/ /, "", $2); print $2 }
		}'); do
		if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then
			best=$v
		fi
	done
	[ -n "$best" ] || die "arm64: no linux-image-arm64 in bookworm"
	echo "$best"
}

arm64_abi() {
	arm64_apt apt-cache show "linux-image-arm64=$1" |
		sed -n 's/^Depends:.*linux-image-\([^ ,]*\)-arm64.*/\1-arm64/p' | head -n 1
}

arm64_kernel_unlocked() {
	dir=$kdir/arm64
	ver=$(memo version-arm64 arm64_best_version)
	abi=$(memo "abi-arm64-$ver" arm64_abi "$ver")
	[ -n "$abi" ] || die "arm64: cannot find the ABI linux-image-arm64=$ver depends on"
	cross=aarch64-linux-gnu-
	key="deb:linux-image-$abi-unsigned:$ver headers:extracted kbuild:amd64 cross:$cross script:$self_key"
	if [ "$(kernel_env_key "$dir")" = "$key" ]; then
		print_line arm64 "$dir"
		return
	fi
	command -v "${cross}gcc" >/dev/null || die "arm64: no ${cross}gcc (scripts/deps.sh)"
	log "arm64: fetching linux-image-$abi-unsigned ($ver)"
	rm -rf "$dir"
	mkdir -p "$dir"
	kb=${abi%-arm64}
	dl=$kdir/debs/arm64
	if ! have_deb "$dl" "linux-image-$abi-unsigned" "$ver" ||
		! have_deb "$dl" "linux-headers-$abi" "$ver" ||
		! have_deb "$dl" "linux-headers-$kb-common" "$ver" ||
		! have_deb "$dl" linux-kbuild-6.1 "$ver"; then
		rm -rf "$dl"
		mkdir -p "$dl"
		(cd "$dl" && arm64_apt apt-get -q download "linux-image-$abi-unsigned=$ver" \
			"linux-headers-$abi=$ver" "linux-headers-$kb-common=$ver" >&2)
		# the host tools: the build machine's own architecture
		download "$dl" "linux-kbuild-6.1=$ver"
	fi
	dpkg -x "$dl/linux-image-$abi-unsigned_"*.deb "$dir"
	[ -d "$dir/lib/modules/$abi" ] || die "arm64: no lib/modules/$abi in the package"
	[ -f "$dir/boot/vmlinuz-$abi" ] || die "arm64: no boot/vmlinuz-$abi in the package"
	depmod -b "$dir" "$abi"
	ln -sfn "boot/vmlinuz-$abi" "$dir/vmlinuz"
	hroot=$dir/headers
	mkdir -p "$hroot"
	for deb in "$dl/linux-headers-"*.deb "$dl/linux-kbuild-"*.deb; do dpkg -x "$deb" "$hroot"; done
	build=$hroot/usr/src/linux-headers-$abi
	fix_abs_links "$hroot"
	sed -i "s|^include /usr/src/|include $hroot/usr/src/|" "$build/Makefile"
	ln -sfn "$build" "$dir/build"
	write_env "$dir" "$abi" "$dir/boot/vmlinuz-$abi" "$build" "$key" \
		"$(modcomp_of "$dir/lib/modules/$abi")" "ARCH=arm64 CROSS_COMPILE=$cross"
	# after KEY: a cached arm64 kernel is always complete
	{
		echo "ARCH='arm64'"
		echo "CROSS_COMPILE='$cross'"
	} >>"$dir/kernel.env"
	print_line arm64 "$dir"
}

# --- Debian's newest 7.x ----------------------------------------------------
# From trixie-backports, else sid, through scripts/apt.sh's second set of
# lists (MP_APT_SET=new).  Since 7.x Debian splits what
# linux-image-ABI-unsigned held: linux-binary-unsigned-ABI (the kernel, as
# usr/lib/modules/ABI/vmlinuz.unsigned), linux-modules-ABI and
# linux-base-ABI (config, modules.builtin*, modules.order, a System.map
# stub).  Laid out here as the others are: boot/vmlinuz-ABI,
# boot/config-ABI (what the booted cases copy), boot/System.map-ABI.

seven_version() {
	for s in trixie-backports sid; do
		v=$(newest_version linux-image-amd64 "$s")
		case $v in
		7.*)
			echo "$v"
			return
			;;
		esac
	done
}

seven_kernel_unlocked() {
	apt_set=new
	dir=$kdir/seven
	ver=$(memo version-seven seven_version) ||
		die "seven: no linux-image-amd64 7.x in trixie-backports or sid"
	abi=$(memo "abi-seven-$ver" image_abi "$ver")
	[ -n "$abi" ] || die "seven: cannot find the ABI linux-image-amd64=$ver depends on"
	kb=${abi%-amd64}
	# linux-source-7.3: the source package's binaries share the version
	src=linux-source-$(echo "$kb" | cut -d. -f1,2)
	key="deb:linux-binary-unsigned-$abi:$ver headers:extracted tools:$src=$ver script:$self_key"
	if [ "$(kernel_env_key "$dir")" = "$key" ]; then
		print_line seven "$dir"
		return
	fi
	log "seven: fetching linux-binary-unsigned-$abi ($ver)"
	rm -rf "$dir"
	mkdir -p "$dir"
	kbuild=$(memo "kbuild-seven-$ver" headers_kbuild "$abi" "$ver")
	[ -n "$kbuild" ] || die "seven: cannot find the linux-kbuild linux-headers-$abi=$ver needs"
	pkgs="linux-binary-unsigned-$abi linux-modules-$abi linux-base-$abi
linux-headers-$abi linux-headers-$kb-common $kbuild $src"
	dl=$kdir/debs/seven
	for p in $pkgs; do
		have_deb "$dl" "$p" "$ver" && continue
		rm -rf "$dl"
		# shellcheck disable=SC2046 # one name=version a package
		download "$dl" $(for q in $pkgs; do echo "$q=$ver"; done)
		break
	done
	for p in linux-binary-unsigned linux-modules linux-base; do
		dpkg -x "$dl/$p-${abi}_"*.deb "$dir"
	done
	m=$dir/usr/lib/modules/$abi
	[ -d "$m/kernel" ] || die "seven: no usr/lib/modules/$abi/kernel in linux-modules-$abi"
	[ -f "$m/vmlinuz.unsigned" ] || die "seven: no vmlinuz.unsigned in linux-binary-unsigned-$abi"
	[ -f "$m/config" ] || die "seven: no config in linux-base-$abi"
	ln -s usr/lib "$dir/lib"
	mkdir -p "$dir/boot"
	mv "$m/vmlinuz.unsigned" "$dir/boot/vmlinuz-$abi"
	cp "$m/config" "$dir/boot/config-$abi"
	if [ -f "$m/System.map" ]; then mv "$m/System.map" "$dir/boot/System.map-$abi"; fi
	depmod -b "$dir" "$abi"
	ln -sfn "boot/vmlinuz-$abi" "$dir/vmlinuz"
	modcomp=$(modcomp_of "$m")

	hroot=$dir/headers
	mkdir -p "$hroot"
	for p in "linux-headers-$abi" "linux-headers-$kb-common" "$kbuild"; do
		dpkg -x "$dl/${p}_"*.deb "$hroot"
	done
	build=$hroot/usr/src/linux-headers-$abi
	fix_abs_links "$hroot"
	# 7.x's amd64 Makefile names its own directory too (KBUILD_OUTPUT)
	sed -i -e "s|^include /usr/src/|include $hroot/usr/src/|" \
		-e "s|^KBUILD_OUTPUT=/usr/src/|KBUILD_OUTPUT=$hroot/usr/src/|" "$build/Makefile"
	seven_tools "$dir/tools.tmp" "$dl/${src}_"*.deb "$build/.config" \
		"$hroot/usr/lib/linux-kbuild-${kbuild#linux-kbuild-}"
	ln -sfn "$build" "$dir/build"
	# built with gcc-14, as trixie's: see trixie_kbuild
	write_env "$dir" "$abi" "$dir/boot/vmlinuz-$abi" "$build" "$key" "$modcomp" \
		"CC=gcc CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT="
	print_line seven "$dir"
}

# seven_tools WORK SOURCE_DEB CONFIG KBUILD_DIR: 7.x's linux-kbuild has
# modpost and objtool (the two host programs an external module's build
# runs that need more than bookworm's glibc 2.36: trixie's 2.38).  Build
# both from the kernel's own source with the host's gcc, configured as
# Debian's kernel (CONFIG) was, less Rust (the build would want the host's
# rustc to be the kernel's), by "make prepare": it makes the generated
# headers modpost's device tables are read from, and objtool.  About 20 s of
# one core; the source and objects (1.5 GB) go afterwards.
seven_tools() {
	work=$1
	rm -rf "$work"
	mkdir -p "$work/obj"
	dpkg-deb --fsys-tarfile "$2" | tar -xO --wildcards '*/linux-source-*.tar.xz' | tar -xJ -C "$work"
	tsrc=$(find "$work" -mindepth 1 -maxdepth 1 -name 'linux-source-*' -type d)
	[ -f "$tsrc/Makefile" ] || die "seven: no kernel source in $2"
	cp "$3" "$work/obj/.config"
	"$tsrc/scripts/config" --file "$work/obj/.config" -d RUST
	t0=$(date +%s)
	make -s -C "$tsrc" O="$work/obj" olddefconfig >&2
	make -s -C "$tsrc" O="$work/obj" -j"$jobs" prepare >&2
	log "seven: modpost and objtool built in $(($(date +%s) - t0)) s"
	[ -d "$4" ] || die "seven: no $4"
	cp "$work/obj/scripts/mod/modpost" "$4/scripts/mod/modpost"
	cp "$work/obj/tools/objtool/objtool" "$4/tools/objtool/objtool"
	rm -rf "$work"
}

# --- one at a time ------------------------------------------------------------

# locked NAME CMD...: CMD with NAME's lock held, so that a second
# kernels.sh asking for the same kernel (make bench beside make check, two
# worktrees sharing build/kernels) waits for it instead of building it again
# in the same place.
locked() {
	(
		exec 8>"$kdir/.lock-$1"
		flock 8
		shift
		"$@"
	)
}
debian_kernel() { locked "$1" debian_kernel_unlocked "$@"; }
stats_kernel() { locked stats stats_kernel_unlocked; }
arm64_kernel() { locked arm64 arm64_kernel_unlocked; }
seven_kernel() { locked seven seven_kernel_unlocked; }

# --- main ---------------------------------------------------------------------

[ $# -gt 0 ] || set -- all
mkdir -p "$kdir"
for what in "$@"; do
	case $what in
	bookworm) debian_kernel bookworm bookworm bookworm-security ;;
	trixie) debian_kernel trixie trixie ;;
	stats) stats_kernel ;;
	arm64) arm64_kernel ;;
	seven) seven_kernel ;;
	all)
		debian_kernel bookworm bookworm bookworm-security
		debian_kernel trixie trixie
		stats_kernel
		;;
	*) die "unknown kernel '$what' (bookworm, trixie, stats, arm64, seven or all)" ;;
	esac
done
