package asm

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"unsafe"
)

// TestSgemmNarrow runs the narrow kernels against their twin at every level
// on odd row counts (every 8/4/2/1 split), every column count up to the
// vector, odd strides and both alphas and betas, with NaNs, infinities and
// signed zeros among the inputs, and checks that C's elements past cols and
// around the tile keep their sentinels.
func TestSgemmNarrow(t *testing.T) {
	r := rand.New(rand.NewSource(21))
	for _, l := range levels() {
		withLevel(t, l, func() {
			w := SgemmNarrowWidth()
			i := 0
			for _, rows := range []int{1, 2, 3, 5, 7, 8, 9, 15, 16, 17} {
				for _, cols := range []int{1, 3, w / 2, w - 1, w} {
					for _, kc := range []int{0, 1, 2, 3, 8, 17, 64} {
						for _, beta := range []float32{0, 1, -0.5} {
							i++
							alpha := alphaFor(i)
							lda, ldb, ldc := kc+3, cols+5, cols+2
							a := randInput(r, max(0, (rows-1)*lda+kc), 1)
							b := randInput(r, max(0, (kc-1)*ldb+cols), 1)
							buf, c, want, n := seededC(rows, cols, ldc, i%7, beta)
							if err := SgemmNarrow(rows, cols, kc, a, lda, b, ldb, c, ldc, alpha, beta); err != nil {
								t.Fatal(err)
							}
							sgemmNarrowGo(rows, cols, kc, a, lda, b, ldb, want, ldc, alpha, beta)
							what := fmt.Sprintf("SgemmNarrow %s %dx%d kc=%d alpha=%v beta=%v", l, rows, cols, kc, alpha, beta)
							checkTile(t, what, c, want, rows, cols, ldc)
							checkGuards(t, what, buf, n, i%7)
							for x := 0; x < rows-1; x++ {
								for y := cols; y < ldc; y++ {
									if v := c[x*ldc+y]; math.Float32bits(v) != math.Float32bits(sentinel) {
										t.Fatalf("%s: wrote %v at row %d column %d, past the %d columns", what, v, x, y, cols)
									}
								}
							}
						}
					}
				}
			}
		})
	}
	for _, c := range []struct{ rows, cols, kc, lda, ldb, ldc, la, lb, lc int }{
		{1, 17, 1, 1, 17, 17, 1, 17, 17},  // more columns than any vector
		{2, 4, 3, 2, 4, 4, 100, 100, 100}, // lda < kc
		{2, 4, 3, 3, 4, 4, 5, 100, 100},   // A short
		{2, 4, 3, 3, 4, 4, 6, 11, 100},    // B short
		{2, 4, 3, 3, 4, 4, 6, 12, 7},      // C short
		{-1, 4, 3, 3, 4, 4, 6, 12, 8},
	} {
		if err := SgemmNarrow(c.rows, c.cols, c.kc, make([]float32, c.la), c.lda, make([]float32, c.lb), c.ldb, make([]float32, c.lc), c.ldc, 1, 0); err == nil {
			t.Errorf("SgemmNarrow accepted %+v", c)
		}
	}
}

// TestSgemmNarrowTwinIsPacked checks that the narrow twin gives the packed
// micro-kernels' twin's bits on A packed from the same rows, so that a
// product may take either path.
func TestSgemmNarrowTwinIsPacked(t *testing.T) {
	r := rand.New(rand.NewSource(22))
	const rows, cols, kc = 4, 16, 37
	for _, beta := range []float32{0, 1, -0.5} {
		a, b := randInput(r, rows*kc, 1), randInput(r, kc*cols, 1)
		packed := make([]float32, kc*rows)
		for i := 0; i < rows; i++ {
			for p := 0; p < kc; p++ {
				packed[p*rows+i] = a[i*kc+p]
			}
		}
		c, want := make([]float32, rows*cols), make([]float32, rows*cols)
		for i := range c {
			c[i] = float32(i)
			want[i] = float32(i)
		}
		sgemmNarrowGo(rows, cols, kc, a, kc, b, cols, c, cols, 1.5, beta)
		sgemmTwin(rows, cols, kc, packed, b, cols, nil, want, cols, 1.5, beta)
		checkTile(t, fmt.Sprintf("beta=%v", beta), c, want, rows, cols, cols)
	}
}

