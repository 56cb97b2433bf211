#!/bin/sh
# /sbin/init of the root file systems the init-* VM cases boot into (busybox
# sh, PID 1 after modpreload's /init switched root). Reports what it finds as
# "MPT: key=value" lines and powers off:
#   root_uptime      /proc/uptime when it started: kernel start to root init
#   root_pid         1 when /init exec'ed it as it should
#   root_dev, root_fstype, root_opts   the mount on /
#   mnt./dev ... mnt./run              1 when mounted (moved from the initramfs)
#   loaders_wait_s, loaders_left   how long the report waited for the
#                    loaders to end (lib.sh's mpt_wait_loaders)
#   report           present|absent: /run/modpreload/report.json
#   report.loaded ... report.hung      the report's counts
#   proc.NAME        modules in /proc/modules (harness/lib/lib.sh's mpt_loaded)
#   finit_* load_*   the finit_module trace (mpt_trace_counts)
#   load.NAME        its module_load events, for every module (mpt_trace_loads)
#   argv             the arguments init was given
#   ho.*             with mpt.handover=NAME on the kernel command line: a
#                    trace marker (mpt_root), then, once NAME is final and
#                    modpreload gone, what happened to it (lib.sh's
#                    mpt_handover); the rest waits for it
# and what /mpt/root-more.sh, when a case puts one in the root, prints.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# shellcheck source=harness/lib/lib.sh
. /mpt/lib.sh
mpt_kv root_uptime "$(mpt_uptime)"
mpt_kv root_pid "$$"
mpt_kv argv "$*"
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mpt_handover mpt_root
# the reports are written when the loaders end: not before
mpt_wait_loaders 240
awk '$2 == "/" { d = $1; t = $3; o = $4 }
     END { printf "MPT: root_dev=%s\nMPT: root_fstype=%s\nMPT: root_opts=%s\n", d, t, o }' /proc/mounts
for m in /dev /proc /sys /run; do
	if awk -v m="$m" '$2 == m { f = 1 } END { exit !f }' /proc/mounts; then
		mpt_kv "mnt.$m" 1
	else
		mpt_kv "mnt.$m" 0
	fi
done
report=/run/modpreload/report.json
if [ -f "$report" ]; then
	mpt_kv report present
	# the "counts" object of the report: "loaded": N, ...
	sed -n '/"counts": {/,/}/s/^ *"\([a-z]*\)": \([0-9]*\),*$/MPT: report.\1=\2/p' "$report"
	sed -n 's/^ *"coldplug": \([0-9]*\),*$/MPT: report.coldplug=\1/p' "$report"
else
	mpt_kv report absent
fi
mpt_loaded virtio_pci virtio_blk ext4 jbd2 mbcache crc16 xfs btrfs libcrc32c
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
# what a case adds (harness/init/guest/arm64-root.sh)
# shellcheck disable=SC1091 # the case's own, when it has one
if [ -f /mpt/root-more.sh ]; then . /mpt/root-more.sh; fi
mpt_trace_counts
# shellcheck disable=SC2119 # every module the trace saw
mpt_trace_loads
echo "MPT: done"
mpt_poweroff
