# shellcheck shell=sh
# bench/run.sh, scenario "storm": load what this VM's devices (CPUs
# included) ask for with one contender (bench.mode=, see bench-lib.sh) and
# report what the kernel saw.  bench.calls=1 adds the per-call timeline.
# shellcheck source=/dev/null
. /mpt/bench-lib.sh
mpt_kv bench.scenario storm
mpt_kv bench.ncpus "$(bench_ncpus)"
mpt_kv bench.devices "$(mpt_coldplug_modaliases | wc -l)"
bench_contender "$(bench_arg mode)" coldplug
bench_trace "$(bench_arg calls 0)"
bench_report "$(bench_arg calls 0)"
mpt_proc_count
