#!/bin/sh
# Coldplug: requests from a fake sysfs, devices that appear while
# loading, drivers that find no device (--nodev-blacklist).
# Cases of tests/unit/cli.sh (t_NAME reports as cli/NAME), sourced by it
# after cli/lib.sh: setup, run, check and the other helpers are there.
# shellcheck disable=SC2034,SC2154 # RULES, OTHER: read by run; t, rc, bin...: set by cli.sh, lib.sh

# Coldplug of a fake sysfs: 16 "CPUs" with the same modalias, devices in a
# modalias file-less uevent: one load per module.
t_coldplug() {
	setup 'cpumod alias=cpu:type:x86,ven*fam*mod*:feature:*0001*\nplat alias=platform:thing\n'
	i=0
	while [ $i -lt 16 ]; do
		mkdir -p "$t/sys/devices/system/cpu/cpu$i"
		printf 'DRIVER=processor\nMODALIAS=cpu:type:x86,ven0000fam0006mod003F:feature:,0000,0001,0002\n' \
			>"$t/sys/devices/system/cpu/cpu$i/uevent"
		i=$((i + 1))
	done
	mkdir -p "$t/sys/devices/platform/thing.0" "$t/sys/devices/platform/other"
	echo 'MODALIAS=platform:thing' >"$t/sys/devices/platform/thing.0/uevent"
	echo 'MODALIAS=platform:nobody' >"$t/sys/devices/platform/other/uevent"
	ln -s ../../devices "$t/sys/devices/platform/loop"
	run --coldplug --settle-ms 50
	check "exit 0" eq "$rc" 0
	check "2 calls" eq "$(calls)" 2
	check "coldplug requests" eq "$(jq .requests.by_source.coldplug "$t/r.json")" 18
	check "unmatched" eq "$(jq .requests.unmatched "$t/r.json")" 1
	check "collapsed" eq "$(jq .duplicates_collapsed "$t/r.json")" 15
}

# A driver coldplug matched whose init() finds no device (ENODEV) is
# reported but not a failure; the same module asked for by name is. A DMI
# modalias (slashes in its date) is looked up, not refused.
t_no_device() {
	setup 'nodev alias=platform:nodev\nkid nodev alias=platform:kid\nok alias=dmi:*svnQEMU*\n'
	mkdir -p "$t/sys/devices/platform/x" "$t/sys/devices/platform/y" "$t/sys/devices/virtual/dmi/id"
	echo 'MODALIAS=platform:nodev' >"$t/sys/devices/platform/x/uevent"
	echo 'MODALIAS=platform:kid' >"$t/sys/devices/platform/y/uevent"
	echo 'MODALIAS=dmi:bvnSeaBIOS:bd04/01/2014:svnQEMU:pnStandardPC(i440FX+PIIX,1996):' \
		>"$t/sys/devices/virtual/dmi/id/uevent"
	RULES=nodev:19:0
	run --coldplug --settle-ms 20
	check "exit 0" eq "$rc" 0
	check "ok loaded through the DMI alias" eq "$(starts ok)" 1
	check "nodev failed" eq "$(state nodev)" failed
	check "no_device" eq "$(jq '.modules[] | select(.name=="nodev") | .no_device' "$t/r.json")" true
	check "kid skipped, no_device" eq "$(jq -r '.modules[] | select(.name=="kid") | "\(.state) \(.no_device)"' "$t/r.json")" "skipped true"
	check "nothing refused" eq "$(jq .requests.refused "$t/r.json")" 0
	run --coldplug --settle-ms 20 nodev
	check "asked by name: exit 1" eq "$rc" 1
	# 7.1 and later hand an init()'s EEXIST to userspace as EBUSY: news
	# there, a failure before (where EBUSY is the init()'s own answer)
	RULES=nodev:16:0
	for v in 7.1.0 7.0.9; do cp -a "$t/root/lib/modules/1.0" "$t/root/lib/modules/$v"; done
	run --coldplug --settle-ms 20 -S 7.1.0
	check "7.1, EBUSY: exit 0" eq "$rc" 0
	check "7.1, EBUSY: no_device" eq "$(jq -r '.modules[] | select(.name=="nodev") | "\(.state) \(.error) \(.no_device)"' "$t/r.json")" "failed EBUSY true"
	run --coldplug --settle-ms 20 -S 7.0.9
	check "7.0, EBUSY: exit 1" eq "$rc" 1
	check "7.0, EBUSY: a failure" eq "$(jq '.modules[] | select(.name=="nodev") | .no_device' "$t/r.json")" false
	RULES=nodev:19:0
	# skipped for a dependency that hung, not for one that found no device:
	# a problem, not news (and never on the no-device blacklist)
	setup 'slow\nhkid slow alias=cpu:type:x86,ven*fam*mod*:feature:*0001*\n'
	mkdir -p "$t/sys/devices/system/cpu/cpu0"
	echo 'MODALIAS=cpu:type:x86,ven0000fam0006mod003F:feature:,0000,0001' \
		>"$t/sys/devices/system/cpu/cpu0/uevent"
	RULES=slow:0:30000
	run --coldplug --settle-ms 20 -t 1 --nodev-blacklist "$t/bl.conf"
	check "hung dependency: exit 1" eq "$rc" 1
	check "hung dependency: skipped, not no_device" eq \
		"$(jq -r '.modules[] | select(.name=="hkid") | "\(.state) \(.no_device)"' "$t/r.json")" "skipped false"
	check "hung dependency: not blacklisted" test ! -e "$t/bl.conf"
}

