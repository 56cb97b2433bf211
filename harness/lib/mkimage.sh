#!/bin/sh
# Build a small test initramfs (newc cpio, gzip): static busybox, a module
# tree (all of it, or the closure of some modules), optional extra files, the
# host's kmod with its shared libraries, and a guest script that the image's
# /init runs between mounting the pseudo file systems and powering off.
#
# Usage: harness/lib/mkimage.sh -o OUT.img -k KVER -M MODROOT --script GUEST.sh
#            [-m MOD[,MOD...]]... [--all-test-modules] [--all-modules]
#            [--add SRC:DEST]... [--kmod]
#
#   -o OUT.img           the image to write
#   -k KVER              kernel release; modules come from MODROOT/lib/modules/KVER
#   -M MODROOT           root of a module tree (tests/modules/build.sh's OUTDIR,
#                        or a DIR printed by harness/lib/kernels.sh)
#   -m MOD,...           put MOD and its closure (dependencies and softdeps, as
#                        kmod resolves them) in the image; names or aliases;
#                        repeatable
#   --all-test-modules   every mpt_* module (extra/) and its closure
#   --all-modules        the whole tree (large: avoid)
#   --add SRC:DEST       copy SRC to DEST in the image (e.g. the static
#                        modpreload at /sbin/modpreload); repeatable
#   --kmod               the host's kmod (dynamic) with its libraries found by
#                        ldd, and /sbin/{modprobe,insmod,rmmod,lsmod,modinfo,
#                        depmod} links to it.  Busybox's module applets are
#                        never installed; call kmod's as /sbin/modprobe.
#   --script GUEST.sh    run by /init as `. /mpt/lib.sh; . /mpt/guest.sh`
#
# Every image also has /sbin/mpt-finit (harness/lib/tools/mpt-finit.c): one raw
# finit_module call, e.g. `mpt-finit -c FILE.ko.zst` to have the kernel
# decompress a module.
#
# The image's module tree is depmod'ed for exactly the modules it holds.
# /init prints "MPT: key=value" lines (see harness/lib/lib.sh), ends with
# "MPT: done" and powers the machine off.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

usage() {
	sed -n 's/^# Usage: /usage: /p; s/^#            /            /p' "$0" | head -n 3 >&2
	exit 2
}
log() { printf 'mkimage.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

out='' kver='' modroot='' script='' mods='' adds=''
allmods=0 alltest=0 kmod=0
nl='
'
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift 2 ;;
	-k) kver=$2; shift 2 ;;
	-M) modroot=$2; shift 2 ;;
	-m) mods="$mods $(echo "$2" | tr ',' ' ')"; shift 2 ;;
	--all-test-modules) alltest=1; shift ;;
	--all-modules) allmods=1; shift ;;
	--add) adds="$adds$2$nl"; shift 2 ;;
	--kmod) kmod=1; shift ;;
	--script) script=$2; shift 2 ;;
	-h | --help) usage ;;
	*) usage ;;
	esac
done
if [ -z "$out" ] || [ -z "$kver" ] || [ -z "$modroot" ] || [ -z "$script" ]; then
	usage
fi
[ -d "$modroot" ] || die "no module root $modroot"
modroot=$(cd "$modroot" && pwd)
srcmods=$modroot/lib/modules/$kver
[ -d "$srcmods" ] || die "no module tree $srcmods"
[ -f "$script" ] || die "no guest script $script"

mkdir -p "$top/build/tmp"
root=$(mktemp -d "$top/build/tmp/image.XXXXXX")
trap 'rm -rf "$root"' EXIT INT TERM

# --- skeleton and busybox ---------------------------------------------------
for d in bin sbin usr/bin usr/sbin lib etc proc sys dev tmp run mnt root mpt \
	"lib/modules/$kver"; do
	mkdir -p "$root/$d"
