# shellcheck shell=sh
# The storm, through modpreload: every CPU's coldplug request for mpt_spawn
# (whose devices then ask for mpt_drv and mpt_drv2: second level), the
# same names requested over and over, a 64-wide fan-out, a chain, a
# diamond, and one module that sleeps in init() so overlap shows.
# shellcheck source=/dev/null
. /mpt/core-lib.sh
set --
i=0
while [ $i -lt 20 ]; do
	set -- "$@" mpt_chain9 mpt-dia-top mpt_dia_top mpt_sleep
	i=$((i + 1))
done
for f in /lib/modules/"$(uname -r)"/extra/mpt_fan[0-9]*; do
	f=${f##*/}
	set -- "$@" "${f%%.ko*}" "${f%%.ko*}"
done
mpt_kv requested "$#"
core_run storm --coldplug -r /run/report.json "$@"
core_report /run/report.json
mpt_trace_counts
core_calls
mpt_proc_count
mpt_proc_count mpt_
mpt_loaded mpt_spawn mpt_drv mpt_drv2 mpt_drvlib mpt_sleep
mpt_compression
