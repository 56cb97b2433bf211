#!/bin/sh
# /sbin/init of the root disk of harness/lib/debimage.sh, which the dracut-*,
# itools-* and pkg-deb-install VM cases boot into (busybox sh,
# exec'ed by dracut's switch-root, systemd's or the shell init's). It looks
# at what the kernel did while the initramfs ran, prints it as
# "MPT: key=value" lines (harness/lib/lib.sh) and powers off:
#   root_init=1, root_pid, root_uptime   the root was reached, and when
#   ho.*                                  with mpt.handover=NAME on the
#                                         kernel command line: a trace marker
#                                         (mpt_root), then, once NAME is final
#                                         and modpreload gone, what happened
#                                         to it (harness/lib/lib.sh's
#                                         mpt_handover); the rest waits for it
#   loaders_wait_s, loaders_left          how long the reports below waited
#                                         for the loaders to end (lib.sh)
#   ncpus                                 vCPUs the kernel brought up
#   held_left                             hold files left in /run/modprobe.d
#                                         once the loaders are gone
#   switch_found, switch_waited_s         with mpt.switch=late (itools'
#                                         run-init wrapper): 1 if a loader
#                                         ran when /init was about to switch,
#                                         and how long the switch waited for it
#   report=present|absent                 /run/initramfs/modpreload.json
#   report_bytes                          its size
#   report_run=present|absent             /run/modpreload/report.json (the
#                                         initramfs-tools boot script's)
#   finit_* init_* load_* trace_*         mpt_trace_counts
#   finit_by.COMM=N                       finit_module calls per calling
#                                         program (COMM made [a-z0-9_])
#   finit_max_inflight.COMM=N             most of its calls in the kernel at once
#   loaded_by.COMM=a,b,...                module_load events per program
#   finit_first_s, finit_last_s           uptime of the first finit_module call
#                                         and of the last one's return
#   init_by.COMM=N, init_last_s           init_module calls per calling
#                                         program, and the last one's return
#   report.elapsed_ms                     modpreload's own figure (info only,
#                                         from either report)
# and the report itself ("MPTJ: " lines: deb_check_analyze).
#   proc_count, proc_count.mpt_           /proc/modules
#   proc.NAME, initstate.NAME             for the modules the cases ask about
#   param.mpt_drv.probed ...              devices the second-level drivers bound
#   load.NAME                             module_load events of some modules
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# switch-root moved these; mount them if it did not
[ -e /proc/self ] || mount -t proc proc /proc
[ -d /sys/kernel ] || mount -t sysfs sysfs /sys
[ -e /dev/console ] || mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
# shellcheck source=/dev/null # harness/lib/lib.sh, copied onto the root
. /mpt/lib.sh

mpt_kv root_init 1
mpt_kv root_pid "$$"
mpt_kv root_uptime "$(mpt_uptime)"
mpt_handover mpt_root
# the reports are written when the loaders end: not before
mpt_wait_loaders 240
mpt_kv ncpus "$(grep -c '^processor' /proc/cpuinfo)"
mpt_count() { if [ -e "$1" ]; then echo $#; else echo 0; fi; }
# the holds and any holder's temporary file (.modpreload-held-new.*)
mpt_kv held_left "$(($(mpt_count /run/modprobe.d/modpreload-held-*) + $(mpt_count /run/modprobe.d/.modpreload-held-*)))"
mpt_sw=$(dmesg | sed -n 's/.*mpt: run-init found \([01]\) modpreload, waited \([0-9]*\) s for it.*/\1 \2/p' | sed -n 1p)
if [ -n "$mpt_sw" ]; then
	mpt_kv switch_found "${mpt_sw% *}"
	mpt_kv switch_waited_s "${mpt_sw#* }"
fi
report=/run/initramfs/modpreload.json
if [ -s "$report" ]; then
	mpt_kv report present
	mpt_kv report_bytes "$(wc -c <"$report")"
	mpt_kv report.elapsed_ms "$(sed -n 's/^  "elapsed_ms": \([0-9.]*\),*$/\1/p' "$report")"
else
	mpt_kv report absent
fi
if [ -s /run/modpreload/report.json ]; then
	mpt_kv report_run present
	[ -s "$report" ] || mpt_kv report.elapsed_ms \
		"$(sed -n 's/^  "elapsed_ms": \([0-9.]*\),*$/\1/p' /run/modpreload/report.json)"
else
	mpt_kv report_run absent
fi
# the report itself, one "MPTJ: " line each, for the host's analyzer
for f in "$report" /run/modpreload/report.json; do
	if [ -s "$f" ]; then
		sed 's/^/MPTJ: /' "$f"
		break
	fi
done

mpt_trace_counts
mpt_trace_callers
mpt_proc_count
mpt_proc_count mpt_
mpt_loaded mpt_spawn mpt_drv mpt_drv2 mpt_drvlib mpt_fail mpt_fail_child mpt_slowpci \
	mpt_hang mpt_hang_child mpt_chain0 mpt_chain9 virtio_blk ext4
mpt_initstate mpt_hang mpt_fail mpt_slowpci
mpt_param mpt_drv probed
mpt_param mpt_drv2 probed
mpt_param mpt_params value
mpt_trace_loads mpt_spawn mpt_drv mpt_drv2 mpt_fail mpt_fail_child mpt_hang mpt_hang_child mpt_params mpt_slowpci crc32c_intel \
	ghash_clmulni_intel aesni_intel virtio_blk
echo "MPT: done"
mpt_poweroff
