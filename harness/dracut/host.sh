# shellcheck shell=sh
# shellcheck disable=SC2154 # top: set by the script that sources this
# Host side of the dracut-* VM cases and bench/dracut-storm.sh: initramfs
# images made by Debian's real dracut (059) for Debian's 6.1 kernel, with or
# without dracut-module/90modpreload, booted under QEMU into a small ext4
# root whose /sbin/init (harness/dracut/guest/dracut-root.sh) reports what the
# kernel did. Source it after setting $top:
#   . "$top/harness/dracut/host.sh"
#
#   dr_setup                 kernel, test modules, a snapshot of
#                            build/modpreload, the root disk; sets KVER KDIR
#                            DR_WORK DR_TREE DR_BIN DR_DISK (status 1: see
#                            $DR_WORK/setup.log)
#   dr_image NAME INIT PRELOAD [CONFDIR [DRIVERS]]
#                            $DR_WORK/img/NAME.img, rebuilt only when what
#                            goes into it changed. INIT: systemd | shell |
#                            systemd-explicit (systemd from a short module
#                            list without dracut-systemd: see dr_image);
#                            PRELOAD: yes (--add modpreload) | no; CONFDIR:
#                            the modpreload.d lists to bake in (default:
#                            none); DRIVERS: dracut --drivers (default: what
#                            --no-hostonly takes, plus the mpt_* below);
#                            DR_DRACUT_ARGS: more dracut arguments
#   dr_boot RESULT LOG IMG SMP CMDLINE [TIMEOUT]
#                            boot to the root disk; "MPT:" lines to RESULT
#   dr_udev_calls RESULT     finit_module calls made by udev's workers
#   dr_check_root RESULT     the boot reached the root's init
#   dr_check_once RESULT     one successful finit_module per module, nothing
#                            else (no EEXIST, EBUSY, retries, init_module)
#   dr_figure LABEL RESULT   one line of figures to $DR_WORK/figures.txt
#   dr_fail WHY / dr_verdict NAME [DETAIL]   collect reasons, print the line
#
# dracut runs with no host configuration (--conf /dev/null, an empty
# --confdir), leaves the image uncompressed and its binaries unstripped
# (--no-compress --nostrip: a build takes 15 s instead of 50 s to minutes
# on a busy machine; what the kernel loads is the same), and finds 90modpreload through a private dracutbasedir: a
# directory of links to /usr/lib/dracut's files and modules plus this tree's
# module, made for the build and removed after. The host's /usr/lib/dracut
# and /lib/modules are not touched: --kmoddir is all dracut 059 needs.
# Needs dracut-core, busybox-static, e2fsprogs, qemu-system-x86.

# shellcheck source=harness/lib/hostlib.sh
. "$top/harness/lib/hostlib.sh"

DR_WORK=$top/build/vm/dracut
# Test modules every image carries: the second-level coldplug chain (a CPU
# modalias loads mpt_spawn, whose platform devices want mpt_drv, mpt_drv2),
# the failing and hanging ones the failure cases ask for by name, and
# mpt_params (int parameter "value") for rd.driver.pre=.
DR_MPT="mpt_spawn mpt_drv mpt_drv2 mpt_fail mpt_fail_child mpt_hang mpt_hang_child mpt_params"
DR_BASE_ARGS="root=/dev/vda rd.shell=0 rd.emergency=poweroff"

dr_log() { printf 'dracut-host: %s\n' "$*" >&2; }

dr_setup() {
	mkdir -p "$DR_WORK/img" "$DR_WORK/logs" "$DR_WORK/tmp"
	: >"$DR_WORK/setup.log"
	# shellcheck disable=SC2046 # the line is "NAME KVER DIR"
	set -- $("$top/harness/lib/kernels.sh" bookworm 2>>"$DR_WORK/setup.log" | awk '$1 == "bookworm"')
	KVER=${2:-}
	KDIR=${3:-}
	if [ -z "$KDIR" ] || [ ! -f "$KDIR/vmlinuz" ]; then
		dr_log "no bookworm kernel (harness/lib/kernels.sh bookworm)"
		return 1
	fi
	if ! "$top/tests/modules/build.sh" bookworm "$DR_WORK/tree" >/dev/null 2>>"$DR_WORK/setup.log"; then
		dr_log "tests/modules/build.sh failed"
		return 1
	fi
	DR_TREE=$DR_WORK/tree/lib/modules/$KVER
	# build/modpreload is shared: copy it once, so that every image of
	# this run holds the same binary whatever else rebuilds it meanwhile.
	if ! make -s -C "$top" build/modpreload >>"$DR_WORK/setup.log" 2>&1; then
		dr_log "make build/modpreload failed"
		return 1
	fi
	DR_BIN=$DR_WORK/modpreload
	cp "$top/build/modpreload" "$DR_BIN.tmp" && mv "$DR_BIN.tmp" "$DR_BIN"
	if ! file "$DR_BIN" | grep -q 'statically linked' || ! "$DR_BIN" --version >/dev/null; then
		dr_log "build/modpreload is not a working static binary"
		return 1
	fi
	dr_rootdisk
}

