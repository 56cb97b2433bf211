#!/bin/sh
# The booted-* VM cases' report (mpt-report.service on the Debian root,
# ordered after multi-user.target): once udev's queue is empty, what the
# kernel's tracepoints saw, split at the marker the initramfs wrote last
# (guest/booted-marker.sh), as "MPT: key=value" lines on ttyS0; then off.
#   systemd_version=N                         the root's systemd
#   kmod_version=N, kernel_release=R          the root's kmod, uname -r
#   unit.U=START ACTIVE                       U.service's start and active times
#                                            (systemd's monotonic clock, us)
#   unit_times=ID START ACTIVE                every service, socket, mount and
#                                            target that ran, seconds of uptime
#   root_init=1, system_state, ncpus, uptime_multi_user   the boot got there
#                                            (and a trace marker, mpt_multi_user,
#                                            written first thing)
#   ho.*                                      with mpt.handover=NAME on the
#                                            kernel command line: once NAME is
#                                            final and no modpreload is left,
#                                            what happened to it (harness/lib/
#                                            lib.sh's mpt_handover, marker
#                                            mpt_multi_user), and ho.udev:
#                                            udevd's journal lines on the
#                                            slow device and its module
#   uptime_switch_root, uptime_settled       the trace's clock at the initramfs's
#                                            last hook; uptime once udev's queue
#                                            was empty
#   initrd.calls, .ok, .errno_N, .loads       finit_module in the initramfs:
#                                            calls, successes, failures by
#                                            errno, module_load events;
#                                            init_module calls count too
#   initrd.init_module, booted.init_module    (how many of the calls were
#                                            init_module: on trixie the
#                                            initramfs's udev is the host's
#                                            kmod 30, which decompresses
#                                            .ko.xz itself; on bookworm none)
#   booted.calls, .ok, .errno_N, .loads       the same after switch-root
#   booted.by.COMM                            calls per calling program
#   initrd.eexist_by.COMM, booted.eexist_by.COMM  EEXIST calls per program
#   initrd.merged_by.COMM, booted.merged_by.COMM  calls that succeeded with
#                                            no module_load of their own (a
#                                            kernel of 6.5 or later merged
#                                            them with a load in flight)
#   initrd.merged_outside_by.COMM, booted...  of those, a caller's other than
#                                            modprobe's or systemd's while a
#                                            call of theirs was in flight
#   outside_callers=a,b                       the callers outside coldplug
#                                            (modprobe, systemd, systemd_modules)
#   boot.outside_loaded=a,b                   modules first loaded by modprobe
#                                            or systemd: PID 1, systemd-modules-
#                                            load (outside coldplug)
#   booted.udev_calls, booted.udev_loads      calls by udev's workers, and
#                                            the module_load events they made
#   udev_loaded=a,b                           modules udev's workers loaded
#   initrd.failed_read, .failed_image,       the calls that failed: bytes of
#   .failed_decompressed (booted. too)       file the kernel had read, bytes
#                                            of image load_module had checked,
#                                            and how many it had decompressed
#                                            (0 without the kprobes)
#   exec.modpreload=T,...                     when each modpreload program was
#                                            exec'd (trace clock, s; empty
#                                            unless the boot traced
#                                            sched:sched_process_exec)
#   initrd.udev_forks, booted.udev_forks      udev workers forked by udevd (0
#                                            unless the boot traced
#                                            sched:sched_process_fork)
#   boot.modules, boot.load_dups              distinct modules loaded over the
#                                            whole boot, and repeats of one
#   boot.dup_names=a,b                        the repeated ones
#   boot.dup_other=a,b, boot.modprobe_repeats the ones repeated by anything
#                                            but modprobe; loads by modprobe
#                                            of a module already loaded once
#   boot.dup_by=a:initrd/COMM+booted/COMM,... who loaded each repeated one,
#                                            in order (on trixie the kernel's
#                                            own request_module, modprobe,
#                                            asks on both sides of switch-root)
#   marker=1                                  the split was found
#   rootfs_requests_initrd=N                  the initramfs run's rootfs requests
#   rootdisk_at, handover_kmsg_at             uptime (s) of vda's capacity line and
#                                            of the first "handing over" line
#   loaded_by.mpt_params=COMM,...             who loaded the modules the root's
#   loaded_by.mpt_sleep=COMM,...              /etc/modules-load.d lists
#   boot.loads_blacklisted                    module_load events of the name it
#                                            lists that modprobe.d blacklists
#                                            (mpt_dia_top; absent: none)
#   handled=a,b                               modules modpreload's reports say
#                                            it loaded or failed, or found live
#                                            while that run held them from udev
#   nodev_blacklist=a,b                       /run/modprobe.d/modpreload-nodev.conf
#   report_initrd, report_booted, report_kept present|absent
#   lookups_kept                              present|absent: /var/lib/modpreload/lookups
#   booted_lookups "KNOWN LIBKMOD INDEXES"    the booted run's lookups from the last
#                                            boot's file, by libkmod; indexes not walked
#   handover_initrd, handover_booted          "AT_MS HELD,... JOINED,... LATE,... EARLY,..." from each
#                                            report ("-": none; empty: that run
#                                            did not hand over)
#   late=UNIT START ACTIVE                    the 12 units that became active
#                                            last (uptime, s)
#   lmod=NAME START END COMM                  each load after switch-root: when
#                                            its call began and ended (uptime,
#                                            s) and whose it was
#   ilmod=NAME START END COMM                 the same, in the initramfs
#   loader_died_booted=SIGNAL                 the booted report's loader_died
#                                            ("-": null; its unit's main
#                                            process wrote it, the loader dead)
#   bmod=NAME START END STATE                 each module of the booted run's
#                                            report, ms after that run began
#   kmsg LINE                                 modpreload's kernel-log lines
#   irl SECONDS WHAT                          the initramfs's systemd, to the
#                                            switch: units started, finished,
#                                            targets reached
#   brl SECONDS WHAT                          the booted system's, from the switch
#                                            to multi-user.target, "Starting" too
#   chain LINE                                systemd-analyze critical-chain
#                                            multi-user.target
#   stall LINE                                each soft lockup or RCU stall the
#                                            kernel logged, and 30 lines after
#   udevd LINE                                with udev.log_level=debug: udevd's
#                                            lines on reloads and its workers
#   failed_units=a,b                          systemctl --failed
#   sml=RESULT: LINE|LINE                     systemd-modules-load.service's
#                                            result and last journal lines
#   soft_lockups                              "soft lockup" lines in the log
#   proc_count                                /proc/modules
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
exec >/dev/ttyS0 2>&1
kv() { echo "MPT: $1=$2"; }
T=/sys/kernel/tracing
[ -r $T/trace ] || mount -t tracefs tracefs $T
echo mpt_multi_user >$T/trace_marker
# shellcheck source=harness/lib/lib.sh
. /mpt/lib.sh

