#!/bin/sh
# mpt.kill_holder=NAME on the kernel command line (booted-handover-killed):
# once the booted run holds NAME from udev and its load of NAME is in the
# kernel (coming: the run starts what it holds only after the hand-over,
# once udev's coldplug began), SIGKILL the holder its hold file names, as
# the OOM killer or a unit's stop would. Run by
# mpt-kill-holder.service, after modpreload-coldplug.service is started
# (READY=1, the hand-over). Says what it did in the kernel log.
name=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^mpt\.kill_holder=//p' | sed -n '$p')
[ -n "$name" ] || exit 0
f=/run/modprobe.d/modpreload-held-$name.conf
i=0
while [ ! -s "$f" ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
i=0
while [ -s "$f" ] && [ ! -e "/sys/module/$name/initstate" ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
pid=$(sed -n 's/^# holder: pid=\([0-9]*\) .*/\1/p' "$f" 2>/dev/null)
if [ -n "$pid" ] && kill -9 "$pid"; then
	echo "mpt: SIGKILL to modpreload's holder of $name, pid $pid" >/dev/kmsg
else
	echo "mpt: no modpreload holder of $name to kill ($f)" >/dev/kmsg
fi
