package asm

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"unsafe"
)

// TestSgemmKernelRowA runs the 8x32 kernels reading A in place against the
// same kernels on A packed (PackAF32's panel), at the AVX-512 level: every
// form (plain, next-panel, with the epilogue under each flag set), depths
// with and without a tail, both betas, a row stride past the depth; every
// element's bits, and the guards around C.
func TestSgemmKernelRowA(t *testing.T) {
	if !SgemmRowAOK(TileMid) {
		t.Skip("the kernels reading A in place are AVX-512 only")
	}
	mr, nr, _ := SgemmTileMid()
	r := rand.New(rand.NewSource(62))
	flagSets := []int{0, EpiColBias, EpiRes, EpiColBias | EpiRes | EpiRelu, EpiColBias | EpiRes | EpiResLeft, EpiRelu}
	for _, kc := range []int{0, 1, 3, 4, 5, 27, 256} {
		lda := kc + 5
		a := randIn(r, mr*lda, -1, 1)
		pa := make([]float32, max(1, kc*mr))
		for i := 0; i < mr; i++ {
			for p := 0; p < kc; p++ {
				pa[p*mr+i] = a[i*lda+p]
			}
		}
		b := randIn(r, max(1, kc*nr), -1, 1)
		cb := randIn(r, nr, -1, 1)
		const ldr = 40
		res := randIn(r, (mr-1)*ldr+nr, -1, 1)
		res[3] = float32(math.NaN())
		for _, next := range []bool{false, true} {
			for fi, flags := range append([]int{-1}, flagSets...) {
				epi := flags >= 0
				for _, beta := range []float32{0, 1} {
					ldc := nr + 3
					buf, c, want, n := seededC(mr, nr, ldc, 1, beta)
					copy(want, c)
					alpha := alphaFor(kc + fi)
					SgemmKernelRowAUnchecked(next, kc, unsafe.Pointer(&a[0]), lda, unsafe.Pointer(&b[0]), unsafe.Pointer(&c[0]), ldc, alpha, beta,
						epi, unsafe.Pointer(&cb[0]), unsafe.Pointer(&res[0]), ldr, max(flags, 0))
					if epi {
						SgemmKernelEpiUnchecked(TileMid, next, kc, unsafe.Pointer(&pa[0]), unsafe.Pointer(&b[0]), unsafe.Pointer(&want[0]), ldc, alpha, beta,
							unsafe.Pointer(&cb[0]), unsafe.Pointer(&res[0]), ldr, flags)
					} else {
						SgemmKernelMidUnchecked(kc, unsafe.Pointer(&pa[0]), unsafe.Pointer(&b[0]), unsafe.Pointer(&want[0]), ldc, alpha, beta)
					}
					what := fmt.Sprintf("kc=%d next=%v epi=%v flags=%#x beta=%v", kc, next, epi, max(flags, 0), beta)
					for i := range want {
						if math.Float32bits(c[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s: c[%d] = %v (%#x), packed %v (%#x)", what, i, c[i], math.Float32bits(c[i]), want[i], math.Float32bits(want[i]))
						}
					}
					checkGuards(t, what, buf, n, 1)
				}
			}
		}
	}
}
