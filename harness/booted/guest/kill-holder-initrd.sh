#!/bin/sh
# dracut pre-pivot hook of booted-initrd-holder-killed (sourced by dracut's
# hook runner, in the image of BT_SUITE=bookworm-slowinitrd alone):
# mpt.kill_holder_initrd=NAME on the kernel command line SIGKILLs the
# initramfs's holder of NAME, the pid its hold file names, just before the
# switch-root, as the OOM killer would. Says what it did in the kernel log.
# Shell alone: the image has no tr, and sed is not promised.
mpt_kh_name=
read -r mpt_kh_cmdline </proc/cmdline
for mpt_kh_w in $mpt_kh_cmdline; do
	case $mpt_kh_w in mpt.kill_holder_initrd=*) mpt_kh_name=${mpt_kh_w#*=} ;; esac
done
if [ -n "$mpt_kh_name" ]; then
	mpt_kh_f=/run/modprobe.d/modpreload-held-$mpt_kh_name.conf
	mpt_kh_pid=
	while read -r mpt_kh_a mpt_kh_b mpt_kh_c _; do
		# "# holder: pid=N start=TICKS boot=ID"
		[ "$mpt_kh_a $mpt_kh_b" = "# holder:" ] && mpt_kh_pid=${mpt_kh_c#pid=}
	done <"$mpt_kh_f" 2>/dev/null
	if [ -n "$mpt_kh_pid" ] && kill -9 "$mpt_kh_pid"; then
		echo "mpt: SIGKILL to the initramfs's modpreload holder of $mpt_kh_name, pid $mpt_kh_pid" >/dev/kmsg
	else
		echo "mpt: no initramfs modpreload holder of $mpt_kh_name to kill ($mpt_kh_f)" >/dev/kmsg
	fi
fi
