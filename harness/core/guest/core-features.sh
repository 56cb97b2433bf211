# shellcheck shell=sh
# One boot, several checks, the trace cleared between them so each one's
# calls are its own. The kernel command line carries
# mpt_params.label=fromcmdline module_blacklist=mpt_chain5.
# shellcheck source=/dev/null
. /mpt/core-lib.sh
R=/run/r.json

# A failing init(): its dependent is skipped, the rest loads.
core_trace_clear
core_run fail -r $R mpt_fail_child mpt_chain3 mpt_dia_top
core_report $R fail
core_state $R mpt_fail
core_state $R mpt_fail_child
mpt_loaded mpt_chain3 mpt_dia_top mpt_fail mpt_fail_child
core_calls | sed 's/call\./fail.call./'

# A symbol nobody exports: finit_module fails with ENOENT.
core_trace_clear
core_run nosym -r $R mpt_nosym
core_calls | sed 's/call\./nosym.call./'

# init() that never returns: modpreload gives up after -t and goes on.
core_trace_clear
core_run hang -t 3 -r $R mpt_hang_child mpt_sleep
core_report $R hang
core_state $R mpt_hang
core_state $R mpt_hang_child
mpt_initstate mpt_hang mpt_hang_child mpt_sleep
core_calls | sed 's/call\./hang.call./'

# Options from modprobe.d and from the kernel command line.
core_trace_clear
core_run opts -r $R mpt_params
mpt_param mpt_params value
mpt_param mpt_params label

# modprobe.d's blacklist stops the alias, not the name; module_blacklist=
# (the kernel would refuse it) stops everything, and what needs it.
core_trace_clear
core_run blalias -r $R mpt-alias-only
core_report $R blalias
mpt_loaded mpt_aliased
core_run blname -r $R mpt_aliased
mpt_loaded mpt_aliased
core_trace_clear
core_run kbl -r $R mpt_chain7
core_state $R mpt_chain5
core_state $R mpt_chain7
mpt_loaded mpt_chain4 mpt_chain5 mpt_chain7
core_calls | sed 's/call\./kbl.call./'

# softdep order: pre, then the module, then post.
core_run soft -r $R mpt_soft_main
mpt_seq_of mpt_soft_pre mpt_soft_main mpt_soft_post

# A missing name: an error naming it, the rest loads.
core_run missing -r $R nosuch_module mpt_fan00
mpt_loaded mpt_fan00

# modules.dep names a file that is gone: libkmod quietly leaves it out of
# mpt_drv2's dependency list (kmod's modprobe then asks the kernel for
# mpt_drv2 alone: unknown symbol); modpreload fails the missing module,
# skips mpt_drv2 without a syscall, and loads the rest.
mkdir -p /tmp/gone/lib/modules
cp -a "/lib/modules/$(uname -r)" /tmp/gone/lib/modules/
rm "$(find /tmp/gone -name 'mpt_drvlib.ko*')"
core_trace_clear
core_run gone -d /tmp/gone -r $R mpt_drv2 mpt_fan03
core_state $R mpt_drvlib
core_state $R mpt_drv2
mpt_kv gone.message "$(grep -o '"message": "in modules.dep, but [^"]*"' $R)"
mpt_loaded mpt_fan03 mpt_drv2 mpt_drvlib
core_calls | sed 's/call\./gone.call./'
rm -rf /tmp/gone

# /dev/kmsg keeps only a writer's first 10 records in 5 s (printk.devkmsg's
# default). The control writes one record per problem, as stderr does;
# --kmsg groups them, one record per kind, so the kernel log gets it all.
names=
for i in 00 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15; do names="$names nosuch_$i"; done
dmesg -c >/dev/null
# shellcheck disable=SC2086 # a list of names
/sbin/modpreload $names mpt_fail_child mpt_fan01 2>/dev/kmsg
dmesg | sed -n 's/^\[[ 0-9.]*\] //p' | sed 's/^/MPT: kmsgctl.line=/'
dmesg -c >/dev/null
# shellcheck disable=SC2086 # a list of names
core_run kmsg --kmsg $names mpt_fail_child mpt_fan02
mpt_loaded mpt_fan01 mpt_fan02
dmesg | sed -n 's/^\[[ 0-9.]*\] //p' | sed 's/^/MPT: kmsg.line=/'

# A corrupt, then a missing modules.dep.bin: exit 3, a message, no crash,
# no load attempted.
mkdir -p /tmp/bad/lib/modules
cp -a "/lib/modules/$(uname -r)" /tmp/bad/lib/modules/
dep=/tmp/bad/lib/modules/$(uname -r)/modules.dep.bin
head -c $(($(wc -c <"$dep") / 2)) "$dep" >"$dep.cut" && mv "$dep.cut" "$dep"
core_trace_clear
core_run corrupt -d /tmp/bad -r $R mpt_chain9
rm "$dep"
core_run nodep -d /tmp/bad -r $R mpt_chain9
mpt_trace_counts | sed 's/MPT: /MPT: badidx./'