# --nodev-blacklist: a driver only CPUs asked for whose init() said ENODEV
# is blacklisted (appended, so an earlier run's lines stay); one a platform
# device asked for too, one that failed otherwise, and a name given on the
# command line are not. The next run leaves the blacklisted one alone but
# still loads it by name; modpreload.nodev=0 writes nothing.
t_nodev() {
	setup 'cpunodev alias=cpu:type:x86,ven*fam*mod*:feature:*0001*\nshared alias=cpu:type:x86,ven*fam*mod*:feature:*0002*\ncpubusy alias=cpu:type:x86,ven*fam*mod*:feature:*0001*\ncpulate alias=cpu:type:x86,ven*fam*mod*:feature:*0001*\ncpuexist alias=cpu:type:x86,ven*fam*mod*:feature:*0001*\nedacdep\nedac edacdep alias=cpu:type:x86,ven*fam*mod*:feature:*0002*\nfreq alias=acpi*:LNXCPU:*\n'
	# "shared" stands for a driver that a PCI device's alias matches too
	printf 'alias platform:shared shared\n' >"$t/root/etc/modprobe.d/alias.conf"
	cpus 4
	# the ACPI processor objects: acpi-cpufreq and pcc-cpufreq match them
	mkdir -p "$t/sys/devices/LNXSYSTM:00/LNXCPU:00"
	echo 'MODALIAS=acpi:LNXCPU:' >"$t/sys/devices/LNXSYSTM:00/LNXCPU:00/uevent"
	mkdir -p "$t/sys/devices/platform/s"
	echo 'MODALIAS=platform:shared' >"$t/sys/devices/platform/s/uevent"
	bl=$t/root/etc/modprobe.d/nodev.conf
	# cpuexist: an init() that says EEXIST (pcc_cpufreq while another
	# cpufreq driver is registered) has loaded nothing: not "live"
	RULES=cpunodev:19:0,shared:19:0,cpubusy:16:0,edacdep:19:0,freq:19:0,cpuexist:17:0
	run --coldplug --settle-ms 20 --nodev-blacklist "$bl"
	check "exit 1 (cpubusy)" eq "$rc" 1
	check "each tried once" eq "$(calls)" 7
	check "cpuexist failed" eq "$(state cpuexist)" failed
	check "cpuexist: EEXIST" eq "$(jq -r '.modules[] | select(.name=="cpuexist") | .error' "$t/r.json")" EEXIST
	check "edac skipped" eq "$(state edac)" skipped
	# edac, not edacdep: what the CPU asks for, whose dependency said ENODEV
	check "blacklisted" eq "$(grep '^blacklist' "$bl" | sort | tr '\n' ' ')" \
		"blacklist cpuexist blacklist cpunodev blacklist edac blacklist freq "
	check "how to undo it, said" grep -q '^# Delete this file' "$bl"
	check "logged" grep -q "4 drivers that found no device for any CPU blacklisted" "$t/err"
	# the next run (the booted system's after the initramfs's): cpunodev
	# is left alone, what it finds is appended
	: >"$t/log"
	rm -rf "$t/sys/module/cpulate"
	RULES=shared:19:0,cpubusy:16:0,cpulate:19:0,edacdep:19:0,freq:19:0
	run --coldplug --settle-ms 20 --nodev-blacklist "$bl"
	check "cpunodev not asked again" eq "$(starts cpunodev)" 0
	check "cpuexist not asked again" eq "$(starts cpuexist)" 0
	check "edacdep not asked again" eq "$(starts edacdep)" 0
	check "freq not asked again" eq "$(starts freq)" 0
	check "shared asked again" eq "$(starts shared)" 1
	check "appended" eq "$(grep -v '^#' "$bl" | tail -n 1)" "blacklist cpulate"
	check "one header" eq "$(grep -c '^# Delete this file' "$bl")" 1
	: >"$t/log"
	run cpunodev
	check "by name it is still tried" eq "$(starts cpunodev)" 1
	rm -f "$bl"
	echo 'modpreload.nodev=0' >"$t/cmdline"
	run --coldplug --settle-ms 20 --nodev-blacklist "$bl"
	check "modpreload.nodev=0: no file" test ! -e "$bl"
	check "modpreload.nodev=0 is not a module option" eq "$(grep -c modpreload "$t/log")" 0
}

