# shellcheck shell=sh
# shellcheck disable=SC2154 # top: set by the script that sources this
# Host side of the booted-* VM case and bench/booted-storm.sh: the whole
# boot, initramfs and booted system. A dracut 059 image with 50modpreload
# (harness/lib/dracutimage.sh's dr_image, systemd init, with
# harness/lib/debimage.sh's setup) boots Debian's 6.1
# into a real Debian bookworm root with systemd 252 and udev, made from
# Debian's packages by mmdebstrap (through the project's private apt
# sources, cached as a tarball, harness/lib/debroot.sh), holding the kernel's full module tree, the
# tree's modpreload and its booted-system units enabled with the documented
# `systemctl enable modpreload-coldplug.service`. The boot goes to
# multi-user.target; a unit after it (guest/booted-report.sh) writes a trace
# marker (mpt_multi_user), reports what the kernel's tracepoints saw, split
# at switch-root by a trace marker that a pre-pivot hook in the image writes
# (guest/booted-marker.sh), and powers off. The image holds the test modules
# of harness/lib/debimage.sh's DEB_MPT but mpt_slowpci: that one is the
# root's alone, so that with QEMU's pci-testdev (booted-once's hand-over)
# the booted system's modpreload is the one that loads it.
# BT_SUITE=trixie (set before sourcing; booted-once-trixie, bench/booted-
# storm.sh -r trixie): the same boot with Debian trixie's 6.12 (its modules
# .ko.xz, the test modules too, decompressed by the kernel) into a trixie
# root (systemd 257, udev, kmod 34), the image still made by the host's
# dracut 059 for that kernel, everything under build/vm/booted-trixie.
# There the initramfs's udev is the host's (kmod 30, which decompresses
# .ko.xz itself and calls init_module): the report counts those calls too.
# BT_SUITE=trixie-itools: the same root with initramfs-tools, whose own
# update-initramfs makes the image in a chroot (bt_itools_image: trixie's
# udev and kmod in the initramfs too); trixie-ng: the image by the current
# dracut-ng release (harness/lib/dracutng.sh), not dracut 059; sid: trixie's
# kernel into a root of Debian unstable. Each has its own work directory,
# build/vm/booted$BT_TAG.
# Source it after setting $top:
#   . "$top/harness/booted/host.sh"
#
#   bt_setup            deb_setup in $BT_WORK (build/vm/booted$BT_TAG), the
#                       root tarball, the image, the root disk (status 1: see
#                       $DEB_WORK/setup.log and logs/; 3: no dracut-ng could
#                       be had, the mirror unreachable and nothing cached);
#                       what made the image in $DEB_WORK/generator.txt
#   bt_boot RESULT LOG SMP with|without [TIMEOUT]
#                       boot a fresh copy of the root disk; "MPT:" lines to
#                       RESULT. without: rd.modpreload=0 modpreload.enable=0,
#                       the off switches of both halves. MPT_DEVICES: more
#                       QEMU devices (run.sh --device); BT_APPEND: more of
#                       the kernel command line; BT_WITH_APPEND: more of it
#                       for a with-boot only; BT_CPU: QEMU's -cpu (max)
#   bt_kmsg RESULT PATTERN  a kernel-log line of the guest report matches
#   bt_check_with RESULT / bt_check_without RESULT WITH_RESULT
#                       the assertions (harness/lib/verdict.sh's reasons)
#   bt_figures RESULT   "initrd_calls initrd_loaded booted_calls
#                       booted_loaded booted_failed udev_calls" on stdout
#   BT_TAG              "" on bookworm, else "-SUITE": for case names
# BT_MEM: guest RAM in MiB (default 2048; udevd's worker cap is RAM/128 MiB).
# BT_MODPRELOAD_TIMEOUT: rd.modpreload.timeout= (default 900 s).
# BT_UDEV_EVENT_TIMEOUT: udev.event_timeout= (default 900 s; 0: udevd's 180).
# Needs mmdebstrap, e2fsprogs, systemctl, and what harness/lib/dracutimage.sh needs.

# shellcheck source=harness/lib/dracutimage.sh
. "$top/harness/lib/dracutimage.sh"
# shellcheck source=harness/lib/debroot.sh
. "$top/harness/lib/debroot.sh"

