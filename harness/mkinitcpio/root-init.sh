#!/bin/sh
# /sbin/init of the root disk the mkinitcpio test images switch to (busybox
# sh, with harness/lib/lib.sh at /mpt/lib.sh).  Reports as "MPT: key=value":
#   root_reached, root_pid, root_uptime   the boot got here, as PID 1
#   ho.*                                  with mpt.handover=NAME on the kernel
#                                         command line: a trace marker
#                                         (mpt_root), then, once NAME is final
#                                         and modpreload gone, what happened
#                                         to it (lib.sh's mpt_handover)
#   loaders_wait_s, loaders_left          the wait for modpreload to end
#   report (present|absent), report.N     /run/modpreload/report.json counts
#   nodev_blacklist=a,b,                  /run/modprobe.d/modpreload-nodev.conf
#   json ..., kmsg ...                    with mkc.debug on the command line:
#                                         the report, modpreload's kmsg lines,
#                                         the trace's load events
#   proc.NAME, proc_count, proc_count.mpt_   /proc/modules
#   param.mpt_drv.probed ...              second-level devices bound
#   finit_* init_* load_*                 the load syscalls (mpt_trace_counts)
#   load.NAME                             module_load events per module
#   finit_by.C, loaded_by.C=a,b, ...      per calling program (lib.sh's
#                                         mpt_trace_callers: _udev_worker_)
# then powers off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# shellcheck source=harness/lib/lib.sh
. /mpt/lib.sh
mpt_kv root_reached 1
mpt_kv root_pid "$$"
mpt_kv root_uptime "$(mpt_uptime)"
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mpt_handover mpt_root
mpt_kv ncpus "$(grep -c '^processor' /proc/cpuinfo)"

# the loader that handed over writes its report and the no-device
# blacklist when its loads end, which may be after busybox's /init reached
# here: the report is read once no loader is left, as the other roots do
mpt_wait_loaders 240
report=/run/modpreload/report.json
if [ -f "$report" ]; then
	mpt_kv report present
	# the report's "counts" object: "loaded": N, ...
	sed -n '/"counts": {/,/}/s/^ *"\([a-z_]*\)": \([0-9]*\),*$/MPT: report.\1=\2/p' "$report"
	sed -n 's/^  "unique": \([0-9]*\),*$/MPT: report.unique=\1/p
		s/^  "elapsed_ms": \([0-9.]*\),*$/MPT: report.elapsed_ms=\1/p' "$report"
else
	mpt_kv report absent
fi

# switch_root moved /run here: the initramfs's no-device blacklist
mpt_kv nodev_blacklist "$(sed -n 's/^blacklist //p' /run/modprobe.d/modpreload-nodev.conf 2>/dev/null | tr '\n' ,)"

# mkc.debug on the kernel command line: the whole report and modpreload's
# kernel log lines too
case " $(cat /proc/cmdline) " in
*" mkc.debug "*)
	[ -f "$report" ] && sed 's/^/MPT: json /' "$report"
	dmesg | sed -n 's/^\[ *\([0-9.]*\)\] \(modpreload.*\)/MPT: kmsg \1 \2/p'
	grep -E 'module_load:|finit_module' /sys/kernel/tracing/trace | sed 's/^ */MPT: trace /'
	;;
esac

mpt_loaded virtio_pci virtio_blk ext4 aesni_intel sha256_ssse3 crc32c_intel \
	ghash_clmulni_intel mpt_spawn mpt_drv mpt_drv2 mpt_drvlib mpt_fail \
	mpt_fail_child mpt_params mpt_aliased mpt_dia_top mpt_dia_left mpt_dia_base
mpt_proc_count
mpt_proc_count mpt_
mpt_param mpt_drv probed
mpt_param mpt_drv2 probed
mpt_trace_counts
# shellcheck disable=SC2119 # no names: every module
mpt_trace_loads
mpt_trace_callers
echo "MPT: done"
mpt_poweroff
