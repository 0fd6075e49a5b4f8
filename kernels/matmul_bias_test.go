package kernels

import (
	"fmt"
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
					return // sync.Pool drops items at random under -race
				}
				if n := testing.AllocsPerRun(20, func() { _ = MatmulBias(got, a, b, bias, relu, runtime.Void) }); n != 0 {
					t.Errorf("%v allocations per call", n)
				}
			})
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
