# summary.awk: median GFLOP/s per benchmark over -count runs, and the
# relaxgo/OpenBLAS ratios (ratio: B as given; ratio-pp: B packed once, as a
# model's constant weights are). Input: `go test -bench` output.
/^BenchmarkSgemm\// {
	name = $1; sub(/-[0-9]+$/, "", name); sub(/^BenchmarkSgemm\//, "", name)
	for (i = 2; i <= NF; i++) if ($(i) == "GFLOP/s") v[name, ++n[name]] = $(i-1)
	if (!(name in names)) {
		names[name] = 1
		c = name; sub(/^impl=[a-z]+\//, "", c)
		if (!(c in seen)) { seen[c] = 1; order[++nc] = c }
	}
}
function median(name,    k, m, i, j, t, a) {
	m = n[name]
	for (i = 1; i <= m; i++) a[i] = v[name, i]
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
END {
	printf "%-36s %10s %10s %10s %8s %8s\n", "case", "relaxgo", "prepacked", "openblas", "ratio", "ratio-pp"
	for (c = 1; c <= nc; c++) {
		r = median("impl=relaxgo/" order[c]); p = median("impl=prepacked/" order[c]); o = median("impl=openblas/" order[c])
		med[order[c]] = r
		printf "%-36s %10.1f %10.1f %10.1f %8.2f %8.2f\n", order[c], r, p, o, (o > 0 ? r / o : 0), (o > 0 ? p / o : 0)
	}
	t1 = med["m=1024/n=1024/k=1024/threads=1"]
	if (t1 > 0) printf "relaxgo 2-thread scaling at 1024: %.2fx\n", med["m=1024/n=1024/k=1024/threads=2"] / t1
}
