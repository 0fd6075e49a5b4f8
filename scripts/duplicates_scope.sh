#!/usr/bin/env bash
# duplicates_scope.sh runs the `duplicates` tool (the development machines'
# tool library) on the part of the tree that issue 9 measured at 218 pairs:
# the files tracked at 552254e that still exist, as they are now, plus the
# successors of the files issue 9 moved (gen/tirgo, internal/conformance,
# internal/bytecode, and the five then-existing examples' generated files).
# The whole tree has since doubled (the ONNX importer, more kernels, more
# examples); plain `duplicates` measures it all.
#
#   scripts/duplicates_scope.sh [duplicates flags, e.g. --most 140]
set -eu
root=$(git rev-parse --show-toplevel)
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
	git ls-tree -r --name-only 552254e
	git ls-files gen/tirgo internal/conformance internal/bytecode
	for e in cnn control dynamic mlp transformer; do
		git ls-files "examples/$e/model/model.relaxgo.go" "examples/$e/model/model.relaxgo_test.go"
	done
} | sort -u | while read -r f; do
	if [ -f "$f" ] && git ls-files --error-unmatch "$f" >/dev/null 2>&1; then
		mkdir -p "$tmp/$(dirname "$f")"
		cp "$f" "$tmp/$f"
	fi
done
duplicates --repo "$tmp" --seconds 60 "$@"
