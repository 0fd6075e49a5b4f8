#!/usr/bin/env bash
# tvm_fidelity.sh: measures how much of what Apache TVM's own tests write
# relaxgo reads. Developer tool (needs python3 and a TVM source tree); no
# test runs it.
#
#   scripts/tvm_fidelity.sh TVM_SRC [OUT_DIR]
#
# TVM_SRC is a checkout (or `git archive` extract) of apache/tvm. Every class
# decorated with ir_module in tests/python/relax/**/*.py is cut out, dedented
# and given the usual "# from tvm.script import ..." header, then run through
# `relaxgo print` (all modules) and `relaxgo build` (those of the frontend
# tests). Failures whose first error is a Python variable no TVMScript parser
# can resolve (the tests build modules from Python values) are counted apart.
set -u
src=${1:?usage: tvm_fidelity.sh TVM_SRC [OUT_DIR]}
out=${2:-/tmp/relaxgo-tvm-fidelity}
here=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$out/mods"; mkdir -p "$out/mods"
(cd "$here" && go build -o "$out/relaxgo" ./cmd/relaxgo) || exit 1
python3 - "$src/tests/python/relax" "$out/mods" <<'PY'
import glob, os, re, sys, textwrap
root, dst = sys.argv[1], sys.argv[2]
hdr = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n# from tvm.script import tir as T\n\n"
deco = re.compile(r"^(\s*)@(I\.ir_module|tvm\.script\.ir_module|ir_module|tvm\.script\.ir\.ir_module)\b")
n = 0
for f in sorted(glob.glob(root + "/**/*.py", recursive=True)):
    lines = open(f, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = deco.match(lines[i])
        if not m:
            i += 1
            continue
        ind, j = len(m.group(1)), i
        while j < len(lines) and lines[j].strip().startswith("@"):
            j += 1
        if j >= len(lines) or not lines[j].strip().startswith("class "):
            i += 1
            continue
        k = j + 1
        while k < len(lines) and (lines[k].strip() == "" or len(lines[k]) - len(lines[k].lstrip()) > ind):
            k += 1
        cls = re.match(r"\s*class\s+(\w+)", lines[j]).group(1)
        n += 1
        name = os.path.relpath(f, root).replace("/", "_")[:-3]
        with open(f"{dst}/{name}__{cls}__{n}.py", "w") as w:
            w.write(hdr + textwrap.dedent("\n".join(lines[i:k]).rstrip() + "\n"))
        i = k
print(f"extracted {n} modules")
PY
pyvar='undefined variable|undefined name|found "[A-Za-z_][A-Za-z0-9_]*"$|found [A-Za-z_][A-Za-z0-9_]*$|R.const takes a number|unsupported expression "(MS|relax|topi|tvm|te)\.'
tally() { # tally CMD FILTER LABEL
  local ok=0 fail=0 f r
  : > "$out/fail_$3.txt"
  for f in $(ls "$out/mods" | grep -E "$2"); do
    if [ "$1" = build ]; then r=$(timeout 60 "$out/relaxgo" build -o "$out/x.vmexec" "$out/mods/$f" 2>&1)
    else r=$(timeout 60 "$out/relaxgo" print "$out/mods/$f" 2>&1 >/dev/null); fi
    if [ $? -eq 0 ]; then ok=$((ok+1)); else fail=$((fail+1)); printf '%s\t%s\n' "$f" "$(head -1 <<<"$r" | cut -c1-300)" >> "$out/fail_$3.txt"; fi
  done
  local py; py=$(grep -cE "$pyvar" "$out/fail_$3.txt")
  local crash; crash=$(grep -c "panic\|goroutine " "$out/fail_$3.txt")
  printf '%-28s %5d ok %5d failed (%d of them on Python variables; %d panics): %.1f%%, %.1f%% without the Python-variable ones\n' \
    "$3" "$ok" "$fail" "$py" "$crash" "$(bc -l <<<"100*$ok/($ok+$fail)")" "$(bc -l <<<"100*$ok/($ok+$fail-$py)")"
}
tally print . print_all
for fe in from_fx from_exported_program onnx tflite dynamo; do
  tally build "^test_frontend_${fe}__" "build_$fe"
done
echo "first errors of each failure: $out/fail_*.txt"