BT_SUITE=${BT_SUITE:-bookworm}
case $BT_SUITE in
bookworm) BT_TAG='' BT_GEN=dracut ;;
# its own kernel, test modules compressed as its own are, its own work
# directory: the two suites' images and disks never replace each other
trixie) BT_TAG=-trixie DEB_KERNEL=trixie DEB_COMPRESS=xz BT_GEN=dracut ;;
# trixie's kernel into a root of Debian's unstable suite: a systemd of 259 or
# later, whose systemd-modules-load loads in parallel (booted-once-sid)
sid) BT_TAG=-sid DEB_KERNEL=trixie DEB_COMPRESS=xz BT_GEN=dracut ;;
# trixie, the image made in the root by trixie's own initramfs-tools (0.148,
# its default generator) with MODPRELOAD=y: its udev, kmod 34 and busybox
# in the initramfs (booted-once-trixie-itools)
trixie-itools) BT_TAG=-trixie-itools DEB_KERNEL=trixie DEB_COMPRESS=xz BT_SUITE=trixie BT_GEN=itools ;;
# trixie, the image made by the current dracut-ng release (the one Debian
# sid carries, built from its source by harness/lib/dracutng.sh)
trixie-ng) BT_TAG=-trixie-ng DEB_KERNEL=trixie DEB_COMPRESS=xz BT_SUITE=trixie BT_GEN=dracut-ng ;;
# bookworm, its image holding the slow device's driver too, with a pre-pivot
# hook that kills the initramfs's holder (booted-initrd-holder-killed)
bookworm-slowinitrd) BT_TAG=-slowinitrd BT_SUITE=bookworm BT_GEN=dracut BT_SLOW_INITRD=1 ;;
# Debian's newest 7.x (harness/lib/kernels.sh seven: trixie-backports', made
# for trixie) into the trixie root, the image by the host's dracut
# (booted-once-seven, make check-full's)
seven) BT_TAG=-seven DEB_KERNEL=seven DEB_COMPRESS=xz BT_SUITE=trixie BT_GEN=dracut ;;
# the same 7.x, the image by the root's own initramfs-tools, or by
# dracut-ng (bench/stacks.sh's rows for it)
seven-itools) BT_TAG=-seven-itools DEB_KERNEL=seven DEB_COMPRESS=xz BT_SUITE=trixie BT_GEN=itools ;;
seven-ng) BT_TAG=-seven-ng DEB_KERNEL=seven DEB_COMPRESS=xz BT_SUITE=trixie BT_GEN=dracut-ng ;;
*) echo "harness/booted/host.sh: BT_SUITE is bookworm, bookworm-slowinitrd, trixie, trixie-itools, trixie-ng, sid, seven, seven-itools or seven-ng, not '$BT_SUITE'" >&2; exit 2 ;;
esac
# BT_GEN, who makes the image (the suite's, never the environment's): the
# host's dracut 059 (dracut), dracut-ng (dracut-ng) or the root's own
# initramfs-tools (itools)
BT_WORK=$top/build/vm/booted$BT_TAG
DEB_WORK=$BT_WORK
# the slow device's driver only on the root (see above), but in
# bookworm-slowinitrd's image
[ -n "${BT_SLOW_INITRD:-}" ] || DEB_MPT=$(echo " $DEB_MPT " | sed 's/ mpt_slowpci / /; s/^ //; s/ $//')
BT_PKGS=systemd-sysv,udev,kmod
# zstd: initramfs-tools' default compression since 0.141
[ "$BT_GEN" != itools ] || BT_PKGS=$BT_PKGS,initramfs-tools,busybox,zstd
BT_IMG=$DEB_WORK/img/booted.img
BT_DISK=$DEB_WORK/booted-root.img

bt_base() {
	BT_BASE=$(mp_debroot "$BT_PKGS" "$DEB_WORK/logs/mmdebstrap.log" "$BT_SUITE") || {
		deb_log "mmdebstrap failed (see $DEB_WORK/logs/mmdebstrap.log)"
		return 1
	}
}

