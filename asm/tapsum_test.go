package asm

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// TestTapSum compares TapSumF32 with its twin at every level on odd sizes,
// tap counts and offsets, with guard bands around dst, special values in
// base and w (NaNs with payloads, infinities, signed zeros), and checks the
// twin against the sum written out.
func TestTapSum(t *testing.T) {
	defer func(l Level) { _ = SetLevel(l) }(CurrentLevel())
	r := rand.New(rand.NewSource(7))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00123), 1e-45, 3.4e38}
	for _, l := range levels() {
		if err := SetLevel(l); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 1, 7, 8, 9, 31, 63, 64, 65, 130, 257} {
			for _, ntaps := range []int{0, 1, 4, 9, 25} {
				for _, special := range []bool{false, true} {
					base := make([]float32, n+40)
					for i := range base {
						base[i] = float32(r.NormFloat64())
						if special && r.Intn(8) == 0 {
							base[i] = specials[r.Intn(len(specials))]
						}
					}
					offs := make([]int, ntaps)
					w := make([]float32, ntaps)
					for k := range offs {
						offs[k] = r.Intn(41)
						w[k] = float32(r.NormFloat64())
						if special && r.Intn(4) == 0 {
							w[k] = specials[r.Intn(len(specials))]
						}
					}
					want := make([]float32, n)
					tapSumGo(want, base, offs, w)
					buf := make([]float32, n+32)
					for i := range buf {
						buf[i] = 777
					}
					got := buf[16 : 16+n]
					TapSumF32(got, base, offs, w)
					for i := range want {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s n=%d taps=%d: [%d] %v (%#x), twin %v (%#x)", l, n, ntaps, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
						}
						var acc float32
						for k, o := range offs {
							p := base[o+i] * w[k]
							acc += p
						}
						// Plain Go picks among NaNs by register allocation.
						if bothNaN := want[i] != want[i] && acc != acc; !bothNaN && math.Float32bits(want[i]) != math.Float32bits(acc) {
							t.Fatalf("twin [%d] = %v, want %v", i, want[i], acc)
						}
					}
					for i := 0; i < 16; i++ {
						if buf[i] != 777 || buf[len(buf)-1-i] != 777 {
							t.Fatalf("%s n=%d: wrote outside dst", l, n)
						}
					}
				}
			}
		}
	}
}

func TestTapSumBounds(t *testing.T) {
	for _, tc := range []struct {
		name string
		offs []int
		w    []float32
	}{
		{"negative", []int{-1}, []float32{1}},
		{"past end", []int{3}, []float32{1}},
		{"short w", []int{0, 1}, []float32{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			TapSumF32(make([]float32, 8), make([]float32, 10), tc.offs, tc.w)
		})
	}
}

// TestInterleave2 checks Interleave2F32 at every level on odd lengths, with
// guard bands, and that Deinterleave2RowsF32 on one row undoes it.
func TestInterleave2(t *testing.T) {
	defer func(l Level) { _ = SetLevel(l) }(CurrentLevel())
	for _, l := range levels() {
		if err := SetLevel(l); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 1, 7, 8, 9, 17, 64, 101} {
			even, odd := make([]float32, n), make([]float32, n)
			for k := range even {
				even[k], odd[k] = float32(k)+0.25, -float32(k)-0.5
			}
			buf := make([]float32, 2*n+32)
			for i := range buf {
				buf[i] = 777
			}
			dst := buf[16 : 16+2*n]
			Interleave2F32(dst, even, odd)
			for k := 0; k < n; k++ {
				if dst[2*k] != even[k] || dst[2*k+1] != odd[k] {
					t.Fatalf("%s n=%d: [%d] = %v, %v", l, n, k, dst[2*k], dst[2*k+1])
				}
			}
			for i := 0; i < 16; i++ {
				if buf[i] != 777 || buf[len(buf)-1-i] != 777 {
					t.Fatalf("%s n=%d: wrote outside dst", l, n)
				}
			}
			e2, o2 := make([]float32, n), make([]float32, n)
			Deinterleave2RowsF32(e2, o2, n, dst, 2*n, 1, n)
			for k := range e2 {
				if e2[k] != even[k] || o2[k] != odd[k] {
					t.Fatalf("%s n=%d: round trip [%d]", l, n, k)
				}
			}
		}
	}
}

