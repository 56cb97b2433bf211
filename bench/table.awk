# One markdown table from summary.tsv (bench/stats.awk's output).
#
# awk -v scen=storm -v rows="udev:udev coldplug dataflow:modpreload"
#     -v cols="bookworm:-:4:4 vCPUs ..." -v metric=window -v ref=dataflow
#     -v corner="contender" -f table.awk summary.tsv
#
#   rows    space-separated CONTENDER:LABEL (a label's spaces as "_")
#   cols    space-separated KERNEL:VARIANT:VCPUS:LABEL[:BOUND_MS]
#   metric  what a cell shows:
#     time KEY   milliseconds shown as seconds: median [min-max]; with ref,
#                "x R" the median over the ref row's median
#     bound KEY  the same, then "/ BOUND" as a ratio to the column's bound
#     calls      load syscalls (failed: EEXIST / EBUSY / other)
#     int KEY    a count: median [min-max]
#     mib KEY    bytes as MiB: median [min-max]
#     extra      calls beyond one per module loaded (bench.calls - bench.loaded)
function get(r, c, key, what,   k) {
	k = scen SUBSEP ck[c] SUBSEP cv[c] SUBSEP r SUBSEP cn[c] SUBSEP key
	if (!(k in med)) return ""
	return what == "n" ? n[k] : what == "min" ? lo[k] : what == "max" ? hi[k] : med[k]
}
function span(r, c, key, scale, fmt,   a, b) {
	if (get(r, c, key, "n") < 2) return ""
	a = sprintf(fmt, get(r, c, key, "min") / scale)
	b = sprintf(fmt, get(r, c, key, "max") / scale)
	return a == b ? "" : " [" a "–" b "]"
}
function cell(r, c,   m, v, e17, e16, oth, f, s, rf, b) {
	split(metric, m, " ")
	if (m[1] == "calls") {
		v = get(r, c, "bench.calls")
		if (v == "") return "–"
		f = get(r, c, "bench.failed"); e17 = get(r, c, "bench.errno.17") + 0; e16 = get(r, c, "bench.errno.16") + 0
		oth = f - e17 - e16
		s = sprintf("%d", v) span(r, c, "bench.calls", 1, "%d")
		if (f > 0) s = s sprintf(" (%d: %d / %d / %d)", f, e17, e16, oth)
		return s
	}
	if (m[1] == "extra") {
		v = get(r, c, "bench.calls")
		if (v == "") return "–"
		return sprintf("%d", v - get(r, c, "bench.loaded"))
	}
	v = get(r, c, m[2])
	if (v == "") return "–"
	if (m[1] == "int") return sprintf("%d", v) span(r, c, m[2], 1, "%d")
	if (m[1] == "mib") return sprintf("%.1f", v / 1048576) span(r, c, m[2], 1048576, "%.1f")
	s = sprintf("%.1f", v / 1000) span(r, c, m[2], 1000, "%.1f")
	if (m[1] == "time" && ref != "" && r != ref) {
		rf = get(ref, c, m[2])
		if (rf > 0) s = s sprintf(" ×%.2f", v / rf)
	}
	if (m[1] == "bound" && cb[c] > 0) s = s sprintf(" (×%.2f)", v / cb[c])
	return s
}
BEGIN { FS = "\t" }
{
	k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4 SUBSEP $5 SUBSEP $6
	n[k] = $7; med[k] = $8; lo[k] = $9; hi[k] = $10
}
END {
	nr = split(rows, rw, " ")
	nc = split(cols, cl, " ")
	for (c = 1; c <= nc; c++) {
		split(cl[c], p, ":")
		ck[c] = p[1]; cv[c] = p[2]; cn[c] = p[3]; clab[c] = p[4]; cb[c] = p[5] + 0
		gsub("_", " ", clab[c])
	}
	printf "| %s |", corner == "" ? "" : corner
	for (c = 1; c <= nc; c++) printf " %s |", clab[c]
	printf "\n|---|"
	for (c = 1; c <= nc; c++) printf "---:|"
	printf "\n"
	for (i = 1; i <= nr; i++) {
		split(rw[i], p, ":")
		lab = p[2]; gsub("_", " ", lab)
		printf "| %s |", lab
		for (c = 1; c <= nc; c++) printf " %s |", cell(p[1], c)
		printf "\n"
	}
}
