package gen

import (
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/kernels"
	"github.com/relaxgo/relaxgo/runtime"
)

// TestTypedKernels checks every kernel compiled code calls directly
// (typedKernels) against its packed function: same bits on random float32
// tensors (with broadcasting for the binary ones, and NaN and ±Inf among
// the inputs), and the typed function's name is the one the table emits.
func TestTypedKernels(t *testing.T) {
	fns := map[string]any{
		"Add": kernels.Add, "Subtract": kernels.Subtract, "Multiply": kernels.Multiply, "Divide": kernels.Divide,
		"Maximum": kernels.Maximum, "Minimum": kernels.Minimum, "Power": kernels.Power,
		"Exp": kernels.Exp, "Log": kernels.Log, "Sqrt": kernels.Sqrt, "Negative": kernels.Negative, "Tanh": kernels.Tanh,
		"Sigmoid": kernels.Sigmoid, "Relu": kernels.Relu, "Gelu": kernels.Gelu, "Silu": kernels.Silu,
	}
	r := rand.New(rand.NewSource(4))
	tensor := func(shape ...int64) *runtime.Tensor {
		x := runtime.MustNewTensor(shape, runtime.Float32)
		for i, xs := 0, x.Float32s(); i < len(xs); i++ {
			xs[i] = float32(r.NormFloat64() * 3)
			switch r.Intn(30) {
			case 0:
				xs[i] = float32(math.NaN())
			case 1:
				xs[i] = float32(math.Inf(1 - 2*r.Intn(2)))
			}
		}
		return x
	}
	for name, tk := range typedKernels {
		f, ok := fns[tk.fn]
		if !ok {
			t.Errorf("%s: kernels.%s is not in this test", name, tk.fn)
			continue
		}
		packed, ok := runtime.Lookup(name)
		if !ok {
			t.Errorf("%s is not registered", name)
			continue
		}
		want, got := runtime.MustNewTensor([]int64{3, 37}, runtime.Float32), runtime.MustNewTensor([]int64{3, 37}, runtime.Float32)
		var err, perr error
		switch tk.args {
		case 3:
			a, b := tensor(3, 37), tensor(37)
			_, perr = packed([]runtime.Value{a, b, want})
			err = f.(func(out, a, b *runtime.Tensor) error)(got, a, b)
		case 2:
			x := tensor(3, 37)
			_, perr = packed([]runtime.Value{x, want})
			err = f.(func(out, x *runtime.Tensor) error)(got, x)
		default:
			t.Fatalf("%s: %d arguments", name, tk.args)
		}
		if err != nil || perr != nil {
			t.Fatalf("%s: typed %v, packed %v", name, err, perr)
		}
		for i, w := range want.Float32s() {
			if g := got.Float32s()[i]; math.Float32bits(g) != math.Float32bits(w) {
				t.Fatalf("%s [%d]: typed %v, packed %v", name, i, g, w)
			}
		}
	}
}
