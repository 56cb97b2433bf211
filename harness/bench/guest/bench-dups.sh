# shellcheck shell=sh
# bench/run.sh, scenario "dups": bench.k= modules (mpb_dup00...), each
# asked for bench.copies= times (default 64), in rounds, by each contender
# (bench.contenders=, in that order) in one boot (bench_each); what the
# kernel read and allocated for copies it refused: kprobes where the kernel
# has them, /sys/kernel/debug/modules/stats where it has that.
# shellcheck source=/dev/null
. /mpt/bench-lib.sh
k=$(bench_arg k 8)
copies=$(bench_arg copies 64)
mpt_kv bench.scenario dups
mpt_kv bench.ncpus "$(bench_ncpus)"
i=0
while [ "$i" -lt "$copies" ]; do
	j=0
	while [ "$j" -lt "$k" ]; do
		printf 'mpb_dup%02d\n' "$j"
		j=$((j + 1))
	done
	i=$((i + 1))
done >/tmp/requests
mpt_kv bench.requests "$(wc -l </tmp/requests)"
for f in /lib/modules/"$(uname -r)"/extra/mpb_dup00.ko*; do
	mpt_kv bench.file_bytes "$(wc -c <"$f")"
done
bench_kprobes
kstats() {
	bench_kstats "/tmp/ks.$1"
	if [ "$1" = after ]; then bench_kstats_delta /tmp/ks.before /tmp/ks.after; fi
}
bench_each "$(bench_arg contenders modprobe,xargs,waves,dataflow)" /tmp/requests \
	mpb_dup "$(bench_arg calls 0)" kstats