kv root_init 1
kv uptime_multi_user "$(cut -d' ' -f1 /proc/uptime)"
mpt_handover mpt_multi_user written
# the hand-over cases: what udevd said about the slow device and its module
# (its skips of a held one only with udev.log_level=debug)
if grep -q 'mpt\.handover=' /proc/cmdline; then
	_dev=$(grep -il v00001B36d00000005 /sys/bus/pci/devices/*/modalias | sed -n 's|.*/\([^/]*\)/modalias$|\1|p;q')
	journalctl -b -o short-monotonic --no-pager -u systemd-udevd.service 2>/dev/null |
		grep -i -e slowpci -e v00001B36d00000005 ${_dev:+-e "$_dev"} | tail -n 60 | sed 's/^/MPT: ho.udev /'
fi
# everything udev was asked is done: its workers' loads are in the trace
udevadm settle --timeout=1800
# with udev.log_level=debug (by hand, BT_APPEND): when udevd reloaded its
# configuration (a file in /run/modprobe.d came or went) and let its
# workers go
if grep -q 'udev\.log_level=debug' /proc/cmdline; then
	journalctl -b -o short-monotonic --no-pager -u systemd-udevd.service 2>/dev/null |
		grep -i -e 'reload' -e 'kill' -e 'modprobe.d' -e 'configuration' | cut -c1-160 | head -n 60 |
		sed 's/^/MPT: udevd /'
fi
kv uptime_settled "$(cut -d' ' -f1 /proc/uptime)"
# when the booted unit let the boot go on, and udev's units (systemd's
# monotonic clock, microseconds: start, active)
for u in modpreload-coldplug modpreload-names systemd-modules-load systemd-udevd systemd-udev-trigger; do
	kv "unit.$u" "$(systemctl show -p ExecMainStartTimestampMonotonic -p ActiveEnterTimestampMonotonic --value "$u.service" 2>/dev/null | paste -sd' ' -)"
done
# what multi-user.target waited for (critical-chain says nothing while the
# boot is still starting, as it is here): the 12 units that became active
# last, "ID START ACTIVE" in seconds of uptime
systemctl show -p Id -p InactiveExitTimestampMonotonic -p ActiveEnterTimestampMonotonic '*' 2>/dev/null |
	awk -v RS= -F'\n' '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (v["ActiveEnterTimestampMonotonic"] + 0 > 0)
			printf "%.3f %.3f %s\n", v["ActiveEnterTimestampMonotonic"] / 1e6, v["InactiveExitTimestampMonotonic"] / 1e6, v["Id"] }' |
	sort -n >/tmp/mpt-units
