package kernels

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// TestPackedNoPanic throws malformed argument lists at every packed kernel in
// Ops: wrong counts, wrong types, nil, mismatched shapes and dtypes. Each call
// must return (no panic); most must return an error.
func TestPackedNoPanic(t *testing.T) {
	r := rand.New(rand.NewSource(robustSeed))
	pool := []runtime.Value{
		nil, int64(0), int64(-1), int64(1), int64(3), int64(1 << 40), 0.5, -2.0, true, false, "NCHW", "constant", "fast", "bogus",
		f32, i64, bl, runtime.Shape{}, runtime.Shape{2}, runtime.Shape{-1}, runtime.Shape{0, 1}, runtime.Shape{1, 1, 1, 1},
		runtime.Shape{2, 2, 2, 2}, runtime.Shape{-5, 100}, runtime.Tuple{}, runtime.Tuple{int64(1), "x"},
		mustT(t, nil, f32), mustT(t, []int64{0}, f32), mustT(t, []int64{3}, f32), mustT(t, []int64{2, 3}, f32),
		mustT(t, []int64{2, 3}, i64), mustT(t, []int64{2, 3}, bl), mustT(t, []int64{1, 2, 3, 3}, f32),
		mustT(t, []int64{1, 2, 3, 3}, f16), mustT(t, []int64{3, 2}, i32), mustT(t, []int64{4}, i64),
		fromF(t, i64, []float64{5, -7}, 2), mustT(t, []int64{2, 3}, runtime.BFloat16), mustT(t, []int64{1}, runtime.UInt64),
	}
	for _, op := range Names() {
		spec, _ := Lookup(op)
		f, _ := runtime.Lookup(spec.Name)
		for trial := 0; trial < robustTrials; trial++ {
			n := r.Intn(15)
			args := make([]runtime.Value, n)
			for i := range args {
				args[i] = pool[r.Intn(len(pool))]
			}
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("%s%s panicked: %v", op, describe(args), p)
					}
				}()
				_, _ = f(args)
			}()
		}
	}
}

func describe(args []runtime.Value) string {
	s := "("
	for i, a := range args {
		if i > 0 {
			s += ", "
		}
		if x, ok := a.(*runtime.Tensor); ok {
			s += x.String()
		} else {
			s += fmt.Sprintf("%v", a)
		}
	}
	return s + ")"
}

// robustSeed and robustTrials size TestPackedNoPanic (raised locally to hunt).
var robustSeed, robustTrials = int64(42), 400