# The root file system: static busybox, /sbin/init, lib.sh, os-release.
dr_rootdisk() {
	_dr_d=$DR_WORK/rootdir
	DR_DISK=$DR_WORK/root.img
	rm -rf "$_dr_d"
	mkdir -p "$_dr_d/bin" "$_dr_d/sbin" "$_dr_d/usr/bin" "$_dr_d/usr/sbin" "$_dr_d/mpt" "$_dr_d/etc" \
		"$_dr_d/dev" "$_dr_d/proc" "$_dr_d/sys" "$_dr_d/run" "$_dr_d/tmp"
	_dr_bb=$(command -v busybox) || { dr_log "no busybox"; return 1; }
	cp "$_dr_bb" "$_dr_d/bin/busybox"
	for _dr_f in sh cat awk sed grep mount sleep sync poweroff cut tr wc dmesg; do
		ln -s busybox "$_dr_d/bin/$_dr_f"
	done
	cp "$top/harness/dracut/guest/dracut-root.sh" "$_dr_d/sbin/init"
	chmod 755 "$_dr_d/sbin/init"
	cp "$top/harness/lib/lib.sh" "$_dr_d/mpt/lib.sh"
	# systemd's switch-root checks for it
	printf 'NAME=mpt-root\nID=mpt\n' >"$_dr_d/etc/os-release"
	# a new file: a QEMU still running from the old one keeps its own
	rm -f "$DR_DISK.tmp"
	mkfs.ext4 -q -F -L mptroot -d "$_dr_d" "$DR_DISK.tmp" 16M >&2 &&
		mv "$DR_DISK.tmp" "$DR_DISK"
}

# The files of a directory, by content, for the cache keys.
dr_sum_dir() {
	if [ -n "$1" ] && [ -d "$1" ]; then
		(cd "$1" && find . -type f | LC_ALL=C sort | xargs -r sha256sum)
	fi
}

dr_image() {
	_dr_name=$1 _dr_init=$2 _dr_preload=$3 _dr_conf=${4:-} _dr_drivers=${5:-}
	_dr_img=$DR_WORK/img/$_dr_name.img
	case $_dr_init in
	systemd) _dr_mods="bash systemd systemd-initrd dracut-systemd udev-rules base fs-lib rootfs-block kernel-modules" ;;
	shell) _dr_mods="dash udev-rules base fs-lib rootfs-block kernel-modules" ;;
	# An image made from an explicit list that has systemd but not
	# dracut-systemd, whose dracut-pre-udev.service is the only thing that
	# runs pre-udev hooks under systemd (DR_DRACUT_ARGS may add -o ...).
	systemd-explicit) _dr_mods="systemd systemd-initrd udev-rules base kernel-modules qemu rootfs-block" ;;
	*) dr_log "dr_image: INIT is systemd, shell or systemd-explicit"; return 2 ;;
	esac
	_dr_empty=$DR_WORK/empty.d
	mkdir -p "$_dr_empty"
	# shellcheck disable=SC2086 # DR_DRACUT_ARGS: a list of dracut arguments
	set -- --conf /dev/null --confdir "$_dr_empty" --no-hostonly --kver "$KVER" \
		--kmoddir "$DR_TREE" --tmpdir "$DR_WORK/tmp" --no-compress --nostrip \
		-m "$_dr_mods" ${DR_DRACUT_ARGS:-}
	if [ -n "$_dr_drivers" ]; then
		set -- "$@" --drivers "$_dr_drivers $DR_MPT"
	else
		set -- "$@" --add-drivers "$DR_MPT"
	fi
	if [ "$_dr_preload" = yes ]; then set -- "$@" --add modpreload; fi
	_dr_key=$({
		echo "$*"
		dpkg-query -W dracut-core
		sha256sum "$DR_BIN" "$top"/dracut-module/90modpreload/*
		sha256sum "$DR_TREE/modules.dep" "$DR_TREE"/extra/*.ko
		echo "conf:"
		dr_sum_dir "$_dr_conf"
	} | sed "s|$top||g" | sha256sum | cut -d' ' -f1)
	if [ -f "$_dr_img" ] && [ "$(cat "$_dr_img.key" 2>/dev/null)" = "$_dr_key" ]; then
		return 0
	fi
	dr_log "building $_dr_name ($_dr_init, modpreload: $_dr_preload) with dracut"
	_dr_base=$DR_WORK/base.$$
	rm -rf "$_dr_base"
	mkdir -p "$_dr_base/modules.d"
	for _dr_f in /usr/lib/dracut/*; do
		[ "${_dr_f##*/}" = modules.d ] || ln -s "$_dr_f" "$_dr_base/"
	done
	for _dr_f in /usr/lib/dracut/modules.d/*; do
		[ "${_dr_f##*/}" = 90modpreload ] || ln -s "$_dr_f" "$_dr_base/modules.d/"
	done
	ln -s "$top/dracut-module/90modpreload" "$_dr_base/modules.d/90modpreload"
	_dr_t0=$(date +%s)
	_dr_rc=0
	dracutbasedir=$_dr_base MODPRELOAD_BIN=$DR_BIN MODPRELOAD_CONFDIR=${_dr_conf:-$_dr_empty} \
		dracut "$@" --force "$_dr_img.tmp" >"$DR_WORK/logs/$_dr_name.dracut.log" 2>&1 || _dr_rc=$?
	rm -rf "$_dr_base"
	if [ "$_dr_rc" != 0 ]; then
		dr_log "dracut failed for $_dr_name (see $DR_WORK/logs/$_dr_name.dracut.log)"
		rm -f "$_dr_img.tmp"
		return 1
	fi
	mv "$_dr_img.tmp" "$_dr_img"
	echo "$_dr_key" >"$_dr_img.key"
	dr_log "$_dr_name: $(du -k "$_dr_img" | cut -f1) KiB in $(($(date +%s) - _dr_t0)) s"
}

