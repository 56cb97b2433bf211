# shellcheck shell=sh
# Host side of the mkinitcpio VM cases (harness/mkinitcpio/cases/mkinitcpio-*.sh) and
# of bench/mkinitcpio-storm.sh.  Source it after setting $top:
#     . "$top/harness/mkinitcpio/host.sh"
#
#   mkc_setup                the kernel (bookworm: KVER, KDIR), the test module
#                            tree (MODROOT), the binary (MKC_BIN: hostlib.sh's mpt_binary), the root disk
#                            (MKC_DISK); everything cached under build/mkinitcpio
#   mkc_image NAME HOOKS MODULES   build/mkinitcpio/NAME.img from a config with
#                            HOOKS=(HOOKS) MODULES=(MODULES), made by
#                            harness/mkinitcpio/mkinitcpio.sh with this tree's
#                            mkinitcpio-hook/ and the test hooks; rebuilt only
#                            when an input changed.  Prints the image's path.
#   mkc_boot IMG SMP CMDLINE OUT   boot it (harness/lib/run.sh) with the root disk
#                            and CMDLINE added (and $MKC_APPEND: "mkc.debug"
#                            prints the report, kmsg and trace; and
#                            $MPT_DEVICES: more QEMU devices, run.sh
#                            --device); the MPT: lines go to OUT, the
#                            serial log to logs/; run.sh's status
#   mkc_run IMG SMP CMDLINE OUT    mkc_boot; a failed boot is a reason
#   mkc_figures OUT          "N calls for M modules, E EEXIST, B EBUSY"
# Verdicts (fail, expect, expect_is, verdict): harness/lib/verdict.sh,
# sourced here with harness/lib/hostlib.sh (mpt_get, mpt_num).
# Progress and errors go to stderr.  Needs busybox-static, e2fsprogs, udev
# (systemd-udevd 252 and its rules are copied from the host), qemu-system-x86.

# shellcheck disable=SC2154 # $top: set by the sourcing script
# shellcheck source=harness/lib/verdict.sh
. "$top/harness/lib/verdict.sh"

MKC_DIR=$top/build/mkinitcpio
MKC_SRC=$top/harness/mkinitcpio

mkc_log() { printf 'mkinitcpio-vm: %s\n' "$*" >&2; }

# mkc_stale OUT INPUT...: OUT is missing or older than an input (files or
# directories, searched whole).
mkc_stale() {
	ms_out=$1
	shift
	[ -e "$ms_out" ] || return 0
	[ -n "$(find "$@" -newer "$ms_out" -print -quit 2>/dev/null)" ]
}

mkc_setup() {
	mkdir -p "$MKC_DIR" || return 1
	if ! mpt_kernel bookworm; then
		mkc_log "no bookworm kernel (harness/lib/kernels.sh bookworm)"
		return 1
	fi
	MODROOT=$MKC_DIR/modtree
	if mkc_stale "$MKC_DIR/modtree.stamp" "$top/tests/modules" "$KDIR/kernel.env"; then
		mkc_log "building the test modules"
		"$top/tests/modules/build.sh" bookworm "$MODROOT" >/dev/null || return 1
		touch "$MKC_DIR/modtree.stamp"
	fi
	# the binary the images get (a mutant's with MPT_MUTANT)
	MKC_BIN=$(mpt_binary) || return 1

	# A configuration the install hook puts in the image with the module
	# it names: modpreload loads it at boot, from the image's copy.
	mkdir -p "$MKC_DIR/sysroot/etc/modpreload.d"
	printf '# mkinitcpio test: loaded from the image'"'"'s modpreload.d\nmpt_params\n' \
		>"$MKC_DIR/sysroot/etc/modpreload.d/mpt-test.conf.new"
	cmp -s "$MKC_DIR/sysroot/etc/modpreload.d/mpt-test.conf.new" \
		"$MKC_DIR/sysroot/etc/modpreload.d/mpt-test.conf" ||
		mv "$MKC_DIR/sysroot/etc/modpreload.d/mpt-test.conf.new" \
			"$MKC_DIR/sysroot/etc/modpreload.d/mpt-test.conf"
	rm -f "$MKC_DIR/sysroot/etc/modpreload.d/mpt-test.conf.new"

	MKC_DISK=$MKC_DIR/root.img
	if mkc_stale "$MKC_DISK" "$MKC_SRC/root-init.sh" "$top/harness/lib/lib.sh" /bin/busybox; then
		mkc_rootdisk "$MKC_DISK" || return 1
	fi
	return 0
}

