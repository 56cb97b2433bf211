# shellcheck shell=sh
# shellcheck disable=SC2154 # top, name: set by the script that sources this
# Booting a Debian generator's initramfs to a small ext4 root, whatever made
# the image (dracut, initramfs-tools, the packages' own tools): Debian's 6.1
# kernel (or DEB_KERNEL's), the test modules, a snapshot of build/modpreload,
# and a root disk whose /sbin/init (harness/lib/guest/debimage-root.sh) reports what the
# kernel did while the initramfs ran. The family's host.sh sources it and
# sets DEB_WORK, its work directory (build/vm/FAMILY):
#   . "$top/harness/lib/debimage.sh"
#
#   deb_setup                kernel, test modules, a snapshot of
#                            build/modpreload, the root disk; sets KVER KDIR
#                            DEB_TREE DEB_BIN DEB_DISK (status 1: see
#                            $DEB_WORK/setup.log). DEB_KERNEL: another of
#                            harness/lib/kernels.sh's kernels (trixie: the
#                            booted-once-trixie case); DEB_COMPRESS: how the
#                            test modules are compressed (tests/modules/
#                            build.sh --compress; default none, xz on trixie
#                            as its own modules are)
#   deb_prepare              deb_setup, or the case's FAIL line and exit
#   deb_boot RESULT LOG IMG SMP CMDLINE [TIMEOUT]
#                            boot to the root disk; "MPT:" lines to RESULT;
#                            MPT_DEVICES: more QEMU devices (run.sh --device)
#   deb_run RESULT IMG SMP CMDLINE [TIMEOUT]
#                            deb_boot (TIMEOUT 420 s), the serial log beside
#                            RESULT (.serial for .txt); a failed boot is a
#                            reason (verdict.sh's fail)
#   deb_key                  stdin (what goes into a file, the tree's path
#                            taken out) as a cache key
#   deb_fresh FILE KEY       FILE is there and FILE.key is KEY
#   deb_sum_dir DIR          the files of DIR by content, for cache keys
#   deb_in_root ROOT SCRIPT  run SCRIPT with sh chrooted into ROOT, /proc
#                            and /dev mounted in a mount namespace of its
#                            own (the host is not touched)
#   deb_sysroot_failing DIR WHO   a root with modpreload.d lists (below)
#   deb_check_lists LISTING WHO   an image holds them, masks honoured
#   deb_udev_calls RESULT    finit_module calls made by udev's workers
#   deb_udev_loaded RESULT   the modules they loaded ("a,b", or "-")
# Checks over RESULT, each failed one a reason (harness/lib/verdict.sh):
#   deb_check_root RESULT    the boot reached the root's init
#   deb_check_once RESULT    one successful finit_module per module, nothing
#                            else (no EEXIST, EBUSY, retries, init_module)
#   deb_check_once_kernel RESULT   the same, the kernel's own modprobe before
#                            /init counted apart (trixie's 6.12: below)
#   deb_check_handed RESULT  modpreload loaded what coldplug asked for
#                            before its hand-over (below)
#   deb_check_preloaded RESULT [KEY]   modpreload did the loading (below)
#   deb_check_analyze RESULT `modpreload analyze` reads the boot's report
#   deb_check_with RESULT KEY          the four above: modpreload's boot
#   deb_check_without RESULT KEY MODS  udev's storm, no modpreload (below)
#   deb_check_failing RESULT [KEY]     failing and hanging modules (below)
#   deb_check_chain RESULT   the second-level coldplug chain (below)
# and for people:
#   deb_details LABEL RESULT who loaded what, on stderr
#   deb_figure LABEL RESULT  one line of figures to $DEB_WORK/figures.txt
# KEY names the report modpreload left: report (dracut's
# /run/initramfs/modpreload.json, the default) or report_run
# (/run/modpreload/report.json: initramfs-tools'). DEB_CPU_MOD is the
# CPU-feature module coldplug finds in the family's images.
# Needs busybox-static, e2fsprogs, qemu-system-x86.

