#!/bin/sh
# Faults the boot must survive, on Debian's 6.1 in a 256 MiB guest: each
# ends with a line naming the module and the errno, only what needs the
# failed module is skipped, and the boot goes on. Asserts on what the
# kernel did (the load syscalls' return values, /proc/modules) and on the
# message. Two boots of one image (harness/core/guest/core-faults.sh):
#   sig       module.sig_enforce=1: unsigned mpt_* refused (EKEYREJECTED),
#             Debian's signed virtio_blk loads
#   faults    an init() returning EBUSY (mpt_busy) or EEXIST (mpt_exist),
#             a 512 MiB .bss
#             (mpt_nomem: ENOMEM), a read-only /run (no report, the loads
#             happen), modules_disabled=1 (EPERM)
# About 2 minutes.
#
# Usage: core-faults.sh [KERNEL]   (harness/lib/kernels.sh's name; default
# bookworm). core-faults-seven runs it on Linux 7.x, where the kernel
# hands an init()'s EEXIST to userspace as EBUSY (7.1 and later).
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/core/host.sh
. "$top/harness/core/host.sh"
kernel=${1:-bookworm}
name=core-faults
[ "$kernel" = bookworm ] || name=core-faults-$kernel
work=$top/build/vm/$name
mkdir -p "$work"

# the kernel's return values as the trace prints them
EPERM=0xffffffffffffffff
ENOMEM=0xfffffffffffffff4
EBUSY=0xfffffffffffffff0
EEXIST=0xffffffffffffffef
EKEYREJECTED=0xffffffffffffff7f

core_prepare "$kernel" || exit 0
core_image core-faults -m virtio_blk || exit 0

# boot KEY CMDLINE: result in $work/KEY.txt
boot() {
	r=$work/$1.txt
	run_boot mpt_boot "$r" "$work/$1.serial" "$work/image.img" 2 "$2" -m 256 -t 300
	eq "guest script" "$(mpt_get guest_rc "$r")" 0
}

# has KEY PATTERN: one of modpreload's stderr lines under KEY matches
has() {
	mpt_keys "$1.err=" "$r" | grep -q "$2" || fail "$1: no message matching '$2'"
}

# rets KEY: the return values of KEY's load syscalls, sorted, one line
rets() {
	mpt_keys "$1.call." "$r" | cut -d= -f2 | cut -d, -f3 | sort | tr '\n' ' ' | sed 's/ $//'
}

boot sig "module.sig_enforce=1"
eq "sig: enforced" "$(mpt_get sig_enforce "$r")" 1
eq "sig: exit" "$(mpt_get sig.rc "$r")" 1
eq "sig: virtio_blk live" "$(mpt_get proc.virtio_blk "$r")" 1
eq "sig: mpt_chain0 not live" "$(mpt_get proc.mpt_chain0 "$r")" 0
eq "sig: mpt_params not live" "$(mpt_get proc.mpt_params "$r")" 0
eq "sig: mpt_chain0" "$(mpt_get state.mpt_chain0 "$r")" failed
eq "sig: mpt_chain1" "$(mpt_get state.mpt_chain1 "$r")" skipped
eq "sig: mpt_chain2" "$(mpt_get state.mpt_chain2 "$r")" skipped
eq "sig: mpt_params" "$(mpt_get state.mpt_params "$r")" failed
eq "sig: virtio_blk" "$(mpt_get state.virtio_blk "$r")" loaded
# virtio_blk, virtio, virtio_ring succeed (7.x builds the last two in:
# the tree's modules.builtin says which); mpt_chain0, mpt_params refused
ok=0x0
for m in virtio virtio_ring; do
	grep -q "/$m\.ko\$" "$work/tree/lib/modules/$kver/modules.builtin" || ok="$ok 0x0"
done
eq "sig: load syscalls" "$(rets sig)" "$ok $EKEYREJECTED $EKEYREJECTED"
has sig "failed: mpt_chain0: .*(EKEYREJECTED)"
has sig "failed: mpt_params: .*(EKEYREJECTED)"
has sig "skipped: mpt_chain1: depends on mpt_chain0, which failed (EKEYREJECTED)"
verdict "$name/sig-enforce"

