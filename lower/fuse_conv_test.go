package lower_test

import (
	"fmt"
	"testing"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/lower"
)

// TestFuseConvChainResidual checks that FuseConvChain takes a residual
// connection into the fused convolution (an operand of the output's shape
// added after the bias, before the relu: one conv2d_chain call, no chain
// kernel left), also when the chain starts from the residual, and leaves
// the chain to its own kernel where the fused one would not take it: two
// images, a grouped convolution, a maximum with the residual, two
// residuals, a chain whose first step is on the residual alone; and takes
// the steps before an erf, leaving the rest to the chain kernel.
func TestFuseConvChainResidual(t *testing.T) {
	cases := []struct {
		name                    string
		n, groups               int
		body                    string
		fused, chainKernelLeft  bool
		wantCodes, wantOperands int
	}{
		{"add", 1, 1, "d = R.add(c, b)\n            e = R.add(d, r)\n            gv = R.nn.relu(e)", true, false, 3, 2},
		{"residual alone, on the left", 1, 1, "gv = R.add(r, c)", true, false, 1, 1},
		// A chain that starts from the residual (its first add's left
		// operand): the same chain on the convolution, first step's sides
		// swapped.
		{"chain from the residual", 1, 1, "e = R.add(r, c)\n            d = R.add(e, b)\n            gv = R.nn.relu(d)", true, false, 3, 2},
		{"chain from the residual, relu first", 1, 1, "e = R.nn.relu(r)\n            d = R.subtract(e, c)\n            gv = R.add(d, b)", false, true, 0, 0},
		{"residual alone", 1, 1, "gv = R.subtract(c, r)", true, false, 1, 1},
		{"two images", 2, 1, "d = R.add(c, b)\n            e = R.add(d, r)\n            gv = R.nn.relu(e)", false, true, 0, 0},
		{"grouped", 1, 2, "d = R.add(c, b)\n            e = R.add(d, r)\n            gv = R.nn.relu(e)", false, true, 0, 0},
		{"maximum", 1, 1, "d = R.add(c, b)\n            gv = R.maximum(d, r)", false, true, 0, 0},
		{"two residuals", 1, 1, "d = R.add(c, r)\n            gv = R.multiply(d, r2)", false, true, 0, 0},
		// A unary step on planes: the steps before it fused, the rest
		// left a chain on the fused call's result.
		{"erf in the chain", 1, 1, "d = R.add(c, r)\n            e = R.erf(d)\n            gv = R.add(e, b)", true, true, 1, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf(`# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((%[1]d, 4, 5, 5), dtype="float32"), w: R.Tensor((4, %[2]d, 3, 3), dtype="float32"), b: R.Tensor((1, 4, 1, 1), dtype="float32"), r: R.Tensor((%[1]d, 4, 5, 5), dtype="float32"), r2: R.Tensor((%[1]d, 4, 5, 5), dtype="float32")) -> R.Tensor((%[1]d, 4, 5, 5), dtype="float32"):
        with R.dataflow():
            c = R.nn.conv2d(x, w, padding=[1, 1, 1, 1], groups=%[3]d)
            %[4]s
            R.output(gv)
        return gv
`, tc.n, 4/tc.groups, tc.groups, tc.body)
			out, text := lowerThrough(t, "residual.py", src, "fuse-conv-chain")
			var fused *ir.Call
			chainLeft := false
			for _, f := range out.RelaxFuncs() {
				ir.VisitExpr(f.Body, func(e ir.Expr) bool {
					if c, ok := e.(*ir.Call); ok && len(c.Args) == 2 {
						if ext, ok := c.Args[0].(*ir.ExternFunc); ok {
							switch ext.Symbol {
							case lower.Conv2DChainKernel:
								fused = c
							case lower.EwChainKernel:
								chainLeft = true
							}
						}
					}
					return true
				})
			}
			if chainLeft != tc.chainKernelLeft || (fused != nil) != tc.fused {
				t.Fatalf("fused %v, chain kernel left %v; want %v, %v:\n%s", fused != nil, chainLeft, tc.fused, tc.chainKernelLeft, text)
			}
			if fused == nil {
				return
			}
			args := fused.Args[1].(*ir.Tuple).Fields
			codes, ops := args[10].(*ir.ShapeExpr).Values, args[11:]
			if len(codes) != tc.wantCodes || len(ops) != tc.wantOperands {
				t.Errorf("codes %v, %d operands; want %d and %d:\n%s", codes, len(ops), tc.wantCodes, tc.wantOperands, text)
			}
			hasR := false
			for _, o := range ops {
				if v, ok := o.(*ir.Var); ok && v.Name == "r" {
					hasR = true
				}
			}
			if !hasR {
				t.Errorf("the residual r is not an operand of the fused call:\n%s", text)
			}
		})
	}
}
