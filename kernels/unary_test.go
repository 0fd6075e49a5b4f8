package kernels

import (
	"math"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func refSigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// unaryRefs are float64 references, with the input range each is tested on.
var unaryRefs = []struct {
	op     string
	f      func(float64) float64
	lo, hi float64
	ints   bool // defined on integers
}{
	{"abs", math.Abs, -5, 5, true},
	{"negative", func(x float64) float64 { return -x }, -5, 5, true},
	{"sign", func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	}, -5, 5, true},
	{"square", func(x float64) float64 { return x * x }, -5, 5, true},
	{"floor", math.Floor, -5, 5, true},
	{"ceil", math.Ceil, -5, 5, true},
	{"round", math.RoundToEven, -5, 5, true},
	{"trunc", math.Trunc, -5, 5, true},
	{"nn.relu", func(x float64) float64 { return math.Max(x, 0) }, -5, 5, true},
	{"exp", math.Exp, -20, 20, false},
	{"log", math.Log, 0.01, 100, false},
	{"sqrt", math.Sqrt, 0, 100, false},
	{"rsqrt", func(x float64) float64 { return 1 / math.Sqrt(x) }, 0.01, 100, false},
	{"sin", math.Sin, -10, 10, false},
	{"cos", math.Cos, -10, 10, false},
	{"tan", math.Tan, -1.5, 1.5, false},
	{"sinh", math.Sinh, -5, 5, false},
	{"cosh", math.Cosh, -5, 5, false},
	{"asin", math.Asin, -1, 1, false},
	{"acos", math.Acos, -1, 1, false},
	{"atan", math.Atan, -10, 10, false},
	{"asinh", math.Asinh, -10, 10, false},
	{"acosh", math.Acosh, 1, 10, false},
	{"atanh", math.Atanh, -0.99, 0.99, false},
	{"tanh", math.Tanh, -10, 10, false},
	{"sigmoid", refSigmoid, -20, 20, false},
	{"erf", math.Erf, -4, 4, false},
	{"nn.gelu", func(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) }, -6, 6, false},
	{"nn.gelu_tanh", func(x float64) float64 {
		return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
	}, -6, 6, false},
	{"nn.silu", func(x float64) float64 { return x * refSigmoid(x) }, -20, 20, false},
}

func TestUnaryOps(t *testing.T) {
	sizes := append(append([]int64{}, edgeSizes...), 70001)
	for _, u := range unaryRefs {
		for _, dt := range []runtime.DataType{f32, f64, f16, i32, i64} {
			if !dt.IsFloat() && !u.ints {
				out := mustT(t, []int64{3}, dt)
				if err := call(u.op, mustT(t, []int64{3}, dt), out); err == nil || !strings.Contains(err.Error(), "float") {
					t.Errorf("%s on %s: want float dtype error, got %v", u.op, dt, err)
				}
				continue
			}
			for _, n := range sizes {
				x := randT(t, n, []int64{n}, dt, u.lo, u.hi)
				out := mustT(t, []int64{n}, dt)
				mustCall(t, u.op, x, out)
				xv := vals(x)
				want := make([]float64, n)
				for i, v := range xv {
					want[i] = roundTo(dt, u.f(v))
				}
				rtol, atol := tolFor(dt)
				if dt == f32 {
					// float32 kernels may use float32 polynomials: a few ulp
					rtol, atol = 1e-5, 1e-6
				}
				if u.op == "tan" || u.op == "acosh" || u.op == "atanh" || u.op == "sin" || u.op == "cos" {
					atol = max(atol, 4*rtol)
				}
				expectClose(t, name(u.op, " ", dt, " n=", n), out, want, rtol, atol)
			}
		}
	}
}

func TestUnaryShapes(t *testing.T) {
	// multi-dimensional and 0-d inputs behave elementwise
	for _, s := range [][]int64{{}, {3, 0, 2}, {2, 3, 5}} {
		x := randT(t, 3, s, f32, -2, 2)
		out := mustT(t, s, f32)
		mustCall(t, "exp", x, out)
		want := vals(x)
		for i := range want {
			want[i] = math.Exp(want[i])
		}
		expectClose(t, "exp shape", out, want, 1e-6, 1e-7)
	}
	if err := call("exp", mustT(t, []int64{2, 3}, f32), mustT(t, []int64{3, 2}, f32)); err == nil {
		t.Error("exp: mismatched output shape accepted")
	}
}

