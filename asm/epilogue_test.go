package asm

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"unsafe"
)

// TestEpilogueRows checks EpilogueRowsF32 against the separate kernels it
// stands for (AddScalarF32, AddF32 with the residual on either side,
// ReluF32) run row by row at the same level, bit for bit (in assembly NaN
// payloads included: the inputs carry NaNs of different payloads), for every
// combination of steps, odd widths (whole vectors, the masked tail, both)
// and rows with padding between them, which must keep their values, as
// must the guard bands around c.
func TestEpilogueRows(t *testing.T) {
	r := rand.New(rand.NewSource(41))
	nan := func(payload uint32) float32 { return math.Float32frombits(0x7fc00000 | payload) }
	withNaNs := func(x []float32, payload uint32) []float32 {
		for i := range x {
			if r.Intn(16) == 0 {
				x[i] = nan(payload + uint32(i))
			}
		}
		return x
	}
	for _, l := range levels() {
		withLevel(t, l, func() {
			for _, n := range []int{1, 5, 8, 15, 16, 17, 31, 32, 33, 47, 48, 100} {
				for _, rows := range []int{1, 3, 8} {
					ldc, ldr := n+3, n+1
					m := (rows-1)*ldc + n
					c0 := withNaNs(randInput(r, m, 4), 0x100)
					rb := withNaNs(randInput(r, rows, 4), 0x200)
					cb := withNaNs(randInput(r, n, 4), 0x300)
					res := withNaNs(randInput(r, (rows-1)*ldr+n, 4), 0x400)
					for flags := 0; flags < 1<<5; flags++ {
						if flags&EpiResLeft != 0 && flags&EpiRes == 0 {
							continue
						}
						want := append([]float32(nil), c0...)
						for i := 0; i < rows; i++ {
							row := want[i*ldc : i*ldc+n]
							if flags&EpiRowBias != 0 {
								AddScalarF32(row, row, rb[i])
							}
							if flags&EpiColBias != 0 {
								AddF32(row, row, cb[:n])
							}
							if flags&EpiRes != 0 {
								rr := res[i*ldr : i*ldr+n]
								if flags&EpiResLeft != 0 {
									AddF32(row, rr, row)
								} else {
									AddF32(row, row, rr)
								}
							}
							if flags&EpiRelu != 0 {
								ReluF32(row, row)
							}
						}
						buf, c := guarded(m, 0)
						copy(c, c0)
						EpilogueRowsF32(c, ldc, rows, n, rb, cb, res, ldr, flags)
						what := fmt.Sprintf("%s n=%d rows=%d flags=%05b", l, n, rows, flags)
						for i := range c {
							same := math.Float32bits(c[i]) == math.Float32bits(want[i])
							if l == LevelGo {
								// Go may compile x + y with its operands
								// swapped, inlined here and not there: the
								// twins keep NaN, not its payload.
								same = sameBits(c[i], want[i])
							}
							if !same {
								t.Fatalf("%s: c[%d] (row %d col %d) = %#x, want %#x", what, i, i/ldc, i%ldc,
									math.Float32bits(c[i]), math.Float32bits(want[i]))
							}
						}
						checkGuards(t, what, buf, m, 0)
					}
				}
			}
		})
	}
	mustPanic(t, "EpilogueRowsF32",
		func() { EpilogueRowsF32(make([]float32, 19), 10, 2, 10, nil, nil, nil, 0, 0) },
		func() { EpilogueRowsF32(make([]float32, 20), 10, 2, 10, make([]float32, 1), nil, nil, 0, EpiRowBias) },
		func() { EpilogueRowsF32(make([]float32, 20), 10, 2, 10, nil, make([]float32, 9), nil, 0, EpiColBias) },
		func() { EpilogueRowsF32(make([]float32, 20), 10, 2, 10, nil, nil, make([]float32, 19), 10, EpiRes) },
		func() { EpilogueRowsF32(make([]float32, 20), 10, 2, 10, nil, nil, make([]float32, 20), 9, EpiRes) },
	)
}

