#!/usr/bin/env bash
# check.sh runs every model folder of DIR (written by export.py) through
# relaxgo in both modes and compares the outputs with PyTorch's
# (max |got - want| <= 1e-3 * max |want|) and the modes with each other.
#
#   /usr/bin/python3 scripts/zoo/export.py /tmp/zoo [name,...]   # needs python3-torch, -torchvision, -onnx
#   scripts/zoo/check.sh /tmp/zoo
#   scripts/onnx_bench.sh -d /tmp/zoo -n 8                       # against ONNX Runtime
set -eu
dir=${1:?usage: $0 DIR}
cd "$(dirname "$0")/../.."
bin=$(mktemp -d)/relaxgo
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/relaxgo
for d in "$dir"/*/; do
	n=$(basename "$d")
	for mode in bytecode compiled; do
		rm -f "$d/got_$mode.npz"
		if ! "$bin" run --mode=$mode --inputs "$d/inputs.npz" --output "$d/got_$mode.npz" "$d/model.onnx" > "$d/run_$mode.log" 2>&1; then
			echo "$n $mode: FAILED: $(tail -n 1 "$d/run_$mode.log")"
			continue 2
		fi
	done
	same=$(cmp -s "$d/got_bytecode.npz" "$d/got_compiled.npz" && echo "modes bit-equal" || echo "MODES DIFFER")
	echo "$n: $(/usr/bin/python3 scripts/zoo/compare.py "$d/expected.npz" "$d/got_compiled.npz"), $same"
done