tail -n 12 /tmp/mpt-units | while read -r a b id; do kv late "$id $b $a"; done
# and every service, socket, mount and target of the booted system that
# ran, in the order each became active, "ID START ACTIVE": its path to
# udev's trigger and to multi-user.target, for the bench's kept reports
awk '$2 > 0 && $3 ~ /\.(service|socket|mount|target)$/' /tmp/mpt-units |
	while read -r a b id; do kv unit_times "$id $b $a"; done
# the initramfs's systemd, to the switch: each unit it started or finished
# and each target it reached, "SECONDS WHAT" (where the time between the
# initramfs's loads and the switch went)
journalctl -b -o short-monotonic --no-pager _PID=1 2>/dev/null | sed -n '1,/Switching root/p' |
	grep -E 'Finished|Started|Reached target|Switching root' |
	sed -n 's/^\[ *\([0-9.]*\)\] [^ ]* [^:]*: \(.*\)$/MPT: irl \1 \2/p' | cut -c1-140 | head -n 80
# the booted system's, after the switch, to multi-user.target: the same,
# with "Starting" too (a gap in PID 1's lines is PID 1 held up: READY=1 of
# a notify unit is seen only when it reads its notify socket)
journalctl -b -o short-monotonic --no-pager _PID=1 2>/dev/null | sed -n '/Switching root/,/Reached target multi-user/p' |
	grep -E 'Starting|Finished|Started|Reached target' |
	sed -n 's/^\[ *\([0-9.]*\)\] [^ ]* [^:]*: \(.*\)$/MPT: brl \1 \2/p' | cut -c1-120 | head -n 300
kv system_state "$(systemctl is-system-running 2>/dev/null)"
kv failed_units "$(systemctl list-units --failed --plain --no-legend 2>/dev/null | awk '{ printf "%s%s", n++ ? "," : "", $1 }')"
# systemd-modules-load's result and its last journal lines (PID 1's about
# the unit too: a stop on its bound says so), for the check's messages
kv sml "$(systemctl show -p Result --value systemd-modules-load.service 2>/dev/null): $(journalctl -b -o cat \
	--no-pager -u systemd-modules-load.service 2>/dev/null | tail -n 6 | cut -c1-100 | paste -sd'|' -)"