// BenchmarkEpilogueRows times a product's bias and residual epilogue on
// a block of 8 rows of 128 columns (the blocked driver's group), as one
// EpilogueRowsF32 call against the calls per row it replaces.
func BenchmarkEpilogueRows(b *testing.B) {
	const rows, n, ld = 8, 128, 256
	c := make([]float32, rows*ld)
	res := make([]float32, rows*ld)
	cb := make([]float32, n)
	b.Run("fused", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			EpilogueRowsF32(c, ld, rows, n, nil, cb, res, ld, EpiColBias|EpiRes)
		}
	})
	b.Run("per-row", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for r := 0; r < rows; r++ {
				row := c[r*ld : r*ld+n]
				AddF32(row, row, cb)
				AddF32(row, row, res[r*ld:r*ld+n])
			}
		}
	})
}

// TestSgemmKernelEpi checks the packed kernels with the epilogue in
// registers (SgemmKernelEpiUnchecked) against the kernel and then
// EpilogueRowsF32 on the stored tile, bit for bit (NaN payloads included in
// assembly), for every tile the level has, both next-panel forms, every
// combination of steps, alpha 1 and not, beta 0 and not; C's rows padded,
// with guard bands.
func TestSgemmKernelEpi(t *testing.T) {
	r := rand.New(rand.NewSource(43))
	for _, l := range levels() {
		withLevel(t, l, func() {
			type tile struct {
				kind   SgemmTileKind
				mr, nr int
				run    func(kc int, a, b, c unsafe.Pointer, ldc int, alpha, beta float32)
			}
			mr, nr := SgemmTile()
			tiles := []tile{{TileMain, mr, nr, SgemmKernelUnchecked}}
			if mr, nr, ok := SgemmTileMid(); ok {
				tiles = append(tiles, tile{TileMid, mr, nr, SgemmKernelMidUnchecked})
			}
			if mr, nr, ok := SgemmTileWide(); ok {
				tiles = append(tiles, tile{TileWide, mr, nr, SgemmKernelWideUnchecked})
			}
			for _, tl := range tiles {
				const kc = 37
				ldc, ldr := tl.nr+5, tl.nr+3
				a := randInput(r, kc*tl.mr, 1)
				b := randInput(r, kc*tl.nr, 1)
				c0 := randInput(r, (tl.mr-1)*ldc+tl.nr, 4)
				cb := randInput(r, tl.nr, 4)
				res := randInput(r, (tl.mr-1)*ldr+tl.nr, 4)
				for i := range res {
					if i%11 == 3 {
						res[i] = math.Float32frombits(0x7fc00400 | uint32(i))
					}
				}
				for flags := 0; flags < 1<<5; flags += 2 { // no EpiRowBias
					if flags&EpiResLeft != 0 && flags&EpiRes == 0 {
						continue
					}
					for _, ab := range [][2]float32{{1, 0}, {1.5, 0.5}} {
						for _, next := range []bool{false, true} {
							m := (tl.mr-1)*ldc + tl.nr
							want := append([]float32(nil), c0...)
							tl.run(kc, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), unsafe.Pointer(&want[0]), ldc, ab[0], ab[1])
							EpilogueRowsF32(want, ldc, tl.mr, tl.nr, nil, cb, res, ldr, flags)
							buf, got := guarded(m, 0)
							copy(got, c0)
							SgemmKernelEpiUnchecked(tl.kind, next, kc, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), unsafe.Pointer(&got[0]), ldc, ab[0], ab[1],
								unsafe.Pointer(&cb[0]), unsafe.Pointer(&res[0]), ldr, flags)
							what := fmt.Sprintf("%s tile %dx%d flags=%05b alpha=%v beta=%v next=%v", l, tl.mr, tl.nr, flags, ab[0], ab[1], next)
							for i := range got {
								same := math.Float32bits(got[i]) == math.Float32bits(want[i])
								if l == LevelGo {
									same = sameBits(got[i], want[i])
								}
								if !same {
									t.Fatalf("%s: c[%d] = %#x, want %#x", what, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
								}
							}
							checkGuards(t, what, buf, m, 0)
						}
					}
				}
			}
		})
	}
}
