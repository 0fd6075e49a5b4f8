package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/runtime/half"
)

// Shared test helpers: random tensors, element access through float64, index
// arithmetic for reference implementations, and tolerant comparison.

var (
	f16 = runtime.Float16
	f32 = runtime.Float32
	f64 = runtime.Float64
	i32 = runtime.Int32
	i64 = runtime.Int64
	bl  = runtime.Bool
)

// edgeSizes are the odd and edge lengths every elementwise op is tested on.
var edgeSizes = []int64{0, 1, 7, 17, 33, 257}

func mustT(t testing.TB, shape []int64, dt runtime.DataType) *runtime.Tensor {
	t.Helper()
	x, err := runtime.NewTensor(shape, dt)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// zeroOperand sets every element of the float32 chain operand c to +0, or
// to -0 when neg: a max against +0 runs as asm.ChainMaxZero, against -0
// not (maxZeroCode), and the fused-against-unfused tests check both.
func zeroOperand(c *runtime.Tensor, neg bool) {
	z := float32(0)
	if neg {
		z = float32(math.Copysign(0, -1))
	}
	for i, cs := 0, c.Float32s(); i < len(cs); i++ {
		cs[i] = z
	}
}

// randT fills a new tensor with reproducible random values: floats in
// [lo, hi), integers in [-9, 9] (or [0, 9] unsigned), random bools.
func randT(t testing.TB, seed int64, shape []int64, dt runtime.DataType, lo, hi float64) *runtime.Tensor {
	t.Helper()
	x := mustT(t, shape, dt)
	r := rand.New(rand.NewSource(seed))
	n := int(x.NumElements())
	for i := 0; i < n; i++ {
		var v float64
		switch {
		case dt.IsFloat():
			v = lo + (hi-lo)*r.Float64()
		case dt.IsBool():
			v = float64(r.Intn(2))
		case dt.IsUInt():
			v = float64(r.Intn(10))
		default:
			v = float64(r.Intn(19) - 9)
		}
		setF(x, i, v)
	}
	return x
}

// setF stores v into element i with dtype conversion.
func setF(x *runtime.Tensor, i int, v float64) {
	if x.DType().IsFloat() {
		setFloat(x, i, v)
		return
	}
	_ = setInt(x, i, int64(v), v)
}

// vals returns all elements as float64.
func vals(x *runtime.Tensor) []float64 {
	n := int(x.NumElements())
	out := make([]float64, n)
	for i := range out {
		out[i] = elemFloat(x, i)
	}
	return out
}

func fromF(t testing.TB, dt runtime.DataType, data []float64, shape ...int64) *runtime.Tensor {
	t.Helper()
	x := mustT(t, shape, dt)
	if int(x.NumElements()) != len(data) {
		t.Fatalf("fromF: %d values for shape %v", len(data), shape)
	}
	for i, v := range data {
		setF(x, i, v)
	}
	return x
}

// unravel converts a flat index into a multi-index of shape.
func unravel(i int, shape []int64) []int {
	idx := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			idx[d] = i % int(shape[d])
			i /= int(shape[d])
		}
	}
	return idx
}

// ravel converts a multi-index into a flat index of shape.
func ravel(idx []int, shape []int64) int {
	f := 0
	for d := range shape {
		f = f*int(shape[d]) + idx[d]
	}
	return f
}

// bcastIndex maps an output multi-index to the flat index of an input of
// shape s under NumPy broadcasting.
func bcastIndex(oidx []int, s []int64) int {
	off := len(oidx) - len(s)
	f := 0
	for d := range s {
		i := oidx[off+d]
		if s[d] == 1 {
			i = 0
		}
		f = f*int(s[d]) + i
	}
	return f
}

// tolFor is the comparison tolerance for a float dtype.
func tolFor(dt runtime.DataType) (rtol, atol float64) {
	switch dt {
	case f16:
		return 2e-3, 2e-3
	case f32:
		return 2e-5, 1e-6
	case f64:
		return 1e-12, 1e-13
	}
	return 0, 0
}

// roundTo rounds v to dtype precision (float32 and float16 storage).
func roundTo(dt runtime.DataType, v float64) float64 {
	switch dt {
	case f32:
		return float64(float32(v))
	case f16:
		return float64(half.Float16ToFloat32(half.Float64ToFloat16(v)))
	}
	return v
}

// closeTo compares element lists, treating NaNs as equal and infinities exactly.
func closeTo(got, want []float64, rtol, atol float64) (int, bool) {
	if len(got) != len(want) {
		return -1, false
	}
	for i := range got {
		g, w := got[i], want[i]
		if math.IsNaN(w) {
			if !math.IsNaN(g) {
				return i, false
			}
			continue
		}
		if math.IsNaN(g) {
			return i, false
		}
		if math.IsInf(w, 0) || math.IsInf(g, 0) {
			if g != w {
				return i, false
			}
			continue
		}
		if math.Abs(g-w) > atol+rtol*math.Abs(w) {
			return i, false
		}
	}
	return 0, true
}

func expectClose(t testing.TB, what string, got *runtime.Tensor, want []float64, rtol, atol float64) {
	t.Helper()
	g := vals(got)
	if i, ok := closeTo(g, want, rtol, atol); !ok {
		if i < 0 {
			t.Fatalf("%s: got %d elements, want %d", what, len(g), len(want))
		}
		t.Fatalf("%s: element %d (of %d): got %v, want %v", what, i, len(g), g[i], want[i])
	}
}

// call runs a registered packed kernel by op name.
func call(op string, args ...runtime.Value) error { return Run(op, args...) }

func mustCall(t testing.TB, op string, args ...runtime.Value) {
	t.Helper()
	if err := call(op, args...); err != nil {
		t.Fatalf("%s: %v", op, err)
	}
}

func shp(d ...int64) runtime.Shape { return runtime.Shape(d) }

func name(parts ...any) string { return fmt.Sprint(parts...) }

// forEachLevel runs f at every SIMD level this CPU has, from pure Go up,
// and then restores the level the test started at (RELAXGO_ISA's, say).
func forEachLevel(t testing.TB, f func(l asm.Level)) {
	t.Helper()
	start := asm.CurrentLevel()
	defer func() { _ = asm.SetLevel(start) }()
	for l := asm.LevelGo; l <= asm.MaxLevel(); l++ {
		if err := asm.SetLevel(l); err != nil {
			t.Fatal(err)
		}
		f(l)
	}
}
