# summary.awk: median GFLOP/s per benchmark over -count runs, and the
# relaxgo/OpenBLAS ratios. Input: `go test -bench` output.
/^BenchmarkSgemm\// {
	name = $1; sub(/-[0-9]+$/, "", name); sub(/^BenchmarkSgemm\//, "", name)
	for (i = 2; i <= NF; i++) if ($(i) == "GFLOP/s") v[name, ++n[name]] = $(i-1)
	names[name] = 1
}
function median(name,    k, m, i, j, t, a) {
	m = n[name]
	for (i = 1; i <= m; i++) a[i] = v[name, i]
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
END {
	split("size=256/threads=1 size=1024/threads=1 size=1024/threads=2", cs, " ")
	printf "%-22s %10s %10s %8s\n", "case", "relaxgo", "openblas", "ratio"
	for (c = 1; c <= 3; c++) {
		r = median("impl=relaxgo/" cs[c]); o = median("impl=openblas/" cs[c])
		med[cs[c]] = r
		printf "%-22s %10.1f %10.1f %8.2f\n", cs[c], r, o, (o > 0 ? r / o : 0)
	}
	printf "relaxgo 2-thread scaling at 1024: %.2fx\n", med["size=1024/threads=2"] / med["size=1024/threads=1"]
}
