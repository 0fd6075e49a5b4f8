package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// loopAlign is the alignment (bytes) of every loop head in the generated
// assembly: the first instruction after a label that a later jump of the
// same function targets. The Go assembler pads neither labels nor, in
// hand-written assembly, jumps (cmd/internal/obj/x86 pads jumps against
// Intel's JCC erratum only in compiled Go), so a loop started wherever the
// code before it ended and ran at a speed that moved with that place.
// BenchmarkSgemmKernelL1 (AVX-512 Intel Xeon, Cascade Lake, five
// alternated runs, medians in GFLOP/s): the 14x32 tile 109 -> 143 (its
// fastest before, 110; the register-only peak of this machine ~150), 8x48
// 117 -> 136, 8x16 51 -> 66, 8x32 139 -> 134, the others unchanged. Where
// the data come from L2 or memory (whole products and convolution layers)
// the change was within the noise. The padding (NOPs) runs once per loop
// entry.
const loopAlign = 64

var (
	labelRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*):\s*$`)
	jumpRE  = regexp.MustCompile(`^\s+J[A-Z]+\s+([A-Za-z_][A-Za-z0-9_]*)\s*$`)
)

// alignLoops inserts PCALIGN before the loop heads of the assembly text
// src (see loopAlign): labels that a jump after them, within the same TEXT,
// targets. A label directly after another label is left as it is (jumps to
// a label just before a PCALIGN were once assembled wrong, go.dev/issue/74648).
func alignLoops(src string) string {
	lines := strings.SplitAfter(src, "\n")
	labels := make([]string, len(lines)) // the label a line defines, or ""
	heads := map[int]bool{}              // line indexes of loop-head labels
	defined := map[string]int{}
	for i, l := range lines {
		l = strings.TrimRight(l, "\n")
		if strings.HasPrefix(l, "TEXT ") {
			defined = map[string]int{} // labels are the function's own
		}
		if m := labelRE.FindStringSubmatch(l); m != nil {
			labels[i] = m[1]
			defined[m[1]] = i
		} else if m := jumpRE.FindStringSubmatch(l); m != nil {
			if at, ok := defined[m[1]]; ok {
				heads[at] = true
			}
		}
	}
	var b strings.Builder
	for i, l := range lines {
		if heads[i] && (i == 0 || labels[i-1] == "") {
			fmt.Fprintf(&b, "\tPCALIGN $%d\n", loopAlign)
		}
		b.WriteString(l)
	}
	return b.String()
}

// alignOutput rewrites the file avo wrote (its -out flag) with alignLoops.
func alignOutput() {
	f := flag.Lookup("out")
	if f == nil || f.Value.String() == "" {
		return
	}
	path := f.Value.String()
	src, err := os.ReadFile(path)
	if err == nil {
		err = os.WriteFile(path, []byte(alignLoops(string(src))), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen: aligning loops:", err)
		os.Exit(1)
	}
}
