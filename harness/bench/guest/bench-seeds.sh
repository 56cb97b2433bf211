# shellcheck shell=sh
# bench/seeds.sh, on the stats kernel or its "master" (harness/lib/
# kernel-master.sh): the seeds' request pattern, in one boot. Every CPU's
# modalias is asked for once per CPU of the machine being imitated: R
# requests of each distinct cpu: modalias (R from bench.requests=, a
# comma-separated list, default 16,64,448: this VM's CPUs, more, the seeds'
# 448) and each other device's modalias once. Two loaders, each from
# nothing (everything unloaded between):
#   udev        one process a request, as udev's worker asks kmod 31 and
#               later: the modules the alias resolves to, dependencies
#               first (resolved once, by modprobe --show-depends), a live
#               one skipped, a coming one loaded again, each by
#               finit_module with the kernel decompressing (mpt-finit -m);
#               as many at once as udevd runs workers (bench.workers=,
#               default udevd's formula, 2 per CPU + 16, without its cap
#               of RAM/128 MiB, which this VM's memory, not its CPUs,
#               would set: as bench/run.sh's udev.children_max)
#   modpreload  the same requests on its command line
# and /sys/kernel/debug/modules/stats' change across each (bench-lib.sh).
# Lines: seeds.ncpus, seeds.workers, seeds.cpu_aliases, seeds.other_aliases;
# per R and loader L: seeds.R.L.requests, seeds.R.L.wall_ms, seeds.R.L.loaded,
# seeds.R.L.ks.LABEL=N, seeds.R.L.dup.NAME=N; modpreload's report:
# seeds.R.modpreload.report.KEY=N.
# shellcheck source=/dev/null
. /mpt/bench-lib.sh

ncpus=$(bench_ncpus)
workers=$(bench_arg workers $((2 * ncpus + 16)))
mpt_kv seeds.ncpus "$ncpus"
mpt_kv seeds.workers "$workers"
mpt_kv seeds.compression "$(cat /sys/module/compression 2>/dev/null)"
mpt_coldplug_modaliases | sort -u >/tmp/aliases
grep '^cpu:' /tmp/aliases >/tmp/cpu
grep -v '^cpu:' /tmp/aliases >/tmp/other
mpt_kv seeds.cpu_aliases "$(wc -l </tmp/cpu)"
mpt_kv seeds.other_aliases "$(wc -l </tmp/other)"

# what each alias loads, dependencies first, as one line of files ("" for
# none: the alias finds nothing, or only what is built in)
resolve() {
	while read -r seeds_a; do
		"$MPT_KMOD_MODPROBE" -b --show-depends "$seeds_a" 2>/dev/null | awk '$1 == "insmod" { printf "%s ", $2 } END { print "" }'
	done
}
resolve </tmp/cpu >/tmp/cpu.files
resolve </tmp/other >/tmp/other.files
mpt_kv seeds.cpu_files "$(wc -w </tmp/cpu.files)"
mpt_kv seeds.other_files "$(wc -w </tmp/other.files)"

unload_all() {
	for _ in 1 2 3; do
		awk '{ print $1 }' /proc/modules | while read -r seeds_m; do rmmod "$seeds_m" 2>/dev/null; done
	done
}

# measure PREFIX COMMAND...: one loader between two snapshots, then unloaded
measure() {
	bench_kstats_measure "$@"
	unload_all
	mpt_kv "$1.left" "$(wc -l </proc/modules)"
}

# udev's requests: the other devices once, then R rounds of every CPU alias
udev_storm() {
	# a line each (busybox's xargs has no -L: -I passes the line whole)
	grep . /tmp/other.files | xargs -P "$workers" -I@ /sbin/mpt-finit -m @
	seeds_i=0
	while [ "$seeds_i" -lt "$1" ]; do
		grep . /tmp/cpu.files
		seeds_i=$((seeds_i + 1))
	done | xargs -P "$workers" -I@ /sbin/mpt-finit -m @
	:
}

modpreload_requests() {
	cat /tmp/other
	seeds_i=0
	while [ "$seeds_i" -lt "$1" ]; do
		cat /tmp/cpu
		seeds_i=$((seeds_i + 1))
	done
}

set -f # modaliases, one argument each
unload_all
for r in $(bench_arg requests 16,64,448 | tr , ' '); do
	mpt_kv "seeds.$r.udev.requests" $(($(wc -l </tmp/other) + r * $(wc -l </tmp/cpu)))
	measure "seeds.$r.udev" udev_storm "$r"
	modpreload_requests "$r" >/tmp/requests
	mpt_kv "seeds.$r.modpreload.requests" "$(wc -l </tmp/requests)"
	# shellcheck disable=SC2046 # one argument a request
	measure "seeds.$r.modpreload" /sbin/modpreload -q -t 900 -r /run/seeds.json $(cat /tmp/requests)
	awk -v p="seeds.$r.modpreload.report" '
		function out(k,   v) { v = $2; gsub(/,/, "", v); printf "MPT: %s.%s=%s\n", p, k, v }
		/^  "requests": \{/ { req = 1 }
		req && /^    "total": / { out("requests"); req = 0 }
		/^  "(unique|duplicates_collapsed)": [0-9]/ { k = $1; gsub(/[":]/, "", k); out(k) }' /run/seeds.json
done
