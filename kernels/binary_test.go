package kernels

import (
	"math"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// refBinF is the float64 reference for float dtypes.
func refBinF(op string, a, b float64) float64 {
	switch op {
	case "add":
		return a + b
	case "subtract":
		return a - b
	case "multiply":
		return a * b
	case "divide":
		return a / b
	case "floor_divide":
		return math.Floor(a / b)
	case "floor_mod":
		return a - math.Floor(a/b)*b
	case "power":
		return math.Pow(a, b)
	case "maximum":
		return math.Max(a, b)
	case "minimum":
		return math.Min(a, b)
	}
	return refCmp(op, a, b)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func refCmp(op string, a, b float64) float64 {
	switch op {
	case "equal":
		return b2f(a == b)
	case "not_equal":
		return b2f(a != b)
	case "less":
		return b2f(a < b)
	case "less_equal":
		return b2f(a <= b)
	case "greater":
		return b2f(a > b)
	case "greater_equal":
		return b2f(a >= b)
	case "logical_and":
		return b2f(a != 0 && b != 0)
	case "logical_or":
		return b2f(a != 0 || b != 0)
	}
	panic(op)
}

// refBinI is the int64 reference for integer dtypes (division by zero gives 0).
func refBinI(op string, a, b int64) float64 {
	switch op {
	case "add":
		return float64(a + b)
	case "subtract":
		return float64(a - b)
	case "multiply":
		return float64(a * b)
	case "divide":
		if b == 0 {
			return 0
		}
		return float64(a / b)
	case "floor_divide":
		if b == 0 {
			return 0
		}
		return math.Floor(float64(a) / float64(b))
	case "floor_mod":
		if b == 0 {
			return 0
		}
		return float64(a) - math.Floor(float64(a)/float64(b))*float64(b)
	case "power":
		if b < 0 {
			switch a {
			case 1:
				return 1
			case -1:
				if b%2 == 0 {
					return 1
				}
				return -1
			}
			return 0
		}
		return math.Pow(float64(a), float64(b))
	case "maximum":
		return float64(max(a, b))
	case "minimum":
		return float64(min(a, b))
	}
	return refCmp(op, float64(a), float64(b))
}

var bcastCases = [][2][]int64{
	{{7}, {7}},
	{{0}, {0}},
	{{0, 3}, {3}},
	{{1}, {257}},
	{{257}, {1}},
	{{}, {}},
	{{}, {3, 4}},
	{{4, 1}, {}},
	{{33, 17}, {17}},
	{{33, 17}, {33, 1}},
	{{1, 17}, {33, 1}},
	{{2, 1, 7}, {1, 5, 1}},
	{{3, 1, 1}, {1, 4, 5}},
	{{2, 3, 4, 5}, {3, 1, 5}},
	{{300, 257}, {257}},    // parallel row broadcast
	{{300, 257}, {300, 1}}, // parallel column broadcast
	{{70001}, {70001}},     // parallel single row
	{{70001}, {1}},
}

func TestBinaryOps(t *testing.T) {
	ops := []string{"add", "subtract", "multiply", "divide", "floor_divide", "floor_mod", "power",
		"maximum", "minimum", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}
	for _, dt := range []runtime.DataType{f32, f64, f16, i32, i64, runtime.Int8, runtime.UInt8} {
		for ci, c := range bcastCases {
			if ci > 13 && dt != f32 && dt != i32 {
				continue // the large (parallel) cases run for one float and one int dtype
			}
			a := randT(t, int64(ci+1), c[0], dt, -3, 3)
			b := randT(t, int64(ci+100), c[1], dt, 0.5, 3)
			if dt.IsFloat() {
				// mix signs in b without zeros
				for i, v := range vals(b) {
					if i%3 == 0 {
						setF(b, i, -v)
					}
				}
			}
			oshape, err := broadcastShape("t", nil, c[0], c[1])
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range ops {
				if op == "power" && dt.IsFloat() {
					// keep the base positive for real results
					a2 := randT(t, int64(ci+7), c[0], dt, 0.1, 2)
					testBinaryOne(t, op, dt, a2, b, oshape)
					continue
				}
				testBinaryOne(t, op, dt, a, b, oshape)
			}
		}
	}
}

func testBinaryOne(t *testing.T, op string, dt runtime.DataType, a, b *runtime.Tensor, oshape []int64) {
	t.Helper()
	odt := dt
	isCmp := strings.Contains("equal not_equal less less_equal greater greater_equal", op) && op != "add"
	switch op {
	case "equal", "not_equal", "less", "less_equal", "greater", "greater_equal":
		odt = bl
	default:
		isCmp = false
	}
	out := mustT(t, oshape, odt)
	mustCall(t, op, a, b, out)
	av, bv := vals(a), vals(b)
	n := int(out.NumElements())
	want := make([]float64, n)
	for i := 0; i < n; i++ {
		idx := unravel(i, oshape)
		x, y := av[bcastIndex(idx, a.Shape())], bv[bcastIndex(idx, b.Shape())]
		var w float64
		if dt.IsFloat() {
			w = refBinF(op, x, y)
			if !isCmp {
				w = roundTo(dt, w)
			}
		} else {
			w = refBinI(op, int64(x), int64(y))
			if !isCmp {
				// wrap to the dtype
				tmp := mustT(t, nil, dt)
				_ = setInt(tmp, 0, int64(w), w)
				w = elemFloat(tmp, 0)
			}
		}
		want[i] = w
	}
	rtol, atol := tolFor(dt)
	if isCmp {
		rtol, atol = 0, 0
		if dt == f16 {
			// comparisons of float16 happen on the exact widened values
		}
	}
	expectClose(t, name(op, " ", dt, " ", runtime.Shape(a.Shape()), runtime.Shape(b.Shape())), out, want, rtol, atol)
}

func TestLogicalOps(t *testing.T) {
	for ci, c := range bcastCases[:14] {
		a := randT(t, int64(ci), c[0], bl, 0, 1)
		b := randT(t, int64(ci+50), c[1], bl, 0, 1)
		oshape, _ := broadcastShape("t", nil, c[0], c[1])
		for _, op := range []string{"logical_and", "logical_or"} {
			out := mustT(t, oshape, bl)
			mustCall(t, op, a, b, out)
			av, bv := vals(a), vals(b)
			want := make([]float64, out.NumElements())
			for i := range want {
				idx := unravel(i, oshape)
				want[i] = refCmp(op, av[bcastIndex(idx, a.Shape())], bv[bcastIndex(idx, b.Shape())])
			}
			expectClose(t, op, out, want, 0, 0)
		}
	}
}

func TestBinarySpecialValues(t *testing.T) {
	a := fromF(t, f32, []float64{math.NaN(), 1, math.Inf(1), math.Copysign(0, -1), 5, -5}, 6)
	b := fromF(t, f32, []float64{1, math.NaN(), 1, 0, -3, 3}, 6)
	out := mustT(t, []int64{6}, f32)
	mustCall(t, "maximum", a, b, out)
	expectClose(t, "maximum NaN", out, []float64{math.NaN(), math.NaN(), math.Inf(1), 0, 5, 3}, 0, 0)
	mustCall(t, "floor_mod", a, b, out)
	g := vals(out)
	if g[4] != -1 || g[5] != 1 {
		t.Fatalf("floor_mod signs: %v", g)
	}
	mustCall(t, "floor_divide", a, b, out)
	if g := vals(out); g[4] != -2 || g[5] != -2 {
		t.Fatalf("floor_divide: %v", g)
	}
	// integer division by zero does not trap
	ia := fromF(t, i32, []float64{7, -7, 3}, 3)
	ib := fromF(t, i32, []float64{0, 2, 0}, 3)
	io := mustT(t, []int64{3}, i32)
	for _, op := range []string{"divide", "floor_divide", "floor_mod"} {
		mustCall(t, op, ia, ib, io)
	}
	mustCall(t, "floor_divide", ia, ib, io)
	expectClose(t, "int floor_divide", io, []float64{0, -4, 0}, 0, 0)
}

func TestBinaryErrors(t *testing.T) {
	a := mustT(t, []int64{3}, f32)
	b := mustT(t, []int64{4}, f32)
	out := mustT(t, []int64{3}, f32)
	cases := []struct {
		args []runtime.Value
		want string
	}{
		{[]runtime.Value{a, b, out}, "broadcast"},
		{[]runtime.Value{a, a, mustT(t, []int64{4}, f32)}, "output shape"},
		{[]runtime.Value{a, a, mustT(t, []int64{3}, f64)}, "output dtype"},
		{[]runtime.Value{a, mustT(t, []int64{3}, f64), out}, "dtypes differ"},
		{[]runtime.Value{a, a}, "expects 3 arguments"},
		{[]runtime.Value{a, int64(3), out}, "must be a Tensor"},
		{[]runtime.Value{a, nil, out}, "must be a Tensor"},
	}
	for _, c := range cases {
		err := call("add", c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "kernels.add") {
			t.Errorf("add%v: got %v, want error containing %q", c.args, err, c.want)
		}
	}
	if err := call("logical_and", a, a, mustT(t, []int64{3}, bl)); err == nil {
		t.Error("logical_and on float32: want error")
	}
	if err := Add(nil, a, a); err == nil {
		t.Error("nil out: want error")
	}
}

func TestWhere(t *testing.T) {
	cases := [][3][]int64{
		{{7}, {7}, {7}},
		{{0}, {0}, {1}},
		{{33, 1}, {17}, {}},
		{{1, 17}, {33, 17}, {33, 1}},
		{{300, 257}, {257}, {300, 1}},
	}
	for ci, c := range cases {
		for _, dt := range []runtime.DataType{f32, i64, f16, bl, runtime.Int8} {
			cond := randT(t, int64(ci), c[0], bl, 0, 1)
			x := randT(t, int64(ci+10), c[1], dt, -3, 3)
			y := randT(t, int64(ci+20), c[2], dt, -3, 3)
			oshape, _ := broadcastShape("t", nil, c[0], c[1], c[2])
			out := mustT(t, oshape, dt)
			mustCall(t, "where", cond, x, y, out)
			cv, xv, yv := vals(cond), vals(x), vals(y)
			want := make([]float64, out.NumElements())
			for i := range want {
				idx := unravel(i, oshape)
				if cv[bcastIndex(idx, c[0])] != 0 {
					want[i] = xv[bcastIndex(idx, c[1])]
				} else {
					want[i] = yv[bcastIndex(idx, c[2])]
				}
			}
			expectClose(t, name("where ", dt, c), out, want, 0, 0)
		}
	}
}

func TestBinaryThreadInvariance(t *testing.T) {
	a := randT(t, 1, []int64{301, 259}, f32, -3, 3)
	b := randT(t, 2, []int64{259}, f32, -3, 3)
	o1 := mustT(t, []int64{301, 259}, f32)
	o2 := mustT(t, []int64{301, 259}, f32)
	defer SetNumThreads(0)
	SetNumThreads(1)
	if err := Add(o1, a, b); err != nil {
		t.Fatal(err)
	}
	SetNumThreads(4)
	if err := Add(o2, a, b); err != nil {
		t.Fatal(err)
	}
	expectClose(t, "threads", o2, vals(o1), 0, 0)
}
