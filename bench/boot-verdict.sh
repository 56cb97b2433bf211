#!/bin/sh
# The whole boot's verdict, from the records bench/boot-pairs.sh appends to
# bench/results/boots.tsv: for each stack, vCPU count and condition, over
# the pairs of one code (bench/code-id.sh; default the work tree's), the
# median of with / without and its 95% confidence interval for switch-root,
# multi-user.target and udev's empty queue. Markdown on stdout.
#
# The interval is the distribution-free one for a median (the sign test's):
# with the n ratios sorted, [r(k), r(n+1-k)] for the largest k whose
# binomial tail P(B <= k-1), B ~ Bin(n, 1/2), is at most 2.5%; it covers
# the true median with probability 1 - 2 P(B <= k-1) >= 95%, whatever the
# ratios' distribution. Below 6 pairs no such interval exists: the cell
# says so. A cell's verdict: sooner (the interval below 1), later (above
# 1), or even (it holds 1).
#
# Usage: bench/boot-verdict.sh [CODE[,CODE...]]
# Several codes pool their pairs: for codes whose difference runs nothing
# (comments of the unit, say: `git diff` between their commits shows it),
# which the docs then say.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
records=$top/bench/results/boots.tsv
code=${1:-$("$top/bench/code-id.sh")}
[ -s "$records" ] || { echo "(no boot records yet)"; exit 0; }
# the pairs where either boot had an emulator stall that began before its
# multi-user.target (bench/stalls.sh): the second table leaves them out
stalls=$(mktemp)
trap 'rm -f "$stalls"' EXIT
for c in $(echo "$code" | tr ',' ' '); do "$top/bench/stalls.sh" "$c"; done |
	awk '{ print $1 }' | sort -u >"$stalls"
