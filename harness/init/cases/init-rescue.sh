#!/bin/sh
# tier: full
# modpreload's /init when the boot cannot go on, on Debian's 6.1 kernel:
#   init-rescue-noroot   root=UUID= of no device: the console names what was
#                        looked for and what was found, within the 5 s bound
#                        (measured between /init's kernel log records), then
#                        busybox's shell starts and shows its prompt
#   init-rescue-noinit   init= missing on the root: message, then the shell
#   init-rescue-break    rd.break (and root=/dev/vda): a shell with the root
#                        on /sysroot; leaving it boots on to the root's init
#   init-rescue-noshell  no busybox in the image: a few bounded retries, then
#                        a halt that says so; never a kernel panic. With
#                        loglevel=1 the kernel echoes nothing: /init writes
#                        its messages to the console itself
# The test image's /etc/profile (harness/init/guest/init-profile.sh) is what
# "types" into the shell. About 50 s.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/init/host.sh
. "$top/harness/init/host.sh"
w=$top/build/vm/init/rescue
mkdir -p "$w"
uuid=$(cat /proc/sys/kernel/random/uuid)
missing=$(cat /proc/sys/kernel/random/uuid)

names="init-rescue-noroot init-rescue-noinit init-rescue-break init-rescue-noshell"
init_prepare
bb=$(command -v busybox) || fail_all "no busybox (busybox-static)"
init_rootdir "$w/rootdir" || fail_all "no busybox for the root"
init_mkfs ext4 "$w/rootdir" "$w/ext4.img" "$uuid" mpt-root >&2 || fail_all "mkfs.ext4 failed"
"$top/init/mkinitramfs" -q -o "$w/shell.img" -k "$KVER" -d "$KDIR" \
	-m virtio_pci,virtio_blk,ext4 --busybox "$bb" \
	--add "$top/harness/init/guest/init-profile.sh:/etc/profile" \
	--add "$top/harness/lib/lib.sh:/mpt/lib.sh" >&2 || fail_all "mkinitramfs failed"
"$top/init/mkinitramfs" -q -o "$w/noshell.img" -k "$KVER" -d "$KDIR" \
	-m virtio_pci,virtio_blk,ext4 >&2 || fail_all "mkinitramfs failed"

# has LOG TEXT: the serial log has the text (CRs dropped)
has() { tr -d '\r' <"$1" | grep -qF -- "$2"; }
# kmsg_time RESULT TEXT: the timestamp of /init's first kernel log record
# holding TEXT, as the shell's profile copied them out of dmesg
kmsg_time() {
	mpt_keys kmsg= "$1" | awk -v t="$2" 'index($0, t) { sub(/^kmsg=/, ""); print $1; exit }'
}

# --- no such root device ---
r=$w/noroot.res l=$w/noroot.log
init_run "$r" "$l" "$w/shell.img" "$w/ext4.img" "root=UUID=$missing" 60
has "$l" "*** cannot boot: root device UUID=$missing (UUID) not found within 5 s" ||
	fail "no 'cannot boot' message naming root=UUID=$missing"
has "$l" "tried: vda (ext4 UUID=$uuid LABEL=mpt-root)" ||
	fail "the message does not list the disk that was looked at"
has "$l" "hint: is its driver in the image?" || fail "no hint"
has "$l" "rescue shell: starting /bin/sh" || fail "no word of the shell"
has "$l" "(initramfs) / # " || fail "no shell prompt"
[ "$(mpt_get shell "$r")" = rescue ] || fail "the shell did not run its profile"
[ "$(mpt_get shell_leader_ppid "$r")" = 1 ] || fail "the shell is not PID 1's grandchild"
[ "$(mpt_get shell_report "$r")" = present ] || fail "no report in the rescue shell"
t0=$(kmsg_time "$r" "preloader finished")
t1=$(kmsg_time "$r" "*** cannot boot")
waited=$(awk -v a="${t0:-0}" -v b="${t1:-0}" 'BEGIN { printf "%.2f", b - a }')
if [ -z "$t0" ] || [ -z "$t1" ]; then
	fail "no /init records in dmesg"
elif ! awk -v s="$waited" -v hi="$((5 + $(mpt_scaled 3 "$r")))" 'BEGIN { exit !(s >= 4.9 && s <= hi) }'; then
	fail "waited $waited s for the root, bound 5 s (+ $(mpt_scaled 3 "$r") s of scanning on this host)"
fi
verdict init-rescue-noroot "gave up after ${waited} s, shell at $(mpt_get shell_uptime "$r") s"

# --- no init on the root ---
r=$w/noinit.res l=$w/noinit.log
init_run "$r" "$l" "$w/shell.img" "$w/ext4.img" "root=UUID=$uuid init=/sbin/nope" 60
has "$l" "*** cannot boot: init=/sbin/nope is not usable on the root file system" ||
	fail "no message naming init=/sbin/nope"
has "$l" "tried: /sbin/nope: No such file or directory" || fail "no 'tried' line"
[ "$(mpt_get shell "$r")" = rescue ] || fail "no rescue shell"
verdict init-rescue-noinit

# --- rd.break, then on to the root ---
r=$w/break.res l=$w/break.log
init_run "$r" "$l" "$w/shell.img" "$w/ext4.img" "root=/dev/vda rd.break" 60
[ "$(mpt_get shell "$r")" = break ] || fail "no shell at rd.break"
[ "$(mpt_get shell_sysroot_init "$r")" = yes ] || fail "the root was not on /sysroot"
init_check_root "$r" ext4
verdict init-rescue-break

# --- no shell in the image: bounded retries, a halt, no panic ---
# A halted machine never powers off: run.sh stops it once it says so.
r=$w/noshell.res l=$w/noshell.log
run_boot mpt_boot "$r" "$l" "$w/noshell.img" 2 "root=UUID=$missing rootwait=1 loglevel=1" -t 60 \
	--disk "$w/ext4.img" --until "the system is halted" || fail "expected 'the system is halted'"
has "$l" "*** cannot boot: root device UUID=$missing (UUID) not found within 1 s" ||
	fail "no 'cannot boot' message"
has "$l" "no shell in the image: trying again (3 of 3)" || fail "no retries"
has "$l" "*** giving up: no shell in the image" || fail "no 'giving up'"
has "$l" "the system is halted" || fail "no word of the halt"
if has "$l" "Kernel panic" || has "$l" "Attempted to kill init"; then
	fail "the kernel panicked"
fi
verdict init-rescue-noshell
exit 0