# shellcheck source=harness/lib/verdict.sh
. "$top/harness/lib/verdict.sh"

# Test modules every image carries: the second-level coldplug chain (a CPU
# modalias loads mpt_spawn, whose platform devices want mpt_drv, mpt_drv2),
# the failing and hanging ones the failure cases ask for by name, and
# mpt_params (int parameter "value") for rd.driver.pre=, and mpt_slowpci
# (a 30 s init() for QEMU's pci-testdev, which only the hand-over boots
# have: harness/lib/scenarios/handover.sh).
DEB_MPT="mpt_spawn mpt_drv mpt_drv2 mpt_fail mpt_fail_child mpt_hang mpt_hang_child mpt_params mpt_slowpci"
DEB_BASE_ARGS="root=/dev/vda rd.shell=0 rd.emergency=poweroff"
DEB_CPU_MOD=aesni_intel

deb_log() { printf '%s-host: %s\n' "${DEB_WORK##*/}" "$*" >&2; }

deb_in_root() {
	# shellcheck disable=SC2016 # expanded by the namespace's shell
	unshare -m sh -c '
		set -e
		mount -t proc proc "$1/proc"
		mount --rbind /dev "$1/dev"
		chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
			/bin/sh -ec "$2"
	' sh "$1" "$2"
}

deb_setup() {
	mkdir -p "$DEB_WORK/img" "$DEB_WORK/logs" "$DEB_WORK/tmp"
	: >"$DEB_WORK/setup.log"
	_db_k=${DEB_KERNEL:-bookworm}
	if ! mpt_test_modules "$_db_k" "$DEB_WORK/tree" --compress "${DEB_COMPRESS:-none}" 2>>"$DEB_WORK/setup.log"; then
		deb_log "no $_db_k kernel or test modules (harness/lib/kernels.sh $_db_k, tests/modules/build.sh)"
		return 1
	fi
	DEB_TREE=$DEB_WORK/tree/lib/modules/$KVER
	# build/modpreload is shared: copy it once, so that every image of
	# this run holds the same binary whatever else rebuilds it meanwhile
	# (a mutant's with MPT_MUTANT: images are keyed by the binary's sha256)
	if ! _db_bin=$(mpt_binary 2>>"$DEB_WORK/setup.log"); then
		deb_log "make build/modpreload failed"
		return 1
	fi
	DEB_BIN=$DEB_WORK/modpreload
	cp "$_db_bin" "$DEB_BIN.tmp" && mv "$DEB_BIN.tmp" "$DEB_BIN"
	if ! file "$DEB_BIN" | grep -q 'statically linked' || ! "$DEB_BIN" --version >/dev/null; then
		deb_log "build/modpreload is not a working static binary"
		return 1
	fi
	deb_rootdisk
}

deb_prepare() {
	deb_setup || fail_all "setup failed (see $DEB_WORK/setup.log)"
}

# The root file system: static busybox, /sbin/init, lib.sh, os-release.
deb_rootdisk() {
	_db_d=$DEB_WORK/rootdir
	DEB_DISK=$DEB_WORK/root.img
	rm -rf "$_db_d"
	mkdir -p "$_db_d/bin" "$_db_d/sbin" "$_db_d/usr/bin" "$_db_d/usr/sbin" "$_db_d/mpt" "$_db_d/etc" \
		"$_db_d/dev" "$_db_d/proc" "$_db_d/sys" "$_db_d/run" "$_db_d/tmp"
	_db_bb=$(command -v busybox) || { deb_log "no busybox"; return 1; }
	cp "$_db_bb" "$_db_d/bin/busybox"
	for _db_f in sh cat awk sed grep mount sleep sync poweroff cut tr wc dmesg; do
		ln -s busybox "$_db_d/bin/$_db_f"
	done
	cp "$top/harness/lib/guest/debimage-root.sh" "$_db_d/sbin/init"
	chmod 755 "$_db_d/sbin/init"
	cp "$top/harness/lib/lib.sh" "$_db_d/mpt/lib.sh"
	# systemd's switch-root checks for it
	printf 'NAME=mpt-root\nID=mpt\n' >"$_db_d/etc/os-release"
	# a new file: a QEMU still running from the old one keeps its own
	rm -f "$DEB_DISK.tmp"
	mkfs.ext4 -q -F -L mptroot -d "$_db_d" "$DEB_DISK.tmp" 16M >&2 &&
		mv "$DEB_DISK.tmp" "$DEB_DISK"
}

