#!/usr/bin/env bash
# ab_bench.sh alternates go test binaries (built with go test -c from two
# versions of a package) on the benchmarks matching PATTERN, N rounds of
# BENCHTIME each, and prints per benchmark and binary the minimum and the
# median ns/op: on a shared machine one run of each, minutes apart, moved
# by 20-40%, and alternating puts both sides under the same load.
#
#   go test -c -o /tmp/old.test ./kernels   # on the old version
#   go test -c -o /tmp/new.test ./kernels   # on the new one
#   scripts/ab_bench.sh 'Conv2DChainLayers/16x96' 6 0.1s /tmp/old.test /tmp/new.test
set -eu
if [ $# -lt 4 ]; then
	echo "usage: $0 PATTERN N BENCHTIME TESTBINARY..." >&2
	exit 2
fi
pat=$1 n=$2 bt=$3
shift 3
for _ in $(seq "$n"); do
	for b in "$@"; do
		"$b" -test.run '^$' -test.bench "$pat" -test.benchtime "$bt" | awk -v b="$(basename "$b")" '/^Benchmark/ {print b, $1, $3}'
	done
done | awk '
	{ k = $2 " " $1; v[k, ++c[k]] = $3; keys[k] = 1 }
	END {
		for (k in keys) {
			n = c[k]
			for (i = 1; i <= n; i++) a[i] = v[k, i]
			for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
			split(k, f, " ")
			printf "%-64s %-14s min %10.0f  median %10.0f ns/op\n", f[1], f[2], a[1], (n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2)
		}
	}' | sort