// TestPackedMutations starts from a valid call of each op and replaces one
// argument at a time with a value from a pool of odd ones; no call may panic.
func TestPackedMutations(t *testing.T) {
	x4 := randT(t, 1, []int64{1, 2, 5, 5}, f32, -1, 1)
	x2 := randT(t, 2, []int64{3, 4}, f32, -1, 1)
	g4 := randT(t, 3, []int64{4}, f32, -1, 1)
	c2 := randT(t, 4, []int64{2}, f32, 1, 2)
	templates := map[string][]runtime.Value{
		"nn.max_pool2d":          {x4, shp(2, 2), shp(2, 2), shp(0, 0, 0, 0), shp(1, 1), false, false, "NCHW", "NCHW", mustT(t, []int64{1, 2, 2, 2}, f32)},
		"nn.avg_pool2d":          {x4, shp(3, 3), shp(2, 2), shp(1, 1, 1, 1), shp(1, 1), true, true, "NCHW", "NCHW", mustT(t, []int64{1, 2, 3, 3}, f32)},
		"nn.adaptive_avg_pool2d": {x4, shp(2, 2), "NCHW", "NCHW", mustT(t, []int64{1, 2, 2, 2}, f32)},
		"nn.pad":                 {x2, shp(1, 1, 2, 2), 0.0, "reflect", mustT(t, []int64{5, 8}, f32)},
		"strided_slice":          {x2, shp(1), shp(-1), shp(0), shp(-1), false, mustT(t, []int64{3, 3}, f32)},
		"take":                   {x2, fromF(t, i64, []float64{0, 2}, 2), int64(1), "clip", mustT(t, []int64{3, 2}, f32)},
		"split":                  {x2, int64(2), int64(1), mustT(t, []int64{3, 2}, f32), mustT(t, []int64{3, 2}, f32)},
		"concat":                 {runtime.Tuple{x2, x2}, int64(0), mustT(t, []int64{6, 4}, f32)},
		"stack":                  {runtime.Tuple{x2, x2}, int64(0), mustT(t, []int64{2, 3, 4}, f32)},
		"reshape":                {x2, shp(4, 3), mustT(t, []int64{4, 3}, f32)},
		"permute_dims":           {x2, shp(1, 0), mustT(t, []int64{4, 3}, f32)},
		"tile":                   {x2, shp(2, 1), mustT(t, []int64{6, 4}, f32)},
		"repeat":                 {x2, int64(2), int64(0), mustT(t, []int64{6, 4}, f32)},
		"nn.layer_norm":          {x2, g4, g4, shp(-1), 1e-5, true, true, mustT(t, []int64{3, 4}, f32)},
		"nn.rms_norm":            {x2, g4, shp(-1), 1e-5, mustT(t, []int64{3, 4}, f32)},
		"nn.batch_norm":          {x4, c2, c2, c2, c2, int64(1), 1e-5, true, true, 0.1, false, mustT(t, []int64{1, 2, 5, 5}, f32), mustT(t, []int64{2}, f32), mustT(t, []int64{2}, f32)},
		"nn.softmax":             {x2, int64(-1), mustT(t, []int64{3, 4}, f32)},
		"sum":                    {x2, shp(0), true, mustT(t, []int64{1, 4}, f32)},
		"argmax":                 {x2, int64(1), false, mustT(t, []int64{3}, i64)},
		"arange":                 {int64(0), int64(4), int64(1), f32, mustT(t, []int64{4}, f32)},
		"full":                   {shp(3, 4), 2.0, f32, mustT(t, []int64{3, 4}, f32)},
		"tril":                   {x2, int64(0), mustT(t, []int64{3, 4}, f32)},
		"astype":                 {x2, i64, mustT(t, []int64{3, 4}, i64)},
		"expand_dims":            {x2, shp(0), mustT(t, []int64{1, 3, 4}, f32)},
		"squeeze":                {mustT(t, []int64{1, 3}, f32), nil, mustT(t, []int64{3}, f32)},
		"broadcast_to":           {g4, shp(3, 4), mustT(t, []int64{3, 4}, f32)},
		"flip":                   {x2, int64(1), mustT(t, []int64{3, 4}, f32)},
		"clip":                   {x2, 0.0, 1.0, mustT(t, []int64{3, 4}, f32)},
		"where":                  {mustT(t, []int64{3, 1}, bl), x2, g4, mustT(t, []int64{3, 4}, f32)},
		"add":                    {x2, g4, mustT(t, []int64{3, 4}, f32)},
		"nn.dropout":             {x2, 0.5, mustT(t, []int64{3, 4}, f32), mustT(t, []int64{3, 4}, f32)},
	}
	odd := []runtime.Value{nil, int64(-1), int64(1 << 40), int64(-1 << 40), int64(0), 0.0, -1.5, true, "NHWC", "edge", "wrap", "",
		runtime.Shape{}, runtime.Shape{1 << 40}, runtime.Shape{-1, -1}, runtime.Shape{0, 0, 0, 0}, runtime.Shape{5, 5, 5, 5, 5, 5, 5, 5},
		runtime.Shape{-3, 2, 1 << 40, 0}, runtime.Tuple{x2, mustT(t, []int64{3, 4}, i64)}, mustT(t, nil, f32), mustT(t, []int64{0, 4}, f32),
		mustT(t, []int64{3, 4}, f16), mustT(t, []int64{3, 4}, i32), mustT(t, []int64{3, 4, 1}, f32), mustT(t, []int64{1, 2, 5, 5}, f16),
		mustT(t, []int64{4}, i64), fromF(t, i64, []float64{1 << 40}, 1), i64, f16, runtime.Void}
	for op, tmpl := range templates {
		f, ok := runtime.Lookup(Prefix + op)
		if !ok {
			t.Fatalf("%s not registered", op)
		}
		if _, err := f(tmpl); err != nil {
			t.Fatalf("%s template: %v", op, err)
		}
		for i := range tmpl {
			for _, v := range odd {
				args := append([]runtime.Value{}, tmpl...)
				args[i] = v
				func() {
					defer func() {
						if p := recover(); p != nil {
							t.Fatalf("%s%s panicked: %v", op, describe(args), p)
						}
					}()
					_, _ = f(args)
				}()
			}
		}
	}
}
