# shellcheck shell=sh
# Guest script of harness/lib/smoke.sh (runs in the image with lib.sh sourced):
# kmod's own modprobe loads a chain and a diamond of test modules, and ext4
# with its dependencies (the kernel's own compressed modules) when the image
# has it; report what happened.
$MPT_KMOD_MODPROBE mpt_chain9
mpt_kv rc_chain9 $?
$MPT_KMOD_MODPROBE mpt_dia_top
mpt_kv rc_dia_top $?
if grep -q '/ext4\.ko' "/lib/modules/$(uname -r)/modules.dep"; then
	$MPT_KMOD_MODPROBE ext4
	mpt_kv rc_ext4 $?
	mpt_loaded ext4
fi
mpt_loaded mpt_chain0 mpt_chain1 mpt_chain2 mpt_chain3 mpt_chain4 \
	mpt_chain5 mpt_chain6 mpt_chain7 mpt_chain8 mpt_chain9 \
	mpt_dia_base mpt_dia_left mpt_dia_right mpt_dia_top
mpt_proc_count
mpt_proc_count mpt_
mpt_initstate mpt_chain9 mpt_dia_top
mpt_compression
mpt_modstats
if [ -r /sys/kernel/debug/modules/stats ]; then
	# The file as it reads, first lines.
	dd if=/sys/kernel/debug/modules/stats bs=1M count=1 2>/dev/null |
		head -n 4 | sed 's/^/MPT: modstats_raw=/'
fi