dr_boot() {
	"$top/harness/lib/run.sh" -k "$KDIR/vmlinuz" -i "$3" -s "$4" -m 1024 -t "${6:-300}" \
		--disk "$DR_DISK" -l "$2" -a "$DR_BASE_ARGS $5" >"$1" 2>"$2.host"
}

dr_udev_calls() {
	mpt_keys finit_by. "$1" | awk -F= '$1 ~ /udev/ { n += $2 } END { print n + 0 }'
}

dr_why=''
dr_fail() { dr_why="$dr_why; $*"; }
dr_eq() { # WHAT GOT WANT
	[ "$2" = "$3" ] || dr_fail "$1: got '$2', want '$3'"
}
dr_verdict() {
	if [ -z "$dr_why" ]; then
		echo "PASS: vm/$1${2:+ ($2)}"
	else
		echo "FAIL: vm/$1: ${dr_why#; }"
	fi
	dr_why=''
}

dr_check_root() {
	dr_eq "root init ran" "$(mpt_get root_init "$1")" 1
	dr_eq "root init is PID 1" "$(mpt_get root_pid "$1")" 1
	[ "$(mpt_num load_total "$1")" -gt 0 ] || dr_fail "no module_load events (trace missing?)"
	dr_eq "trace buffer complete" "$(mpt_get trace_entries "$1")" "$(mpt_get trace_written "$1")"
}

dr_check_once() {
	_dr_n=$(mpt_num load_modules "$1")
	dr_eq "finit_module calls == modules loaded" "$(mpt_num finit_enter "$1")" "$_dr_n"
	dr_eq "successful finit_module calls" "$(mpt_num finit_ok "$1")" "$_dr_n"
	dr_eq "EEXIST" "$(mpt_num finit_eexist "$1")" 0
	dr_eq "EBUSY" "$(mpt_num finit_ebusy "$1")" 0
	dr_eq "other errors" "$(mpt_num finit_other "$1")" 0
	dr_eq "modules loaded twice" "$(mpt_num load_dups "$1")" 0
	dr_eq "init_module calls" "$(mpt_num init_enter "$1")" 0
	dr_eq "/proc/modules == modules loaded" "$(mpt_num proc_count "$1")" "$_dr_n"
}

# dr_figure LABEL RESULT: "LABEL calls eexist ebusy modules udev_calls
# preload_calls last_load_s root_uptime_s host_wall_s"
dr_figure() {
	echo "$1 $(mpt_num finit_enter "$2") $(mpt_num finit_eexist "$2") $(mpt_num finit_ebusy "$2") $(mpt_num load_modules "$2") $(dr_udev_calls "$2") $(mpt_num finit_by.modpreload "$2") $(mpt_get finit_last_s "$2") $(mpt_get root_uptime "$2") $(mpt_get host_wall_s "$2")" >>"$DR_WORK/figures.txt"
}

