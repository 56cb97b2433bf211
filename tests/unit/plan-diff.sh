#!/bin/sh
# Each source of names against the loader it stands in for (modpreload(8),
# SOURCES), by kmod's own modprobe: on Debian's real 6.1 module tree with a
# hostile modprobe.d (blacklists of names, aliases, dependencies and
# softdeps, install commands on each of those, softdeps, options, aliases,
# a weakdep) and a hostile kernel command line (modprobe.blacklist=,
# rd.driver.blacklist=, module_blacklist=, module options), the modules
# modpreload's dry run plans to load for a source, with their options, are
# those `modprobe -D [-b]` inserts for the same names:
#
#   source                                  modpreload           kmod
#   arguments (the initramfs-tools hook)    NAME...              modprobe NAME
#   arguments with -b (mkinitcpio MODULES)  -b NAME...           modprobe -b NAME
#   a modules-load.d list (MODULES.conf)    -c FILE              modprobe -b (systemd-modules-load)
#   modules_load=                           --modules-load       modprobe -b (systemd-modules-load)
#   rd.modpreload.modules=, rd.driver.pre=  the command line     modprobe NAME (dracut's)
#   device modaliases                       --coldplug           modprobe -b ALIAS (udev's)
#
# -D is -n -v (nothing loaded, every insmod and install printed) that also
# ignores what the running kernel has: the host's own modules do not count.
# kmod reads the command line only in the real /proc/cmdline, so it gets the
# test's as modprobe.d lines: modprobe.blacklist= and rd.driver.blacklist=
# and rd.driver.post= (which dracut writes so) as blacklist lines,
# module.param= as options.
# What modprobe would insert and the kernel refuses or modpreload leaves to
# modprobe on purpose is taken off kmod's side by kmod's own answers: a
# module with an install command (modprobe -c), one module_blacklist= names,
# and every module whose modules.dep line names one of those (modprobe
# stops there). Such a module is never in modpreload's plan; what it
# needs (its modules.dep line), which modprobe inserts before it runs the
# command and modpreload leaves to modprobe with it, is compared only where
# nothing else asks for it.
#
# Usage: tests/unit/plan-diff.sh        Prints PASS:/FAIL:/SKIP: lines.
# Env: MP_BIN (default build/asan/modpreload), MP_SUITE (default plan-diff),
# MP_MODPROBE (a modprobe command instead of the host's). Every Debian root
# in the test cache other than bookworm's (trixie's and sid's: kmod 34) runs
# the comparison again with that root's own modprobe.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${MP_BIN:-$top/build/asan/modpreload}
suite=${MP_SUITE:-plan-diff}
# shellcheck source=scripts/cache.sh
. "$top/scripts/cache.sh"
tree=
for d in "$(mp_cache_dir kernels)"/bookworm/lib/modules/*/modules.dep.bin; do
	[ -f "$d" ] && tree=${d%/modules.dep.bin}
done
if [ -z "$tree" ]; then
	echo "SKIP: $suite: no bookworm kernel in the test cache (harness/lib/kernels.sh bookworm)"
	exit 0
fi
kver=${tree##*/}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mp-plandiff.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# A root with the tree where kmod 30 (lib/modules) and kmod 34 built for
# /usr/lib/modules look for it.
root=$tmp/root
mkdir -p "$root/lib/modules" "$root/usr/lib"
ln -s "$tree" "$root/lib/modules/$kver"
ln -s ../../lib/modules "$root/usr/lib/modules"

