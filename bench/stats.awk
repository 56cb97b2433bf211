# runs.tsv -> summary.tsv: for every scenario, kernel, variant, contender,
# vCPU count and key with numeric values, the number of runs, the median,
# the minimum and the maximum.
#   in:  scenario kernel variant contender vcpus run key value
#   out: scenario kernel variant contender vcpus key n median min max
BEGIN { FS = OFS = "\t" }
$8 ~ /^-?[0-9]+(\.[0-9]+)?$/ {
	g = $1 OFS $2 OFS $3 OFS $4 OFS $5 OFS $7
	n = ++cnt[g]
	v[g, n] = $8 + 0
	if (!(g in order)) { order[g] = ++ng; groups[ng] = g }
}
END {
	for (k = 1; k <= ng; k++) {
		g = groups[k]; n = cnt[g]
		for (i = 1; i <= n; i++) a[i] = v[g, i]
		for (i = 2; i <= n; i++) {	# insertion sort: a handful of runs
			x = a[i]
			for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]
			a[j + 1] = x
		}
		med = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		print g, n, med, a[1], a[n]
	}
}
