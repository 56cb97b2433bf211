# shellcheck shell=sh
# /etc/profile of the init-rescue test image: /init starts busybox's sh as
# a login shell, which reads this first (the serial console's input is
# closed under run.sh, so this is how the test talks to the shell).
#   rd.break (the root mounted on /sysroot): report and exit: boot goes on.
#   a failed boot: report, print "MPT: done", and power off a moment later,
#   after the shell has printed its prompt.
# shellcheck source=harness/lib/lib.sh
. /mpt/lib.sh
mpt_kv shell_uptime "$(mpt_uptime)"
# the shell's parent is the session leader /init forks, whose parent is /init
mpt_kv shell_leader_ppid "$(awk '/^PPid:/ { print $2 }' "/proc/$PPID/status")"
mpt_kv shell_tty "$(readlink /proc/self/fd/0)"
if grep -q ' /sysroot ' /proc/mounts; then
	mpt_kv shell break
	mpt_kv shell_sysroot_init "$(test -x /sysroot/sbin/init && echo yes)"
	exit 0
fi
mpt_kv shell rescue
mpt_kv shell_devices "$(for d in /sys/class/block/*; do printf '%s ' "${d##*/}"; done)"
mpt_kv shell_report "$(test -f /run/modpreload/report.json && echo present)"
# /init's kernel log records, with their times
dmesg | sed -n 's/^\[ *\([0-9.]*\)\] init: /MPT: kmsg=\1 /p'
echo "MPT: done"
(sleep 1; mpt_poweroff) &
