package kernels

import (
	"math"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func TestCumsumCumprod(t *testing.T) {
	x := fromF(t, f32, []float64{1, 2, 3, 4, 5, 6}, 2, 3)
	o := mustT(t, []int64{2, 3}, f32)
	mustCall(t, "cumsum", x, int64(1), nil, false, o)
	expectClose(t, "cumsum axis 1", o, []float64{1, 3, 6, 4, 9, 15}, 0, 0)
	mustCall(t, "cumsum", x, int64(-2), nil, true, o)
	expectClose(t, "cumsum exclusive axis 0", o, []float64{0, 0, 0, 1, 2, 3}, 0, 0)
	mustCall(t, "cumprod", x, int64(1), f32, false, o)
	expectClose(t, "cumprod", o, []float64{1, 2, 6, 4, 20, 120}, 0, 0)
	of := mustT(t, []int64{6}, i64)
	mustCall(t, "cumsum", fromF(t, i32, []float64{1, 2, 3, 4, 5, 6}, 2, 3), nil, i64, false, of)
	expectClose(t, "cumsum flat int64", of, []float64{1, 3, 6, 10, 15, 21}, 0, 0)
	if err := call("cumsum", x, int64(1), i64, false, o); err == nil {
		t.Error("cumsum dtype mismatch: want error")
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

func TestGroupInstanceNorm(t *testing.T) {
	shape := []int64{2, 6, 3, 4}
	x := randT(t, 1, shape, f32, -2, 3)
	g := randT(t, 2, []int64{6}, f32, 0.5, 1.5)
	b := randT(t, 3, []int64{6}, f32, -1, 1)
	xv, gv, bv := vals(x), vals(g), vals(b)
	for _, groups := range []int64{1, 2, 3, 6} {
		o := mustT(t, shape, f32)
		mustCall(t, "nn.group_norm", x, g, b, groups, int64(1), shp(2, 3), 1e-5, true, true, o)
		gs := int(6 / groups)
		want := make([]float64, len(xv))
		for n := 0; n < 2; n++ {
			for gi := 0; gi < int(groups); gi++ {
				var s, q, c float64
				for ch := gi * gs; ch < (gi+1)*gs; ch++ {
					for k := 0; k < 12; k++ {
						s += xv[(n*6+ch)*12+k]
						c++
					}
				}
				m := s / c
				for ch := gi * gs; ch < (gi+1)*gs; ch++ {
					for k := 0; k < 12; k++ {
						d := xv[(n*6+ch)*12+k] - m
						q += d * d
					}
				}
				for ch := gi * gs; ch < (gi+1)*gs; ch++ {
					for k := 0; k < 12; k++ {
						i := (n*6+ch)*12 + k
						want[i] = (xv[i]-m)/math.Sqrt(q/c+1e-5)*gv[ch] + bv[ch]
					}
				}
			}
		}
		expectClose(t, name("group_norm ", groups), o, want, 1e-5, 1e-5)
		if groups == 6 {
			oi := mustT(t, shape, f32)
			mustCall(t, "nn.instance_norm", x, g, b, int64(1), shp(2, 3), 1e-5, true, true, oi)
			expectClose(t, "instance_norm", oi, want, 1e-5, 1e-5)
		}
	}
	if err := call("nn.group_norm", x, g, b, int64(4), int64(1), shp(2, 3), 1e-5, true, true, mustT(t, shape, f32)); err == nil {
		t.Error("group_norm with non-dividing groups: want error")
	}
}

func TestOneHotGatherElements(t *testing.T) {
	ind := fromF(t, i64, []float64{0, 2, 1, 5}, 2, 2)
	o := mustT(t, []int64{2, 2, 3}, f32)
	mustCall(t, "one_hot", ind, 1.0, 0.0, int64(3), int64(-1), o)
	expectClose(t, "one_hot", o, []float64{1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0}, 0, 0)
	o2 := mustT(t, []int64{3, 2, 2}, i32)
	mustCall(t, "one_hot", ind, int64(5), int64(-1), int64(3), int64(0), o2)
	expectClose(t, "one_hot axis 0", o2, []float64{5, -1, -1, -1, -1, -1, 5, -1, -1, 5, -1, -1}, 0, 0)
	data := fromF(t, f32, []float64{1, 2, 3, 4, 5, 6}, 2, 3)
	gi := fromF(t, i32, []float64{2, 0, 1, -1}, 2, 2)
	og := mustT(t, []int64{2, 2}, f32)
	mustCall(t, "gather_elements", data, gi, int64(1), og)
	expectClose(t, "gather_elements", og, []float64{3, 1, 5, 6}, 0, 0)
	if err := call("gather_elements", data, fromF(t, i32, []float64{3}, 1, 1), int64(1), mustT(t, []int64{1, 1}, f32)); err == nil {
		t.Error("gather_elements out of range: want error")
	}
}

func TestPool1D(t *testing.T) {
	x := randT(t, 1, []int64{2, 3, 17}, f32, -2, 2)
	xv := vals(x)
	for _, isMax := range []bool{true, false} {
		want, oh, ow := refPool2D(xv, 2, 3, 1, 17, [4]int{1, 3}, [4]int{1, 2}, [4]int{1, 1}, [4]int{0, 1, 0, 2}, true, false, isMax)
		if oh != 1 {
			t.Fatal(oh)
		}
		op := "nn.avg_pool1d"
		if isMax {
			op = "nn.max_pool1d"
		}
		o := mustT(t, []int64{2, 3, int64(ow)}, f32)
		mustCall(t, op, x, shp(3), shp(2), shp(1, 2), shp(1), true, false, "NCW", "NCW", o)
		expectClose(t, op, o, want, 1e-6, 1e-7)
		xn := fromF(t, f32, nchwToNHWC(xv, 2, 3, 1, 17), 2, 17, 3)
		on := mustT(t, []int64{2, int64(ow), 3}, f32)
		mustCall(t, op, xn, shp(3), shp(2), shp(1, 2), shp(1), true, false, "NWC", nil, on)
		expectClose(t, op+" NWC", on, nchwToNHWC(want, 2, 3, 1, ow), 1e-6, 1e-7)
	}
	_ = runtime.Float32
}