boot faults ""
# EBUSY from init(): asked once, not again
eq "busy: exit" "$(mpt_get busy.rc "$r")" 1
eq "busy: mpt_busy" "$(mpt_get state.mpt_busy "$r")" failed
eq "busy: mpt_busy_child" "$(mpt_get state.mpt_busy_child "$r")" skipped
eq "busy: mpt_busy tried once" "$(core_ncalls busy.call.mpt_busy "$r")" 1
eq "busy: the kernel said EBUSY" "$(core_field busy.call.mpt_busy 3 "$r")" "$EBUSY"
eq "busy: mpt_busy_child never tried" "$(core_ncalls busy.call.mpt_busy_child "$r")" 0
eq "busy: mpt_busy not live" "$(mpt_get proc.mpt_busy "$r")" 0
eq "busy: mpt_chain3 live" "$(mpt_get proc.mpt_chain3 "$r")" 1
has busy "failed: mpt_busy: .*(EBUSY)"
has busy "skipped: mpt_busy_child: depends on mpt_busy, which failed (EBUSY)"
verdict "$name/init-ebusy"

# EEXIST from init(): the duplicate's errno, but nothing is there. From
# 7.1 the kernel turns it into EBUSY, and EEXIST only means "loaded".
eq "eexist: mpt_exist" "$(mpt_get state.mpt_exist "$r")" failed
eq "eexist: mpt_exist tried once" "$(core_ncalls busy.call.mpt_exist "$r")" 1
eq "eexist: mpt_exist not live" "$(mpt_get proc.mpt_exist "$r")" 0
case $kver in
[1-6].* | 7.0.* | 7.0-*)
	eq "eexist: the kernel said EEXIST" "$(core_field busy.call.mpt_exist 3 "$r")" "$EEXIST"
	has busy "failed: mpt_exist: init() found its place taken.*(EEXIST)"
	;;
*)
	eq "eexist: 7.1+: the kernel said EBUSY" "$(core_field busy.call.mpt_exist 3 "$r")" "$EBUSY"
	has busy "failed: mpt_exist: .*(EBUSY)"
	;;
esac
verdict "$name/init-eexist"

eq "nomem: exit" "$(mpt_get nomem.rc "$r")" 1
eq "nomem: mpt_nomem" "$(mpt_get state.mpt_nomem "$r")" failed
eq "nomem: mpt_nomem_child" "$(mpt_get state.mpt_nomem_child "$r")" skipped
eq "nomem: mpt_nomem not live" "$(mpt_get proc.mpt_nomem "$r")" 0
eq "nomem: mpt_dia_top live" "$(mpt_get proc.mpt_dia_top "$r")" 1
# the four diamond modules, then mpt_nomem refused once
eq "nomem: load syscalls" "$(rets nomem)" "0x0 0x0 0x0 0x0 $ENOMEM"
has nomem "failed: mpt_nomem: .*(ENOMEM)"
has nomem "skipped: mpt_nomem_child: depends on mpt_nomem, which failed (ENOMEM)"
verdict "$name/enomem"

eq "rorun: /run read-only" "$(mpt_get rorun.mounted "$r")" 1
# the loads stand; the report that could not be written is exit status 4
eq "rorun: exit" "$(mpt_get rorun.rc "$r")" 4
eq "rorun: mpt_chain9 live" "$(mpt_get proc.mpt_chain9 "$r")" 1
eq "rorun: mpt_fan00 live" "$(mpt_get proc.mpt_fan00 "$r")" 1
eq "rorun: no report" "$(mpt_get rorun.report "$r")" 0
[ "$(mpt_keys rorun.call. "$r" | grep -c ',0x0,')" -ge 8 ] || fail "rorun: fewer than 8 successful loads"
mpt_keys rorun.call. "$r" | grep -v ',0x0,' | grep -q . && fail "rorun: a load syscall failed"
has rorun "/run/modpreload.*cannot .*report.*Read-only file system (EROFS)"
verdict "$name/readonly-run"

eq "disabled: sysctl" "$(mpt_get disabled.sysctl "$r")" 1
eq "disabled: exit" "$(mpt_get disabled.rc "$r")" 1
for m in mpt_fan10 mpt_params mpt_drvlib; do
	eq "disabled: $m" "$(mpt_get "state.$m" "$r")" failed
	eq "disabled: $m not live" "$(mpt_get "proc.$m" "$r")" 0
	has disabled "failed: $m: .*(EPERM)"
done
eq "disabled: mpt_drv2" "$(mpt_get state.mpt_drv2 "$r")" skipped
# each independent module asked once, none of them twice
eq "disabled: load syscalls" "$(rets disabled)" "$EPERM $EPERM $EPERM"
has disabled "skipped: mpt_drv2: depends on mpt_drvlib, which failed (EPERM)"
verdict "$name/modules-disabled"
