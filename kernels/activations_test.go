package kernels

import (
	"math"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func TestRelu6Selu(t *testing.T) {
	xs := []float32{-3, -0.5, 0, 0.5, 5.5, 6, 7, 100}
	for _, n := range []int{0, 1, 7, 8} {
		x, _ := runtime.FromSlice(xs[:n], int64(n))
		r6 := runtime.MustNewTensor([]int64{int64(n)}, runtime.Float32)
		se := runtime.MustNewTensor([]int64{int64(n)}, runtime.Float32)
		mustCall(t, "nn.relu6", x, r6)
		mustCall(t, "nn.selu", x, se)
		for i, v := range xs[:n] {
			if want := float32(math.Min(math.Max(float64(v), 0), 6)); r6.Float32s()[i] != want {
				t.Errorf("relu6(%v) = %v, want %v", v, r6.Float32s()[i], want)
			}
			want := 1.0507009873554805 * float64(v)
			if v <= 0 {
				want = 1.0507009873554805 * 1.6732632423543772 * (math.Exp(float64(v)) - 1)
			}
			if got := float64(se.Float32s()[i]); math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
				t.Errorf("selu(%v) = %v, want %v", v, got, want)
			}
		}
	}
	if err := Selu(runtime.MustNewTensor([]int64{2}, runtime.Int32), runtime.MustNewTensor([]int64{2}, runtime.Int32)); err == nil {
		t.Error("selu on int32 accepted")
	}
}

func TestAdaptiveAvgPool1D(t *testing.T) {
	x, _ := runtime.FromSlice([]float32{1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60}, 1, 2, 6)
	out := runtime.MustNewTensor([]int64{1, 2, 4}, runtime.Float32)
	mustCall(t, "nn.adaptive_avg_pool1d", x, runtime.Shape{4}, "NCW", nil, out)
	// Windows for 6 -> 4: [0,2) [1,3) [3,5) [4,6), as in TVM's adaptive pooling.
	want := []float32{1.5, 2.5, 4.5, 5.5, 15, 25, 45, 55}
	for i, v := range out.Float32s() {
		if v != want[i] {
			t.Fatalf("out = %v, want %v", out.Float32s(), want)
		}
	}
	if err := call("nn.adaptive_avg_pool1d", x, runtime.Shape{4}, "NWC", nil, out); err == nil {
		t.Error("NWC accepted")
	}
}

func TestWrapParam(t *testing.T) {
	x, _ := runtime.FromSlice([]float32{1.5, -2}, 2)
	out := runtime.MustNewTensor([]int64{2}, runtime.Float64)
	mustCall(t, "wrap_param", x, runtime.Float64, out)
	if out.Float64s()[0] != 1.5 || out.Float64s()[1] != -2 {
		t.Errorf("wrap_param = %v", out.Float64s())
	}
}

func TestPrelu(t *testing.T) {
	x := randT(t, 1, []int64{2, 3, 4}, f32, -2, 2)
	alpha := fromF(t, f32, []float64{0.1, 0.2, 0.3}, 3)
	o := mustT(t, []int64{2, 3, 4}, f32)
	mustCall(t, "nn.prelu", x, alpha, int64(1), o)
	want := vals(x)
	for i, v := range want {
		if v < 0 {
			want[i] = roundTo(f32, v*[]float64{0.1, 0.2, 0.3}[unravel(i, []int64{2, 3, 4})[1]])
		}
	}
	expectClose(t, "prelu", o, want, 1e-6, 0)
}
