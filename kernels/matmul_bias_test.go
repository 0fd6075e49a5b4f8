package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func randF32(r *rand.Rand, shape ...int64) *runtime.Tensor {
	t := runtime.MustNewTensor(shape, runtime.Float32)
	for i := range t.Float32s() {
		t.Float32s()[i] = r.Float32()*2 - 1
	}
	return t
}

// TestMatmulBiasMatchesSeparateOps checks the fused kernel against matmul,
// add and relu run one after the other: the results must be identical.
func TestMatmulBiasMatchesSeparateOps(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, tc := range []struct{ a, b []int64 }{
		{[]int64{1, 7}, []int64{7, 5}},
		{[]int64{4, 64}, []int64{64, 32}},
		{[]int64{17, 33}, []int64{33, 257}},
		{[]int64{2, 8, 32}, []int64{32, 32}},         // batch against shared B: one tall GEMM
		{[]int64{3, 4, 8, 16}, []int64{3, 1, 16, 9}}, // broadcast batch: per-item GEMMs
		{[]int64{5}, []int64{5, 6}},
	} {
		for _, relu := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v x %v relu=%v", tc.a, tc.b, relu), func(t *testing.T) {
				a, b := randF32(r, tc.a...), randF32(r, tc.b...)
				shape, err := MatmulShape(tc.a, tc.b)
				if err != nil {
					t.Fatal(err)
				}
				bias := randF32(r, shape[len(shape)-1])
				want := runtime.MustNewTensor(shape, runtime.Float32)
				if err := Matmul(want, a, b); err != nil {
					t.Fatal(err)
				}
				if err := Add(want, want, bias); err != nil {
					t.Fatal(err)
				}
				if relu {
					if err := Relu(want, want); err != nil {
						t.Fatal(err)
					}
				}
				got := runtime.MustNewTensor(shape, runtime.Float32)
				if _, err := packedMatmulBias([]runtime.Value{a, b, nil, bias, relu, got}); err != nil {
					t.Fatal(err)
				}
				if !runtime.ValuesEqual(got, want) {
					t.Fatalf("fused result differs from matmul + add (+ relu)")
				}
				if raceEnabled {
					return // allocation counts are meaningless under -race
				}
				if n := allocsSettled(20, func() { _ = MatmulBias(got, a, b, bias, relu, runtime.Void) }); n != 0 {
					t.Errorf("%v allocations per call", n)
				}
			})
		}
	}
}