echo x >>"$stalls" # never empty: awk tells its two files apart by it
awk -F'\t' -v code="$code" '
	function num(x) { return x != "-" && x != "" && x + 0 > 0 }
	BEGIN { nk = split(code, ks, ","); for (i = 1; i <= nk; i++) ours[ks[i]] = 1 }
	FNR == NR { stalled[$1] = 1; next }
	FNR == 1 { next }
	!($2 in ours) { old++; next }
	{
		cell = $3 SUBSEP $4 SUBSEP $5
		if (!(cell in seen)) { seen[cell] = 1; cells[++nc] = cell }
		k = cell SUBSEP $6
		if (!(k in pairof)) { pairof[k] = 1; pl[cell] = pl[cell] " " $6 }
		sr[k, $7] = $10; mu[k, $7] = $11; st[k, $7] = $12
		boots[cell]++
		if ($21 != "ok") bad[cell]++
		if ($7 == "with" && $19 != "-") { ready[cell] = ready[cell] " " $19 }
		if ($7 == "with") bounds[cell] += $20
		lock[cell, $7] += $18
	}
	function isort(a, n,    i, j, t) {
		for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j > 0 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	}
	# P(B <= m), B ~ Bin(n, 1/2)
	function tail(n, m,    i, c, s) {
		c = 1; s = 0
		for (i = 0; i <= m; i++) { s += c; c = c * (n - i) / (i + 1) }
		for (i = 0; i < n; i++) s /= 2 # no ^: busybox awk may lack its math
		return s
	}
	function median(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	# the cell for metric M: "x0.91 [0.80, 1.02] (n=10)" and the verdict
	# CALM: only the pairs that had no stall before the target
	# the ratios of metric M over the pairs of CELL into A, sorted; their count
	function ratios(cell, M, calm, a,    ids, np, i, k, n) {
		np = split(pl[cell], ids, " ")
		n = 0
		for (i = 1; i <= np; i++) {
			if (calm && (ids[i] in stalled)) continue
			k = cell SUBSEP ids[i]
			if (M == "sr" && num(sr[k, "with"]) && num(sr[k, "without"])) a[++n] = sr[k, "with"] / sr[k, "without"]
			if (M == "mu" && num(mu[k, "with"]) && num(mu[k, "without"])) a[++n] = mu[k, "with"] / mu[k, "without"]
			if (M == "st" && num(st[k, "with"]) && num(st[k, "without"])) a[++n] = st[k, "with"] / st[k, "without"]
		}
		isort(a, n)
		return n
	}
	# the sign-test interval is [a(k), a(n+1-k)] for this k (0: none)
	function kof(n,    kk) {
		kk = 0
		while (kk + 1 <= n && tail(n, kk) <= 0.025) kk++
		return kk
	}
	function stat(cell, M, calm,    a, n, kk, ff) {
		n = ratios(cell, M, calm, a)
		if (n == 0) { verdict = "-"; return "- (n=0)" }
		kk = kof(n)
		if (kk == 0) { verdict = "n<6"; return sprintf("x%.2f, no interval (n=%d)", median(a, n), n) }
		verdict = a[n + 1 - kk] < 1 ? "sooner" : a[kk] > 1 ? "later" : "even"
		# quoted only from 10 pairs at 16 vCPUs, 6 at 32 (issue 35)
		split(cell, ff, SUBSEP)
		if (n < (ff[2] >= 32 ? 6 : 10)) verdict = verdict " (n<" (ff[2] >= 32 ? 6 : 10) ")"
		return sprintf("x%.2f [%.2f, %.2f] (n=%d)", median(a, n), a[kk], a[n + 1 - kk], n)
	}
	# What the pairs of a cell can tell (the third table). A model, which
	# docs/benchmarks.md says: the log of the ratio of a pair is normal with the
	# spread s of the pairs of the cell (1.4826 times the median absolute
	# deviation of their logs, which one stalled boot does not inflate). A
	# true median ratio m then makes each pair sooner with probability
	# P = Phi(-log(m) / s), and the interval lies below 1 when at least
	# n+1-k of the n pairs do.
	function phi(x,    z, t, e) { # the standard normal CDF (Abramowitz and Stegun 7.1.26)
		z = (x < 0 ? -x : x) / sqrt(2)
		t = 1 / (1 + 0.3275911 * z)
		e = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
		e *= exp(-z * z)
		return x < 0 ? e / 2 : 1 - e / 2
	}
	# the chance that N pairs, each sooner with probability P, show "sooner"
	function shown(n, p,    kk, i, b, s) {
		kk = kof(n)
		if (kk == 0 || p <= 0) return 0
		if (p >= 1) return 1
		b = exp(n * log(p)) # P(all n sooner), then down the upper tail
		s = 0
		for (i = n; i >= n + 1 - kk; i--) { s += b; b *= i / (n - i + 1) * (1 - p) / p }
		return s
	}
	# "spread | smallest median ratio shown 4 in 5 | pairs for this median"
	function power(cell, M,    a, n, l, d, i, s, lo, hi, m, q, np) {
		n = ratios(cell, M, 0, a)
		if (kof(n) == 0) return "- | - | -"
		for (i = 1; i <= n; i++) l[i] = log(a[i])
		m = median(l, n)
		for (i = 1; i <= n; i++) d[i] = l[i] > m ? l[i] - m : m - l[i]
		isort(d, n)
		s = 1.4826 * median(d, n)
		if (s <= 0) return "0 | - | -"
		lo = -5; hi = 0 # on log(m): shown() grows as it falls
		for (i = 0; i < 40; i++) { q = (lo + hi) / 2; if (shown(n, phi(-q / s)) >= 0.8) lo = q; else hi = q }
		np = "-"
		if (m < 0) {
			q = phi(-m / s)
			for (i = 6; i <= 500 && np == "-"; i++) if (shown(i, q) >= 0.8) np = i
			if (np == "-") np = "over 500"
		}
		return sprintf("%.2f | x%.2f | %s", s, exp(lo), np)
	}
	function med_list(s,    a, n) { n = split(s, a, " "); if (!n) return "-"; isort(a, n); return sprintf("%.1f", median(a, n)) }
	# the start of the row of CELL: its names, the three ratios, the verdicts
	function row(cell, calm,    f, s1, s2, s3, v2) {
		split(cell, f, SUBSEP)
		s1 = stat(cell, "sr", calm)
		s2 = stat(cell, "mu", calm); v2 = verdict
		s3 = stat(cell, "st", calm)
		return sprintf("| %s | %s | %s | %s | %s | %s | %s, %s |", f[1], f[2], f[3], s1, s2, s3, v2, verdict)
	}
	END {
		print "| stack | vCPUs | condition | switch-root | multi-user.target | udev queue empty | verdict (multi-user, udev) | boots off the make check counts | modpreload ready (s, median) | its waits ended on a bound | soft lockups with / without |"
		print "|---|---|---|---|---|---|---|---|---|---|---|"
		for (c = 1; c <= nc; c++)
			printf "%s %d of %d | %s | %d | %d / %d |\n", row(cells[c], 0), bad[cells[c]], boots[cells[c]],
				med_list(ready[cells[c]]), bounds[cells[c]], lock[cells[c], "with"], lock[cells[c], "without"]
		if (old) printf "\n%d records of other code are in the file and not counted.\n", old
		print ""
		print "The same, over the pairs where neither boot had an emulator stall or a frozen load of"
		print "systemd (over 8 s) that began before its multi-user.target (bench/stalls.sh lists them):"
		print ""
		print "| stack | vCPUs | condition | switch-root | multi-user.target | udev queue empty | verdict (multi-user, udev) |"
		print "|---|---|---|---|---|---|---|"
		for (c = 1; c <= nc; c++)
			print row(cells[c], 1)
		print ""
		print "What these pairs can tell: the spread of the log of the ratio of a pair, the smallest true median"
		print "ratio they would show as sooner (interval below 1) 4 times in 5, and how many pairs would show"
		print "the median measured as sooner 4 times in 5 (a normal model of the logs: docs/benchmarks.md):"
		print ""
		print "| stack | vCPUs | condition | multi-user.target: spread | shown 4 in 5 from | pairs for its median | udev queue empty: spread | shown 4 in 5 from | pairs for its median |"
		print "|---|---|---|---|---|---|---|---|---|"
		for (c = 1; c <= nc; c++) {
			split(cells[c], f, SUBSEP)
			printf "| %s | %s | %s | %s | %s |\n", f[1], f[2], f[3], power(cells[c], "mu"), power(cells[c], "st")
		}
	}' "$stalls" "$records"
echo
echo "Code $(echo "$code" | sed 's/,/, /g') (bench/code-id.sh). With / without per pair, the median and its 95% interval"
echo "(sign-test order statistics, bench/boot-verdict.sh); below 1: sooner with modpreload."
