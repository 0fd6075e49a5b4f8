package kernels

import (
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// TestConcatStackFlatArgs checks that kernels.concat and kernels.stack give
// the same result for their tensors passed as one Tuple and passed
// themselves (the compiler's form, which builds no tuple per call), refuse
// a non-tensor in the flattened list, and allocate nothing in that form.
func TestConcatStackFlatArgs(t *testing.T) {
	a := randT(t, 1, []int64{2, 3}, f32, -1, 1)
	b := randT(t, 2, []int64{2, 3}, f32, -1, 1)
	c := randT(t, 3, []int64{2, 3}, f32, -1, 1)
	for _, k := range []struct {
		name  string
		shape []int64
		axis  runtime.Value
	}{{"kernels.concat", []int64{2, 9}, int64(1)}, {"kernels.stack", []int64{2, 3, 3}, int64(2)}} {
		f, _ := runtime.Lookup(k.name)
		want, got := mustT(t, k.shape, f32), mustT(t, k.shape, f32)
		if _, err := f([]runtime.Value{runtime.Tuple{a, b, c}, k.axis, want}); err != nil {
			t.Fatal(err)
		}
		flat := []runtime.Value{a, b, c, k.axis, got}
		if _, err := f(flat); err != nil {
			t.Fatal(err)
		}
		for i, v := range want.Float32s() {
			if got.Float32s()[i] != v {
				t.Fatalf("%s: flat [%d] = %v, tuple %v", k.name, i, got.Float32s()[i], v)
			}
		}
		if _, err := f([]runtime.Value{a, int64(3), c, k.axis, got}); err == nil {
			t.Errorf("%s: a non-tensor among the flattened tensors was accepted", k.name)
		}
		if !raceEnabled {
			if n := testing.AllocsPerRun(50, func() { _, _ = f(flat) }); n != 0 {
				t.Errorf("%s: %v allocations per flat call, want 0", k.name, n)
			}
		}
	}
}
