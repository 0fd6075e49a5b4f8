package kernels

import (
	"fmt"
	"math"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// TestEinsumGEMM holds the float32 two-operand einsums that are batched
// matrix products (einsumGEMM: operands reordered, Sgemm, the product
// reordered) to the element-at-a-time loops, within float32 rounding of
// the different summation order: batch labels in front, middle and back,
// transposed operands and output, several summed labels, an outer and an
// inner product. Einsums it does not take (a label twice, broadcasting,
// a label summed over one operand, three operands, small products) go to
// the loops, which the last cases check it declines.
func TestEinsumGEMM(t *testing.T) {
	for _, c := range []struct {
		sub    string
		a, b   []int64
		gemm   bool
		oshape []int64
	}{
		{"ij,jk->ik", []int64{9, 13}, []int64{13, 11}, true, []int64{9, 11}},
		{"bij,bjk->bik", []int64{2, 9, 13}, []int64{2, 13, 11}, true, []int64{2, 9, 11}},
		{"bhqd,bhkd->bhqk", []int64{2, 3, 17, 16}, []int64{2, 3, 19, 16}, true, []int64{2, 3, 17, 19}},
		{"ik,jk->ij", []int64{17, 16}, []int64{19, 16}, true, []int64{17, 19}},
		{"kj,ik->ji", []int64{16, 19}, []int64{17, 16}, true, []int64{19, 17}},
		{"bld,dk->blk", []int64{2, 17, 16}, []int64{16, 24}, true, []int64{2, 17, 24}},
		{"abc,cbd->da", []int64{5, 3, 7}, []int64{7, 3, 11}, true, []int64{11, 5}},
		{"ibj,jbk->bki", []int64{9, 2, 13}, []int64{13, 2, 11}, true, []int64{2, 11, 9}},
		{"i,j->ij", []int64{20}, []int64{30}, true, []int64{20, 30}},
		{"ij,ij->", []int64{20, 20}, []int64{20, 20}, true, []int64{}},
		{"ii,ij->j", []int64{20, 20}, []int64{20, 20}, false, []int64{20}},
		{"ij,jk->ik", []int64{9, 1}, []int64{13, 11}, false, []int64{9, 11}},
		{"ij,jk->k", []int64{9, 13}, []int64{13, 11}, false, []int64{11}},
		{"ij,jk->ik", []int64{2, 3}, []int64{3, 4}, false, []int64{2, 4}},
	} {
		t.Run(c.sub, func(t *testing.T) {
			a := randT(t, 1, c.a, f32, -1, 1)
			b := randT(t, 2, c.b, f32, -1, 1)
			got, want := mustT(t, c.oshape, f32), mustT(t, c.oshape, f32)
			einsumScalar = true
			err := Einsum(want, []*runtime.Tensor{a, b}, c.sub)
			einsumScalar = false
			if err != nil {
				t.Fatal(err)
			}
			if err := Einsum(got, []*runtime.Tensor{a, b}, c.sub); err != nil {
				t.Fatal(err)
			}
			ins, outL, err := einsumLabels(c.sub, []int{a.NDim(), b.NDim()})
			if err != nil {
				t.Fatal(err)
			}
			size := map[rune]int64{}
			for i, l := range ins {
				for j, r := range l {
					if d := []*runtime.Tensor{a, b}[i].Shape()[j]; size[r] <= 1 {
						size[r] = d
					}
				}
			}
			probe := mustT(t, c.oshape, f32)
			if took := einsumGEMM(probe, a, b, ins[0], ins[1], outL, size); took != c.gemm {
				t.Fatalf("einsumGEMM took it: %v, want %v", took, c.gemm)
			}
			for i, g := range got.Float32s() {
				w := want.Float32s()[i]
				if math.Abs(float64(g-w)) > 1e-5*(1+math.Abs(float64(w))) {
					t.Fatalf("[%d] %v, loops %v", i, g, w)
				}
			}
		})
	}
}

// BenchmarkEinsum times attention scores written as an einsum,
// 'bhqd,bhkd->bhqk' (4 heads of 128 tokens, 64 features), on the GEMM
// path and the element-at-a-time loops, 1 thread.
func BenchmarkEinsum(b *testing.B) {
	defer SetNumThreads(0)
	q := randT(b, 1, []int64{1, 4, 128, 64}, f32, -1, 1)
	k := randT(b, 2, []int64{1, 4, 128, 64}, f32, -1, 1)
	out := mustT(b, []int64{1, 4, 128, 128}, f32)
	for _, scalar := range []bool{false, true} {
		b.Run(fmt.Sprintf("scalar=%v", scalar), func(b *testing.B) {
			SetNumThreads(1)
			einsumScalar = scalar
			defer func() { einsumScalar = false }()
			for i := 0; i < b.N; i++ {
				if err := Einsum(out, []*runtime.Tensor{q, k}, "bhqd,bhkd->bhqk"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