kv ncpus "$(grep -c '^processor' /proc/cpuinfo)"
kv systemd_version "$(systemctl --version 2>/dev/null | sed -n '1s/^systemd \([0-9]*\).*/\1/p')"
kv kmod_version "$(kmod --version 2>/dev/null | sed -n 's/^kmod version \([0-9.]*\).*/\1/p')"
kv kernel_release "$(uname -r)"
kv proc_count "$(wc -l </proc/modules)"
kv soft_lockups "$(dmesg | grep -c 'soft lockup')"

present() { if [ -s "$1" ]; then echo present; else echo absent; fi; }
# the reports are kept once the runs that handed over are done: nothing in
# the boot waits for that, this does (a start joins a run in progress)
timeout 1800 systemctl start modpreload-save-report.service
# the initramfs's report: dracut's hook writes the first, initramfs-tools'
# boot script the second
initrd_report=/run/initramfs/modpreload.json
[ -e "$initrd_report" ] || initrd_report=/run/modpreload/report.json
kv report_initrd "$(present "$initrd_report")"
# the root's file system module as the initramfs's run planned it
# (--root-fs): its requests from rootfstype= or root='s superblock
# when root='s disk appeared (virtio_blk's capacity line, printed as the
# disk is added) and when the initramfs's run handed over (its first such
# kernel-log line; the booted run's come after switch-root), uptime in s:
# a disk that came after the hand-over is udev's, its file system the mount's
kv rootdisk_at "$(dmesg | sed -n 's/^\[ *\([0-9.]*\)\] virtio_blk .*\[vda\].*/\1/p' | head -n 1)"
kv handover_kmsg_at "$(dmesg | sed -n 's/^\[ *\([0-9.]*\)\] modpreload: handing over.*/\1/p' | head -n 1)"
kv rootfs_requests_initrd "$(awk '/^ *"rootfs": [0-9]/ { v = $2; gsub(/,/, "", v); print v; exit }' "$initrd_report" 2>/dev/null)"
kv report_booted "$(present /run/modpreload/booted.json)"
kv report_kept "$(present /var/lib/modpreload/last-report.json)"
kv report_kept_initrd "$(present /var/lib/modpreload/last-initramfs-report.json)"
# the booted run's lookups, for the next boot (modpreload --lookups), and
# this boot's: "KNOWN LIBKMOD INDEXES" (answered from the last boot's file,
# looked up by libkmod, indexes not walked again)
kv lookups_kept "$(present /var/lib/modpreload/lookups)"
kv booted_lookups "$(for k in lookups_known lookups_libkmod indexes_known; do
	grep -o "\"$k\": *[0-9]*" /run/modpreload/booted.json 2>/dev/null | grep -o '[0-9]*$' || echo -
