# shellcheck shell=sh
# bench/run.sh, scenario "graph": every node of the benchmark's DAG
# (mpb_gNNN, /mpt/requests.txt in a fixed shuffled order), for each
# variant (bench.variants=sleep,cpu) and each contender
# (bench.contenders=, in that order) in one boot (bench_each).
#   sleep: each init() sleeps its ms=
#   cpu:   each init() burns that much CPU time (spin=1 for every node, from
#          modprobe.d, which kmod and modpreload both read)
# shellcheck source=/dev/null
. /mpt/bench-lib.sh
mpt_kv bench.scenario graph
mpt_kv bench.ncpus "$(bench_ncpus)"
mkdir -p /etc/modprobe.d
for variant in $(bench_arg variants sleep,cpu | tr , ' '); do
	mpt_kv bench.variant "$variant"
	for f in /lib/modules/"$(uname -r)"/extra/mpb_g*; do
		f=${f##*/}
		if [ "$variant" = cpu ]; then echo "options ${f%%.ko*} spin=1"; fi
	done >/etc/modprobe.d/bench.conf
	bench_each "$(bench_arg contenders modprobe,xargs,waves,dataflow)" /mpt/requests.txt \
		mpb_g "$(bench_arg calls 0)"
done
