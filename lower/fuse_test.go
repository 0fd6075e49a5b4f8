package lower_test

import (
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/lower"
)

// TestFuseMatmulEpilogueResidual checks which adds and relus after a matmul
// FuseMatmulEpilogue takes into the fused kernel: the bias, then a residual
// of the output's shape on either side (the arguments end with the residual
// and 1 when it is the left operand), then relu; not a residual after a
// relu, a second residual, one that broadcasts, nor a product with another
// use.
func TestFuseMatmulEpilogueResidual(t *testing.T) {
	cases := []struct {
		name, body string
		nargs      int    // the fused call's arguments; 0: no fused call
		last       string // its residual and side, printed
		relu       bool
	}{
		{"residual right", "m = R.matmul(x, w)\n            b = R.add(m, bias)\n            gv = R.add(b, r)", 7, "r, 0", false},
		{"residual left", "m = R.matmul(x, w)\n            b = R.add(bias, m)\n            gv = R.add(r, b)", 7, "r, 1", false},
		{"residual then relu", "m = R.matmul(x, w)\n            b = R.add(m, bias)\n            c = R.add(r, b)\n            gv = R.nn.relu(c)", 7, "r, 1", true},
		{"relu then residual", "m = R.matmul(x, w)\n            b = R.add(m, bias)\n            c = R.nn.relu(b)\n            gv = R.add(c, r)", 5, "", true},
		{"two residuals", "m = R.matmul(x, w)\n            b = R.add(m, bias)\n            c = R.add(b, r)\n            gv = R.add(c, r)", 7, "r, 0", false},
		{"broadcast residual", "m = R.matmul(x, w)\n            b = R.add(m, bias)\n            gv = R.add(b, row)", 5, "", false},
		{"product used twice", "m = R.matmul(x, w)\n            b = R.add(m, bias)\n            c = R.add(b, r)\n            gv = R.add(c, b)", 5, "", false},
		// A product without bias takes its residual with 0 for the bias.
		{"no bias, residual right", "m = R.matmul(x, w)\n            gv = R.add(m, r)", 7, "0, 0, r, 0", false},
		{"no bias, residual left, relu", "m = R.matmul(x, w)\n            c = R.add(r, m)\n            gv = R.nn.relu(c)", 7, "0, 1, r, 1", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := `# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 16), dtype="float32"), bias: R.Tensor((16,), dtype="float32"), r: R.Tensor((4, 16), dtype="float32"), row: R.Tensor((1, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        with R.dataflow():
            ` + tc.body + `
            R.output(gv)
        return gv
`
			out, text := lowerThrough(t, "residual.py", src, "fuse-matmul-epilogue")
			calls := externCalls(out, lower.MatmulBiasKernel)
			if len(calls) == 0 {
				t.Fatalf("no fused call:\n%s", text)
			}
			fused := calls[len(calls)-1]
			args := fused.Args[1].(*ir.Tuple).Fields
			if len(args) != tc.nargs {
				t.Fatalf("fused call has %d arguments, want %d:\n%s", len(args), tc.nargs, text)
			}
			line := ""
			for _, l := range strings.Split(text, "\n") {
				if strings.Contains(l, lower.MatmulBiasKernel) {
					line = l
				}
			}
			if tc.last != "" && !strings.Contains(line, ", "+tc.last+")") {
				t.Errorf("fused call does not end with %s: %s", tc.last, line)
			}
			if relu := strings.Contains(line, "bias, 1") || strings.Contains(line, "0, 1, r"); relu != tc.relu {
				t.Errorf("relu fused %v, want %v: %s", relu, tc.relu, line)
			}
		})
	}
}