deb_key() {
	sed "s|$top||g" | sha256sum | cut -d' ' -f1
}

deb_fresh() {
	[ -f "$1" ] && [ "$(cat "$1.key" 2>/dev/null)" = "$2" ]
}

deb_sum_dir() {
	if [ -n "$1" ] && [ -d "$1" ]; then
		(cd "$1" && find . \( -type f -o -type l \) -printf '%p %l\n' | LC_ALL=C sort &&
			find . -type f | LC_ALL=C sort | xargs -r sha256sum)
	fi
}

# deb_sysroot_failing DIR WHO: DIR made a root whose modpreload.d lists a
# generator's hook puts into the image (MODPRELOAD_SYSROOT), as modpreload
# reads them: /etc's list naming mpt_fail_child and mpt_hang_child, one in
# /usr/local/lib and one in /lib (both found), and one in /usr/lib masked by
# a link to /dev/null in /etc (never in the image). Prints DIR.
deb_sysroot_failing() {
	rm -rf "$1"
	mkdir -p "$1/etc/modpreload.d" "$1/usr/local/lib/modpreload.d" "$1/usr/lib/modpreload.d" \
		"$1/lib/modpreload.d"
	printf '# %s: modules whose dependencies fail or hang\nmpt_fail_child\n  mpt_hang_child  \n; done\n' "$2" \
		>"$1/etc/modpreload.d/50-mpt-failing.conf"
	echo mpt_fail_child >"$1/usr/local/lib/modpreload.d/70-local.conf"
	echo mpt_hang_child >"$1/lib/modpreload.d/80-lib.conf"
	echo mpt_fail_child >"$1/usr/lib/modpreload.d/60-masked.conf"
	ln -s /dev/null "$1/etc/modpreload.d/60-masked.conf"
	echo "$1"
}

# deb_check_lists LISTING WHO: an image's file list (lsinitrd's, or find's)
# holds the lists deb_sysroot_failing made, and not the masked one
deb_check_lists() {
	for _dcl in etc/modpreload.d/50-mpt-failing.conf usr/local/lib/modpreload.d/70-local.conf \
		lib/modpreload.d/80-lib.conf; do
		grep -q " \{0,1\}\.\{0,1\}/\{0,1\}$_dcl\$" "$1" || fail "$2: $_dcl is not in the image"
	done
	! grep -q '60-masked\.conf' "$1" || fail "$2: a list masked by a link to /dev/null is in the image"
}

deb_boot() {
	mpt_boot "$1" "$2" "$3" "$4" "$DEB_BASE_ARGS $5" -m 1024 -t "${6:-300}" --disk "$DEB_DISK"
}

deb_run() {
	run_boot deb_boot "$1" "${1%.txt}.serial" "$2" "$3" "$4" "${5:-420}"
}

deb_udev_calls() {
	mpt_keys finit_by. "$1" | awk -F= '$1 ~ /udev/ { n += $2 } END { print n + 0 }'
}

deb_check_root() {
	eq "root init ran" "$(mpt_get root_init "$1")" 1
	eq "root init is PID 1" "$(mpt_get root_pid "$1")" 1
	[ "$(mpt_num load_total "$1")" -gt 0 ] || fail "no module_load events (trace missing?)"
	eq "trace buffer complete" "$(mpt_get trace_entries "$1")" "$(mpt_get trace_written "$1")"
}

