#!/bin/sh
# dracut pre-pivot hook of booted-initrd-holder-killed (sourced by dracut's
# hook runner, in the image of BT_SUITE=bookworm-slowinitrd alone):
# mpt.kill_holder_initrd=NAME on the kernel command line SIGKILLs the
# initramfs's holder of NAME, the pid its hold file names, just before the
# switch-root, as the OOM killer would. Says what it did in the kernel log.
mpt_kh_name=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^mpt\.kill_holder_initrd=//p' | sed -n '$p')
if [ -n "$mpt_kh_name" ]; then
	mpt_kh_f=/run/modprobe.d/modpreload-held-$mpt_kh_name.conf
	mpt_kh_pid=$(sed -n 's/^# holder: pid=\([0-9]*\) .*/\1/p' "$mpt_kh_f" 2>/dev/null)
	if [ -n "$mpt_kh_pid" ] && kill -9 "$mpt_kh_pid"; then
		echo "mpt: SIGKILL to the initramfs's holder of $mpt_kh_name, pid $mpt_kh_pid" >/dev/kmsg
	else
		echo "mpt: no initramfs holder of $mpt_kh_name to kill ($mpt_kh_f)" >/dev/kmsg
	fi
fi
