package kernels

import (
	"math"
	"slices"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func TestLogAddExpAndShifts(t *testing.T) {
	a, _ := runtime.FromSlice([]float64{0, 1, -1000, 1000, math.Inf(1), math.Inf(-1)}, 6)
	b, _ := runtime.FromSlice([]float64{0, 2, -1000, 999, math.Inf(1), math.Inf(-1)}, 6)
	out := runtime.MustNewTensor([]int64{6}, runtime.Float64)
	mustCall(t, "log_add_exp", a, b, out)
	want := []float64{math.Ln2, math.Log(math.Exp(1) + math.Exp(2)), -1000 + math.Ln2, 1000 + math.Log1p(math.Exp(-1)), math.Inf(1), math.Inf(-1)}
	for i, v := range out.Float64s() {
		if math.Abs(v-want[i]) > 1e-12 && !(math.IsInf(v, 0) && v == want[i]) {
			t.Errorf("log_add_exp[%d] = %v, want %v", i, v, want[i])
		}
	}
	// Shifts broadcast a (2, 3) tensor against a row of counts.
	x, _ := runtime.FromSlice([]int32{1, -8, 5, 16, -1, 3}, 2, 3)
	c, _ := runtime.FromSlice([]int32{2, 1, -1}, 3)
	shl := runtime.MustNewTensor([]int64{2, 3}, runtime.Int32)
	shr := runtime.MustNewTensor([]int64{2, 3}, runtime.Int32)
	mustCall(t, "left_shift", x, c, shl)
	mustCall(t, "right_shift", x, c, shr)
	if want := []int32{4, -16, 0, 64, -2, 0}; !slices.Equal(shl.Int32s(), want) {
		t.Errorf("left_shift = %v, want %v", shl.Int32s(), want)
	}
	if want := []int32{0, -4, 0, 4, -1, 0}; !slices.Equal(shr.Int32s(), want) {
		t.Errorf("right_shift = %v, want %v", shr.Int32s(), want)
	}
	f := runtime.MustNewTensor([]int64{3}, runtime.Float32)
	if err := call("left_shift", f, f, f); err == nil {
		t.Error("left_shift on floats accepted")
	}
	i := runtime.MustNewTensor([]int64{3}, runtime.Int32)
	if err := call("log_add_exp", i, i, i); err == nil {
		t.Error("log_add_exp on ints accepted")
	}
}
