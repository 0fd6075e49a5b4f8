#!/usr/bin/env bash
# onnx_bench.sh times the real ONNX models of testdata/onnxmodels in relaxgo
# (compiled mode, from the .onnx file) and in ONNX Runtime (check_ort.js,
# graph optimizations 'all'), alternating per model so machine noise hits
# both alike, and prints relaxgo/ORT median ratios (< 1: relaxgo is faster).
# With -r ROUNDS (default 1) each model alternates the two ROUNDS times and
# the line gives the medians of the rounds' medians and of their ratios,
# with the lowest and highest ratio: on a shared machine one round's ratio
# moved by 30% between runs. Models that run in under a millisecond need
# more calls than the default: 20 calls of the decoder last 5 ms, shorter
# than the slow stretches of a shared VM (a trace of its calls showed tens
# of calls at 213-280 µs, then tens at 320-490), so give them -n 300
# (the decoder's ratio 0.69 there against 1.11 at -n 20, the same code).
#
#   scripts/onnx_bench.sh [-t THREADS] [-n RUNS] [-r ROUNDS] [-d DIR] [model ...]
#
# -d times the model folders of another directory laid out the same way
# (model.onnx, inputs.npz, expected.npz with the graph's output names).
#
# Needs node and onnxruntime-node (check_ort.js says where it looks).
set -eu
threads=1 runs=20 rounds=1
dir=
while getopts t:n:r:d: opt; do
	case $opt in
	t) threads=$OPTARG ;;
	n) runs=$OPTARG ;;
	r) rounds=$OPTARG ;;
	d) dir=$OPTARG ;;
	*) echo "usage: $0 [-t THREADS] [-n RUNS] [-r ROUNDS] [-d DIR] [model ...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $dir in /* | "") ;; *) dir=$PWD/$dir ;; esac
cd "$(dirname "$0")/.."
dir=${dir:-testdata/onnxmodels}
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
	for m in "$dir"/*/model.onnx; do models+=("$(basename "$(dirname "$m")")"); done
fi
bin=$(mktemp -d)/relaxgo
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/relaxgo
echo "# threads=$threads runs=$runs $(grep -o -w 'avx512f\|avx2' /proc/cpuinfo | sort -u | tr '\n' ' ')$("$bin" version | grep -o "isa=[a-z0-9]*")"
printf '%-16s %14s %14s %8s %13s\n' model relaxgo_us ort_us ratio ratio_range
for m in "${models[@]}"; do
	rows=""
	for _ in $(seq "$rounds"); do
		r=$("$bin" bench --mode=compiled --threads "$threads" -n "$runs" --inputs "$dir/$m/inputs.npz" "$dir/$m/model.onnx" | awk '$1 == "compiled" {print $2}')
		o=$(node testdata/onnxmodels/check_ort.js --time "$runs" --threads "$threads" "$dir/$m" | sed -n 's/.*median_us=\([0-9.]*\).*/\1/p')
		# relaxgo prints a Go duration (e.g. 12.3ms, 950µs); convert to µs.
		us=$(echo "$r" | awk '{v=$1; if (v ~ /ms$/) {sub(/ms$/,"",v); v*=1000} else if (v ~ /µs$/) {sub(/µs$/,"",v)} else if (v ~ /ns$/) {sub(/ns$/,"",v); v/=1000} else if (v ~ /s$/) {sub(/s$/,"",v); v*=1e6}; printf "%.1f", v}')
		rows="$rows$us $o"$'\n'
	done
	printf '%s' "$rows" | awk -v m="$m" '
		function med(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }; return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }
		NF == 2 { n++; r[n] = $1; o[n] = $2; q[n] = $1 / $2; lo = (n == 1 || q[n] < lo) ? q[n] : lo; hi = (n == 1 || q[n] > hi) ? q[n] : hi }
		END { printf "%-16s %14.1f %14.1f %8.2f %6.2f-%-6.2f\n", m, med(r, n), med(o, n), med(q, n), lo, hi }'
done