# Devices that appear while loading (a bus driver's children) get their
# modules too, found by the final rescan when no uevent is heard (the
# shim's devices announce nothing), two levels deep, each module once.
t_second_level() {
	setup 'bus alias=cpu:type:x86,ven*fam*mod*:feature:*0001*\nleaf alias=platform:leaf\nleaflib\nleaf2 leaflib alias=platform:leaf2\n'
	i=0
	while [ $i -lt 8 ]; do
		mkdir -p "$t/sys/devices/system/cpu/cpu$i"
		echo 'MODALIAS=cpu:type:x86,ven0000fam0006mod003F:feature:,0000,0001' \
			>"$t/sys/devices/system/cpu/cpu$i/uevent"
		i=$((i + 1))
	done
	MP_SHIM_SPAWN='bus=platform/leaf.0=platform:leaf;bus=platform/leaf.1=platform:leaf;leaf=platform/leaf.0/sub=platform:leaf2'
	export MP_SHIM_SPAWN
	run --coldplug --settle-ms 50
	unset MP_SHIM_SPAWN
	check "exit 0" eq "$rc" 0
	check "4 calls" eq "$(calls)" 4
	for m in bus leaf leaflib leaf2; do check "$m once" eq "$(starts $m)" 1; done
	check "bus before leaf" before bus leaf
	check "leaf before leaf2" before leaf leaf2
	check "rescan requests" eq "$(jq .requests.by_source.uevent "$t/r.json")" 3
}

