#!/bin/sh
# The scheduler: waves, parallelism and -j, the critical path first,
# the adaptive pool, a wide fan-out.
# Cases of tests/unit/cli.sh (t_NAME reports as cli/NAME), sourced by it
# after cli/lib.sh: setup, run, check and the other helpers are there.
# shellcheck disable=SC2034,SC2154 # RULES, OTHER: read by run; t, rc, bin...: set by cli.sh, lib.sh

# --waves: no module of a wave starts before the previous wave ended.
t_waves() {
	setup 'a\nb\nc a\nd b\ne c\n'
	RULES=a:0:300,d:0:100
	run --waves -j 4 e d
	check "exit 0" eq "$rc" 0
	check "wave 0 (a) before wave 1 (d)" before a d
	check "wave 1 (c) after a" before a c
	setup 'a\nb\nc a\nd b\ne c\n'
	RULES=a:0:300,d:0:100
	run -j 4 e d
	check "dataflow: d starts before a ends" [ "$(t_start d)" -lt "$(t_end a)" ]
	check "mode" eq "$(jq -r .mode "$t/r.json")" dataflow
}

# Independent modules overlap; -j bounds how many run at once (with
# --pool=fixed, whatever they do; see t_pool for the adaptive pool).
t_parallel() {
	spec=
	for i in 0 1 2 3 4 5 6 7; do spec="${spec}p$i\n"; done
	setup "$spec"
	RULES='*:0:200'
	run -j 3 --pool fixed p0 p1 p2 p3 p4 p5 p6 p7
	check "exit 0" eq "$rc" 0
	check "at most 3 at once" [ "$(most_at_once)" -le 3 ]
	check "really parallel" [ "$(most_at_once)" -ge 2 ]
}

# Critical path first. Six short independent loads, asked for first, and a
# chain c1 < c2 < c3 < c4 of the same length each; two workers. In arrival
# order the chain starts after the six (7 x 200 ms); by the longest chain
# it starts at once and the six fill the other worker (about 5 x 200 ms).
# The order is the proof; how much sooner it ends is the benchmark's
# business (a timed check here flaked on a loaded host).
t_fifo_worse() {
	dag='s1\ns2\ns3\ns4\ns5\ns6\nc1\nc2 c1\nc3 c2\nc4 c3\n'
	setup "$dag"
	RULES='*:0:200'
	run -j 2 --pool fixed --order fifo s1 s2 s3 s4 s5 s6 c4
	check "fifo: exit 0" eq "$rc" 0
	check "fifo: c1 after every s" eq "$(starts_in_order | sed 's/ $//' | awk '{print $7}')" c1
	setup "$dag"
	RULES='*:0:200'
	run -j 2 --pool fixed s1 s2 s3 s4 s5 s6 c4
	check "critical: exit 0" eq "$rc" 0
	check "critical: c1 among the first two" first_two c1
	check "critical: the order in the report" eq "$(jq -r .profile.order "$t/r.json")" critical
}

# The pool follows the CPU: loads asleep in init() do not hold back the
# others (eight 400 ms sleeps at -j 2 overlap far beyond 2), loads that
# burn the CPU never run more than -j at once, nor do loads asleep before
# their init() (not yet "coming": that sleep ends in CPU work). Adaptive is
# the default; a job count given makes it fixed.
t_pool() {
	spec=
	for i in 0 1 2 3 4 5 6 7; do spec="${spec}p$i\n"; done
	setup "$spec"
	RULES='*:0:400'
	run -j 2 --pool fixed p0 p1 p2 p3 p4 p5 p6 p7
	check "fixed: -j at once" eq "$(most_at_once)" 2
	setup "$spec"
	RULES='*:0:400'
	run -j 2 --pool adaptive p0 p1 p2 p3 p4 p5 p6 p7
	check "sleeping: exit 0" eq "$rc" 0
	check "sleeping: more than -j at once ($(most_at_once))" [ "$(most_at_once)" -ge 4 ]
	check "sleeping: the pool in the report" eq "$(jq -r .profile.pool "$t/r.json")" adaptive
	setup "$spec"
	RULES='*:0:150:spin'
	run -j 2 --pool adaptive p0 p1 p2 p3 p4 p5 p6 p7
	check "spinning: exit 0" eq "$rc" 0
	check "spinning: never more than -j at once ($(most_at_once))" [ "$(most_at_once)" -le 2 ]
	setup "$spec"
	RULES='*:0:300:pre'
	run -j 2 --pool adaptive p0 p1 p2 p3 p4 p5 p6 p7
	check "asleep before init(): exit 0" eq "$rc" 0
	check "asleep before init(): never more than -j at once ($(most_at_once))" [ "$(most_at_once)" -le 2 ]
	setup 'p0\n'
	run p0
	check "default: adaptive" eq "$(jq -r .profile.pool "$t/r.json")" adaptive
	run -j 3 p0
	check "-j: fixed" eq "$(jq -r .profile.pool "$t/r.json")" fixed
	echo 'rd.modpreload.jobs=3' >"$t/cmdline"
	run p0
	check "rd.modpreload.jobs=: fixed" eq "$(jq -r .profile.pool "$t/r.json")" fixed
}

# A fan-out of 64 on one base, under load: all once, base first.
t_fanout() {
	spec='base\n'
	i=0
	names=
	while [ $i -lt 64 ]; do
		spec="${spec}fan$i base\n"
		names="$names fan$i"
		i=$((i + 1))
	done
	setup "$spec"
	RULES='base:0:50'
	# shellcheck disable=SC2086
	run -j 8 $names $names
	check "exit 0" eq "$rc" 0
	check "65 calls" eq "$(calls)" 65
	check "base first" [ "$(sort -n "$t/log" | awk '$2=="start"{print $3; exit}')" = base ]
	check "one wave after base" eq "$(jq '.waves | length' "$t/r.json")" 2
}