# modprobe.d, for both
conf=$tmp/conf
mkdir "$conf"
cat >"$conf/hostile.conf" <<'EOF'
# names the sources ask for
blacklist dummy
blacklist e1000e
# a dependency (ext4's) and a softdep (ext4's crypto-crc32c): loaded anyway
blacklist jbd2
blacklist crc32c_generic
# a device's driver
blacklist virtio_blk
# install commands, never run: on a name, a dependency (xfs's, btrfs's,
# raid456's; virtio_net's), a softdep (btrfs's xxhash64)
install bonding /bin/false
install libcrc32c /bin/true
install failover /bin/true
install xxhash_generic /bin/false
# softdeps on blacklisted modules load, one with an install command does not
softdep nvme pre: dummy post: veth
softdep tun pre: bonding
options dummy numdummies=3
options nvme_core multipath=N
# an alias to a blacklisted module, one over a module's own name, one to a
# module whose dependency has an install command; device aliases over
# modules.alias
alias my-net dummy
alias floppy veth
alias my-fs xfs
alias pci:v0000ABCDd*sv*sd*bc*sc*i* dummy
alias pci:v00008086d000010D3sv*sd*bc*sc*i* e100
# kmod 33's weakdep: never loaded (kmod 30 ignores the line)
weakdep ext4 dummy
EOF
words='modprobe.blacklist=veth,sctp,nbd rd.driver.blacklist=tun rd.driver.post=isofs'
words="$words module_blacklist=raid6_pq,loop dummy.numdummies=5 nvme_core.io_timeout=60 e1000.debug=1"
# kmod's view of those words, read after modprobe.d
kconf=$tmp/kconf
mkdir "$kconf"
printf '%s\n' 'blacklist veth' 'blacklist sctp' 'blacklist nbd' 'blacklist tun' 'blacklist isofs' \
	'options dummy numdummies=5' 'options nvme_core io_timeout=60' 'options e1000 debug=1' \
	>"$kconf/zz-cmdline.conf"
kblack='raid6_pq loop'

names='dummy veth e1000e e1000 ext4 xfs btrfs bonding nvme my-net floppy my-fs raid456 tun
virtio_net fs-xfs sctp nbd isofs loop nosuchmod crypto-crc32c'
# devices: e1000e's (blacklisted: e100 by the alias above), virtio's block
# (blacklisted), network and PCI, an NVMe drive (softdeps), a device a
# modprobe.d alias gives a blacklisted module, a CPU
sys=$tmp/sys
mkdir -p "$sys/module"
i=0
for a in pci:v00008086d000010D3sv00008086sd0000A01Fbc02sc00i00 virtio:d00000002v00001AF4 \
	virtio:d00000001v00001AF4 pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00 \
	pci:v0000144Dd0000A808sv0000144Dsd0000A801bc01sc08i02 pci:v0000ABCDd00000001sv00000000sd00000000bc00sc00i00 \
	cpu:type:x86,ven0000fam0006mod0055:feature:,0000,0001,0002,0003,0004,0005,0006,0008,0009,000B,000C,000D,000E,000F,0010,0011,0013,0015,0016,0017,0018,0019,001A,001B,001C,001D,001F,002B,0034,003A,003B,003D,0068,006F,0070,0072,0074,0075,0076,0078,007C,0080,0081,0082,0083,0084,0085,0087,0088,0089,008B,008C,008D,008E,008F,0091,0093,0094,0095,0096,0097,0098,0099,009A,009B,009C,009D,009E,00C0,00C5,00E1,00E3,00E4,00E6,00E7,00EB,00EC,00F0,00F1,00F3,00F5,00F6,00F9,00FA,00FB,00FD,00FE,00FF,0100,0101,0102,0103,0104,0111,0120,0121,0123,0125,0126,0127,0128,0129,012A,012C,012D,012E,012F,0130,0131,0132,0133,0134,0137,0138,0139,013C,013E,013F,0140,0165,01C0,01C1,01C2,01C3,01C4,01C5,01C6,01C7,01C8,01C9,01CA,024A; do
	i=$((i + 1))
	mkdir -p "$sys/devices/dev$i"
	echo "MODALIAS=$a" >"$sys/devices/dev$i/uevent"
done
modaliases=$(cat "$sys"/devices/*/uevent | sed 's/^MODALIAS=//')

# modules.dep's every line as "MODULE DEP...", in names ('-' is '_', no .ko)
awk '{ for (i = 1; i <= NF; i++) { n = $i; sub(".*/", "", n); sub("[.]ko.*", "", n); gsub("-", "_", n);
	printf "%s%s", n, (i < NF ? " " : "\n") } }' "$tree/modules.dep" | tr -d ':' >"$tmp/deps"