# Details for stderr: who loaded what.
dr_details() {
	echo "  $1: $(mpt_num finit_enter "$2") finit_module calls ($(mpt_num finit_eexist "$2") EEXIST, $(mpt_num finit_ebusy "$2") EBUSY) for $(mpt_num load_modules "$2") modules; by caller: $(mpt_keys finit_by. "$2" | sed 's/^finit_by\.//' | tr '\n' ' ')loads $(mpt_get finit_first_s "$2")-$(mpt_get finit_last_s "$2") s, modpreload says $(mpt_get report.elapsed_ms "$2" || echo -) ms, root at $(mpt_get root_uptime "$2") s, $(mpt_get host_wall_s "$2") s wall" >&2
}

# dr_check_preloaded RESULT [KEY]: modpreload ran before udevd and left it
# nothing to load: its report is there (KEY: report, dracut's
# /run/initramfs/modpreload.json; report_run, /run/modpreload/report.json),
# it made finit_module calls, udev's workers made none, and the second-level
# coldplug chain is bound.
dr_check_preloaded() {
	dr_eq "${2:-report} present" "$(mpt_get "${2:-report}" "$1")" present
	[ "$(mpt_num finit_by.modpreload "$1")" -gt 0 ] || dr_fail "modpreload made no finit_module call"
	dr_eq "finit_module calls by udev workers" "$(dr_udev_calls "$1")" 0
	dr_check_chain "$1"
}

# dr_check_failing RESULT [KEY]: the failing and hanging test modules were asked
# for (mpt_fail_child, mpt_hang_child) and the boot went on regardless:
# mpt_fail tried once (ENODEV) and its child never, mpt_hang stuck in its
# init() and its child never tried, nothing tried twice, every other module
# loaded once, udev left with nothing to load.
dr_check_failing() {
	dr_eq "${2:-report} present" "$(mpt_get "${2:-report}" "$1")" present
	dr_eq "mpt_fail load attempts" "$(mpt_num load.mpt_fail "$1")" 1
	dr_eq "mpt_fail ENODEV" "$(mpt_num finit_errno_19 "$1")" 1
	dr_eq "mpt_fail live" "$(mpt_get proc.mpt_fail "$1")" 0
	dr_eq "mpt_fail_child load attempts" "$(mpt_num load.mpt_fail_child "$1")" 0
	dr_eq "mpt_hang state" "$(mpt_get initstate.mpt_hang "$1")" coming
	dr_eq "mpt_hang load attempts" "$(mpt_num load.mpt_hang "$1")" 1
	dr_eq "mpt_hang_child load attempts" "$(mpt_num load.mpt_hang_child "$1")" 0
	_dr_n=$(mpt_num load_modules "$1")
	dr_eq "finit_module calls == modules tried" "$(mpt_num finit_enter "$1")" "$_dr_n"
	dr_eq "successful finit_module calls" "$(mpt_num finit_ok "$1")" "$((_dr_n - 2))"
	dr_eq "EEXIST" "$(mpt_num finit_eexist "$1")" 0
	dr_eq "EBUSY" "$(mpt_num finit_ebusy "$1")" 0
	dr_eq "modules tried twice" "$(mpt_num load_dups "$1")" 0
	dr_eq "finit_module calls by udev workers" "$(dr_udev_calls "$1")" 0
	dr_check_chain "$1"
}

# dr_check_chain RESULT: CPU modalias -> mpt_spawn -> 16 + 4 platform
# devices -> mpt_drv, mpt_drv2 (+ mpt_drvlib), each bound, each loaded once;
# so is $DR_CPU_MOD, a CPU-feature module every CPU's modalias asks for.
DR_CPU_MOD=aesni_intel
dr_check_chain() {
	for _dr_m in mpt_spawn mpt_drv mpt_drv2 mpt_drvlib virtio_blk ext4; do
		dr_eq "$_dr_m live" "$(mpt_get "proc.$_dr_m" "$1")" 1
	done
	for _dr_m in mpt_spawn mpt_drv mpt_drv2 "$DR_CPU_MOD"; do
		dr_eq "$_dr_m module_load events" "$(mpt_num "load.$_dr_m" "$1")" 1
	done
	dr_eq "mpt-dev devices bound" "$(mpt_get param.mpt_drv.probed "$1")" 16
	dr_eq "mpt-dev2 devices bound" "$(mpt_get param.mpt_drv2.probed "$1")" 4
}