// TestTapSumChain compares TapSumChainF32 at every level with TapSumF32's
// twin followed by the chain's twin, bit for bit, on sizes around both
// vector widths, tap counts, random chains (every step code, special
// scalars) and inputs with special values, with guard bands around dst.
func TestTapSumChain(t *testing.T) {
	defer func(l Level) { _ = SetLevel(l) }(CurrentLevel())
	r := rand.New(rand.NewSource(17))
	sp := specials()
	for _, l := range levels() {
		if err := SetLevel(l); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 64, 130, 257} {
			for _, ntaps := range []int{0, 1, 4, 9} {
				for _, steps := range []int{0, 1, 5} {
					base := make([]float32, n+40)
					for i := range base {
						base[i] = float32(r.NormFloat64())
						if r.Intn(10) == 0 {
							base[i] = sp[r.Intn(len(sp))]
						}
					}
					offs, w := make([]int, ntaps), make([]float32, ntaps)
					for k := range offs {
						offs[k] = r.Intn(41)
						w[k] = float32(r.NormFloat64())
						if r.Intn(10) == 0 {
							w[k] = sp[r.Intn(len(sp))]
						}
					}
					codes, sc := randChain(r, steps, sp)
					off := r.Intn(4)
					buf, dst := guarded(n, off)
					TapSumChainF32(dst, base, offs, w, codes, sc)
					want := make([]float32, n)
					tapSumGo(want, base, offs, w)
					scalarChainGo(want, want, codes, sc)
					for i := range want {
						if g, wb := math.Float32bits(dst[i]), math.Float32bits(want[i]); g != wb {
							t.Fatalf("%s n=%d taps=%d steps=%d: [%d] %#x, want %#x", l, n, ntaps, steps, i, g, wb)
						}
					}
					checkGuards(t, l.String(), buf, n, off)
				}
			}
		}
	}
	b := make([]float32, 64)
	one := []float32{1}
	mustPanic(t, "TapSumChainF32",
		func() { TapSumChainF32(make([]float32, 8), b, []int{57}, one, nil, nil) },          // tap past base
		func() { TapSumChainF32(make([]float32, 8), b, []int{0, 1}, one, nil, nil) },        // short w
		func() { TapSumChainF32(make([]float32, 8), b, []int{0}, one, []uint8{99}, one) },   // bad code
		func() { TapSumChainF32(make([]float32, 8), b, []int{0}, one, []uint8{0, 0}, one) }, // short scalars
	)
}

// TestDepthwiseNC checks DepthwiseNCF32 against its twin bit for bit at
// every level: both column strides, rows of every block size and none
// (n = 0..19), 1 to 9 taps (3x3 windows among them, the unrolled kernel),
// chains with per-lane operands, special values,
// rows with gaps between them (which must stay untouched) and guard bands.
func TestDepthwiseNC(t *testing.T) {
	r := rand.New(rand.NewSource(29))
	sp := specials()
	for _, l := range levels() {
		withLevel(t, l, func() {
			lanes := BlockLanes()
			for _, sw := range []int{1, 2} {
				for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 14, 15, 16, 19, 21, 28} {
					for _, ntaps := range []int{1, 3, 9} {
						for _, steps := range []int{0, 1, 4} {
							rows := 1 + r.Intn(3)
							srcStride := ((n+2)*sw + 3) * lanes
							src := make([]float32, rows*srcStride+3*srcStride)
							for i := range src {
								src[i] = float32(r.NormFloat64())
								if r.Intn(12) == 0 {
									src[i] = sp[r.Intn(len(sp))]
								}
							}
							offs, w := make([]int, ntaps), make([]float32, ntaps*lanes)
							for k := range offs {
								offs[k] = r.Intn(3)*srcStride + r.Intn(3)*lanes
							}
							if ntaps == 9 && r.Intn(3) > 0 {
								// An undilated 3x3 window: the unrolled kernel.
								base, rs := r.Intn(2)*lanes, srcStride
								if r.Intn(2) == 0 {
									rs = srcStride / lanes / 2 * lanes
								}
								for k := range offs {
									offs[k] = base + (k/3)*rs + (k%3)*lanes
								}
							}
							for i := range w {
								w[i] = float32(r.NormFloat64())
								if r.Intn(12) == 0 {
									w[i] = sp[r.Intn(len(sp))]
								}
							}
							codes, _ := randChain(r, steps, sp)
							sc := make([]float32, steps*lanes)
							for i := range sc {
								sc[i] = (r.Float32()*2 - 1) * 4
								if r.Intn(6) == 0 {
									sc[i] = sp[r.Intn(len(sp))]
								}
							}
							dstStride := n*lanes + r.Intn(2)*5
							size := (rows-1)*dstStride + n*lanes
							off := r.Intn(4)
							buf, dst := guarded(size, off)
							DepthwiseNCF32(dst, dstStride, src, srcStride, offs, w, rows, n, sw, codes, sc)
							want := make([]float32, size)
							for i := range want {
								want[i] = sentinel
							}
							depthwiseNCGo(want, dstStride, src, srcStride, offs, w, rows, n, sw, lanes, codes, sc)
							what := fmt.Sprintf("%s sw=%d n=%d taps=%d steps=%d rows=%d", l, sw, n, ntaps, steps, rows)
							for i := range want {
								if g, wb := math.Float32bits(dst[i]), math.Float32bits(want[i]); g != wb && !(raceEnabled && dst[i] != dst[i] && want[i] != want[i]) {
									t.Fatalf("%s: [%d] %#x, want %#x", what, i, g, wb)
								}
							}
							checkGuards(t, what, buf, size, off)
						}
					}
				}
			}
			b := make([]float32, 4*lanes)
			w := make([]float32, lanes)
			mustPanic(t, "DepthwiseNCF32",
				func() { DepthwiseNCF32(make([]float32, lanes), lanes, b, lanes, []int{0}, w, 1, 1, 3, nil, nil) }, // stride 3
				func() { DepthwiseNCF32(make([]float32, lanes), lanes, b, lanes, nil, w, 1, 1, 1, nil, nil) },      // no taps
				func() {
					DepthwiseNCF32(make([]float32, lanes), lanes, b, lanes, []int{3*lanes + 1}, w, 1, 1, 1, nil, nil)
				}, // tap past src
				func() { DepthwiseNCF32(make([]float32, lanes), lanes, b, lanes, []int{0, 0}, w, 1, 1, 1, nil, nil) }, // short w
				func() { DepthwiseNCF32(make([]float32, lanes-1), lanes, b, lanes, []int{0}, w, 1, 1, 1, nil, nil) },  // short dst
				func() {
					DepthwiseNCF32(make([]float32, lanes), lanes, b, lanes, []int{0}, w, 1, 1, 1, []uint8{0}, w[:1])
				}, // short operands
				func() { DepthwiseNCF32(make([]float32, lanes), lanes, b, lanes, []int{0}, w, 1, 1, 1, []uint8{99}, w) }, // bad code
				func() { DepthwiseNCF32(make([]float32, 3*lanes), lanes, b, 2*lanes, []int{0}, w, 3, 1, 2, nil, nil) },   // rows past src
			)
		})
	}
}

