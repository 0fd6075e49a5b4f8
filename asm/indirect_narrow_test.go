package asm

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"unsafe"
)

// TestSgemmKernelIndirectNarrow runs the narrow indirect tiles against the
// whole tile's kernel at the same level: for every column count a panel
// can hold, SgemmIndirectNarrow's width (the least of 16 and 32 that holds
// it and is narrower than the tile, at AVX-512 only), and on the tile's
// operands the narrow kernel's columns with the bits of the whole tile's,
// with and without the chain (the wide tile's), both betas, and the
// columns past its width and the guards around C untouched.
func TestSgemmKernelIndirectNarrow(t *testing.T) {
	r := rand.New(rand.NewSource(61))
	for _, l := range levels() {
		withLevel(t, l, func() {
			for _, wide := range []bool{false, true} {
				mr, full, ok := SgemmIndirectTile(wide)
				if !ok {
					continue
				}
				for cols := 0; cols <= full; cols++ {
					nr, ok := SgemmIndirectNarrow(wide, cols)
					want := 0
					if l == LevelAVX512 && cols >= 1 {
						for _, w := range []int{16, 32} {
							if cols <= w && w < full {
								want = w
								break
							}
						}
					}
					if ok != (want > 0) || nr != want {
						t.Fatalf("%s wide=%v: SgemmIndirectNarrow(%d) = %d, %v, want %d", l, wide, cols, nr, ok, want)
					}
				}
				for _, nr := range []int{16, 32} {
					if _, ok := SgemmIndirectNarrow(wide, nr); !ok || nr >= full {
						continue
					}
					for _, chain := range []bool{false, true} {
						if chain && !wide {
							continue
						}
						for _, kc := range []int{0, 1, 5, 27, 300} {
							for _, beta := range []float32{0, 1} {
								a := randIn(r, kc*mr+1, -1, 1)
								b := randIn(r, 3*full+11, -1, 1)
								offs := make([]int, kc+1)
								for p := range offs {
									offs[p] = r.Intn(len(b) - full + 1)
								}
								var codes []uint8
								var sc []float32
								if chain {
									codes = make([]uint8, 1+r.Intn(5))
									for i := range codes {
										codes[i] = uint8(r.Intn(int(numChainOps)))
									}
									sc = randIn(r, len(codes)*mr+1, -2, 2)
									sc[r.Intn(len(sc))] = 0 // a division by zero
								}
								cp, sp := chainPtrs(codes, sc)
								ldc := full + 3
								_, whole, _, _ := seededC(mr, full, ldc, 2, beta)
								buf, c, _, n := seededC(mr, full, ldc, 2, beta)
								alpha := alphaFor(kc)
								ap, bp, op := unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), &offs[0]
								if chain {
									SgemmKernelIndirectChainUnchecked(kc, ap, bp, op, unsafe.Pointer(&whole[0]), ldc, alpha, beta, cp, sp, len(codes))
								} else {
									SgemmKernelIndirectUnchecked(wide, kc, ap, bp, op, unsafe.Pointer(&whole[0]), ldc, alpha, beta)
								}
								SgemmKernelIndirectNarrowUnchecked(wide, nr, kc, ap, bp, op, unsafe.Pointer(&c[0]), ldc, alpha, beta, chain, cp, sp, len(codes))
								what := fmt.Sprintf("%s wide=%v nr=%d chain=%v kc=%d beta=%v", l, wide, nr, chain, kc, beta)
								for i := 0; i < mr; i++ {
									for j := 0; j < full; j++ {
										got, exp := c[i*ldc+j], whole[i*ldc+j]
										if j >= nr {
											exp = float32(i - j) // untouched
											if beta == 0 && i == 0 && j == 0 {
												exp = float32(math.NaN())
											}
										}
										if math.Float32bits(got) != math.Float32bits(exp) {
											t.Fatalf("%s: c[%d][%d] = %v (%#x), want %v (%#x)", what, i, j, got, math.Float32bits(got), exp, math.Float32bits(exp))
										}
									}
								}
								checkGuards(t, what, buf, n, 2)
							}
						}
					}
				}
			}
		})
	}
}
