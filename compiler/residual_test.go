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

// TestResidualChainFusedBits compiles convolutions followed by chains with
// a residual (the convolution's output first, the residual first, either
// side of subtract and divide) with the default passes and without
// FuseConvChain, and requires the same bits from both, on inputs with NaNs,
// infinities and signed zeros in the chain's operands. (Bytecode mode: compiled mode calls the same
// kernels, and TestONNXRealModels runs ResNet-18's and MobileNetV2's fused
// residuals in both.)
func TestResidualChainFusedBits(t *testing.T) {
	unfused := passesWithout("fuse-conv-chain")
	bodies := []string{
		"d = R.add(c, b)\n            e = R.add(d, r)\n            gv = R.nn.relu(e)",
		"e = R.add(r, c)\n            d = R.add(e, b)\n            gv = R.nn.relu(d)",
		"e = R.subtract(r, c)\n            gv = R.multiply(e, b)",
		"e = R.divide(c, r)\n            gv = R.add(e, b)",
		"e = R.divide(r, c)\n            gv = R.nn.relu(e)",
	}
	r := rand.New(rand.NewSource(31))
	specials := func(r *rand.Rand) float32 {
		return []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Copysign(0, -1)), 0}[r.Intn(4)]
	}
	arg := func(special bool, shape ...int64) *runtime.Tensor {
		if !special {
			return randArg(r, 9, nil, shape...)
		}
		return randArg(r, 9, specials, shape...)
	}
	for i, body := range bodies {
		src := fmt.Sprintf(`# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 16, 9, 9), dtype="float32"), w: R.Tensor((16, 16, 3, 3), dtype="float32"), b: R.Tensor((1, 16, 1, 1), dtype="float32"), r: R.Tensor((1, 16, 9, 9), dtype="float32")) -> R.Tensor((1, 16, 9, 9), dtype="float32"):
        with R.dataflow():
            c = R.nn.conv2d(x, w, padding=[1, 1, 1, 1])
            %s
            R.output(gv)
        return gv
`, body)
		// The specials in the chain's operands (in x or w they would make
		// every output NaN, which hides an operand order).
		args := []runtime.Value{arg(false, 1, 16, 9, 9), arg(false, 16, 16, 3, 3), arg(true, 1, 16, 1, 1), arg(true, 1, 16, 9, 9)}
		_, want := compileRun(t, "residual.py", src, unfused, args)
		text, got := compileRun(t, "residual.py", src, nil, args)
		if !strings.Contains(text, lower.Conv2DChainKernel) || strings.Contains(text, lower.EwChainKernel) {
			t.Fatalf("body %d: the residual chain is not in the convolution:\n%s", i, text)
		}
		sameBits(t, fmt.Sprintf("body %d fused", i), got, want)
	}
}