// TestTranspose checks TransposeF32 at every level on sizes around the 8x8
// (AVX2) and 16x16 (AVX-512) blocks, with padded strides whose gaps (and the guard bands) must stay
// untouched, and NaN payloads, which must move unchanged.
func TestTranspose(t *testing.T) {
	r := rand.New(rand.NewSource(31))
	for _, l := range levels() {
		withLevel(t, l, func() {
			for _, rows := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 49} {
				for _, cols := range []int{0, 1, 5, 8, 15, 16, 17, 24, 31, 32, 33, 196} {
					lds, ldd := cols+r.Intn(3), rows+r.Intn(3)
					src := make([]float32, rows*lds)
					for i := range src {
						src[i] = math.Float32frombits(r.Uint32())
					}
					size := 0
					if rows > 0 && cols > 0 {
						size = (cols-1)*ldd + rows
					}
					off := r.Intn(4)
					buf, dst := guarded(size, off)
					TransposeF32(dst, ldd, src, lds, rows, cols)
					what := fmt.Sprintf("%s %dx%d lds=%d ldd=%d", l, rows, cols, lds, ldd)
					for i := range dst {
						c, rr := i/ldd, i%ldd
						want := uint32(0x7fc0dead)
						if rr < rows {
							want = math.Float32bits(src[rr*lds+c])
						}
						if g := math.Float32bits(dst[i]); g != want {
							t.Fatalf("%s: dst[%d] %#x, want %#x", what, i, g, want)
						}
					}
					checkGuards(t, what, buf, size, off)
				}
			}
			b := make([]float32, 64)
			mustPanic(t, "TransposeF32",
				func() { TransposeF32(make([]float32, 64), 8, b, 8, 9, 8) }, // src too short
				func() { TransposeF32(make([]float32, 63), 8, b, 8, 8, 8) }, // dst too short
				func() { TransposeF32(b, 8, b, 8, 8, 8) },                   // in place
			)
		})
	}
}