# kmod_insmods MODPROBE FLAGS NAME...: "NAME OPTIONS" for each module
# modprobe would insert for the names, one call each, less what the kernel
# refuses or modpreload leaves to modprobe (above)
kmod_insmods() {
	_ki_mp=$1 _ki_flags=$2
	shift 2
	# what has an install command, by kmod's reading
	$_ki_mp -c -C "$conf" -C "$kconf" 2>/dev/null | awk '$1 == "install" { print $2 }' | tr '-' '_' >"$tmp/install"
	cp "$tmp/install" "$tmp/stop"
	# shellcheck disable=SC2086 # a list of names
	printf '%s\n' $kblack >>"$tmp/stop"
	# what the modules with an install command need
	awk -v f="$tmp/install" 'BEGIN { while ((getline s < f) > 0) x[s] = 1 }
		x[$1] { for (i = 2; i <= NF; i++) print $i }' "$tmp/deps" | sort -u >"$tmp/either"
	for _ki_n; do
		# shellcheck disable=SC2086 # the flags, one word each
		$_ki_mp -D $_ki_flags -C "$conf" -C "$kconf" -d "$root" -S "$kver" "$_ki_n" 2>/dev/null
	done | awk '$1 == "insmod" { n = $2; sub(".*/", "", n); sub("[.]ko.*", "", n); gsub("-", "_", n);
		$1 = ""; $2 = ""; o = $0; gsub("^ +| +$", "", o); print n "\t" o }' | sort -u |
		awk -v stopf="$tmp/stop" -v depf="$tmp/deps" '
		BEGIN { while ((getline s < stopf) > 0) stop[s] = 1
			while ((getline l < depf) > 0) { k = split(l, w, " "); d[w[1]] = l } }
		{ split($0, f, "\t"); k = split(d[f[1]], w, " "); bad = stop[f[1]]
		  for (i = 2; i <= k; i++) if (stop[w[i]]) bad = 1
		  if (!bad) print }'
}

# planned ARGS...: "NAME OPTIONS" for each module modpreload's dry run
# would load
planned() {
	"$bin" -n -d "$root" -S "$kver" -C "$conf" --sysfs "$sys" --no-default-config "$@" 2>"$tmp/err" |
		jq -r '.modules[] | select(.state == "planned") | .name + "\t" + (.options // "")' | sort -u
}

# the modules the running kernel's own command line has options for: kmod
# adds those (from /proc/cmdline), modpreload takes the test's instead
tr ' ' '\n' </proc/cmdline | sed -n 's/^\([^=.]*\)\..*/\1/p' | tr '-' '_' | sort -u >"$tmp/hostopts"

failed=0
# compare SOURCE WANT GOT: a line for each; WANT and GOT are files
compare() {
	for _c_f in "$2" "$3"; do
		while read -r _c_n _c_o; do
			# what only a module with an install command needs: either
			if grep -qx "$_c_n" "$tmp/either"; then
				continue
			fi
			if grep -qx "$_c_n" "$tmp/hostopts"; then
				_c_o="(options on this host's command line)"
			fi
			printf '%s\t%s\n' "$_c_n" "$_c_o"
		done <"$_c_f" >"$_c_f.cmp"
	done
	_c_bypassed=$(cut -f1 "$3" | grep -x -F -f "$tmp/stop" | tr '\n' ' ')
	if [ ! -s "$2" ]; then
		echo "FAIL: $suite/$1: kmod inserted nothing: the test itself is broken"
		failed=1
	elif [ -n "$_c_bypassed" ]; then
		echo "FAIL: $suite/$1: planned, with an install command or module_blacklist=: $_c_bypassed"
		failed=1
	elif cmp -s "$2.cmp" "$3.cmp"; then
		echo "PASS: $suite/$1 ($(wc -l <"$2.cmp") modules and their options as $kmod_name's)"
	else
		echo "FAIL: $suite/$1: modpreload's plan is not $kmod_name's (< kmod, > modpreload):"
		diff "$2.cmp" "$3.cmp" | grep '^[<>]' | sed 's/^/    /' | head -n 20
		failed=1
	fi
}