# --leave-single (the booted system): what one device alone asks for, with
# all it needs, is left to udev, which loads it once; what more than one
# request reaches (a dependency two drivers share and those drivers, a
# driver of two devices, a CPU's, a name) is ours; so is the handler of
# the one input (or HID) device there is yet: the drivers still to load add
# more, and each would ask for it again while it is coming.
t_leave_single() {
	setup 'base\nsolo base alias=platform:solo\nshared\nd1 shared alias=platform:d1\nd2 shared alias=platform:d2\nmulti alias=platform:multi\ncpumod alias=cpu:type:x86,ven*fam*mod*:feature:*0001*\nnamed\nevh alias=input:b*v*p*e*-e*k*\nhidgen alias=hid:b*g0001v*p*\n'
	for d in solo d1 d2 multi; do
		mkdir -p "$t/sys/devices/platform/$d.0"
		echo "MODALIAS=platform:$d" >"$t/sys/devices/platform/$d.0/uevent"
	done
	mkdir -p "$t/sys/devices/platform/i8042/serio0/input/input0" "$t/sys/devices/virtual/hid0"
	echo 'MODALIAS=input:b0011v0001p0001eAB41-e0,1,4,11,14,k71,72,' >"$t/sys/devices/platform/i8042/serio0/input/input0/uevent"
	echo 'MODALIAS=hid:b0003g0001v00000627p00000001' >"$t/sys/devices/virtual/hid0/uevent"
	mkdir -p "$t/sys/devices/platform/multi.1" "$t/sys/devices/system/cpu/cpu0"
	echo 'MODALIAS=platform:multi' >"$t/sys/devices/platform/multi.1/uevent"
	printf 'MODALIAS=cpu:type:x86,ven0000fam0006mod003F:feature:,0000,0001\n' \
		>"$t/sys/devices/system/cpu/cpu0/uevent"
	run --coldplug --settle-ms 50 --leave-single named
	check "exit 0" eq "$rc" 0
	check "solo and base not called" eq "$(starts solo)$(starts base)" 00
	check "solo left to udev" eq "$(jq -r '.modules[] | select(.name=="solo") | "\(.state) \(.left_to_udev)"' "$t/r.json")" "skipped true"
	check "base, what solo needs, too" eq "$(jq -r '.modules[] | select(.name=="base") | .left_to_udev' "$t/r.json")" true
	for m in shared d1 d2 multi cpumod named evh hidgen; do
		check "$m ours" eq "$(state "$m")" loaded
	done
	check "counts: 2 left to udev" eq "$(jq .counts.left_to_udev "$t/r.json")" 2
	check "summary: none skipped" grep -q " 0 skipped," "$t/err"
	check "summary names them" grep -Eq "2 left to udev, one device asking for each .*: (base, solo|solo, base)$" "$t/err"
	# without the option all are ours
	run --coldplug --settle-ms 50 named
	check "without: solo ours" eq "$(starts solo)" 1
	# nor with modpreload.leave_single=0 on the kernel command line
	rm -rf "$t/sys/module" && mkdir "$t/sys/module"
	: >"$t/log"
	echo 'quiet modpreload.leave_single=0' >"$t/cmdline"
	run --coldplug --settle-ms 50 --leave-single named
	check "leave_single=0: solo ours" eq "$(starts solo)" 1
	check "leave_single=0: none left" eq "$(jq .counts.left_to_udev "$t/r.json")" 0
}

# --leave-single and names: what only systemd-modules-load's names ask
# for (modules_load=; modules-load.d alike, the host's, not touched here),
# with all it needs, is left to it; it loads them one after the other. A
# name a device asks for too, or that shares a dependency with a device's
# driver, is ours; so are the names of our own lists (-c, as modpreload.d)
# and the caller's arguments, which systemd-modules-load does not read.
t_leave_names() {
	setup 'ldep\nlisted ldep\ncmdname\nboth alias=platform:both\nsdep\nsnamed sdep\nsdrv sdep alias=platform:sdrv\nd1 alias=platform:d1\narg\nours\n'
	for d in both sdrv d1 d1b; do
		mkdir -p "$t/sys/devices/platform/$d.0"
		echo "MODALIAS=platform:${d%b}" >"$t/sys/devices/platform/$d.0/uevent"
	done
	echo ours >"$t/list.conf"
	echo 'modules_load=listed,both modules-load=snamed,cmdname' >"$t/cmdline"
	run --coldplug --settle-ms 50 --leave-single --modules-load -c "$t/list.conf" arg
	check "exit 0" eq "$rc" 0
	for m in listed ldep cmdname; do
		check "$m left to systemd-modules-load" eq "$(jq -r --arg m "$m" '.modules[] | select(.name==$m) |
			"\(.state) \(.left_to_modules_load) \(.left_to_udev)"' "$t/r.json")" "skipped true null"
		check "$m not called" eq "$(starts "$m")" 0
	done
	for m in both snamed sdep sdrv d1 arg ours; do
		check "$m ours" eq "$(state "$m")" loaded
	done
	check "counts: 3 left to systemd-modules-load" eq "$(jq .counts.left_to_modules_load "$t/r.json")" 3
	check "counts: none left to udev" eq "$(jq .counts.left_to_udev "$t/r.json")" 0
	check "summary: none skipped" grep -q " 0 skipped," "$t/err"
	check "summary names them" grep -q "3 left to systemd-modules-load, only a name asking for each .*: " "$t/err"
	# without the option the names are ours
	fresh
	run --coldplug --settle-ms 50 --modules-load -c "$t/list.conf" arg
	check "without: listed ours" eq "$(starts listed)" 1
	check "without: cmdname ours" eq "$(starts cmdname)" 1
}