done
ln -s ../proc/self/mounts "$root/etc/mtab"
bb=$(command -v busybox) || die "busybox not found"
file -L "$bb" | grep -q 'statically linked' || die "$bb is not static (install busybox-static)"
cp "$bb" "$root/bin/busybox"
# Module applets stay out: kmod's must be the one a path finds.
"$bb" --list-full | while read -r applet; do
	case ${applet##*/} in
	modprobe | insmod | rmmod | lsmod | modinfo | depmod | busybox) continue ;;
	esac
	[ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done
# The kernel opens /dev/console before /init runs.
mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true
mknod -m 666 "$root/dev/null" c 1 3 2>/dev/null || true

# --- kmod ---------------------------------------------------------------------
copy_with_libs() { # copy_with_libs BINARY: the binary and what ldd lists
	cp -L "$1" "$root$1"
	ldd "$1" 2>/dev/null | awk '
		$2 == "=>" && $3 ~ /^\// { print $3 }
		$1 ~ /^\// { print $1 }' | while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		[ -e "$root$lib" ] || cp -L "$lib" "$root$lib"
	done
}
if [ "$kmod" = 1 ]; then
	k=$(command -v kmod) || die "kmod not found"
	k=$(readlink -f "$k")
	mkdir -p "$root$(dirname "$k")"
	copy_with_libs "$k"
	for t in modprobe insmod rmmod lsmod modinfo depmod; do
		ln -sf "$k" "$root/sbin/$t"
	done
fi

# --- mpt-finit: one raw finit_module call (harness/lib/tools/mpt-finit.c) ------
finit=$top/build/vm/tools/mpt-finit
fsrc=$here/tools/mpt-finit.c
if [ ! -x "$finit" ] || [ -n "$(find "$fsrc" -newer "$finit")" ]; then
	mkdir -p "$(dirname "$finit")"
	cc=$(command -v musl-gcc || echo gcc)
	"$cc" -static -Os -Wall -Wextra -o "$finit.tmp" "$fsrc"
	strip "$finit.tmp"
	mv "$finit.tmp" "$finit"
fi
cp "$finit" "$root/sbin/mpt-finit"

# --- modules ------------------------------------------------------------------
dest=$root/lib/modules/$kver
list=$root/.modules
: >"$list"
# kmod resolves names, aliases and softdeps exactly as the guest would; an
# empty config dir keeps the host's modprobe.d out of it.
mkdir -p "$root/.noconf"
closure() {
	modprobe -C "$root/.noconf" -d "$modroot" -S "$kver" --show-depends "$1" |
		sed -n "s|^insmod $srcmods/||p" | awk '{ print $1 }'
}
if [ "$allmods" = 1 ]; then
	(cd "$srcmods" && find . -name '*.ko*' | sed 's|^\./||') >>"$list"
fi
if [ "$alltest" = 1 ]; then
	[ -d "$srcmods/extra" ] || die "no test modules in $srcmods/extra"
	for f in "$srcmods"/extra/mpt_*.ko*; do
		m=$(basename "$f")
		mods="$mods ${m%%.ko*}"
	done
fi
for m in $mods; do
	c=$(closure "$m") || die "cannot resolve module $m in $srcmods"
	[ -n "$c" ] || log "warning: $m resolves to no module file (builtin?)"
	echo "$c" >>"$list"
done
sort -u "$list" | sed '/^$/d' | while read -r rel; do
	mkdir -p "$dest/$(dirname "$rel")"
	cp "$srcmods/$rel" "$dest/$rel"
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
	if [ -f "$srcmods/$f" ]; then cp "$srcmods/$f" "$dest/"; fi
done
depmod -b "$root" "$kver"
nmods=$(sort -u "$list" | sed '/^$/d' | wc -l)
rm -rf "$list" "$root/.noconf"

# --- extra files, guest script, /init -----------------------------------------
if [ -n "$adds" ]; then
	printf '%s' "$adds" | while IFS= read -r a; do
		s=${a%%:*}
		d=${a#*:}
		[ -e "$s" ] || die "--add: no $s"
		mkdir -p "$root$(dirname "$d")"
		cp -a "$s" "$root$d"
	done
fi
cp "$here/lib.sh" "$root/mpt/lib.sh"
cp "$script" "$root/mpt/guest.sh"
cat >"$root/init" <<'EOF'
#!/bin/sh
# modpreload test image: mount, run the guest script, report, power off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
. /mpt/lib.sh
mpt_kv uptime_init "$(mpt_uptime)"
mpt_kv kver "$(uname -r)"
mpt_kv ncpus "$(grep -c '^processor' /proc/cpuinfo)"
mpt_kv set_event "$(tr '\n' ' ' <"$MPT_TRACE/set_event" 2>/dev/null)"
sh -c '. /mpt/lib.sh && . /mpt/guest.sh'
mpt_kv guest_rc $?
mpt_kv uptime_guest_end "$(mpt_uptime)"
mpt_trace_counts
echo "MPT: done"
mpt_poweroff
EOF
chmod 755 "$root/init" "$root/mpt/guest.sh"

# --- pack -------------------------------------------------------------------
mkdir -p "$(dirname "$out")"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -6 -n >"$out.tmp"
mv "$out.tmp" "$out"
log "$out: $(du -k "$out" | cut -f1) KiB, $nmods module files for $kver"
