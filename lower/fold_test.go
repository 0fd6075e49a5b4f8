package lower_test

import (
	"math"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/lower"
)

// TestFoldConstantPropagates checks that FoldConstant folds calls on
// variables bound to constants, including results it folded itself, and
// calls with shape arguments (a batch norm's sqrt(var + eps) reshaped to a
// channel vector), computing the values with the kernels, and leaves to run
// time a result larger than its inputs and foldMinElems (a broadcast) and
// calls that read a parameter.
func TestFoldConstantPropagates(t *testing.T) {
	src := `# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 3, 3), dtype="float32")) -> R.Tuple(R.Tensor((1, 2, 3, 3), dtype="float32"), R.Tensor((1, 2, 100, 100), dtype="float32")):
        with R.dataflow():
            v = R.const(np.array([2.0, 8.0], dtype=np.float32))
            a = R.add(v, R.const(0.25, "float32"))
            s = R.sqrt(a)
            r = R.reshape(s, R.shape([1, 2, 1, 1]))
            big = R.broadcast_to(r, R.shape([1, 2, 100, 100]))
            y = R.multiply(x, r)
            gv = (y, big)
            R.output(gv)
        return gv
`
	out, text := lowerThrough(t, "fold.py", src, "dead-code-elimination")
	for _, gone := range []string{"R.add", "R.sqrt", "R.reshape"} {
		if strings.Contains(text, gone) {
			t.Errorf("%s was not folded:\n%s", gone, text)
		}
	}
	for _, kept := range []string{"R.broadcast_to", "R.multiply"} {
		if !strings.Contains(text, kept) {
			t.Errorf("%s was folded or lost:\n%s", kept, text)
		}
	}
	// The folded channel vector is sqrt([2.25, 8.25]) reshaped.
	var found bool
	for _, f := range out.RelaxFuncs() {
		ir.VisitExpr(f.Body, func(e ir.Expr) bool {
			k, ok := e.(*ir.Constant)
			if !ok || k.Value.NDim() != 4 {
				return true
			}
			found = true
			got := k.Value.Float32s()
			for i, want := range []float64{math.Sqrt(2.25), math.Sqrt(8.25)} {
				if got[i] != float32(want) {
					t.Errorf("folded [%d] = %v, want %v", i, got[i], float32(want))
				}
			}
			return true
		})
	}
	if !found {
		t.Errorf("no folded 4-D constant:\n%s", text)
	}
}

// TestFoldConvAffine checks that FoldConvAffine folds a batch norm's
// subtract, multiply and add after a convolution with constant weights into
// the weights and one bias add (values from float64, rounded once), keeps
// the relu after them, and leaves alone a chain with nothing to scale (a
// bias add) and one whose scaling is not affine (a constant divided by the
// convolution).
func TestFoldConvAffine(t *testing.T) {
	const head = `# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 1, 3, 3), dtype="float32")) -> R.Tensor((1, 2, 3, 3), dtype="float32"):
        with R.dataflow():
            w = R.const(np.array([[[[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]]], [[[1.5, -2.5, 3.0], [0.0, 1.0, -1.0], [2.0, 0.25, -0.75]]]], dtype=np.float32))
            mean = R.const(np.array([[[0.3]], [[-1.7]]], dtype=np.float32))
            scale = R.const(np.array([[[3.1]], [[0.7]]], dtype=np.float32))
            shift = R.const(np.array([[[0.9]], [[-0.2]]], dtype=np.float32))
            c = R.nn.conv2d(x, w, padding=[1, 1, 1, 1])
`
	cases := []struct {
		name, body string
		folded     bool
	}{
		{"batch norm and relu", `            a = R.subtract(c, mean)
            b = R.multiply(a, scale)
            d = R.add(b, shift)
            gv = R.nn.relu(d)
`, true},
		{"bias only", `            d = R.add(c, shift)
            gv = R.nn.relu(d)
`, false},
		{"constant over conv", `            a = R.divide(scale, c)
            gv = R.add(a, shift)
`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := head + tc.body + "            R.output(gv)\n        return gv\n"
			out, text := lowerThrough(t, "foldconv.py", src, "fold-conv-affine")
			var call *ir.Call
			for _, f := range out.RelaxFuncs() {
				ir.VisitExpr(f.Body, func(e ir.Expr) bool {
					if c, ok := e.(*ir.Call); ok && len(c.Args) == 2 {
						if ext, ok := c.Args[0].(*ir.ExternFunc); ok && ext.Symbol == lower.Conv2DChainKernel {
							call = c
						}
					}
					return true
				})
			}
			if call == nil {
				t.Fatalf("no fused convolution:\n%s", text)
			}
			args := call.Args[1].(*ir.Tuple).Fields
			codes := args[10].(*ir.ShapeExpr).Values
			if !tc.folded {
				// The weights stay the bound constant w, the chain its two steps.
				if v, ok := args[1].(*ir.Var); !ok || v.Name != "w" || len(codes) != 2 {
					t.Errorf("chain or weights changed:\n%s", text)
				}
				return
			}
			w, ok := args[1].(*ir.Constant)
			if !ok {
				t.Fatalf("weights are %T, not a constant:\n%s", args[1], text)
			}
			ws := w.Value.Float32s()
			orig := []float32{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.5, -2.5, 3.0, 0.0, 1.0, -1.0, 2.0, 0.25, -0.75}
			mean, scale, shift := []float64{0.3, -1.7}, []float64{3.1, 0.7}, []float64{0.9, -0.2}
			for i := range orig {
				o := i / 9
				s := float64(float32(scale[o]))
				if want := float32(float64(orig[i]) * s); ws[i] != want {
					t.Errorf("weight %d = %v, want %v", i, ws[i], want)
				}
			}
			if len(codes) != 2 || codes[0].(*ir.IntImm).Value != 0 || codes[1].(*ir.IntImm).Value != 100 {
				t.Fatalf("codes %v, want add then relu:\n%s", codes, text)
			}
			bias, ok := args[11].(*ir.Constant)
			if !ok || len(args) != 12 {
				t.Fatalf("chain operands %v, want one constant bias:\n%s", args[11:], text)
			}
			for o, got := range bias.Value.Float32s() {
				s := float64(float32(scale[o]))
				want := float32(-float64(float32(mean[o]))*s + float64(float32(shift[o])))
				if got != want {
					t.Errorf("bias %d = %v, want %v", o, got, want)
				}
			}
		})
	}
}
