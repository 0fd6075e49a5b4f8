package kernels

import (
	"math"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// refReduce reduces xv (shape) over the axes in mask by visiting every
// element and grouping by the kept coordinates.
func refReduce(op string, xv []float64, shape []int64, red []bool, isInt bool) (map[int]float64, []int64) {
	var kept []int64
	for d, s := range shape {
		if !red[d] {
			kept = append(kept, s)
		}
	}
	groups := map[int][]float64{}
	for i, v := range xv {
		idx := unravel(i, shape)
		k := 0
		for d := range shape {
			if !red[d] {
				k = k*int(shape[d]) + idx[d]
			}
		}
		groups[k] = append(groups[k], v)
	}
	res := map[int]float64{}
	for k, g := range groups {
		var r float64
		switch op {
		case "sum", "mean", "variance", "std":
			for _, v := range g {
				r += v
			}
			if op != "sum" {
				r /= float64(len(g))
				if isInt && op == "mean" {
					r = math.Trunc(r)
				}
			}
			if op == "variance" || op == "std" {
				m := r
				r = 0
				for _, v := range g {
					r += (v - m) * (v - m)
				}
				r /= float64(len(g))
				if op == "std" {
					r = math.Sqrt(r)
				}
			}
		case "prod":
			r = 1
			for _, v := range g {
				r *= v
			}
		case "max":
			r = math.Inf(-1)
			for _, v := range g {
				r = math.Max(r, v)
			}
		case "min":
			r = math.Inf(1)
			for _, v := range g {
				r = math.Min(r, v)
			}
		case "argmax", "argmin":
			bi := 0
			for j, v := range g {
				if (op == "argmax" && v > g[bi]) || (op == "argmin" && v < g[bi]) {
					bi = j
				}
			}
			r = float64(bi)
		}
		res[k] = r
	}
	return res, kept
}

func TestReductions(t *testing.T) {
	cases := []struct {
		shape []int64
		axes  []int64 // nil = all
	}{
		{[]int64{7}, nil}, {[]int64{1}, []int64{0}}, {[]int64{257}, []int64{-1}},
		{[]int64{33, 17}, []int64{1}}, {[]int64{33, 17}, []int64{0}}, {[]int64{33, 17}, []int64{-2, -1}},
		{[]int64{3, 4, 5}, []int64{1}}, {[]int64{3, 4, 5}, []int64{0, 2}}, {[]int64{3, 4, 5}, []int64{2, 0}},
		{[]int64{2, 3, 4, 5}, []int64{1, 3}}, {[]int64{2, 1, 4}, []int64{1}}, {[]int64{}, nil},
		{[]int64{4, 0, 3}, []int64{2}}, {[]int64{300, 257}, []int64{1}}, {[]int64{300, 257}, []int64{0}},
		{[]int64{3, 4}, []int64{}},
	}
	ops := []string{"sum", "mean", "max", "min", "prod", "variance", "std"}
	for _, c := range cases {
		red := make([]bool, len(c.shape))
		for d := range red {
			red[d] = c.axes == nil
		}
		for _, a := range c.axes {
			if a < 0 {
				a += int64(len(c.shape))
			}
			red[a] = true
		}
		for _, dt := range []runtime.DataType{f32, f64, f16, i32, i64} {
			x := randT(t, 3, c.shape, dt, -2, 2)
			if dt.IsFloat() && len(c.shape) > 0 && c.shape[len(c.shape)-1] > 100 {
				x = randT(t, 3, c.shape, dt, 0.9, 1.1) // keep products finite
			}
			for _, op := range ops {
				if !dt.IsFloat() && (op == "variance" || op == "std") {
					continue
				}
				if !dt.IsFloat() && op == "prod" {
					n := int64(1)
					for d, s := range c.shape {
						if red[d] {
							n *= s
						}
					}
					if n > 12 {
						continue // the float64 reference would not be exact
					}
				}
				ref, kept := refReduce(op, vals(x), c.shape, red, !dt.IsFloat())
				if len(ref) == 0 && x.NumElements() == 0 && op != "sum" && op != "prod" {
					continue
				}
				for _, keep := range []bool{false, true} {
					os := reducedShape(c.shape, red, keep)
					if os == nil {
						os = []int64{}
					}
					out := mustT(t, os, dt)
					var axes runtime.Value
					if c.axes != nil {
						axes = runtime.Shape(c.axes)
					}
					if err := call(op, x, axes, keep, out); err != nil {
						if x.NumElements() == 0 && (op == "max" || op == "min") {
							continue
						}
						t.Fatalf("%s %v %v: %v", op, c.shape, c.axes, err)
					}
					want := make([]float64, out.NumElements())
					for i := range want {
						if v, ok := ref[i]; ok {
							want[i] = roundTo(dt, v)
							if !dt.IsFloat() {
								tmp := mustT(t, nil, dt)
								_ = setInt(tmp, 0, int64(v), v)
								want[i] = elemFloat(tmp, 0)
							}
						} else if op == "prod" {
							want[i] = 1
						}
					}
					_ = kept
					rtol, atol := tolFor(dt)
					if dt == f32 {
						rtol, atol = 1e-5, 1e-5
					}
					if dt == f16 {
						rtol, atol = 4e-3, 2e-2
					}
					expectClose(t, name(op, " ", dt, c.shape, c.axes, keep), out, want, rtol, atol)
				}
			}
		}
	}
	for _, op := range []string{"max", "min", "sum"} {
		for _, dt := range []runtime.DataType{f32, f64} {
			o := mustT(t, nil, dt)
			mustCall(t, op, fromF(t, dt, []float64{1, math.NaN(), 3, 4, 5, 6, 7, 8, 9, 10}, 10), nil, false, o)
			expectClose(t, op+" NaN", o, []float64{math.NaN()}, 0, 0)
		}
	}
	o := mustT(t, nil, f32)
	mustCall(t, "max", fromF(t, f32, []float64{1, math.Inf(1), math.Inf(-1)}, 3), nil, false, o)
	expectClose(t, "max inf", o, []float64{math.Inf(1)}, 0, 0)
	if err := call("sum", mustT(t, []int64{3}, f32), shp(1), false, mustT(t, nil, f32)); err == nil {
		t.Error("sum axis out of range: want error")
	}
	if err := call("sum", mustT(t, []int64{3, 4}, f32), shp(0, -2), false, mustT(t, []int64{4}, f32)); err == nil {
		t.Error("sum repeated axis: want error")
	}
}

func TestArgReductions(t *testing.T) {
	cases := []struct {
		shape []int64
		axis  runtime.Value
	}{
		{[]int64{7}, nil}, {[]int64{33, 17}, int64(1)}, {[]int64{33, 17}, int64(-2)},
		{[]int64{3, 4, 5}, int64(1)}, {[]int64{257}, int64(0)}, {[]int64{2, 3, 4}, nil},
	}
	for _, c := range cases {
		red := make([]bool, len(c.shape))
		for d := range red {
			red[d] = c.axis == nil
		}
		if a, ok := c.axis.(int64); ok {
			if a < 0 {
				a += int64(len(c.shape))
			}
			red[a] = true
		}
		for _, dt := range []runtime.DataType{f32, f64, i32, i64, f16} {
			x := randT(t, 4, c.shape, dt, -5, 5)
			for _, op := range []string{"argmax", "argmin"} {
				ref, _ := refReduce(op, vals(x), c.shape, red, false)
				for _, keep := range []bool{false, true} {
					os := reducedShape(c.shape, red, keep)
					out := mustT(t, os, i64)
					mustCall(t, op, x, c.axis, keep, out)
					want := make([]float64, out.NumElements())
					for i := range want {
						want[i] = ref[i]
					}
					expectClose(t, name(op, dt, c.shape, c.axis), out, want, 0, 0)
				}
			}
		}
	}
	// first occurrence wins; NaN is the extreme
	x := fromF(t, f32, []float64{1, 3, 3, 0, 0}, 5)
	o := mustT(t, nil, i64)
	mustCall(t, "argmax", x, nil, false, o)
	expectClose(t, "argmax ties", o, []float64{1}, 0, 0)
	mustCall(t, "argmin", x, nil, false, o)
	expectClose(t, "argmin ties", o, []float64{3}, 0, 0)
	mustCall(t, "argmax", fromF(t, f32, []float64{1, math.NaN(), 5}, 3), nil, false, o)
	expectClose(t, "argmax NaN", o, []float64{1}, 0, 0)
}

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

// reducedShape is shape after reducing the axes marked in red (kept as 1
// with keep).
func reducedShape(shape []int64, red []bool, keep bool) []int64 {
	var out []int64
	for d, s := range shape {
		if !red[d] {
			out = append(out, s)
		} else if keep {
			out = append(out, 1)
		}
	}
	return out
}