// TestTransposeBatch checks TransposeBatchF32 against TransposeF32 entry by
// entry at every level, with source entries interleaved as the blocked
// depthwise convolution lays them (a row of each of several planes) and
// destination entries in a padded plane's rows, whose gaps stay untouched.
func TestTransposeBatch(t *testing.T) {
	r := rand.New(rand.NewSource(37))
	for _, l := range levels() {
		withLevel(t, l, func() {
			for _, c := range []struct{ planes, h, w, pad int }{{16, 7, 7, 1}, {8, 14, 14, 1}, {13, 3, 9, 2}, {3, 5, 1, 0}, {17, 2, 20, 1}, {16, 3, 40, 1}, {32, 2, 33, 0}} {
				lanes := 16
				if c.planes > lanes {
					lanes = (c.planes + 7) / 8 * 8
				}
				src := make([]float32, c.planes*c.h*c.w)
				for i := range src {
					src[i] = math.Float32frombits(r.Uint32())
				}
				wp := c.w + 2*c.pad
				size := (c.h-1)*wp*lanes + (c.w-1)*lanes + c.planes
				buf, dst := guarded(size, 1)
				TransposeBatchF32(dst, lanes, wp*lanes, src, c.h*c.w, c.w, c.h, c.planes, c.w)
				want := make([]float32, size)
				for i := range want {
					want[i] = sentinel
				}
				for y := 0; y < c.h; y++ {
					TransposeF32(want[y*wp*lanes:], lanes, src[y*c.w:], c.h*c.w, c.planes, c.w)
				}
				what := fmt.Sprintf("%s %+v", l, c)
				for i := range want {
					if g, w := math.Float32bits(dst[i]), math.Float32bits(want[i]); g != w {
						t.Fatalf("%s: [%d] %#x, want %#x", what, i, g, w)
					}
				}
				checkGuards(t, what, buf, size, 1)
			}
			mustPanic(t, "TransposeBatchF32",
				func() { TransposeBatchF32(make([]float32, 100), 8, 16, make([]float32, 64), 8, 8, 3, 8, 8) }, // src too short
				func() { TransposeBatchF32(make([]float32, 64), 8, 16, make([]float32, 80), 8, 8, 2, 8, 8) },  // dst too short
			)
		})
	}
}

// TestChainCols checks ChainColsF32 against its twin bit for bit at every
// level: row counts around the kernel's groups of 8, 4, 2 and 1, one to
// four column blocks, padded row strides whose gaps stay untouched, chains
// of every step code with per-column operands and special values.
func TestChainCols(t *testing.T) {
	r := rand.New(rand.NewSource(41))
	sp := specials()
	for _, l := range levels() {
		withLevel(t, l, func() {
			lanes := BlockLanes()
			for _, rows := range []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 49} {
				for _, blocks := range []int{1, 2, 4} {
					for _, steps := range []int{0, 1, 5} {
						cols := blocks * lanes
						ld := cols + r.Intn(3)
						size := 0
						if rows > 0 {
							size = (rows-1)*ld + cols
						}
						off := r.Intn(4)
						buf, x := guarded(size, off)
						for i := range x {
							x[i] = float32(r.NormFloat64())
							if r.Intn(8) == 0 {
								x[i] = sp[r.Intn(len(sp))]
							}
						}
						for i := 0; i+1 < rows; i++ { // the gaps between rows
							for j := i*ld + cols; j < (i+1)*ld; j++ {
								x[j] = sentinel
							}
						}
						want := append([]float32(nil), x...)
						codes, _ := randChain(r, steps, sp)
						sc := make([]float32, steps*cols)
						for i := range sc {
							sc[i] = (r.Float32()*2 - 1) * 4
							if r.Intn(6) == 0 {
								sc[i] = sp[r.Intn(len(sp))]
							}
						}
						ChainColsF32(x, ld, rows, cols, codes, sc)
						chainColsGo(want, ld, rows, cols, lanes, codes, sc)
						what := fmt.Sprintf("%s rows=%d blocks=%d steps=%d", l, rows, blocks, steps)
						for i := range want {
							if g, w := math.Float32bits(x[i]), math.Float32bits(want[i]); g != w {
								t.Fatalf("%s: [%d] %#x, want %#x", what, i, g, w)
							}
						}
						checkGuards(t, what, buf, size, off)
					}
				}
			}
			x := make([]float32, 4*lanes)
			mustPanic(t, "ChainColsF32",
				func() { ChainColsF32(x, lanes, 1, lanes+1, []uint8{0}, x) },           // not whole blocks
				func() { ChainColsF32(x, lanes, 5, lanes, []uint8{0}, x) },             // x too short
				func() { ChainColsF32(x, lanes, 1, lanes, []uint8{0, 0, 0, 0, 0}, x) }, // operands too short
				func() { ChainColsF32(x, lanes, 1, lanes, []uint8{99}, x) },            // bad code
			)
		})
	}
}

// BenchmarkTranspose times TransposeF32 on the position path's and the
// channel-blocked depthwise path's shapes (MobileNetV2's T of 196 positions
// by 576 and 384 channels, of 49 by 960; a whole number of 16x16 blocks at
// 208 rows), source and destination in L2: GB/s moved (read and written).
func BenchmarkTranspose(b *testing.B) {
	for _, c := range [][2]int{{196, 576}, {196, 384}, {49, 960}, {208, 576}, {576, 196}} {
		rows, cols := c[0], c[1]
		src, dst := make([]float32, rows*cols), make([]float32, rows*cols)
		for i := range src {
			src[i] = float32(i)
		}
		b.Run(fmt.Sprintf("%dx%d", rows, cols), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				TransposeF32(dst, rows, src, cols, rows, cols)
			}
			b.ReportMetric(float64(8*rows*cols)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}