deb_check_once() {
	check_once "$1" live
}

# deb_check_once_kernel RESULT: deb_check_once, the kernel's own requests
# before /init counted apart. Debian's 6.12 asks for crypto-aes from a
# built-in initcall (request_module), before /init and any mount of /sys:
# the image's modprobe (kmod 34), which cannot see that the kernel
# decompresses .ko.xz itself, decompresses them and calls init_module, and
# a second request tries the same modules again (EEXIST, and padlock_aes's
# ENODEV twice). So: every init_module call is modprobe's and returned
# before the first finit_module call; they failed with EEXIST or ENODEV if
# at all; the finit_module calls all succeeded; every module in
# /proc/modules took one successful call; a module loaded twice is one
# modprobe tried twice.
deb_check_once_kernel() {
	eq "init_module calls other than modprobe's" "$(mpt_num init_enter "$1")" "$(mpt_num init_by.modprobe "$1")"
	if [ "$(mpt_num init_enter "$1")" -gt 0 ] && ! awk -v a="$(mpt_get init_last_s "$1")" \
		-v b="$(mpt_get finit_first_s "$1")" 'BEGIN { exit !(a < b) }'; then
		fail "modprobe's init_module calls went on after the first finit_module call" \
			"($(mpt_get init_last_s "$1") s, $(mpt_get finit_first_s "$1") s)"
	fi
	eq "successful finit_module calls" "$(mpt_num finit_ok "$1")" "$(mpt_num finit_enter "$1")"
	eq "EEXIST" "$(mpt_num finit_eexist "$1")" 0
	eq "EBUSY" "$(mpt_num finit_ebusy "$1")" 0
	eq "other errors" "$(mpt_num finit_other "$1")" 0
	eq "init_module EBUSY" "$(mpt_num init_ebusy "$1")" 0
	eq "init_module errors but EEXIST and ENODEV" \
		"$(($(mpt_num init_other "$1") - $(mpt_num init_errno_19 "$1")))" 0
	eq "/proc/modules == successful calls" "$(mpt_num proc_count "$1")" \
		"$(($(mpt_num finit_ok "$1") + $(mpt_num init_ok "$1")))"
	eq "modules loaded twice, other than by modprobe" "$(mpt_num load_dups "$1")" \
		"$(mpt_get loaded_by.modprobe "$1" | tr ',' '\n' | sort | uniq -d | wc -l)"
}

# deb_figure LABEL RESULT: "LABEL calls eexist ebusy modules udev_calls
# preload_calls last_load_s root_uptime_s host_wall_s"
deb_figure() {
	echo "$1 $(mpt_num finit_enter "$2") $(mpt_num finit_eexist "$2") $(mpt_num finit_ebusy "$2") $(mpt_num load_modules "$2") $(deb_udev_calls "$2") $(mpt_num finit_by.modpreload "$2") $(mpt_get finit_last_s "$2") $(mpt_get root_uptime "$2") $(mpt_get host_wall_s "$2")" >>"$DEB_WORK/figures.txt"
}

deb_details() {
	echo "  $1: $(mpt_num finit_enter "$2") finit_module calls ($(mpt_num finit_eexist "$2") EEXIST, $(mpt_num finit_ebusy "$2") EBUSY) for $(mpt_num load_modules "$2") modules; by caller: $(mpt_keys finit_by. "$2" | sed 's/^finit_by\.//' | tr '\n' ' ')udev loaded $(deb_udev_loaded "$2"); loads $(mpt_get finit_first_s "$2")-$(mpt_get finit_last_s "$2") s, modpreload says $(mpt_get report.elapsed_ms "$2" || echo -) ms, root at $(mpt_get root_uptime "$2") s, $(mpt_get host_wall_s "$2") s wall" >&2
}