# The root disk, rebuilt only when what goes onto it changed.
bt_rootdisk() {
	_bt_key=$({
		echo "$BT_BASE"
		sha256sum "$DEB_BIN" "$top"/systemd/* "$top/harness/booted/guest/booted-report.sh" \
			"$top/harness/booted/guest/kill-holder.sh" "$top/harness/booted/guest/sampler.c" "$top/harness/lib/lib.sh"
		sha256sum "$DEB_TREE/modules.dep"
		echo "modules-load.d: mpt_params, mpt_dia_top (blacklisted)"
		echo "slow named: ${BT_SLOW_NAMED_MS:-}"
		echo "journald: no rate limit"
		echo "mpt-sampler.service (mpt.sample)"
		echo "systemd-modules-load: TimeoutStartSec=10min"
		if [ "$BT_GEN" = itools ]; then
			# what bt_itools_image puts into the image, itself included
			echo "image by the root's initramfs-tools: $DEB_MPT"
			sha256sum "$top"/initramfs-tools/hooks/modpreload "$top"/initramfs-tools/scripts/init-top/modpreload \
				"$top/harness/booted/guest/booted-marker.sh" "$KDIR/vmlinuz" "$KDIR/boot/config-$KVER" \
				"$DEB_TREE"/extra/*.ko*
			sed -n '/^bt_itools_image() {$/,/^}$/p' "$top/harness/booted/host.sh"
		fi
	} | deb_key)
	if deb_fresh "$BT_DISK" "$_bt_key" && { [ "$BT_GEN" != itools ] || [ -s "$BT_IMG" ]; }; then
		return 0
	fi
	deb_log "building the root disk"
	_bt_r=$DEB_WORK/root
	rm -rf "$_bt_r"
	mkdir -p "$_bt_r"
	tar -xf "$BT_BASE" -C "$_bt_r" || return 1
	mkdir -p "$_bt_r/usr/lib/modules" "$_bt_r/usr/lib/modpreload" "$_bt_r/mpt"
	cp -al "$DEB_TREE" "$_bt_r/usr/lib/modules/$KVER" || return 1
	# what `make install` puts there, from this tree
	install -m 0755 "$DEB_BIN" "$_bt_r/usr/sbin/modpreload"
	install -m 0644 "$top/systemd/modpreload-coldplug.service" "$top/systemd/modpreload-names.service" \
		"$top/systemd/modpreload-save-report.service" "$_bt_r/usr/lib/systemd/system/"
	install -m 0755 "$top/systemd/save-report" "$_bt_r/usr/lib/modpreload/save-report"
	# the README's one-liner
	systemctl --root="$_bt_r" enable modpreload-coldplug.service >>"$DEB_WORK/setup.log" 2>&1 || return 1
	install -m 0755 "$top/harness/booted/guest/booted-report.sh" "$_bt_r/mpt/booted-report.sh"
	install -m 0644 "$top/harness/lib/lib.sh" "$_bt_r/mpt/lib.sh"
	cat >"$_bt_r/etc/systemd/system/mpt-report.service" <<'EOT'
[Unit]
Description=booted-* VM case: report what the kernel saw, power off
After=multi-user.target

[Service]
Type=oneshot
ExecStart=/mpt/booted-report.sh

[Install]
WantedBy=multi-user.target
EOT
	systemctl --root="$_bt_r" enable mpt-report.service >>"$DEB_WORK/setup.log" 2>&1 || return 1
	# mpt.sample on the command line (bench/boot-pairs.sh -C lean-sampled):
	# what the CPUs went to, sampled from switch-root on (guest/sampler.c)
	cc -static -O2 -o "$_bt_r/mpt/sampler" "$top/harness/booted/guest/sampler.c" >>"$DEB_WORK/setup.log" 2>&1 ||
		return 1
	cat >"$_bt_r/etc/systemd/system/mpt-sampler.service" <<'EOT'
[Unit]
Description=booted-* VM bench: sample what the CPUs go to
DefaultDependencies=no
ConditionKernelCommandLine=mpt.sample

[Service]
ExecStart=/mpt/sampler

[Install]
WantedBy=sysinit.target
EOT
	systemctl --root="$_bt_r" enable mpt-sampler.service >>"$DEB_WORK/setup.log" 2>&1 || return 1
	# booted-handover-killed's: the holder SIGKILLed at the hand-over
	# (mpt.kill_holder=NAME; without it the unit does not start)
	install -m 0755 "$top/harness/booted/guest/kill-holder.sh" "$_bt_r/mpt/kill-holder.sh"
	cat >"$_bt_r/etc/systemd/system/mpt-kill-holder.service" <<'EOT'
[Unit]
Description=booted-handover-killed: SIGKILL the booted run's holder at the hand-over
DefaultDependencies=no
After=modpreload-coldplug.service
ConditionKernelCommandLine=mpt.kill_holder

[Service]
Type=oneshot
ExecStart=/mpt/kill-holder.sh

[Install]
WantedBy=sysinit.target
EOT
	systemctl --root="$_bt_r" enable mpt-kill-holder.service >>"$DEB_WORK/setup.log" 2>&1 || return 1
	# a list for systemd-modules-load, which modpreload takes over (the
	# directory made, not assumed: kmod ships it on bookworm)
	mkdir -p "$_bt_r/etc/modules-load.d" "$_bt_r/etc/modprobe.d"
	printf '%s\n' mpt_params mpt_dia_top >"$_bt_r/etc/modules-load.d/mpt.conf"
	# and a name in it the administrator blacklisted, which
	# systemd-modules-load skips, and so does modpreload (modpreload(8),
	# SOURCES)
	echo 'blacklist mpt_dia_top' >"$_bt_r/etc/modprobe.d/mpt-blacklist.conf"
	# BT_SLOW_NAMED_MS: a slow module in that list too (mpt_sleep, whose
	# init() sleeps that long; on the root only): only a name asks for it,
	# and the booted run leaves it to systemd-modules-load (bt_check_no_wait)
	if [ -n "${BT_SLOW_NAMED_MS:-}" ]; then
		echo mpt_sleep >>"$_bt_r/etc/modules-load.d/mpt.conf"
		echo "options mpt_sleep delay_ms=$BT_SLOW_NAMED_MS" >"$_bt_r/etc/modprobe.d/mpt-sleep.conf"
	fi
	# systemd-modules-load's own bound (90 s, for real hardware) after
	# the harness's slow module: here that module alone sleeps 30 s in
	# init(), and on a busy 2-core host the 16-vCPU boot runs about 3 times
	# slower than on this project's (CI: mpt_slowpci's load began at 195 s
	# against 70 s here), where the unit took 47 s; in one CI run
	# mpt_sleep was loaded by no one, the unit apparently stopped before
	# its turn. With modpreload or without, the same bound for both
	mkdir -p "$_bt_r/etc/systemd/system/systemd-modules-load.service.d"
	printf '[Service]\nTimeoutStartSec=10min\n' \
		>"$_bt_r/etc/systemd/system/systemd-modules-load.service.d/mpt.conf"
	# every line udevd logs (udev.log_level=debug in booted-handover-fail)
	# kept: the report reads them
	mkdir -p "$_bt_r/etc/systemd/journald.conf.d"
	printf '[Journal]\nRateLimitBurst=0\n' >"$_bt_r/etc/systemd/journald.conf.d/mpt.conf"
	# a known machine: no first-boot setup; no login prompts on the console
	echo 5d1c0a8b2f3e4d6a9b7c8d9e0f1a2b3c >"$_bt_r/etc/machine-id"
	echo mpt-booted >"$_bt_r/etc/hostname"
	systemctl --root="$_bt_r" mask serial-getty@ttyS0.service getty@tty1.service \
		>>"$DEB_WORK/setup.log" 2>&1
	[ "$BT_GEN" != itools ] || bt_itools_image "$_bt_r" || return 1
	rm -f "$BT_DISK.tmp"
	# a sparse image with room to spare for /var and the journal
	_bt_mb=$(($(du -sm "$_bt_r" | cut -f1) * 5 / 4 + 256))
	mkfs.ext4 -q -F -L mptroot -d "$_bt_r" "$BT_DISK.tmp" "${_bt_mb}M" >>"$DEB_WORK/setup.log" 2>&1 || return 1
	mv "$BT_DISK.tmp" "$BT_DISK"
	echo "$_bt_key" >"$BT_DISK.key"
	rm -rf "$_bt_r"
}

# bt_itools_image ROOT: the image ROOT's own initramfs-tools makes, as a
# user of it would: modpreload's hook and boot script where `make install`
# puts them, MODPRELOAD=y in conf.d (the documented switch), the test
# modules added by a hook of the user's, and the switch-root marker as an
# init-bottom script after udev's (udevd has exited by then)
bt_itools_image() {
	_bt_s=$1/usr/share/initramfs-tools
	_bt_e=$1/etc/initramfs-tools
	install -D -m 0755 "$top/initramfs-tools/hooks/modpreload" "$_bt_s/hooks/modpreload" &&
		install -D -m 0755 "$top/initramfs-tools/scripts/init-top/modpreload" "$_bt_s/scripts/init-top/modpreload" &&
		mkdir -p "$_bt_e/conf.d" "$_bt_e/hooks" "$_bt_e/scripts/init-bottom" &&
		echo MODPRELOAD=y >"$_bt_e/conf.d/modpreload" || return 1
	# shellcheck disable=SC2016 # the scripts' own code
	printf '#!/bin/sh\n[ "$1" = prereqs ] && exit 0\n. /usr/share/initramfs-tools/hook-functions\nmanual_add_modules %s\n' \
		"$DEB_MPT" >"$_bt_e/hooks/mpt-test" || return 1
	# shellcheck disable=SC2016
	{
		printf '#!/bin/sh\n[ "$1" = prereqs ] && { echo udev; exit 0; }\n'
		sed 1d "$top/harness/booted/guest/booted-marker.sh"
	} >"$_bt_e/scripts/init-bottom/mpt-marker" || return 1
	chmod 0755 "$_bt_e/hooks/mpt-test" "$_bt_e/scripts/init-bottom/mpt-marker" &&
		cp "$KDIR/boot/config-$KVER" "$1/boot/" || return 1
	deb_log "update-initramfs in the root"
	deb_in_root "$1" "update-initramfs -c -k $KVER" >"$DEB_WORK/logs/update-initramfs.log" 2>&1 || {
		deb_log "update-initramfs failed (see $DEB_WORK/logs/update-initramfs.log)"
		return 1
	}
	cp "$1/boot/initrd.img-$KVER" "$BT_IMG.tmp" && mv "$BT_IMG.tmp" "$BT_IMG"
}

bt_setup() {
	DEB_WORK=$BT_WORK
	deb_setup || return 1
	bt_base || return 1
	if [ "$BT_GEN" = itools ]; then
		bt_rootdisk || return 1
		# the version the image was made with, from the root's tarball
		tar -xOf "$BT_BASE" ./var/lib/dpkg/status 2>/dev/null | awk '
			/^Package: / { p = $2 } p == "initramfs-tools" && /^Version: / { print "initramfs-tools " $2; exit }' \
			>"$DEB_WORK/generator.txt"
		return 0
	fi
	echo "dracut 059" >"$DEB_WORK/generator.txt"
	if [ "$BT_GEN" = dracut-ng ]; then
		_bt_ng=$("$top/harness/lib/dracutng.sh" sid 2>>"$DEB_WORK/setup.log")
		_bt_rc=$?
		# shellcheck disable=SC2086 # "VERSION DIR"
		set -- $_bt_ng
		if [ -z "${2:-}" ]; then
			deb_log "no dracut-ng (exit $_bt_rc, see $DEB_WORK/setup.log)"
			[ "$_bt_rc" = 2 ] && return 3
			return 1
		fi
		DR_DRACUT=$2
		echo "dracut-ng $1" >"$DEB_WORK/generator.txt"
	fi
	# the marker hook, by content: dr_image's key sees its path
	_bt_mark=$DEB_WORK/marker-$(sha256sum <"$top/harness/booted/guest/booted-marker.sh" | cut -c1-12).sh
	cp "$top/harness/booted/guest/booted-marker.sh" "$_bt_mark"
	DR_DRACUT_ARGS="--include $_bt_mark /usr/lib/dracut/hooks/pre-pivot/99-mpt-marker.sh"
	if [ -n "${BT_SLOW_INITRD:-}" ]; then
		_bt_kill=$DEB_WORK/kill-$(sha256sum <"$top/harness/booted/guest/kill-holder-initrd.sh" | cut -c1-12).sh
		cp "$top/harness/booted/guest/kill-holder-initrd.sh" "$_bt_kill"
		DR_DRACUT_ARGS="$DR_DRACUT_ARGS --include $_bt_kill /usr/lib/dracut/hooks/pre-pivot/98-mpt-kill-holder.sh"
	fi
	_bt_rc=0
	dr_image booted systemd yes || _bt_rc=1
	DR_DRACUT_ARGS='' DR_DRACUT=''
	[ "$_bt_rc" = 0 ] || return 1
	bt_rootdisk
}

# bt_case_boot RESULT SMP with|without DEVICES APPEND: a case's boot, with
# those QEMU devices and that command line added for this boot only; its
# console log beside RESULT (.serial). A boot that did not finish is a FAIL
# that says why. Returns bt_boot's status.
bt_case_boot() {
	_bt_cd=${MPT_DEVICES:-} _bt_ca=${BT_APPEND:-} _bt_crc=0
	MPT_DEVICES=$4 BT_APPEND=$5
	run_boot bt_boot "$1" "${1%.txt}.serial" "$2" "$3" || _bt_crc=$?
	MPT_DEVICES=$_bt_cd BT_APPEND=$_bt_ca
	return "$_bt_crc"
}

bt_boot() { # RESULT LOG SMP with|without [TIMEOUT]
	_bt_args="root=/dev/vda rw fsck.mode=skip rd.shell=0 rd.emergency=poweroff trace_buf_size=4M"
	# big guests under TCG: systemd's job timeouts are not for them
	_bt_args="$_bt_args rd.timeout=0 systemd.default_timeout_start_sec=1800"
	# A starved TCG guest (16 vCPUs on a busy 2-core host) runs kvm's
	# init() for minutes, soft lockups included, and what waits for the
	# CPU hotplug lock behind it: with modpreload's 60 s it gives them up as
	# hung, and udev's workers then race for them. The booted run reads
	# the same command line as the initramfs's.
	_bt_args="$_bt_args rd.modpreload.timeout=${BT_MODPRELOAD_TIMEOUT:-900}"
	# udevd kills a worker whose event runs past 180 s, mid-call (EINTR),
	# and the rest of that event's loads are never made. Under TCG, not
	# lean (QEMU's VGA), drm's init() alone ran 116-158 s in one worker's
	# event for bochs, whose four helpers came after it (2026-12-07): a
	# bound for hardware, not for an emulator 100 times slower. 0 keeps
	# udevd's own (bench/boot-pairs.sh: its records were made with it).
	[ "${BT_UDEV_EVENT_TIMEOUT:-900}" != 0 ] &&
		_bt_args="$_bt_args udev.event_timeout=${BT_UDEV_EVENT_TIMEOUT:-900}"
	[ "$4" = without ] && _bt_args="$_bt_args rd.modpreload=0 modpreload.enable=0"
	[ "$4" = with ] && _bt_args="$_bt_args${BT_WITH_APPEND:+ $BT_WITH_APPEND}"
	_bt_args="$_bt_args${BT_APPEND:+ $BT_APPEND}"
	# each boot on a fresh copy: a root powered off with sysrq is not clean
	cp --sparse=always "$BT_DISK" "$DEB_WORK/boot.img" || return 2
	# BT_LOOKUPS (bench/boot-pairs.sh): a with-boot starts with the last
	# with-boot's /var/lib/modpreload/lookups, as a machine does from its
	# second boot on, and leaves its own there for the next
	if [ "$4" = with ] && [ -n "${BT_LOOKUPS:-}" ] && [ -s "$BT_LOOKUPS" ]; then
		printf 'mkdir /var/lib/modpreload\nrm /var/lib/modpreload/lookups\nwrite %s /var/lib/modpreload/lookups\n' \
			"$BT_LOOKUPS" >"$DEB_WORK/lookups.debugfs"
		debugfs -w -f "$DEB_WORK/lookups.debugfs" "$DEB_WORK/boot.img" >"$DEB_WORK/lookups.log" 2>&1 || return 2
	fi
	# traced beside the load calls (guest/booted-report.sh counts them):
	# udevd's forks, its workers; the programs exec'd (when modpreload
	# began); and two kprobes (x86-64 registers), what a call read (the
	# size module_decompress is given) and the image load_module checked
	# (struct load_info's len, its fourth word since Linux 5.x); and a
	# third, the name of each module a call's load_module looks for in
	# the kernel's list (find_module_all's first argument:
	# add_unformed_module asks it before it refuses a duplicate), so that
	# the report names the module of a failed call
	_bt_args="$_bt_args kprobe_event=p:mpt_read,module_decompress,len=%dx:u64;p:mpt_image,load_module,len=+24(%di):u64"
	_bt_args="$_bt_args;p:mpt_name,find_module_all,name=+0(%di):string"
	_bt_rc=0
	mpt_boot "$1" "$2" "$BT_IMG" "$3" "$_bt_args" -m "${BT_MEM:-2048}" -t "${5:-900}" \
		--disk "$DEB_WORK/boot.img" --trace-more sched:sched_process_fork,sched:sched_process_exec \
		--cpu "${BT_CPU:-max}" || _bt_rc=$?
	if [ "$4" = with ] && [ -n "${BT_LOOKUPS:-}" ]; then
		e2fsck -fy "$DEB_WORK/boot.img" >>"$DEB_WORK/lookups.log" 2>&1
		rm -f "$BT_LOOKUPS.new"
		debugfs -R "dump /var/lib/modpreload/lookups $BT_LOOKUPS.new" "$DEB_WORK/boot.img" >>"$DEB_WORK/lookups.log" 2>&1
		if [ -s "$BT_LOOKUPS.new" ]; then mv "$BT_LOOKUPS.new" "$BT_LOOKUPS"; else rm -f "$BT_LOOKUPS.new"; fi
	fi
	rm -f "$DEB_WORK/boot.img"
	return "$_bt_rc"
}

# bt_in LIST NAME: NAME is in the comma-separated LIST
bt_in() {
	case ",$1," in *",$2,"*) return 0 ;; esac
	return 1
}

# bt_merged_outside RESULT: the calls 6.5+ merged with a load in flight where
# one side was outside coldplug (the report's outside_callers, the one list:
# modprobe's, PID 1's and systemd-modules-load's; systemd_modules: a name a
# device asks for too, which the booted
# run joined, still loading when READY=1 lets systemd-modules-load start:
# its call waits for ours), and modpreload's for as many modules
# as those loaded and modpreload's report says it dealt with
# (systemd-logind's modprobe@drm.service asks for drm by name, which no hold
# stops, while modpreload's child still loads it)
bt_merged_outside() {
	_bt_o=0
	for _bt_m in $(mpt_get boot.outside_loaded "$1" | tr ',' ' '); do
		bt_in "$(mpt_get handled "$1")" "$_bt_m" && _bt_o=$((_bt_o + 1))
	done
	_bt_p=$(($(mpt_num initrd.merged_by.modpreload "$1") + $(mpt_num booted.merged_by.modpreload "$1")))
	[ "$_bt_p" -le "$_bt_o" ] || _bt_p=$_bt_o
	_bt_s=0
	# a report without the list excuses nothing: the count only grows stricter
	for _bt_c in $(mpt_get outside_callers "$1" | tr ',' ' '); do
		_bt_s=$((_bt_s + $(mpt_num "initrd.merged_by.$_bt_c" "$1") + $(mpt_num "booted.merged_by.$_bt_c" "$1")))
	done
	echo $((_bt_s + _bt_p + $(bt_udev_merged_outside "$1")))
}

# bt_udev_merged_outside RESULT: udev workers' calls after switch-root that
# a 6.5+ kernel merged while a call of modprobe's or systemd's was in flight
# (logind's modprobe@drm beside udev's coldplug of bochs, which needs drm:
# a driver the booted run left to udev, and a storm that is not ours)
bt_udev_merged_outside() {
	mpt_num booted.merged_outside_by._udev_worker_ "$1"
}

# bt_bounds RESULT: how many of modpreload's waits ended on their bound,
# from its kernel-log lines and its report (the one count: the check below
# and bench/boot-pairs.sh's records)
bt_bounds() {
	grep -a -c -e '^MPT: kmsg .*has not returned after' -e '^MPT: kmsg .*when the run.s time was up' \
		-e '^MPT: kmsg .*still there after' -e '^MPT: kmsg .*still not there after' \
		-e '^MPT: bmod=[^ ]* [^ ]* [^ ]* hung$' "$1"
}

# bt_check_no_wait RESULT: modpreload's waits, from its reports and the
# kernel log, without reading a clock: none ended on its bound (an init()
# given up on, the run's time up, udev's queue still there, or never there
# for the held loads after the hand-over), and, with
# BT_SLOW_NAMED_MS (booted-once sets it), the slow module only
# modules-load.d names (mpt_sleep) is not the booted run's: it left it to
# systemd-modules-load (--leave-single), whose load it was (the kernel's
# trace), so that nothing of modpreload's waited for its init()
bt_check_no_wait() {
	eq "modpreload's waits that ended on their bound" "$(bt_bounds "$1")" 0
	[ -n "${BT_SLOW_NAMED_MS:-}" ] || return 0
	# "NAME START_MS END_MS STATE"
	eq "mpt_sleep (modules-load.d, slow, a name only) in the booted run" \
		"$(grep -a '^MPT: bmod=mpt_sleep ' "$1" | head -n 1 | awk '{ print $NF }')" skipped
	eq "mpt_sleep loaded by (failed units: $(mpt_get failed_units "$1"); systemd-modules-load: $(mpt_get sml "$1"))" \
		"$(mpt_get loaded_by.mpt_sleep "$1")" systemd_modules
	bt_kmsg "$1" "modpreload: [0-9]* left to systemd-modules-load, only a name asking for each .*mpt_sleep"
}

# bt_kmsg RESULT PATTERN: the guest report has a kernel-log line (its
# "kmsg" lines: modpreload's, and the harness's "mpt:" ones that name it)
# matching PATTERN (grep), else a FAIL that quotes it
bt_kmsg() {
	mpt_keys "kmsg " "$1" | grep -q -- "$2" || fail "no kernel log line: $2"
}

bt_check_common() {
	eq "root's report ran" "$(mpt_get root_init "$1")" 1
	eq "marker at switch-root found" "$(mpt_get marker "$1")" 1
	eq "trace buffer complete" "$(mpt_get trace_entries "$1")" "$(mpt_get trace_written "$1")"
	[ "$(mpt_num initrd.loads "$1")" -gt 0 ] || fail "no module_load events in the initramfs (trace missing?)"
	[ "$(mpt_num booted.loads "$1")" -gt 0 ] || fail "no module_load events after switch-root"
	eq "loads of modules-load.d's blacklisted name (mpt_dia_top)" "$(mpt_num boot.loads_blacklisted "$1")" 0
}

# With modpreload in both places: every module loaded once over the whole
# boot (but for the kernel's and systemd's own repeats, counted apart), no
# load call that failed but the no-device drivers' (each once:
# ENODEV, or EEXIST from an init() whose place another driver holds; a
# duplicate's EEXIST has no module_load event, so "calls == modules" still
# catches it), no
# udev worker loading a module modpreload dealt with, the no-device
# blacklist in place, the reports there and kept.
bt_check_with() {
	bt_check_common "$1"
	bt_check_no_wait "$1"
	_bt_calls=$(($(mpt_num initrd.calls "$1") + $(mpt_num booted.calls "$1")))
	_bt_ok=$(($(mpt_num initrd.ok "$1") + $(mpt_num booted.ok "$1")))
	_bt_nodev=$(($(mpt_num initrd.errno_19 "$1") + $(mpt_num booted.errno_19 "$1") +
		$(mpt_num initrd.errno_17 "$1") + $(mpt_num booted.errno_17 "$1")))
	# 7.1 and later hand an init()'s EEXIST to userspace as EBUSY
	_bt_kv=$(mpt_get kernel_release "$1" | awk -F. '{ print $1 * 1000 + $2 }')
	[ "${_bt_kv:-0}" -lt 7001 ] ||
		_bt_nodev=$((_bt_nodev + $(mpt_num initrd.errno_16 "$1") + $(mpt_num booted.errno_16 "$1")))
	# the kernel's own request_module runs modprobe, with modpreload or
	# without; its repeats (EEXIST, or a failing driver tried again) are
	# the kernel's; and a kernel of 6.5 or later hands a call for a file
	# already being loaded that load's result: when the call was modprobe's
	# or systemd's own module set-up (PID 1, modprobe@.service), outside
	# coldplug, it is counted in the details; no one else's may be there
	_bt_kern=$(($(mpt_num initrd.eexist_by.modprobe "$1") + $(mpt_num booted.eexist_by.modprobe "$1") +
		$(mpt_num boot.modprobe_repeats "$1") + $(bt_merged_outside "$1")))
	eq "module loaded twice, other than by the kernel's modprobe" "$(mpt_get boot.dup_other "$1")" ""
	# the failed calls, module:errno:caller, in either place (the kernel's
	# names of them): for the messages
	_bt_fc="failed calls: $(mpt_get initrd.failed_calls "$1") | $(mpt_get booted.failed_calls "$1")"
	eq "load calls == modules loaded (the kernel's and systemd's repeats, counted apart: $_bt_kern; $_bt_fc)" \
		"$((_bt_calls - _bt_kern))" "$(($(mpt_num boot.modules "$1")))"
	eq "calls that failed other than no-device ($_bt_fc)" "$((_bt_calls - _bt_ok - _bt_nodev))" 0
	for _bt_m in $(mpt_get udev_loaded "$1" | tr ',' ' '); do
		bt_in "$(mpt_get handled "$1")" "$_bt_m" && fail "udev's worker loaded $_bt_m, which modpreload handled"
	done
	eq "udev workers' calls that loaded nothing, but for those merged with systemd's ($_bt_fc)" \
		"$(($(mpt_num booted.udev_calls "$1") - $(mpt_num booted.udev_loads "$1") - $(bt_udev_merged_outside "$1")))" 0
	eq "initramfs report" "$(mpt_get report_initrd "$1")" present
	eq "booted system's report" "$(mpt_get report_booted "$1")" present
	eq "report kept in /var/lib/modpreload" "$(mpt_get report_kept "$1")" present
	eq "initramfs report kept" "$(mpt_get report_kept_initrd "$1")" present
	[ "$_bt_nodev" -eq 0 ] || [ -n "$(mpt_get nodev_blacklist "$1")" ] ||
		fail "$_bt_nodev no-device loads but no blacklist in /run/modprobe.d"
	[ "$(mpt_num booted.by.modpreload "$1")" -gt 0 ] || fail "modpreload made no call after switch-root"
	# the root's file system (root=/dev/vda, ext4; --root-fs): planned by
	# the initramfs's run from the superblock, loaded there once, by it, or
	# by the kernel's modprobe when the mount came before its turn (after
	# the hand-over); bench/phases.sh says whose it was, boot by boot
	# the hand-over leaves devices that appear after it to udev (sched.c):
	# a disk added after it, or within the second before it that the disk's
	# partition scan takes between its capacity line and its uevent, may
	# leave the type unknown to the run; the mount's modprobe loads it then
	_bt_rd=$(mpt_get rootdisk_at "$1") _bt_ho=$(mpt_get handover_kmsg_at "$1")
	if [ "$(mpt_get rootfs_requests_initrd "$1")" = 0 ] && [ -n "$_bt_rd" ] && [ -n "$_bt_ho" ] &&
		[ -n "$(mpt_get handover_initrd "$1")" ] && awk -v d="$_bt_rd" -v h="$_bt_ho" 'BEGIN { exit !(d + 1 > h) }'; then
		: "root=/dev/vda came at ${_bt_rd} s, the hand-over at ${_bt_ho} s: its file system is the mount's"
	else
		eq "the initramfs run's rootfs requests (vda's superblock; vda at ${_bt_rd:-?} s, hand-over at ${_bt_ho:-?} s)" \
			"$(mpt_get rootfs_requests_initrd "$1")" 1
	fi
	case $(grep -a '^MPT: ilmod=ext4 ' "$1" | awk '{ print $NF }' | paste -sd, -) in
	modpreload | modprobe) ;;
	*) fail "ext4 not loaded once in the initramfs: by '$(grep -a '^MPT: ilmod=ext4 ' "$1" |
		awk '{ print $NF }' | paste -sd, -)'" ;;
	esac
	# modules-load.d's mpt_params, which only its name asks for: the booted
	# run leaves it to systemd-modules-load (--leave-single), which loads
	# it, as without modpreload (the kernel's trace says whose the load was)
	case $(mpt_get loaded_by.mpt_params "$1") in
	systemd_modules) ;;
	*) fail "modules-load.d's module loaded by '$(mpt_get loaded_by.mpt_params "$1")', not systemd-modules-load once" ;;
	esac
}

# Without (both off switches): the storm, measured the same way, and more
# calls than with it; neither half of modpreload ran.
bt_check_without() {
	bt_check_common "$1"
	eq "initramfs report" "$(mpt_get report_initrd "$1")" absent
	eq "booted system's report" "$(mpt_get report_booted "$1")" absent
	eq "no-device blacklist" "$(mpt_get nodev_blacklist "$1")" ""
	eq "modpreload's calls" "$(mpt_num booted.by.modpreload "$1")" 0
	# nothing of it started, the names' waiter included (pulled in by the
	# coldplug unit even when that one's condition is false)
	eq "modpreload-names.service's start, end" "$(mpt_get unit.modpreload-names "$1")" "0 0"
	_bt_w=$(($(mpt_num initrd.calls "$1") + $(mpt_num booted.calls "$1")))
	_bt_m=$(($(mpt_num initrd.calls "$2") + $(mpt_num booted.calls "$2")))
	[ "$_bt_w" -gt "$_bt_m" ] || fail "without modpreload $_bt_w load calls, with it $_bt_m: no storm to see"
	[ "$(mpt_num booted.udev_calls "$1")" -gt 0 ] || fail "udev's workers made no load call after switch-root"
}

bt_figures() {
	echo "$(mpt_num initrd.calls "$1") $(mpt_num initrd.loads "$1") $(mpt_num booted.calls "$1") $(mpt_num booted.loads "$1") $(($(mpt_num booted.calls "$1") - $(mpt_num booted.ok "$1"))) $(mpt_num booted.udev_calls "$1")"
}