# --root-fs: the root's file system module from rootfstype= (each type the
# kernel will try), or from the superblock of the device root= names, a
# real image mkfs.ext3 made; counted as rootfs requests; not without the
# option, nor with rd.modpreload.rootfs=0. A root= device that is not
# there yet is looked for again, and without one nothing is asked.
fresh() { # each run as the first: nothing logged, nothing live
	: >"$t/log"
	rm -rf "$t/sys/module" && mkdir "$t/sys/module"
}
t_root_fs() {
	setup 'crc16\njbd2\next4 jbd2 crc16 alias=fs-ext4 alias=fs-ext3\nxfs alias=fs-xfs\n'
	echo 'root=/dev/mpt-nothing-here rootfstype=xfs,ext4' >"$t/cmdline"
	fresh
	run --root-fs
	check "rootfstype=: exit 0" eq "$rc" 0
	check "rootfstype=: xfs, ext4 and its two loaded, once each" eq \
		"$(starts xfs)$(starts ext4)$(starts jbd2)$(starts crc16)" 1111
	check "rootfstype=: 2 rootfs requests" eq "$(jq .requests.by_source.rootfs "$t/r.json")" 2
	fresh
	run
	check "no --root-fs: nothing loaded" eq "$(calls)" 0
	echo 'rootfstype=ext4 rd.modpreload.rootfs=0' >"$t/cmdline"
	fresh
	run --root-fs
	check "rd.modpreload.rootfs=0: nothing loaded" eq "$(calls)" 0
	echo 'root=/dev/mpt-nothing-here' >"$t/cmdline"
	fresh
	run --root-fs
	check "a root= not there: nothing loaded" eq "$(calls)" 0
	echo 'root=PARTUUID=0f1e2d3c-01' >"$t/cmdline"
	fresh
	run --root-fs
	check "root=PARTUUID=: left to the mount" eq "$(calls):$rc" 0:0
	# the image as root= names it: /dev/NAME, and LABEL= found under
	# sysfs's class/block (a name in /dev needs root, as a boot has)
	[ -w /dev ] || return 0
	dev=/dev/mpt-rootfs-$$
	if ! { truncate -s 16M "$t/img" && mkfs.ext3 -q -F -L mptroot "$t/img" >/dev/null 2>&1 &&
		ln -sf "$t/img" "$dev"; }; then
		check "mkfs.ext3" false
		return
	fi
	echo "root=$dev ro" >"$t/cmdline"
	fresh
	run --root-fs
	check "root=/dev/NAME: ext4 (fs-ext3) loaded" eq "$(starts ext4)$(starts xfs)" 10
	mkdir -p "$t/sys/class/block/fd0" "$t/sys/class/block/${dev#/dev/}"
	echo "root=LABEL=mptroot" >"$t/cmdline"
	fresh
	run --root-fs
	check "root=LABEL=: ext4 loaded" eq "$(starts ext4)$(starts xfs)" 10
	check "root=LABEL=: 1 rootfs request" eq "$(jq .requests.by_source.rootfs "$t/r.json")" 1
	echo "root=LABEL=other" >"$t/cmdline"
	fresh
	run --root-fs
	check "root=LABEL=other: nothing loaded" eq "$(calls)" 0
	rm -f "$dev"
}