done | paste -sd' ' -)"
# when each run handed over (ms after it started; empty: it did not), what
# it held, what it left to the kernel to join and what waited for udev's
# queue to empty ("-": none)
handover() { # REPORT: "AT_MS HELD,HELD JOINED,JOINED LATE,LATE EARLY,EARLY"
	awk '/^  "handover": \{/ { h = 1 } h && /"at_ms"/ { a = $2; gsub(/,/, "", a) }
		h && /"(held|joined|late|early)": \[\]/ { next }
		h && /"(held|joined|late|early)": \[/ { l = $1; gsub(/[":]/, "", l); next } l != "" && /\]/ { l = "" }
		l != "" { n = $1; gsub(/[",]/, "", n); v[l] = v[l] (v[l] == "" ? "" : ",") n }
		/^  \}/ { h = 0 }
		function dash(x) { return x == "" ? "-" : x }
		END { if (a != "") print a, dash(v["held"]), dash(v["joined"]), dash(v["late"]), dash(v["early"]) }' "$1" 2>/dev/null
}
kv handover_initrd "$(handover "$initrd_report")"
kv handover_booted "$(handover /run/modpreload/booted.json)"
kv loader_died_booted "$(awk '/^  "loader_died": null/ { print "-"; exit }
	/^  "loader_died": \{/ { d = 1 } d && /"signal"/ { s = $2; gsub(/,/, "", s); print s; exit }' \
	/run/modpreload/booted.json 2>/dev/null)"
# the booted run's modules: "NAME START_MS END_MS STATE" (ms after it
# started), and what it said in the kernel log: what held the hand-over
awk '/^      "name": "/ { n = $2; gsub(/[",]/, "", n) }
	/^      "state": "/ { s = $2; gsub(/[",]/, "", s) }
	/^      "start_ms": / { a = $2; gsub(/,/, "", a) }
	/^      "end_ms": / && n != "" { e = $2; gsub(/,/, "", e); print "MPT: bmod=" n, a, e, s; n = "" }' \
	/run/modpreload/booted.json 2>/dev/null
dmesg | grep 'modpreload' | tail -n 40 | sed 's/^/MPT: kmsg /'
# what multi-user.target waited for (systemd's own account), and what each
# stall the kernel reported was doing: the 30 lines after each report,
# its call trace among them
systemd-analyze critical-chain --no-pager multi-user.target 2>/dev/null | sed -n '3,40p' | sed 's/^/MPT: chain /'
# (RCU's three kinds: "detected stalls", "self-detected stall", "detected
# expedited stalls")
dmesg | awk '/soft lockup|detected (expedited )?stall/ { n = 30 } n > 0 { n--; print "MPT: stall " $0 }' | head -n 200
# the sampler's lines (mpt.sample; guest/sampler.c), stopped first
if [ -s /run/mpt-samples ]; then
	touch /run/mpt-sampler.stop
	sed 's/^/MPT: smp /' /run/mpt-samples
fi
kv nodev_blacklist "$(sed -n 's/^blacklist //p' /run/modprobe.d/modpreload-nodev.conf 2>/dev/null | paste -sd, -)"
# the modules modpreload dealt with, in either place: loaded or failed (a
# no-device driver is one that failed), or found live when that run held
# it from udev (its hand-over's "held" or "early"): a module udev had
# loaded before the run came to it, unheld, is udev's one load, not a
# second (one boot's sysfs walk took 15.9 s under TCG, and udev's worker
# loaded button meanwhile, which the booted run left to it)
handled() { # REPORT: its modules, one a line; the held lists from handover()
	held=$(handover "$1" | awk '{ print $2 "," $5 }')
	awk -v held="$held" 'BEGIN { n = split(held, l, ","); for (i = 1; i <= n; i++) h[l[i]] = 1 }
		/^      "name": "/ { m = $2; gsub(/[",]/, "", m) }
		/^      "state": "/ && m != "" {
			s = $2; gsub(/[",]/, "", s)
			if (s == "loaded" || s == "failed" || (s == "live" && (m in h))) print m
			m = ""
		}' "$1" 2>/dev/null
}
kv handled "$({ handled "$initrd_report"; handled /run/modpreload/booted.json; } | sort -u | paste -sd, -)"

# The callers outside coldplug, in awk's comm() spelling: modprobe,
# PID 1 and systemd-modules-load. The one list: the host reads it back from
# the report (harness/booted/host.sh's bt_merged_outside), scripts/lint-awk.sh
# from this line.
MPT_OUTSIDE_CALLERS=modprobe,systemd,systemd_modules
export MPT_OUTSIDE_CALLERS
kv outside_callers "$MPT_OUTSIDE_CALLERS"
awk '
	function field(k,    i) {
		for (i = NF; i > 0; i--) if (index($i, k "=") == 1) return substr($i, length(k) + 2) + 0
		return 0
	}
	function stamp(   i) { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) return substr($i, 1, length($i) - 1) }
	function comm(t) { sub(/-[0-9]+$/, "", t); gsub(/[^A-Za-z0-9_]/, "_", t); return tolower(t) }
	function outside(c) { return index("," ENVIRON["MPT_OUTSIDE_CALLERS"] ",", "," c ",") > 0 }
	function errno(s,    i, c, v) {
		if (s == "0x0") return 0
		v = 0
		for (i = 15; i <= 18; i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return 65536 - v
	}
	/^# entries-in-buffer/ { split($3, a, "/"); entries = a[1]; written = a[2]; next }
	/^#/ { next }
	/tracing_mark_write: mpt_switch_root/ {
		ph = "booted"; marker = 1
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sr = substr($i, 1, length($i) - 1); break }
		next
	}
	/ sys_f?init_module\(/ {
		p = ph == "" ? "initrd" : ph
		x[p ".calls"]++
		if ($0 ~ / sys_init_module\(/) x[p ".init_module"]++
		x[p ".by." comm($1)]++
		if (p == "booted" && $1 ~ /udev/) x["booted.udev_calls"]++
		inload[$1] = 1; made[$1] = 0; rd[$1] = 0; img[$1] = 0; nm[$1] = ""
		at[$1] = stamp()
		# beside a call by modprobe or systemd (outside coldplug)?
		if (outside(comm($1))) outfly++
		ov[$1] = outfly > 0; oe[$1] = outexits
		next
	}
	# with the kprobes of the boot (harness/booted/host.sh): mpt_read, a file the
	# kernel read and decompresses (len: its bytes); mpt_image, the image
	# load_module checks (len: decompressed, or as userspace gave it)
	/ mpt_read: \(/ { rd[$1] = field("len"); next }
	/ mpt_image: \(/ { img[$1] = field("len"); next }
	# mpt_name: a name the call looked for in the list of modules, the
	# last one before a refusal being the module the call was for
	/ mpt_name: \(/ {
		if (inload[$1] && match($0, / name="[^"]*"/)) nm[$1] = substr($0, RSTART + 7, RLENGTH - 8)
		next
	}
	/ sys_f?init_module -> / {
		p = ph == "" ? "initrd" : ph
		e = errno($NF)
		if (e == 0) x[p ".ok"]++; else x[p ".errno_" e]++
		# a duplicate refused: whose call it was (on trixie: modprobe, run by
		# the kernel for one module twice at once, with modpreload or without)
		if (e == 17) x[p ".eexist_by." comm($1)]++
		# success with no module_load of its own: 6.12 gave this call the
		# result of a load of the same file already in flight (two programs
		# asked at once)
		if (e == 0 && inload[$1] && !made[$1]) {
			x[p ".merged_by." comm($1)]++
			# and while a call by modprobe or systemd was in flight, the
			# load it was most likely merged with (modprobe@drm for
			# logind beside the coldplug of bochs by udev)
			if (!outside(comm($1)) && (ov[$1] || outexits > oe[$1]))
				x[p ".merged_outside_by." comm($1)]++
		}
		if (inload[$1] && outside(comm($1))) { outfly--; outexits++ }
		# what a failed call had read and decompressed before the answer
		if (e != 0) {
			# module:errno:caller, "?" where the kernel named none
			fc[p] = fc[p] (fc[p] == "" ? "" : ",") (nm[$1] == "" ? "?" : nm[$1]) ":" e ":" comm($1)
			x[p ".failed_read"] += rd[$1]; x[p ".failed_image"] += img[$1]
			if (rd[$1] > 0) x[p ".failed_decompressed"]++
		}
		# each load after switch-root: when its call began and ended, whose;
		# and each in the initramfs (ilmod: the modules of the root file system,
		# which the kernel asks for at the mount, among them)
		if (made[$1] != 0)
			printf "MPT: %s=%s %s %s %s\n", p == "booted" ? "lmod" : "ilmod", made[$1], at[$1], stamp(), comm($1)
		inload[$1] = 0; rd[$1] = 0; img[$1] = 0
		next
	}
	# a modpreload program started (with sched:sched_process_exec traced):
	# when, so that a late start of the booted unit shows beside its
	# ExecMainStartTimestamp (the fork)
	/ sched_process_exec: filename=[^ ]*modpreload / {
		ex = ex (ex == "" ? "" : ",") stamp()
		next
	}
	# a udev worker forked (with sched:sched_process_fork traced): udevd
	# forks each of its workers, which fork only the programs rules run
	/ sched_process_fork: comm=(systemd-)?udevd pid=/ {
		x[(ph == "" ? "initrd" : ph) ".udev_forks"]++
		next
	}
	/ module_load: / {
		p = ph == "" ? "initrd" : ph
		for (i = 1; i <= NF; i++) if ($i == "module_load:") break
		m = $(i + 1)
		x[p ".loads"]++
		made[$1] = m
		if (m == "mpt_params" || m == "mpt_sleep") lb[m] = lb[m] (lb[m] == "" ? "" : ",") comm($1)
		# the name modules-load.d lists and modprobe.d blacklists
		if (m == "mpt_dia_top") x["boot.loads_blacklisted"]++
		if (p == "booted" && $1 ~ /udev/) {
			x["booted.udev_loads"]++
			if (!(m in byudev)) ul = ul (ul == "" ? "" : ",") m
			byudev[m] = 1
		}
		if (!(m in lby) && (comm($1) == "modprobe" || comm($1) == "systemd" || comm($1) == "systemd_modules"))
			ol = ol (ol == "" ? "" : ",") m
		w = p "/" comm($1); if (m in lby) w = lby[m] "+" w
		lby[m] = w
		# a repeat by modprobe is the kernel asking (request_module runs
		# modprobe; the 6.12 of trixie asks for crypto-aes twice at once, with
		# modpreload or without): counted apart from all other repeats
		if (m in seen && comm($1) == "modprobe") x["boot.modprobe_repeats"]++
		else if (m in seen && !(m in dupo)) { do_ = do_ (do_ == "" ? "" : ",") m; dupo[m] = 1 }
		if (m in seen) { x["boot.load_dups"]++; if (!(m in dup)) dl = dl (dl == "" ? "" : ",") m; dup[m] = 1 }
		else x["boot.modules"]++
		seen[m] = 1
	}
	END {
		split("initrd.calls initrd.ok initrd.loads booted.calls booted.ok booted.loads " \
		      "booted.udev_calls booted.udev_loads boot.modules boot.load_dups " \
		      "initrd.udev_forks booted.udev_forks initrd.failed_read booted.failed_read " \
		      "initrd.failed_image booted.failed_image initrd.failed_decompressed " \
		      "booted.failed_decompressed", k, " ")
		# %.0f: the byte sums may pass 2^31, where %d wraps in busybox awk
		for (i = 1; i in k; i++) { printf "MPT: %s=%.0f\n", k[i], x[k[i]]; done[k[i]] = 1 }
		for (key in x) if (!(key in done)) printf "MPT: %s=%.0f\n", key, x[key]
		printf "MPT: udev_loaded=%s\nMPT: boot.dup_names=%s\nMPT: marker=%d\n", ul, dl, marker
		printf "MPT: boot.dup_other=%s\n", do_
		printf "MPT: initrd.failed_calls=%s\nMPT: booted.failed_calls=%s\n", fc["initrd"], fc["booted"]
		printf "MPT: boot.outside_loaded=%s\n", ol
		db = ""
		for (m in dup) db = db (db == "" ? "" : ",") m ":" lby[m]
		printf "MPT: boot.dup_by=%s\n", db
		printf "MPT: loaded_by.mpt_params=%s\nMPT: loaded_by.mpt_sleep=%s\n", lb["mpt_params"], lb["mpt_sleep"]
		printf "MPT: uptime_switch_root=%s\nMPT: exec.modpreload=%s\n", sr, ex
		printf "MPT: trace_entries=%s\nMPT: trace_written=%s\n", entries, written
	}' $T/trace
echo "MPT: done"
sync
echo o >/proc/sysrq-trigger