// TestMatmulBiasResidualMatchesSeparateOps checks the fused residual
// epilogue against matmul, the bias add, the residual add (either operand
// order) and relu run one after the other, bit for bit, on every path of
// the product: few rows (the direct kernels), narrow and packed products, a
// registered constant weight, a tall batch and per-item batches (the
// residual added after), with infinities in the residual; and that a warm
// call allocates nothing.
func TestMatmulBiasResidualMatchesSeparateOps(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for _, tc := range []struct {
		a, b  []int64
		konst bool
	}{
		{[]int64{1, 7}, []int64{7, 5}, false},
		{[]int64{3, 64}, []int64{64, 300}, false},
		{[]int64{3, 64}, []int64{64, 300}, true},
		{[]int64{4, 64}, []int64{64, 32}, false},
		{[]int64{17, 33}, []int64{33, 257}, false},
		{[]int64{130, 256}, []int64{256, 96}, true},
		{[]int64{2, 8, 32}, []int64{32, 32}, false},
		{[]int64{1, 128, 64}, []int64{64, 40}, true},
		{[]int64{3, 4, 8, 16}, []int64{3, 1, 16, 9}, false},
		{[]int64{5}, []int64{5, 6}, false},
		// Whole tiles only: the epilogue in the kernel (gemmJob.epK) on
		// the middle, wide and main tiles at AVX-512, the 6x16 at AVX2.
		{[]int64{128, 256}, []int64{256, 64}, true},
		{[]int64{64, 96}, []int64{96, 96}, false},
		{[]int64{96, 128}, []int64{128, 64}, false},
	} {
		for _, left := range []bool{false, true} {
			for _, c := range []struct{ relu, noBias bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
				relu, noBias := c.relu, c.noBias
				t.Run(fmt.Sprintf("%v x %v const=%v left=%v relu=%v nobias=%v", tc.a, tc.b, tc.konst, left, relu, noBias), func(t *testing.T) {
					a, b := randF32(r, tc.a...), randF32(r, tc.b...)
					if tc.konst {
						RegisterConstant(b)
						defer UnregisterConstant(b)
					}
					shape, err := MatmulShape(tc.a, tc.b)
					if err != nil {
						t.Fatal(err)
					}
					bias, res := randF32(r, shape[len(shape)-1]), randF32(r, shape...)
					rs := res.Float32s()
					for i := 0; i < len(rs); i += 7 {
						rs[i] = float32(math.Inf(1 - 2*(i%2)))
					}
					want := runtime.MustNewTensor(shape, runtime.Float32)
					if err := Matmul(want, a, b); err != nil {
						t.Fatal(err)
					}
					var biasArg runtime.Value = bias
					if noBias { // a linear layer without bias: 0 in its place
						bias, biasArg = nil, int64(0)
					} else if err := Add(want, want, bias); err != nil {
						t.Fatal(err)
					}
					if left {
						err = Add(want, res, want)
					} else {
						err = Add(want, want, res)
					}
					if err != nil {
						t.Fatal(err)
					}
					if relu {
						if err := Relu(want, want); err != nil {
							t.Fatal(err)
						}
					}
					got := runtime.MustNewTensor(shape, runtime.Float32)
					if _, err := packedMatmulBias([]runtime.Value{a, b, nil, biasArg, relu, res, left, got}); err != nil {
						t.Fatal(err)
					}
					if !runtime.ValuesEqual(got, want) {
						t.Fatalf("fused result differs from matmul + add + residual add (+ relu)")
					}
					if raceEnabled {
						return
					}
					if n := allocsSettled(20, func() { _ = MatmulBiasResidual(got, a, b, bias, res, left, relu, runtime.Void) }); n != 0 {
						t.Errorf("%v allocations per call", n)
					}
				})
			}
		}
	}
	// Errors: a residual of another shape, or in the output's memory.
	a, b := randF32(r, 2, 3), randF32(r, 3, 4)
	out := runtime.MustNewTensor([]int64{2, 4}, runtime.Float32)
	for name, args := range map[string][]runtime.Value{
		"residual shape":  {a, b, nil, randF32(r, 4), int64(0), randF32(r, 1, 4), int64(1), out},
		"residual is out": {a, b, nil, randF32(r, 4), int64(0), out, int64(1), out},
		"residual flag":   {a, b, nil, randF32(r, 4), int64(0), randF32(r, 2, 4), "left", out},
		"no bias alone":   {a, b, nil, int64(0), int64(0), out},
		"bias 1":          {a, b, nil, int64(1), int64(0), randF32(r, 2, 4), int64(0), out},
	} {
		if _, err := packedMatmulBias(args); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestMatmulBiasErrors(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	a, b := randF32(r, 2, 3), randF32(r, 3, 4)
	out := runtime.MustNewTensor([]int64{2, 4}, runtime.Float32)
	for name, args := range map[string][]runtime.Value{
		"short bias":  {a, b, nil, randF32(r, 3), int64(0), out},
		"2-D bias":    {a, b, nil, randF32(r, 1, 4), int64(0), out},
		"bad relu":    {a, b, nil, randF32(r, 4), "yes", out},
		"arg count":   {a, b, nil, randF32(r, 4), out},
		"int operand": {runtime.MustNewTensor([]int64{2, 3}, runtime.Int32), runtime.MustNewTensor([]int64{3, 4}, runtime.Int32), nil, randF32(r, 4), int64(1), runtime.MustNewTensor([]int64{2, 4}, runtime.Int32)},
	} {
		if _, err := packedMatmulBias(args); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// BenchmarkMatmulColdWeights times matmul_bias on a classifier's shapes
// (one row against a constant weight: MobileNetV2's 1280 -> 1000,
// ResNet-18's 512 -> 1000) with the caches flushed before each call
// (outside the timer), so the weight streams from memory as it does at
// the end of a network whose weights outgrow the L3.
func BenchmarkMatmulColdWeights(b *testing.B) {
	defer SetNumThreads(0)
	SetNumThreads(1)
	flush := newCacheFlusher()
	for _, c := range []struct{ m, k, n int64 }{{1, 1280, 1000}, {1, 512, 1000}, {8, 1280, 1000}} {
		x := randT(b, 1, []int64{c.m, c.k}, f32, -1, 1)
		w := randT(b, 2, []int64{c.k, c.n}, f32, -1, 1)
		RegisterConstant(w)
		defer UnregisterConstant(w)
		bias := randT(b, 3, []int64{c.n}, f32, -1, 1)
		out := mustT(b, []int64{c.m, c.n}, f32)
		b.Run(fmt.Sprintf("%dx%dx%d", c.m, c.k, c.n), func(b *testing.B) {
			b.ReportAllocs()
			if err := MatmulBias(out, x, w, bias, false, runtime.Float32); err != nil {
				b.Fatal(err)
			}
			for i := 0; i < b.N; i++ {
				flush.flush(b)
				if err := MatmulBias(out, x, w, bias, false, runtime.Float32); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(c.k*c.n*4)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}

// BenchmarkMatmulBiasResidual is a transformer block's output projection
// and FFN down projection with their residual connection (a constant
// weight, 1 thread): the fused epilogue against matmul_bias and then the
// add it replaces.
func BenchmarkMatmulBiasResidual(b *testing.B) {
	defer SetNumThreads(0)
	r := rand.New(rand.NewSource(3))
	for _, s := range [][3]int64{{128, 256, 256}, {128, 1024, 256}, {128, 768, 768}} {
		m, k, n := s[0], s[1], s[2]
		x, w := randF32(r, 1, m, k), randF32(r, k, n)
		bias, res := randF32(r, n), randF32(r, 1, m, n)
		out := runtime.MustNewTensor([]int64{1, m, n}, runtime.Float32)
		RegisterConstant(w)
		for _, fused := range []bool{true, false} {
			b.Run(fmt.Sprintf("%dx%dx%d/fused=%v", m, k, n, fused), func(b *testing.B) {
				SetNumThreads(1)
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					var err error
					if fused {
						err = MatmulBiasResidual(out, x, w, bias, res, true, false, runtime.Void)
					} else if err = MatmulBias(out, x, w, bias, false, runtime.Void); err == nil {
						err = Add(out, res, out)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		UnregisterConstant(w)
	}
}