# run_sources MODPROBE: every source, against MODPROBE
run_sources() {
	mp=$1
	# shellcheck disable=SC2086 # the names are words
	set -- $names
	echo "$words" >"$tmp/cmdline"

	kmod_insmods "$mp" "" "$@" >"$tmp/want"
	planned --cmdline "$tmp/cmdline" "$@" >"$tmp/got"
	compare "$kmod_tag/arguments" "$tmp/want" "$tmp/got"

	kmod_insmods "$mp" -b "$@" >"$tmp/want"
	planned --cmdline "$tmp/cmdline" -b "$@" >"$tmp/got"
	compare "$kmod_tag/arguments-b" "$tmp/want" "$tmp/got"

	printf '# a modules-load.d list\n' >"$tmp/list.conf"
	printf '%s\n' "$@" >>"$tmp/list.conf"
	planned --cmdline "$tmp/cmdline" -c "$tmp/list.conf" >"$tmp/got"
	compare "$kmod_tag/modules-load.d" "$tmp/want" "$tmp/got"

	# modules_load=: only where the host's own modules-load.d lists name
	# nothing (--modules-load reads them)
	echo "$words" >"$tmp/cmdline"
	if [ "$("$bin" -n -d "$root" -S "$kver" -C "$conf" --sysfs "$sys" --no-default-config \
		--cmdline "$tmp/cmdline" --modules-load 2>/dev/null | jq .requests.total)" = 0 ]; then
		echo "$words modules_load=$(echo "$names" | tr ' \n' ',,')" >"$tmp/cmdline"
		planned --cmdline "$tmp/cmdline" --modules-load >"$tmp/got"
		compare "$kmod_tag/modules_load" "$tmp/want" "$tmp/got"
	else
		echo "SKIP: $suite/$kmod_tag/modules_load: this host's modules-load.d lists name modules"
	fi

	kmod_insmods "$mp" "" "$@" >"$tmp/want"
	echo "$words rd.modpreload.modules=$(echo "$names" | tr ' \n' ',,' | cut -d, -f1-10)" \
		"rd.driver.pre=$(echo "$names" | tr ' \n' ',,' | cut -d, -f11-)" >"$tmp/cmdline"
	planned --cmdline "$tmp/cmdline" >"$tmp/got"
	compare "$kmod_tag/rd.driver.pre" "$tmp/want" "$tmp/got"

	# shellcheck disable=SC2086 # the modaliases are words
	kmod_insmods "$mp" -b $modaliases >"$tmp/want"
	echo "$words" >"$tmp/cmdline"
	planned --cmdline "$tmp/cmdline" --coldplug >"$tmp/got"
	compare "$kmod_tag/coldplug" "$tmp/want" "$tmp/got"
}

if [ -n "${MP_MODPROBE:-}" ]; then
	kmod_name=$($MP_MODPROBE --version | head -n 1)
	kmod_tag=modprobe
	run_sources "$MP_MODPROBE"
elif command -v modprobe >/dev/null 2>&1; then
	kmod_name="the host's $(modprobe --version | head -n 1)"
	kmod_tag=host
	run_sources modprobe
else
	echo "SKIP: $suite/host: no modprobe on this host"
fi

# The other Debian roots' kmod (trixie's, sid's: 34), run by their own
# dynamic loader from a few files of the root's tarball.
for d in "$(mp_cache_dir .)"/root-*-*; do
	# the newest of the suite's roots (their folders are hex keys)
	# shellcheck disable=SC2012
	t=$(ls -t "$d"/*/base.tar 2>/dev/null | head -n 1)
	[ -n "$t" ] || continue
	suite_root=$(basename "$d" | cut -d- -f2)
	r=$tmp/kmod-$suite_root
	mkdir -p "$r"
	# a pattern no file matches (no libz) is no error
	lib=./usr/lib/x86_64-linux-gnu
	tar -xf "$t" -C "$r" --wildcards ./usr/bin/kmod "$lib/ld-linux-x86-64.so.2" "$lib/libc.so.6" \
		"$lib/libkmod.so*" "$lib/libcrypto.so*" "$lib/libzstd.so*" "$lib/liblzma.so*" "$lib/libz.so*" \
		2>/dev/null || :
	if [ ! -f "$r/usr/bin/kmod" ]; then
		echo "FAIL: $suite/$suite_root: no kmod in $t"
		failed=1
		continue
	fi
	mp="$r/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 --library-path $r/usr/lib/x86_64-linux-gnu --argv0 modprobe $r/usr/bin/kmod"
	kmod_name="$suite_root's $($mp --version | head -n 1)"
	kmod_tag=$suite_root
	run_sources "$mp"
	rm -rf "$r"
done
exit "$failed"
