package compiler_test

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/lower"
	"github.com/relaxgo/relaxgo/runtime"
)

// TestUnaryChainFusedBits compiles squeeze-and-excitation convolutions (a
// 1x1 convolution of one position) followed by a bias and a unary
// operation (sigmoid, silu, gelu, tanh), with the default passes and
// without FuseConvChain, and requires the chain in the convolution's call
// and the same bits from both; on a plane of positions the unary chain is
// left to the chain kernel.
func TestUnaryChainFusedBits(t *testing.T) {
	unfused := passesWithout("fuse-conv-chain")
	r := rand.New(rand.NewSource(43))
	arg := specialsArg(r)
	for _, hw := range []int{1, 3} {
		for _, op := range []string{"R.sigmoid(d)", "R.nn.silu(d)", "R.nn.gelu(d)", "R.tanh(d)"} {
			src := convBiasSrc(2, hw, "gv = "+op)
			args := []runtime.Value{arg(2, 24, int64(hw), int64(hw)), arg(40, 24, 1, 1), arg(1, 40, 1, 1)}
			_, want := compileRun(t, "se.py", src, unfused, args)
			text, got := compileRun(t, "se.py", src, nil, args)
			if strings.Contains(text, lower.EwChainKernel) != (hw > 1) {
				t.Fatalf("%dx%d %s: chain kernel left %v:\n%s", hw, hw, op, hw > 1, text)
			}
			sameBits(t, fmt.Sprintf("%dx%d %s fused", hw, hw, op), got, want)
		}
	}
}

// TestSiluPairFusedBits compiles a convolution with a bias and SiLU as ONNX
// exports it (a sigmoid and a product with its input, in either order),
// with the default passes and without the chain fusions, on one position,
// 3x3 and 14x14 planes (rows ending in a part vector), and requires the
// same bits, NaN payloads included: the pair is one chain step, and on
// planes the bias goes into the convolution's call and the SiLU into a
// chain of its own.
func TestSiluPairFusedBits(t *testing.T) {
	unfused := passesWithout("fuse-elementwise-chains", "fuse-conv-chain")
	r := rand.New(rand.NewSource(44))
	arg := specialsArg(r)
	for _, hw := range []int{1, 3, 14} {
		for _, prod := range []string{"R.multiply(d, s)", "R.multiply(s, d)"} {
			src := convBiasSrc(1, hw, "s = R.sigmoid(d)\n            gv = "+prod)
			args := []runtime.Value{arg(1, 24, int64(hw), int64(hw)), arg(40, 24, 1, 1), arg(1, 40, 1, 1)}
			_, want := compileRun(t, "silu.py", src, unfused, args)
			text, got := compileRun(t, "silu.py", src, nil, args)
			what := fmt.Sprintf("%dx%d %s", hw, hw, prod)
			if strings.Contains(text, "kernels.sigmoid") || strings.Contains(text, "kernels.multiply") || !strings.Contains(text, lower.Conv2DChainKernel) {
				t.Fatalf("%s: not fused:\n%s", what, text)
			}
			if strings.Contains(text, lower.EwChainKernel) != (hw > 1) {
				t.Fatalf("%s: chain kernel left %v:\n%s", what, hw > 1, text)
			}
			sameBits(t, what, got, want)
		}
	}
}

// specialsArg returns a maker of random float32 arguments in which about one
// element in nine is a NaN (a random payload), -Inf or -0.
func specialsArg(r *rand.Rand) func(shape ...int64) *runtime.Tensor {
	return func(shape ...int64) *runtime.Tensor {
		return randArg(r, 9, func(r *rand.Rand) float32 {
			return []float32{math.Float32frombits(0x7fc00000 | uint32(r.Intn(1<<22))), float32(math.Inf(-1)), float32(math.Copysign(0, -1))}[r.Intn(3)]
		}, shape...)
	}
}

// convBiasSrc is a module whose main takes n images x of 24 channels on
// hw x hw, a 1x1 convolution to 40 channels c, its bias d, then body
// (TVMScript lines at the block's indentation, binding gv).
func convBiasSrc(n, hw int, body string) string {
	return fmt.Sprintf(`# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((%[1]d, 24, %[2]d, %[2]d), dtype="float32"), w: R.Tensor((40, 24, 1, 1), dtype="float32"), b: R.Tensor((1, 40, 1, 1), dtype="float32")) -> R.Tensor((%[1]d, 40, %[2]d, %[2]d), dtype="float32"):
        with R.dataflow():
            c = R.nn.conv2d(x, w)
            d = R.add(c, b)
            %[3]s
            R.output(gv)
        return gv
`, n, hw, body)
}
