# shellcheck shell=sh
# Faults the boot must survive, on a small guest (256 MiB). Each check is
# a modpreload run with the trace cleared before it, so its calls are its
# own. Two boots of one image (harness/core/cases/core-faults.sh):
#   module.sig_enforce=1   the unsigned mpt_* modules are refused
#                          (EKEYREJECTED), Debian's signed ones load
#   otherwise              an init() returning EBUSY, a module too large for
#                          RAM (ENOMEM), a read-only /run, and last, as it
#                          cannot be undone, modules_disabled=1 (EPERM)
# shellcheck source=/dev/null
. /mpt/core-lib.sh
R=/tmp/r.json

if [ "$(cat /sys/module/module/parameters/sig_enforce 2>/dev/null)" = Y ]; then
	mpt_kv sig_enforce 1
	core_trace_clear
	core_run sig -r $R virtio_blk mpt_chain2 mpt_params
	core_state $R mpt_chain0
	core_state $R mpt_chain1
	core_state $R mpt_chain2
	core_state $R mpt_params
	core_state $R virtio_blk
	mpt_loaded virtio_blk mpt_chain0 mpt_chain2 mpt_params
	core_calls | sed 's/call\./sig.call./'
	exit 0
fi

# init() returns EBUSY: one call, its dependent skipped, the rest loads.
# mpt_exist's init() returns EEXIST: nothing loaded, so not "live".
core_trace_clear
core_run busy -r $R mpt_busy_child mpt_chain3 mpt_exist
core_state $R mpt_busy
core_state $R mpt_busy_child
core_state $R mpt_exist
mpt_loaded mpt_busy mpt_busy_child mpt_chain3 mpt_exist
core_calls | sed 's/call\./busy.call./'

# 512 MiB of .bss in 256 MiB of RAM: the kernel's allocation fails before
# init() (no module_load event: the call has no name in the trace).
core_trace_clear
core_run nomem -r $R mpt_nomem_child mpt_dia_top
core_state $R mpt_nomem
core_state $R mpt_nomem_child
mpt_loaded mpt_nomem mpt_nomem_child mpt_dia_top
core_calls | sed 's/call\./nomem.call./'

# /run read-only, the report's directory not there yet (as /init's
# /run/modpreload): the loads happen, the report is not written, and the
# message says why.
mount -t tmpfs -o ro,size=1m tmpfs /run
mpt_kv rorun.mounted "$(grep -c ' /run tmpfs ro' /proc/mounts)"
core_trace_clear
core_run rorun -r /run/modpreload/report.json mpt_chain9 mpt_fan00
mpt_loaded mpt_chain9 mpt_fan00
mpt_kv rorun.report "$(find /run/modpreload -type f 2>/dev/null | wc -l)"
core_calls | sed 's/call\./rorun.call./'
umount /run

# modules_disabled=1 (no module can ever load again): every independent
# module is tried once and refused with EPERM, what needs one is skipped.
echo 1 >/proc/sys/kernel/modules_disabled
mpt_kv disabled.sysctl "$(cat /proc/sys/kernel/modules_disabled)"
core_trace_clear
core_run disabled -r $R mpt_fan10 mpt_params mpt_drv2
core_state $R mpt_fan10
core_state $R mpt_params
core_state $R mpt_drvlib
core_state $R mpt_drv2
mpt_loaded mpt_fan10 mpt_params mpt_drvlib mpt_drv2
core_calls | sed 's/call\./disabled.call./'
