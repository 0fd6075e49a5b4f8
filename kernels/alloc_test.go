package kernels

import (
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// TestSteadyStateAllocs checks that common ops do not allocate per call,
// through both the typed functions and the packed registry.
func TestSteadyStateAllocs(t *testing.T) {
	x := randT(t, 1, []int64{8, 64}, f32, -2, 2)
	y := randT(t, 2, []int64{64}, f32, -2, 2)
	g := randT(t, 3, []int64{64}, f32, 0.5, 1.5)
	out := mustT(t, []int64{8, 64}, f32)
	flat := mustT(t, []int64{512}, f32)
	axes := runtime.Shape{-1}
	shape := runtime.Shape{512}
	add, _ := runtime.Lookup("kernels.add")
	relu, _ := runtime.Lookup("kernels.nn.relu")
	sm, _ := runtime.Lookup("kernels.nn.softmax")
	ln, _ := runtime.Lookup("kernels.nn.layer_norm")
	rs, _ := runtime.Lookup("kernels.reshape")
	argsAdd := []runtime.Value{x, y, out}
	argsRelu := []runtime.Value{x, out}
	argsSm := []runtime.Value{x, int64(-1), out}
	argsLn := []runtime.Value{x, g, y, axes, 1e-5, true, true, out}
	argsRs := []runtime.Value{x, shape, flat}
	cases := []struct {
		name string
		fn   func()
	}{
		{"Add", func() { _ = Add(out, x, y) }},
		{"Add same shape", func() { _ = Add(out, x, x) }},
		{"Multiply scalar", func() { _ = Multiply(out, x, g) }},
		{"Relu", func() { _ = Relu(out, x) }},
		{"Gelu", func() { _ = Gelu(out, x) }},
		{"Exp", func() { _ = Exp(out, x) }},
		{"Softmax", func() { _ = Softmax(out, x, -1) }},
		{"LayerNorm", func() { _ = LayerNorm(out, x, g, y, LayerNormAttrs{Axes: axes, Epsilon: 1e-5}) }},
		{"Reshape", func() { _ = Reshape(flat, x, shape) }},
		{"PermuteDims", func() { _ = PermuteDims(outT, x, nil) }},
		{"Sum", func() { _ = Sum(mustSum, x, axes, false) }},
		{"packed add", func() { _, _ = add(argsAdd) }},
		{"packed relu", func() { _, _ = relu(argsRelu) }},
		{"packed softmax", func() { _, _ = sm(argsSm) }},
		{"packed layer_norm", func() { _, _ = ln(argsLn) }},
		{"packed reshape", func() { _, _ = rs(argsRs) }},
	}
	mustSum = mustT(t, []int64{8}, f32)
	outT = mustT(t, []int64{64, 8}, f32)
	for _, c := range cases {
		if n := testing.AllocsPerRun(50, c.fn); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", c.name, n)
		}
	}
}

var mustSum *runtime.Tensor
var outT *runtime.Tensor