func TestExpF32Accuracy(t *testing.T) {
	// max error in ulp over a sweep, and exact special values
	worst := 0.0
	for x := float32(-103); x < 88.7; x += 0.0137 {
		got := float64(expf(x))
		want := math.Exp(float64(x))
		if want < math.SmallestNonzeroFloat32*(1<<23) {
			continue // subnormal range: checked for closeness only
		}
		ulp := float64(math.Nextafter32(float32(want), float32(math.Inf(1)))) - float64(float32(want))
		if e := math.Abs(got-want) / ulp; e > worst {
			worst = e
		}
	}
	if worst > 2 {
		t.Errorf("expf max error %.2f ulp, want <= 2", worst)
	}
	for _, c := range []struct{ x, want float32 }{
		{0, 1}, {89, float32(math.Inf(1))}, {-110, 0},
		{float32(math.Inf(1)), float32(math.Inf(1))}, {float32(math.Inf(-1)), 0},
	} {
		if got := expf(c.x); got != c.want {
			t.Errorf("expf(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if v := expf(float32(math.NaN())); v == v {
		t.Error("expf(NaN) is not NaN")
	}
	if v := expf(-100); v <= 0 || math.Abs(float64(v)-math.Exp(-100)) > math.SmallestNonzeroFloat32 {
		t.Errorf("expf(-100) = %v (subnormal), want about %v", v, math.Exp(-100))
	}
}

func TestUnaryParamOps(t *testing.T) {
	x := fromF(t, f32, []float64{-3, -1, 0, 0.5, 2, 7}, 6)
	out := mustT(t, []int64{6}, f32)
	mustCall(t, "clip", x, -1.5, 2.5, out)
	expectClose(t, "clip", out, []float64{-1.5, -1, 0, 0.5, 2, 2.5}, 0, 0)
	mustCall(t, "clip", x, int64(0), int64(1), out)
	expectClose(t, "clip int bounds", out, []float64{0, 0, 0, 0.5, 1, 1}, 0, 0)
	mustCall(t, "nn.leakyrelu", x, 0.1, out)
	expectClose(t, "leakyrelu", out, []float64{-0.3, -0.1, 0, 0.5, 2, 7}, 1e-7, 0)
	xi := fromF(t, i32, []float64{-3, -1, 0, 5, 2, 7}, 6)
	oi := mustT(t, []int64{6}, i32)
	mustCall(t, "clip", xi, int64(-1), int64(4), oi)
	expectClose(t, "clip int", oi, []float64{-1, -1, 0, 4, 2, 4}, 0, 0)
	mustCall(t, "nn.softplus", x, 1.0, 20.0, out)
	want := []float64{}
	for _, v := range vals(x) {
		want = append(want, math.Log1p(math.Exp(v)))
	}
	expectClose(t, "softplus", out, want, 1e-6, 1e-7)
}

func TestUnaryPredicates(t *testing.T) {
	in := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -2.5}
	for _, dt := range []runtime.DataType{f32, f64, f16} {
		x := fromF(t, dt, in, 5)
		out := mustT(t, []int64{5}, bl)
		mustCall(t, "isnan", x, out)
		expectClose(t, "isnan", out, []float64{1, 0, 0, 0, 0}, 0, 0)
		mustCall(t, "isinf", x, out)
		expectClose(t, "isinf", out, []float64{0, 1, 1, 0, 0}, 0, 0)
		mustCall(t, "isfinite", x, out)
		expectClose(t, "isfinite", out, []float64{0, 0, 0, 1, 1}, 0, 0)
	}
	xi := fromF(t, i64, []float64{1, 2}, 2)
	out := mustT(t, []int64{2}, bl)
	mustCall(t, "isfinite", xi, out)
	expectClose(t, "isfinite int", out, []float64{1, 1}, 0, 0)
	b := fromF(t, bl, []float64{1, 0, 1}, 3)
	ob := mustT(t, []int64{3}, bl)
	mustCall(t, "logical_not", b, ob)
	expectClose(t, "logical_not", ob, []float64{0, 1, 0}, 0, 0)
	if err := call("logical_not", xi, mustT(t, []int64{2}, i64)); err == nil {
		t.Error("logical_not on int64: want error")
	}
	mustCall(t, "round", fromF(t, f32, []float64{0.5, 1.5, 2.5, -0.5}, 4), mustT(t, []int64{4}, f32))
	r := mustT(t, []int64{4}, f32)
	mustCall(t, "round", fromF(t, f32, []float64{0.5, 1.5, 2.5, -0.5}, 4), r)
	expectClose(t, "round half even", r, []float64{0, 2, 2, 0}, 0, 0)
}
