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