# The root the images switch to: busybox, /sbin/init = root-init.sh, lib.sh.
mkc_rootdisk() {
	mr_dir=$MKC_DIR/rootdir
	rm -rf "$mr_dir"
	mkdir -p "$mr_dir/bin" "$mr_dir/sbin" "$mr_dir/usr/bin" "$mr_dir/usr/sbin" \
		"$mr_dir/mpt" "$mr_dir/etc" "$mr_dir/dev" "$mr_dir/proc" "$mr_dir/sys" \
		"$mr_dir/run" "$mr_dir/tmp" || return 1
	cp /bin/busybox "$mr_dir/bin/busybox" || return 1
	for a in $(/bin/busybox --list); do
		[ "$a" = busybox ] || ln -s busybox "$mr_dir/bin/$a"
	done
	cp "$MKC_SRC/root-init.sh" "$mr_dir/sbin/init"
	chmod 755 "$mr_dir/sbin/init"
	cp "$top/harness/lib/lib.sh" "$mr_dir/mpt/lib.sh"
	printf 'NAME=mpt-root\nID=mpt\n' >"$mr_dir/etc/os-release"
	rm -f "$1.tmp"
	mkfs.ext4 -q -F -L mpt-root -d "$mr_dir" "$1.tmp" 32M >&2 || return 1
	mv "$1.tmp" "$1"
}

mkc_image() {
	mi_name=$1
	# a mutant's image apart: the staleness check below goes by dates
	mi_img=$MKC_DIR/$mi_name${MPT_MUTANT:+-mutant-$MPT_MUTANT}.img
	mi_conf=$MKC_DIR/$mi_name.conf
	printf 'MODULES=(%s)\nBINARIES=()\nFILES=()\nHOOKS=(%s)\n' "$3" "$2" >"$mi_conf.new"
	cmp -s "$mi_conf.new" "$mi_conf" || mv "$mi_conf.new" "$mi_conf"
	rm -f "$mi_conf.new"
	if mkc_stale "$mi_img" "$mi_conf" "$top/mkinitcpio-hook" "$MKC_SRC" \
		"$MKC_BIN" "$MKC_DIR/modtree.stamp" "$MKC_DIR/sysroot"; then
		mkc_log "building $mi_name.img: HOOKS=($2) MODULES=($3)"
		PATH=${MKC_BIN%/modpreload}:$PATH MODPRELOAD_SYSROOT=$MKC_DIR/sysroot MKC_UNITPATH=$top/mkinitcpio-hook \
			"$MKC_SRC/mkinitcpio.sh" -c "$mi_conf" -k "$KVER" -r "$MODROOT" \
			-D "$top/mkinitcpio-hook" -D "$MKC_SRC" -g "$mi_img" >&2 || return 1
	fi
	echo "$mi_img"
}

# mkc_log_of OUT: the serial log of the boot whose result is OUT:
# build/mkinitcpio/logs/NAME.log
mkc_log_of() {
	echo "$MKC_DIR/logs/$(basename "$1" .txt).log"
}

# mkc_boot IMG SMP CMDLINE OUT: hostlib.sh's mpt_boot of IMG on the test
# root (MKC_DISK), the serial log mkc_log_of OUT
mkc_boot() {
	mkc_boot_ mpt_boot "$@"
}

# mkc_run IMG SMP CMDLINE OUT: mkc_boot, and a failed boot is a reason
# (verdict.sh's run_boot)
mkc_run() {
	mkc_boot_ "run_boot mpt_boot" "$@"
}

mkc_boot_() {
	_mb_how=$1
	shift
	mkdir -p "$MKC_DIR/logs"
	# shellcheck disable=SC2086 # _mb_how: a command and its first word
	$_mb_how "$4" "$(mkc_log_of "$4")" "$1" "$2" "root=/dev/vda rootfstype=ext4 $3${MKC_APPEND:+ $MKC_APPEND}" \
		-t "${MKC_TIMEOUT:-240}" --disk "$MKC_DISK"
}

# mkc_check_udev OUT NAME...: what udev's workers loaded. After the hand-over
# the devices late loads make (mpt_spawn's, say) are udev's, by design; but
# a worker never loads one of NAMEs (the modules the case is about), never
# makes a call that fails, and every call of theirs loads a module of its
# own (no duplicate: load_dups and EEXIST are checked by the cases).
mkc_check_udev() {
	_mk_o=$1
	shift
	_mk_l=$(mpt_get loaded_by._udev_worker_ "$_mk_o") || _mk_l=
	for _mk_m in "$@"; do
		case ,$_mk_l, in *,"$_mk_m",*) fail "udev's worker loaded $_mk_m" ;; esac
	done
	expect "$_mk_o" finit_fail_by._udev_worker_ -eq 0
	expect "$_mk_o" finit_by._udev_worker_ -eq "$(printf '%s' "$_mk_l" | tr ',' '\n' | grep -c .)"
}

# mkc_figures OUT: "N calls for M modules, E EEXIST, B EBUSY"
mkc_figures() {
	printf '%s calls for %s modules, %s EEXIST, %s EBUSY' \
		"$(mpt_num finit_enter "$1")" "$(mpt_num load_modules "$1")" \
		"$(mpt_num finit_eexist "$1")" "$(mpt_num finit_ebusy "$1")"
	_mk_u=$(mpt_get loaded_by._udev_worker_ "$1") && printf '; udev loaded %s' "$_mk_u"
	:
}
