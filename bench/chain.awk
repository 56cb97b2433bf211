# Where a contender's time went in the known graph: the chain of loads that
# decided when the last module went live, split into the kernel's time
# (each load call, enter to return) and the loader's (from the call a load
# waited for returning to this load's call entering: scheduling, opening
# the file, and waiting for a free worker).
#
# awk [-v ncpus=N] -f chain.awk DAG.tsv CALLS
#   DAG.tsv  name, init() ms, parents ("-" for none): bench/modules/dag.awk
#   CALLS    "CONTENDER<TAB>TID,ENTER_MS,EXIT_MS,ERRNO,NAME", one per load
#            call of one boot and variant (bench-lib.sh's bench.call)
# Prints one line per contender, tab-separated:
#   contender makespan_ms chain_nodes chain_kernel_ms chain_gap_ms
#   chain_init_ms kbound_ms extra_ms
# extra is the mean over all the contender's loads of what a load call took
# beyond its init()'s own time: the kernel's work around init().
# makespan (first call entered -> last call returned) = chain_kernel +
# chain_gap exactly.  chain_init is what the DAG's init() times add up to
# on that chain.  kbound is the longest path through the DAG when each
# module costs the least enter-to-return any contender of this boot took
# for it: a loader that wastes nothing between calls cannot beat it on
# this kernel and this host.  With ncpus (CPU-bound inits), kbound is at
# least the sum of those cheapest loads over ncpus.
BEGIN { FS = "\t" }
FNR == NR {
	ms[$1] = $2
	np[$1] = $3 == "-" ? 0 : split($3, tmp, ",")
	for (k = 1; k <= np[$1]; k++) par[$1, k] = tmp[k]
	order[++nodes] = $1	# parents come before children
	next
}
{
	c = $1
	split($2, f, ",")
	if (f[4] != 0) next
	if (!(c in seen)) { seen[c] = 1; cs[++ncs] = c }
	en[c, f[5]] = f[2]; ex[c, f[5]] = f[3]
	if (!((c, "first") in en) || f[2] < en[c, "first"]) en[c, "first"] = f[2]
	if (!(c in last) || f[3] > ex[c, last[c]]) last[c] = f[5]
	d = f[3] - f[2]
	extra[c] += d - ms[f[5]]; nload[c]++
	if (!(f[5] in best) || d < best[f[5]]) best[f[5]] = d
}
END {
	# the kernel's bound: longest path, each node at its cheapest load
	kb = 0; all = 0
	for (i = 1; i <= nodes; i++) {
		n = order[i]; s = 0
		for (k = 1; k <= np[n]; k++) if (fin[par[n, k]] > s) s = fin[par[n, k]]
		fin[n] = s + best[n]; all += best[n]
		if (fin[n] > kb) kb = fin[n]
	}
	if (ncpus > 0 && all / ncpus > kb) kb = all / ncpus
	for (j = 1; j <= ncs; j++) {
		c = cs[j]; n = last[c]
		kern = 0; gap = 0; init = 0; len = 0
		while (n != "") {
			kern += ex[c, n] - en[c, n]; init += ms[n]; len++
			# the parent whose return this load waited for last
			p = ""
			for (k = 1; k <= np[n]; k++) {
				q = par[n, k]
				if ((c, q) in ex && (p == "" || ex[c, q] > ex[c, p])) p = q
			}
			gap += en[c, n] - (p == "" ? en[c, "first"] : ex[c, p])
			n = p
		}
		printf "%s\t%.0f\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.1f\n", c, ex[c, last[c]] - en[c, "first"], len, kern, gap, init, kb,
			extra[c] / nload[c]
	}
}
