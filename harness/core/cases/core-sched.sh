#!/bin/sh
# The scheduler on Debian's 6.1, one boot, timed by the kernel's own
# tracepoints (harness/core/guest/core-sched.sh): a chain of six 400 ms
# init()s and six independent 400 ms leaves asked for first.
#  - On a fixed pool of two, arrival order starts the chain's second link
#    after every leaf; the longest chain first starts each link as soon as
#    the one before is done, and finishes well before (about 2.4 s
#    against 3.2 s).
#  - On the adaptive pool (critical path first) with the profile the
#    previous run wrote, the run is within x1.5 of its bound, the chain
#    (2.4 s): sleeping init()s do not hold the pool at -j 2.
#  - Four init()s that burn the CPU at -j 1 never overlap, on the fixed
#    pool (the default) nor on the adaptive one. (The adaptive pool once
#    ran two at once: it took a load asleep before its init() for one
#    asleep in it; it now counts only loads whose module is "coming".)
# Ratios in one boot, with margins no loaded host reaches; the tight
# figures are make bench's.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/core/host.sh
. "$top/harness/core/host.sh"
name=core-sched
work=$top/build/vm/core-sched
mkdir -p "$work"
core_prepare bookworm || exit 0
core_image core-sched || exit 0
r=$work/result.txt
if ! run_boot mpt_boot "$r" "$work/serial.log" "$work/image.img" 2 "" -t 300; then
	verdict "$name"
	exit 0
fi

# calls RUN: "NAME ENTER_US EXIT_US RET" per load of that run
calls() { core_run_calls "$1" "$r"; }
span_ms() { calls "$1" | awk 'NR == 1 { a = $2; b = $3 } { if ($2 < a) a = $2; if ($3 > b) b = $3 } END { print int((b - a) / 1000) }'; }
most() { calls "$1" | awk '{ print $2, 1; print $3, -1 }' | sort -n -k1,1 -k2,2 | awk '{ n += $2; if (n > m) m = n } END { print m + 0 }'; }
enter() { calls "$1" | awk -v m="$2" '$1 == m { print $2 }'; }
exit_() { calls "$1" | awk -v m="$2" '$1 == m { print $3 }'; }

for run in fifo cpf first prof; do
	eq "$run: exit" "$(mpt_get "$run.rc" "$r")" 0
	eq "$run: 13 loads" "$(calls "$run" | wc -l)" 13
	eq "$run: all succeeded" "$(core_run_failed "$run" "$r")" 0
done
# arrival order: the chain's second link waits for the leaves (the last
# leaf and it may leave the queue together, and enter in either order)
c1=$(enter fifo mpt_chain1)
for i in 0 1 2 3 4; do
	f=$(enter fifo "mpt_fan0$i")
	if [ -z "$c1" ] || [ -z "$f" ] || [ "$f" -ge "$c1" ]; then
		fail "fifo: mpt_fan0$i did not start before mpt_chain1"
	fi
done
# longest chain first: once a link ends, no leaf starts before the next
# link does (50 ms of grace for a leaf taken just before, entering after)
for i in 1 2 3 4 5; do
	e=$(exit_ cpf "mpt_chain$((i - 1))") s=$(enter cpf "mpt_chain$i")
	jumped=$(calls cpf | awk -v e="$e" -v s="$s" '$1 ~ /^mpt_fan0/ && $2 > e + 50000 && $2 < s { print $1 }')
	[ -z "$jumped" ] || fail "cpf: $jumped started before mpt_chain$i, which was ready"
done
fifo=$(span_ms fifo) cpf=$(span_ms cpf) first=$(span_ms first) prof=$(span_ms prof)
[ $((cpf + 400)) -lt "$fifo" ] || fail "critical path first took $cpf ms, arrival order $fifo ms"
[ "$(most cpf)" -le 2 ] || fail "fixed pool: more than 2 loads at once"
# The bound: the chain, with each link's load as long as the kernel saw it
# take in that run (a load under TCG costs far more than its init()'s
# 400 ms, and more when many load at once).
path() { calls "$1" | awk '$1 ~ /^mpt_chain/ { t += $3 - $2 } END { print int(t / 1000) }'; }
bound=$(path prof)
[ $((prof * 2)) -lt $((bound * 3)) ] || fail "with a profile: $prof ms, over x1.5 its critical path ($bound ms)"
[ "$(most prof)" -gt 2 ] || fail "adaptive pool: never more than -j 2 loads at once"
eq "profile made on this kernel" "$(mpt_get profile.kernel "$r")" "kernel $(mpt_get uname "$r")"
eq "profile: a line a load" "$(mpt_get profile.lines "$r")" 13
eq "profile used" "$(mpt_get prof.profile_state "$r")" used
eq "profile knew every module" "$(mpt_get prof.known "$r")" 13
# CPU-bound: the init()s never spin at the same time at -j 1 (the loads
# around them may: a worker asleep in the kernel after an init() frees
# its slot)
eq "spin: exit" "$(mpt_get spin.rc "$r")" 0
eq "spin: 5 loads" "$(calls spin | wc -l)" 5
eq "spin: 4 spins in the kernel log" "$(mpt_keys spinwin. "$r" | grep -c '^spinwin\.mpt_fan1[0-3]=')" 4
# overlap PATTERN: the most spin windows of those modules at one time
overlap() {
	mpt_keys spinwin. "$r" | grep "^spinwin\.$1=" | cut -d= -f2 |
		awk -F, '{ print $1, 1; print $2, -1 }' |
		sort -n -k1,1 -k2,2 | awk '{ n += $2; if (n > m) m = n } END { print m + 0 }'
}
spins=$(overlap 'mpt_fan1[0-3]')
eq "spin: one init() on the CPU at a time at -j 1" "$spins" 1
eq "spin, adaptive pool: exit" "$(mpt_get spina.rc "$r")" 0
eq "spin, adaptive pool: 4 spins in the kernel log" "$(mpt_keys spinwin. "$r" | grep -c '^spinwin\.mpt_fan1[4-7]=')" 4
eq "spin, adaptive pool: one init() on the CPU at a time at -j 1" "$(overlap 'mpt_fan1[4-7]')" 1
echo "  fifo $fifo ms, critical $cpf ms (fixed pool of 2); default $first ms (path $(path first) ms), with profile $prof ms (x$(awk -v a="$prof" -v b="$bound" 'BEGIN { printf "%.2f", a / b }') its path $bound ms; nominal 2400 ms); spinning inits at once at -j 1: $spins" >&2
verdict "$name"