// TestLayerNormShort runs the short-row layer norm at every level against
// its twin on every row length below LayerNormShortMax (whole vectors, a
// tail, both), inputs with NaNs, infinities and signed zeros among them, and
// checks the guard bands (TestLayerNormShortTwin checks the twin itself).
func TestLayerNormShort(t *testing.T) {
	r := rand.New(rand.NewSource(23))
	for _, l := range levels() {
		withLevel(t, l, func() {
			for n := 1; n < LayerNormShortMax; n++ {
				for _, rows := range []int{1, 3} {
					x := randInput(r, rows*n, 4)
					if n%4 == 1 {
						// NaNs of both signs: which one a sum keeps is the
						// operands' order.
						x[r.Intn(len(x))] = math.Float32frombits(0xffc00000)
						x[r.Intn(len(x))] = math.Float32frombits(0x7fc00000)
					}
					if n%5 == 0 {
						for i := range x {
							x[i] = r.Float32()*2 - 1 // no specials: a finite result to compare
						}
					}
					g, b := randInput(r, n, 2), randInput(r, n, 2)
					buf, dst := guarded(rows*n, n%3)
					want := make([]float32, rows*n)
					LayerNormShortF32(dst, x, g, b, rows, n, 1e-5)
					for i := 0; i < rows; i++ {
						layerNormRowGo(want[i*n:(i+1)*n], x[i*n:(i+1)*n], g, b, 1e-5)
					}
					what := fmt.Sprintf("LayerNormShort %s rows=%d n=%d", l, rows, n)
					for i := range want { // every bit, a NaN's sign and payload too
						if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s: [%d] %#x, want %#x", what, i, math.Float32bits(dst[i]), math.Float32bits(want[i]))
						}
					}
					checkGuards(t, what, buf, rows*n, n%3)
				}
			}
		})
	}
	for _, f := range []func(){
		func() {
			LayerNormShortF32(make([]float32, 64), make([]float32, 64), make([]float32, 64), make([]float32, 64), 1, 64, 0)
		},
		func() {
			LayerNormShortF32(make([]float32, 8), make([]float32, 7), make([]float32, 8), make([]float32, 8), 1, 8, 0)
		},
		func() {
			LayerNormShortF32(make([]float32, 8), make([]float32, 8), make([]float32, 7), make([]float32, 8), 1, 8, 0)
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("LayerNormShortF32 accepted a bad call")
				}
			}()
			f()
		}()
	}
}

// TestLayerNormShortTwin checks the twin's arithmetic on a row worked out
// by hand: x = 1..10 (mean 5.5, variance 8.25), gain 2, bias 1.
func TestLayerNormShortTwin(t *testing.T) {
	x, g, b := make([]float32, 10), make([]float32, 10), make([]float32, 10)
	for i := range x {
		x[i], g[i], b[i] = float32(i+1), 2, 1
	}
	o := make([]float32, 10)
	layerNormRowGo(o, x, g, b, 0)
	for i, v := range o {
		want := (float64(i+1)-5.5)/math.Sqrt(8.25)*2 + 1
		if math.Abs(float64(v)-want) > 1e-6 {
			t.Errorf("o[%d] = %v, want %v", i, v, want)
		}
	}
}

// TestSgemmIndirectChainScatter runs the scattering indirect chain kernel,
// and its narrow forms (SgemmKernelIndirectChainScatterNarrowUnchecked),
// against its twin (the tile as the unscattered kernel computes it, then
// stored lane by lane) with random tables: offsets anywhere in the rows,
// negative ones included (the masks then select only lanes inside), random
// masks, every chain code, both alphas, with and without the rows'
// prefetch, with and without a residual step (anywhere in the chain, either
// operand order; the operand order shows in a NaN's payload only, which
// TestConv2DChainMatchesUnfused checks), one to three row tiles a call; and
// checks every element of the output buffer, guards included.
func TestSgemmIndirectChainScatter(t *testing.T) {
	if CurrentLevel() != LevelAVX512 {
		t.Skip("the scattering kernel is AVX-512 only")
	}
	r := rand.New(rand.NewSource(25))
	const mr, nr, ldc = 8, 48, 90
	for _, kc := range []int{0, 1, 5, 27, 256} {
		for it := 0; it < 8; it++ {
			tiles := 1 + it%3 // row tiles in one call
			a := randIn(r, max(kc, 1)*mr*tiles, -1, 1)
			b := randIn(r, 3*nr+11, -1, 1)
			offs := make([]int, max(kc, 1))
			for p := range offs {
				offs[p] = r.Intn(len(b) - nr + 1)
			}
			codes := make([]uint8, r.Intn(6))
			for i := range codes {
				codes[i] = uint8(r.Intn(int(numChainOps)))
			}
			sc := randIn(r, len(codes)*mr*tiles+1, -2, 2)
			var st [9]int64
			for v := 0; v < 3; v++ {
				var masks int64
				for h := 0; h < 2; h++ {
					o := r.Intn(ldc+16) - 16 // lane 0's element; lanes [0, 16) span o..o+15
					st[3*v+h] = int64(4 * o)
					for l := 0; l < 16; l++ {
						if o+l >= 0 && o+l < ldc && r.Intn(3) > 0 {
							masks |= 1 << (16*h + l)
						}
					}
				}
				st[3*v+2] = masks
			}
			n := tiles * mr * ldc
			alpha := alphaFor(it)
			cp, sp := chainPtrs(codes, sc[:len(codes)*mr*tiles])
			prefetch := ScatterPrefetch(it % 3) // the prefetching kernels store the same
			// A residual on half the iterations, at any step, either
			// operand order.
			var rs ScatterResidual
			if it%2 == 1 {
				rv := randIn(r, n, -2, 2)
				rs = ScatterResidual{P: unsafe.Pointer(&rv[0]), At: r.Intn(len(codes) + 1), Rev: r.Intn(2) == 0}
			}
			// The narrow forms (their first 32 or 16 columns) against the
			// whole tile's twin with the other vectors' masks empty.
			for _, w := range []int{nr, 32, 16} {
				buf, c := guarded(n, 3)
				wbuf, want := guarded(n, 3)
				stw := st
				for v := w / 16; v < 3; v++ {
					stw[3*v+2] = 0
				}
				if w == nr {
					SgemmKernelIndirectChainScatterUnchecked(kc, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), &offs[0], unsafe.Pointer(&c[0]), ldc, alpha, cp, sp, len(codes), &st, prefetch, rs, tiles)
				} else {
					SgemmKernelIndirectChainScatterNarrowUnchecked(w, kc, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), &offs[0], unsafe.Pointer(&c[0]), ldc, alpha, cp, sp, len(codes), &st, rs, tiles)
				}
				withLevel(t, LevelGo, func() {
					SgemmKernelIndirectChainScatterUnchecked(kc, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), &offs[0], unsafe.Pointer(&want[0]), ldc, alpha, cp, sp, len(codes), &stw, prefetch, rs, tiles)
				})
				for i := range buf {
					if !sameBits(buf[i], wbuf[i]) {
						t.Fatalf("width %d kc=%d it=%d codes=%v residual=%+v: buffer[%d] = %v, twin %v", w, kc, it, codes, rs, i, buf[i], wbuf[i])
					}
				}
			}
		}
	}
}

