package compiler_test

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// TestFoldPadResults compiles explicit zero pads before average pools and
// convolutions with the default passes and without FoldPad, and requires
// the pad to be folded (or, where it must not be, kept) and the results to
// agree: bit for bit for the pools, within float32 rounding for the
// convolutions (whose paths may sum the same products in another order),
// on data with signed zeros and infinities.
func TestFoldPadResults(t *testing.T) {
	unfolded := passesWithout("fold-pad")
	cases := []struct {
		name, body string
		out        string // the result's shape
		folded     bool
		exact      bool
	}{
		{"avg pool", `p = R.nn.pad(x, pad_width=[0, 0, 0, 0, 1, 1, 1, 1], pad_mode="constant", pad_value=0.0)
            gv = R.nn.avg_pool2d(p, pool_size=[3, 3], strides=[1, 1], padding=[0, 0, 0, 0])`, "1, 8, 9, 11", true, true},
		{"asymmetric, strided avg pool", `p = R.nn.pad(x, pad_width=[0, 0, 0, 0, 0, 2, 1, 0], pad_mode="constant", pad_value=0.0)
            gv = R.nn.avg_pool2d(p, pool_size=[2, 3], strides=[2, 1], padding=[0, 0, 0, 0])`, "1, 8, 5, 10", true, true},
		{"avg pool counting its own padding", `p = R.nn.pad(x, pad_width=[0, 0, 0, 0, 1, 0, 0, 1], pad_mode="constant", pad_value=0.0)
            gv = R.nn.avg_pool2d(p, pool_size=[3, 3], strides=[1, 1], padding=[1, 1, 1, 1], count_include_pad=True)`, "1, 8, 10, 12", true, true},
		{"avg pool not counting its own padding", `p = R.nn.pad(x, pad_width=[0, 0, 0, 0, 1, 0, 0, 1], pad_mode="constant", pad_value=0.0)
            gv = R.nn.avg_pool2d(p, pool_size=[3, 3], strides=[1, 1], padding=[1, 1, 1, 1], count_include_pad=False)`, "1, 8, 10, 12", false, true},
		{"avg pool in ceil mode", `p = R.nn.pad(x, pad_width=[0, 0, 0, 0, 1, 1, 1, 1], pad_mode="constant", pad_value=0.0)
            gv = R.nn.avg_pool2d(p, pool_size=[3, 3], strides=[2, 2], padding=[0, 0, 0, 0], ceil_mode=True)`, "1, 8, 5, 6", false, true},
		{"pad value 1", `p = R.nn.pad(x, pad_width=[0, 0, 0, 0, 1, 1, 1, 1], pad_mode="constant", pad_value=1.0)
            gv = R.nn.avg_pool2d(p, pool_size=[3, 3], strides=[1, 1], padding=[0, 0, 0, 0])`, "1, 8, 9, 11", false, true},
		{"reflect", `p = R.nn.pad(x, pad_width=[0, 0, 0, 0, 1, 1, 1, 1], pad_mode="reflect", pad_value=0.0)
            gv = R.nn.avg_pool2d(p, pool_size=[3, 3], strides=[1, 1], padding=[0, 0, 0, 0])`, "1, 8, 9, 11", false, true},
		{"channel pad", `p = R.nn.pad(x, pad_width=[0, 0, 1, 0, 1, 1, 1, 1], pad_mode="constant", pad_value=0.0)
            gv = R.nn.avg_pool2d(p, pool_size=[3, 3], strides=[1, 1], padding=[0, 0, 0, 0])`, "1, 9, 9, 11", false, true},
		{"max pool", `p = R.nn.pad(x, pad_width=[0, 0, 0, 0, 1, 1, 1, 1], pad_mode="constant", pad_value=0.0)
            gv = R.nn.max_pool2d(p, pool_size=[3, 3], strides=[1, 1], padding=[0, 0, 0, 0])`, "1, 8, 9, 11", false, true},
		{"pad used twice", `p = R.nn.pad(x, pad_width=[0, 0, 0, 0, 1, 1, 1, 1], pad_mode="constant", pad_value=0.0)
            a = R.nn.avg_pool2d(p, pool_size=[3, 3], strides=[1, 1], padding=[0, 0, 0, 0])
            b = R.strided_slice(p, axes=[2, 3], begin=[0, 0], end=[9, 11], strides=[1, 1])
            gv = R.add(a, b)`, "1, 8, 9, 11", false, true},
		{"convolution", `p = R.nn.pad(x, pad_width=[0, 0, 0, 0, 2, 0, 1, 1], pad_mode="constant", pad_value=0.0)
            gv = R.nn.conv2d(p, w, strides=[1, 1], padding=[0, 0, 0, 0])`, "1, 8, 9, 11", true, false},
		{"convolution with its own padding, strided, and a chain", `p = R.nn.pad(x, pad_width=[0, 0, 0, 0, 1, 1, 0, 2], pad_mode="constant", pad_value=0.0)
            c = R.nn.conv2d(p, w, strides=[2, 2], padding=[1, 0, 1, 1])
            gv = R.nn.relu(c)`, "1, 8, 6, 6", true, false},
	}
	r := rand.New(rand.NewSource(5))
	arg := func(shape ...int64) *runtime.Tensor {
		return randArg(r, 11, func(r *rand.Rand) float32 {
			return []float32{float32(math.Inf(1)), float32(math.Copysign(0, -1)), 0}[r.Intn(3)]
		}, shape...)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf(`# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 8, 9, 11), dtype="float32"), w: R.Tensor((8, 8, 3, 3), dtype="float32")) -> R.Tensor((%s), dtype="float32"):
        with R.dataflow():
            %s
            R.output(gv)
        return gv
`, tc.out, tc.body)
			x, w := arg(1, 8, 9, 11), arg(8, 8, 3, 3)
			if !tc.exact {
				// Finite data: an infinity times a padded zero is NaN in
				// the explicit pad's products, which the folded padding
				// does not multiply.
				for _, tt := range []*runtime.Tensor{x, w} {
					for i, v := range tt.Float32s() {
						if math.IsInf(float64(v), 0) {
							tt.Float32s()[i] = 3
						}
					}
				}
			}
			_, want := compileRun(t, "pad.py", src, unfolded, []runtime.Value{x, w})
			text, got := compileRun(t, "pad.py", src, nil, []runtime.Value{x, w})
			if folded := !strings.Contains(text, "kernels.nn.pad"); folded != tc.folded {
				t.Fatalf("pad folded %v, want %v:\n%s", folded, tc.folded, text)
			}
			if tc.exact {
				sameBits(t, "folded", got, want) // the sums start from +0: no -0 among them
				return
			}
			for k := range want {
				if g, e := got[k], want[k]; math.Abs(float64(g-e)) > 1e-5*(1+math.Abs(float64(e))) {
					t.Fatalf("[%d] folded %v, unfolded %v", k, g, e)
				}
			}
		})
	}
}
