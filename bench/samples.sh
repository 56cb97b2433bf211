#!/bin/sh
# What the guest's CPUs went to, second by second, in a boot of
# bench/boot-pairs.sh -C lean-sampled (the report's "smp" lines,
# harness/booted/guest/sampler.c). One line a window of W seconds
# (default 1):
#   UPTIME BUSY% PID1 TOP
# BUSY%: of all vCPUs' time, the share not idle (user, system, irq,
# softirq; iowait counted idle); PID1: PID 1's state and wait channel at
# the window's last sample; TOP: the tasks that used the most CPU in it,
# "comm:ticks" (USER_HZ, 100 a second of one CPU), at most 6. Then the
# tasks in D state with their kernel stacks, once each.
#
# With -s: instead, each task's ticks over the samples up to U seconds of
# uptime (default all), the kworkers counted as one, the most first.
#
# Usage: bench/samples.sh [-w W] [-s [-u U]] REPORT.txt[.gz]
set -eu
w=1 sum=0 upto=1e9
while [ $# -gt 1 ]; do
	case $1 in
	-w) w=$2; shift 2 ;;
	-s) sum=1; shift ;;
	-u) upto=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { sed -n 's/^# Usage: /usage: /p' "$0" >&2; exit 2; }
case $1 in *.gz) zcat "$1" ;; *) cat "$1" ;; esac | sed -n 's/^MPT: smp //p' | awk -v w="$w" -v sum="$sum" -v upto="$upto" '
function flush(   i, j, best, bi, line) {
	if (win == "") return
	busy = tot > 0 ? 100 * (tot - idle) / tot : 0
	line = sprintf("%7.1f %5.1f%% %-22s", win * w, busy, p1)
	for (i = 1; i <= 6; i++) {
		best = 0; bi = ""
		for (j in tk) if (tk[j] > best) { best = tk[j]; bi = j }
		if (bi == "") break
		line = line " " bi ":" best
		delete tk[bi]
	}
	print line
	split("", tk); tot = 0; idle = 0
}
$1 == "T" {
	nt++
	cur = $2 + 0
	if (cur > upto + 0) over = 1
	t = $4 + $5 + $6 + $7 + $8 + $9 + $10
	i = $7 + $8
	if (seen) {
		win_now = int(cur / w)
		if (win_now != win) { if (!sum) flush(); win = win_now }
		tot += t - lt; idle += i - li
	} else { win = int(cur / w); seen = 1 }
	lt = t; li = i
	next
}
$1 == "1" { p1 = $2 "/" $3; next }
# the first sample is the baseline: the ticks of each task since it began
$1 == "P" && nt > 1 && !over {
	c = $3; sub(/^kworker\/.*/, "kworker", c); all[c] += $5
	tk[$3] += $5; next
}
$1 == "K" && !(($3) in kshown) { kshown[$3] = 1; ks[++nk] = sprintf("%7.1f D %s: %s", cur, $3, substr($0, index($0, $4))); next }
END {
	if (sum) {
		for (c in all) printf "%8d %s\n", all[c], c | "sort -rn | head -n 25"
		exit
	}
	flush()
	for (i = 1; i <= nk; i++) print ks[i]
}'