// TestGeluMatchesComposed requires GeluF32's one pass to give the bits of
// the five kernels it replaces run one after another, at every level, on
// inputs with NaNs, infinities and signed zeros, in place too.
func TestGeluMatchesComposed(t *testing.T) {
	eachLevelInput(t, 26, 8, func(l Level, n int, x []float32) {
		want, tmp := make([]float32, n), make([]float32, n)
		MulScalarF32(tmp, x, math.Sqrt2/2)
		ErfF32(tmp, tmp)
		MulScalarF32(tmp, tmp, 0.5)
		AddScalarF32(tmp, tmp, 0.5)
		MulF32(want, tmp, x)
		got := make([]float32, n)
		GeluF32(got, x)
		inPlace := append([]float32(nil), x...)
		GeluF32(inPlace, inPlace)
		for i := range want {
			if !sameBits(got[i], want[i]) || !sameBits(inPlace[i], want[i]) {
				t.Fatalf("%s n=%d: gelu(%v) = %v (in place %v), composed %v", l, n, x[i], got[i], inPlace[i], want[i])
			}
		}
	})
}

// eachLevelInput calls f at every level with an input of each test size
// (randInput at scale, a generator seeded with seed).
func eachLevelInput(t *testing.T, seed int64, scale float32, f func(l Level, n int, x []float32)) {
	r := rand.New(rand.NewSource(seed))
	for _, l := range levels() {
		withLevel(t, l, func() {
			for _, n := range testSizes {
				f(l, n, randInput(r, n, scale))
			}
		})
	}
}

// TestSiluMatchesComposed requires SiluF32 and XSigmoidF32 to give the bits
// of SigmoidF32 and MulF32 run one after another, in their operand orders,
// at every level, on inputs with NaNs, infinities and signed zeros, in
// place too, every bit of a NaN included.
func TestSiluMatchesComposed(t *testing.T) {
	eachLevelInput(t, 27, 30, func(l Level, n int, x []float32) {
		tmp, silu, xs := make([]float32, n), make([]float32, n), make([]float32, n)
		SigmoidF32(tmp, x)
		MulF32(silu, tmp, x)
		MulF32(xs, x, tmp)
		for _, c := range []struct {
			name string
			f    func(dst, x []float32)
			want []float32
		}{{"silu", SiluF32, silu}, {"xSigmoid", XSigmoidF32, xs}} {
			got := make([]float32, n)
			c.f(got, x)
			inPlace := append([]float32(nil), x...)
			c.f(inPlace, inPlace)
			for i, w := range c.want {
				// Every bit, a NaN's sign and payload too.
				wb := math.Float32bits(w)
				if math.Float32bits(got[i]) != wb || math.Float32bits(inPlace[i]) != wb {
					t.Fatalf("%s %s n=%d: (%#x) = %#x (in place %#x), composed %#x", l, c.name, n,
						math.Float32bits(x[i]), math.Float32bits(got[i]), math.Float32bits(inPlace[i]), wb)
				}
			}
		}
	})
}
