package lower_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/kernels"
	"github.com/relaxgo/relaxgo/lower"
)

// TestFuseElementwiseChainsUnary checks that FuseElementwiseChains takes
// transcendental steps into a chain: PyTorch's erf GELU as ONNX exports it
// (x/sqrt2, erf, +1, x*, *0.5: the chain's input an operand of a later
// step) becomes one chain call whose codes are the five steps in order,
// and a lone unary operation is left as it is; a sigmoid and the product
// of its input with it become one SiLU step (kernels.EwChainXSigmoid or
// EwChainSilu by the product's order). The codes are the kernel's
// (kernels.EwChainErf...), which the lowering mirrors.
func TestFuseElementwiseChainsUnary(t *testing.T) {
	cases := []struct {
		name, body string
		want       []int64 // the chain's codes; nil: no chain
		operands   int
	}{
		{"erf gelu", `d = R.divide(x, R.const(1.4142135381698608, "float32"))
            e = R.erf(d)
            a = R.add(e, R.const(1.0, "float32"))
            m = R.multiply(x, a)
            gv = R.multiply(m, R.const(0.5, "float32"))`, []int64{6, kernels.EwChainErf, 0, 5, 4}, 4},
		{"silu then scale", `s = R.nn.silu(x)
            gv = R.multiply(s, y)`, []int64{kernels.EwChainSilu, 4}, 1},
		{"exp, tanh, sigmoid, gelu, gelu_tanh", `a = R.exp(x)
            b = R.tanh(a)
            c = R.sigmoid(b)
            d = R.nn.gelu(c)
            gv = R.nn.gelu_tanh(d)`, []int64{kernels.EwChainExp, kernels.EwChainTanh, kernels.EwChainSigmoid, kernels.EwChainGelu, kernels.EwChainGeluTanh}, 0},
		{"lone erf", `gv = R.erf(x)`, nil, 0},
		// SiLU as ONNX exports it, a sigmoid and a product with its input:
		// one step in either order, alone too.
		{"x * sigmoid(x)", `s = R.sigmoid(x)
            gv = R.multiply(x, s)`, []int64{kernels.EwChainXSigmoid}, 0},
		{"sigmoid(x) * x after a bias", `b = R.add(x, y)
            s = R.sigmoid(b)
            gv = R.multiply(s, b)`, []int64{0, kernels.EwChainSilu}, 1},
		// A sigmoid used again is no pair: it stays, an operand of the
		// chain from x.
		{"sigmoid used twice", `s = R.sigmoid(x)
            m = R.multiply(x, s)
            gv = R.add(m, s)`, []int64{4, 0}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := `# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 32, 64), dtype="float32"), y: R.Tensor((64,), dtype="float32")) -> R.Tensor((2, 32, 64), dtype="float32"):
        with R.dataflow():
            ` + tc.body + `
            R.output(gv)
        return gv
`
			out, text := lowerThrough(t, "chain.py", src, "fuse-elementwise-chains")
			chains := externCalls(out, lower.EwChainKernel)
			if tc.want == nil {
				if len(chains) != 0 {
					t.Fatalf("a chain call:\n%s", text)
				}
				return
			}
			if len(chains) != 1 {
				t.Fatalf("%d chain calls, want 1:\n%s", len(chains), text)
			}
			args := chains[0].Args[1].(*ir.Tuple).Fields
			var codes []int64
			for _, v := range args[1].(*ir.ShapeExpr).Values {
				iv, ok := v.(*ir.IntImm)
				if !ok {
					t.Fatalf("code %v is not a literal", v)
				}
				codes = append(codes, iv.Value)
			}
			if !slices.Equal(codes, tc.want) || len(args)-2 != tc.operands {
				t.Errorf("codes %v with %d operands, want %v with %d:\n%s", codes, len(args)-2, tc.want, tc.operands, text)
			}
			for _, op := range []string{"kernels.erf", "kernels.exp", "kernels.nn.silu"} {
				if strings.Contains(text, `"`+op+`"`) {
					t.Errorf("%s left unfused:\n%s", op, text)
				}
			}
		})
	}
}