# deb_udev_loaded RESULT: the modules udev's workers loaded, "a,b" or "-"
deb_udev_loaded() {
	mpt_keys loaded_by. "$1" | awk -F= '$1 ~ /udev/ { l = l (l == "" ? "" : ",") $2 }
		END { print (l == "" ? "-" : l) }'
}

# deb_check_handed RESULT: modpreload loaded what coldplug asked for: the
# chain's first module, and the CPU module every CPU's modalias wants. That
# one has a kernel alias too (crypto-crc32c): --hold-udev keeps udev off it,
# not the kernel, so a modprobe the image runs first (btrfs's, whose
# crc32c it is, with rd.modpreload.jobs=1) may load it, once; never udev's
# workers. deb_check_once and deb_check_failing count the loads.
deb_check_handed() {
	for _db_m in "$DEB_CPU_MOD" mpt_spawn; do
		_db_by=$(mpt_get loaded_by.modpreload "$1")
		[ "$_db_m" = "$DEB_CPU_MOD" ] && _db_by="$_db_by,$(mpt_get loaded_by.modprobe "$1")"
		case ",$_db_by," in
		*",$_db_m,"*) ;;
		*) fail "modpreload did not load $_db_m (udev's workers loaded: $(deb_udev_loaded "$1"))" ;;
		esac
	done
}

# deb_check_preloaded RESULT [KEY]: modpreload ran before udevd: its report
# is there, it loaded what coldplug asked for (deb_check_handed), and the
# second-level coldplug chain is bound.
deb_check_preloaded() {
	eq "${2:-report} present" "$(mpt_get "${2:-report}" "$1")" present
	[ "$(mpt_num finit_by.modpreload "$1")" -gt 0 ] || fail "modpreload made no finit_module call"
	deb_check_handed "$1"
	deb_check_chain "$1"
}

# deb_check_analyze RESULT: the report the boot left (the root's "MPTJ:"
# lines in the serial log beside RESULT, saved as RESULT.json) is JSON and
# `modpreload analyze` reads it: exit 0, on stderr only that the report is
# another boot's (the guest's boot id, which the report carries), its header
# counts the report's modules for the report's kernel, and its critical
# chain is the report's.
deb_check_analyze() {
	_db_j=${1%.txt}.json
	tr -d '\r' <"${1%.txt}.serial" | sed -n 's/^MPTJ: //p' >"$_db_j"
	if [ ! -s "$_db_j" ] || ! jq -e '.modules | type == "array"' "$_db_j" >/dev/null 2>&1; then
		fail "the root printed no report that is JSON with modules (see $_db_j)"
		return
	fi
	_db_rc=0
	"$top/build/modpreload-analyze" "$_db_j" >"$_db_j.txt" 2>"$_db_j.err" || _db_rc=$?
	eq "modpreload analyze: exit" "$_db_rc" 0
	# read here, on the host: the report carries the guest's boot id, and
	# analyze says that it is not this boot's, and nothing else
	eq "modpreload analyze: stderr" "$(cat "$_db_j.err")" \
		"modpreload analyze: $_db_j: not this boot's report (its boot id $(jq -r .boot_id "$_db_j"), this boot's $(cat /proc/sys/kernel/random/boot_id))"
	grep -q "^modpreload [^ ]* on $(jq -r .kernel "$_db_j"): $(jq '.modules | length' "$_db_j") modules" \
		"$_db_j.txt" || fail "modpreload analyze: header is '$(head -n 1 "$_db_j.txt")'"
	eq "modpreload analyze: the critical chain" \
		"$(awk 'index($0, "Critical chain") == 1 { on = 1; next } on && /^$/ { exit } on { print $3 }' "$_db_j.txt" | tr '\n' ' ')" \
		"$(jq -r '.critical_path.modules[]' "$_db_j" | tr '\n' ' ')"
}

# deb_check_with RESULT KEY: a boot with modpreload reached the root, every
# module loaded once, modpreload did it, and its report reads back.
deb_check_with() {
	deb_check_root "$1"
	deb_check_once "$1"
	deb_check_preloaded "$1" "$2"
	deb_check_analyze "$1"
}

# deb_check_without RESULT KEY MODS: a boot without modpreload (its report
# KEY absent) reached the root with udev's storm: udev's workers loaded, some
# calls met EEXIST, the MODS modules of the boot with modpreload were loaded,
# none twice, and the coldplug chain is bound.
deb_check_without() {
	deb_check_root "$1"
	eq "report" "$(mpt_get "$2" "$1")" absent
	eq "finit_module calls by modpreload" "$(mpt_num finit_by.modpreload "$1")" 0
	[ "$(deb_udev_calls "$1")" -gt 0 ] || fail "udev loaded nothing"
	[ "$(mpt_num finit_eexist "$1")" -gt 0 ] || fail "no EEXIST: the storm this compares with did not happen"
	eq "modules loaded (same as with modpreload)" "$(mpt_num load_modules "$1")" "$3"
	eq "modules loaded twice" "$(mpt_num load_dups "$1")" 0
	deb_check_chain "$1"
}

# deb_check_failing RESULT [KEY]: the failing and hanging test modules were
# asked for (mpt_fail_child, mpt_hang_child) and the boot went on regardless:
# mpt_fail tried once (ENODEV) and its child never, mpt_hang stuck in its
# init() and its child never tried, nothing tried twice, every other module
# loaded once, and modpreload loaded what coldplug asked for.
deb_check_failing() {
	eq "${2:-report} present" "$(mpt_get "${2:-report}" "$1")" present
	eq "hold files left" "$(mpt_get held_left "$1")" 0
	eq "mpt_fail load attempts" "$(mpt_num load.mpt_fail "$1")" 1
	eq "mpt_fail ENODEV" "$(mpt_num finit_errno_19 "$1")" 1
	eq "mpt_fail live" "$(mpt_get proc.mpt_fail "$1")" 0
	eq "mpt_fail_child load attempts" "$(mpt_num load.mpt_fail_child "$1")" 0
	eq "mpt_hang state" "$(mpt_get initstate.mpt_hang "$1")" coming
	eq "mpt_hang load attempts" "$(mpt_num load.mpt_hang "$1")" 1
	eq "mpt_hang_child load attempts" "$(mpt_num load.mpt_hang_child "$1")" 0
	_db_n=$(mpt_num load_modules "$1")
	eq "finit_module calls == modules tried" "$(mpt_num finit_enter "$1")" "$_db_n"
	eq "successful finit_module calls" "$(mpt_num finit_ok "$1")" "$((_db_n - 2))"
	eq "EEXIST" "$(mpt_num finit_eexist "$1")" 0
	eq "EBUSY" "$(mpt_num finit_ebusy "$1")" 0
	eq "modules tried twice" "$(mpt_num load_dups "$1")" 0
	deb_check_handed "$1"
	deb_check_chain "$1"
}

# deb_check_chain RESULT: CPU modalias -> mpt_spawn -> 16 + 4 platform
# devices -> mpt_drv, mpt_drv2 (+ mpt_drvlib), each bound, each loaded once;
# so is $DEB_CPU_MOD, a CPU-feature module every CPU's modalias asks for.
deb_check_chain() {
	for _db_m in mpt_spawn mpt_drv mpt_drv2 mpt_drvlib virtio_blk ext4; do
		eq "$_db_m live" "$(mpt_get "proc.$_db_m" "$1")" 1
	done
	for _db_m in mpt_spawn mpt_drv mpt_drv2 "$DEB_CPU_MOD"; do
		eq "$_db_m module_load events" "$(mpt_num "load.$_db_m" "$1")" 1
	done
	eq "mpt-dev devices bound" "$(mpt_get param.mpt_drv.probed "$1")" 16
	eq "mpt-dev2 devices bound" "$(mpt_get param.mpt_drv2.probed "$1")" 4
}
