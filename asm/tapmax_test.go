package asm

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// TestTapMax compares TapMaxF32 with its twin at every level, bit for bit,
// on odd sizes and tap counts with guard bands, over inputs with NaN
// payloads of both signs, infinities, signed zeros and subnormals; checks
// the twin against a running maxNaN written out here; and checks that -Inf
// taps (padding) change nothing once the maximum is at lo or above, NaNs
// included. (A NaN maximum meeting a number becomes Go's max of the two:
// NaN, not always with the same payload; that is the kernels' maxNaN, so the
// definition checked here fixes the payload only when the last tap is NaN.)
func TestTapMax(t *testing.T) {
	defer func(l Level) { _ = SetLevel(l) }(CurrentLevel())
	r := rand.New(rand.NewSource(8))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00123), math.Float32frombits(0x7fa00000), 1e-45, -3.4e38}
	lo := float32(-math.MaxFloat32)
	for _, l := range levels() {
		if err := SetLevel(l); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 1, 7, 8, 9, 31, 33, 63, 64, 65, 130, 257} {
			for _, ntaps := range []int{0, 1, 4, 9, 25} {
				for _, special := range []bool{false, true} {
					base := make([]float32, n+40)
					for i := range base {
						base[i] = float32(r.NormFloat64())
						if special && r.Intn(6) == 0 {
							base[i] = specials[r.Intn(len(specials))]
						}
					}
					offs := make([]int, ntaps)
					for k := range offs {
						offs[k] = r.Intn(41)
					}
					want := make([]float32, n)
					tapMaxGo(want, base, offs, lo)
					buf := make([]float32, n+32)
					for i := range buf {
						buf[i] = 777
					}
					got := buf[16 : 16+n]
					TapMaxF32(got, base, offs, lo)
					for i := range want {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s n=%d taps=%d: [%d] %#x, twin %#x", l, n, ntaps, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
						}
						// The twin against the definition, written without
						// max: NaN when a tap is NaN, the last tap's bits when
						// that one is NaN, else the largest of lo and the taps
						// (+0 over -0).
						anyNaN, m := false, lo
						for _, o := range offs {
							v := base[o+i]
							switch {
							case v != v:
								anyNaN = true
							case v > m || (v == 0 && m == 0 && !math.Signbit(float64(v))):
								m = v
							}
						}
						w := want[i]
						switch {
						case anyNaN && w == w:
							t.Fatalf("twin n=%d taps=%d [%d] = %v, want NaN", n, ntaps, i, w)
						case ntaps > 0 && base[offs[ntaps-1]+i] != base[offs[ntaps-1]+i] && math.Float32bits(w) != math.Float32bits(base[offs[ntaps-1]+i]):
							t.Fatalf("twin n=%d taps=%d [%d] = %#x, want the last tap's NaN %#x", n, ntaps, i, math.Float32bits(w), math.Float32bits(base[offs[ntaps-1]+i]))
						case !anyNaN && math.Float32bits(w) != math.Float32bits(m):
							t.Fatalf("twin n=%d taps=%d [%d] = %#x, want %#x", n, ntaps, i, math.Float32bits(w), math.Float32bits(m))
						}
					}
					for i := 0; i < 16; i++ {
						if buf[i] != 777 || buf[len(buf)-1-i] != 777 {
							t.Fatalf("%s n=%d: wrote outside dst", l, n)
						}
					}
					// Padding: -Inf taps appended change no bit.
					if ntaps > 0 && n > 0 {
						padded := append([]float32{}, base...)
						padded = append(padded, make([]float32, n)...)
						for i := len(base); i < len(padded); i++ {
							padded[i] = float32(math.Inf(-1))
						}
						offs2 := append(append([]int{}, offs...), len(base))
						offs2 = append([]int{len(base)}, offs2...)
						got2 := make([]float32, n)
						TapMaxF32(got2, padded, offs2, lo)
						for i := range got2 {
							if math.Float32bits(got2[i]) != math.Float32bits(want[i]) {
								t.Fatalf("%s n=%d taps=%d: -Inf taps changed [%d] %#x to %#x", l, n, ntaps, i, math.Float32bits(want[i]), math.Float32bits(got2[i]))
							}
						}
					}
				}
			}
		}
	}
}

// TestMaxPool2x2 compares MaxPool2x2F32 at every level with TapMaxF32's
// twin on the same windows (taps: upper row's even and odd column, then
// the lower row's), bit for bit, on widths around both vector sizes (the
// last vector of a row overlaps the one before), with strides wider than
// the rows and guard bands: the gaps between output rows and the guards
// keep their sentinel. Inputs have NaN payloads of both signs, infinities
// and signed zeros (the checking kernels report them and the exact one
// pools again), or no NaN (the checking kernels' own result; at AVX2 only
// without negative zeros), from a NaN floor too; and one NaN, or one -0
// beside a +0, at a row's first, middle and last column, which the
// checking kernels must find.
func TestMaxPool2x2(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	all := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00123), math.Float32frombits(0x7fa00000), 1e-45}
	ordered := []float32{0, float32(math.Inf(1)), float32(math.Inf(-1)), 1e-45, -1e-45}
	zeros := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(-1)), 1e-45, -1e-45}
	window := func(ss int) func(y int) []int {
		return func(y int) []int {
			up := 2 * y * ss
			return []int{up, up + 1, up + ss, up + ss + 1}
		}
	}
	for _, l := range levels() {
		withLevel(t, l, func() {
			for _, sc := range []struct {
				lo       float32
				specials []float32
			}{{-math.MaxFloat32, all}, {float32(math.Inf(-1)), ordered}, {-math.MaxFloat32, ordered},
				{float32(math.Inf(-1)), zeros}, {math.Float32frombits(0x7fc00077), ordered}} {
				lo := sc.lo
				for _, rows := range []int{1, 2, 5} {
					for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 47, 64, 100} {
						for _, pad := range []int{0, 3} {
							ss, ds := 2*n+pad, n+2*pad
							src := poolSource(r, (2*rows-1)*ss+2*n, sc.specials)
							off := r.Intn(4)
							buf, dst := guarded((rows-1)*ds+n, off)
							MaxPool2x2F32(dst, ds, src, ss, rows, n, lo)
							checkPooledRows(t, fmt.Sprintf("%s rows=%d n=%d pad=%d lo=%v", l, rows, n, pad, lo), dst, ds, rows, n, src, lo, window(ss))
							checkGuards(t, l.String(), buf, len(dst), off)
						}
					}
				}
			}
			for _, n := range []int{8, 16, 17, 33} {
				const rows = 3
				ss := 2 * n
				for _, col := range []int{0, n, 2*n - 1} {
					for row := 0; row < 2*rows; row++ {
						for _, bad := range []float32{math.Float32frombits(0x7fc00042), float32(math.Copysign(0, -1))} {
							src := poolSource(r, (2*rows-1)*ss+2*n, ordered)
							if bad == 0 {
								// A -0 beside +0s in a negative plane: +0 in
								// every order, which VMAXPS alone would not give.
								for i := range src {
									src[i] = -1
								}
								src[row*ss+col^1] = 0
							}
							src[row*ss+col] = bad
							buf, dst := guarded((rows-1)*n+n, 0)
							MaxPool2x2F32(dst, n, src, ss, rows, n, float32(math.Inf(-1)))
							checkPooledRows(t, fmt.Sprintf("%s %v at row %d col %d, n=%d", l, bad, row, col, n), dst, n, rows, n, src, float32(math.Inf(-1)), window(ss))
							checkGuards(t, l.String(), buf, len(dst), 0)
						}
					}
				}
			}
		})
	}
	s := make([]float32, 64)
	mustPanic(t, "MaxPool2x2F32",
		func() { MaxPool2x2F32(make([]float32, 7), 8, s, 16, 1, 8, 0) }, // short dst
		func() { MaxPool2x2F32(make([]float32, 8), 8, s, 16, 3, 8, 0) }, // short src
		func() { MaxPool2x2F32(make([]float32, 8), 8, s, 15, 1, 8, 0) }, // srcStride < 2n
		func() { MaxPool2x2F32(s[20:28], 8, s[16:], 16, 1, 8, 0) },      // overlap
	)
}

// pool3Window returns checkPooledRows' window of output row y of a 3x3/2
// pooling whose source rows are ss apart: its nine taps in row-major order.
func pool3Window(ss int) func(y int) []int {
	return func(y int) []int {
		var offs []int
		for i := 0; i < 3; i++ {
			for k := 0; k < 3; k++ {
				offs = append(offs, (2*y+i)*ss+k)
			}
		}
		return offs
	}
}

// TestMaxPool3x3S2 checks MaxPool3x3S2F32 at every level against TapMaxF32's
// twin on the nine taps (its even outputs), with NaN payloads, signed
// zeros and infinities among the inputs (the checking kernels report them,
// then the exact kernel pools), and with only +0, infinities and denormals
// as specials (the checking kernels' own result), signed zeros without
// NaNs (AVX-512's VRANGEPS kernel keeps them, AVX2's reports them), a NaN
// floor lo (the exact kernel at every level), one NaN, and one -0 beside a
// +0, at each row's first, middle and last column, padded strides whose
// gaps must stay untouched, guard bands and the source ending right after
// the last window.
func TestMaxPool3x3S2(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	all := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00123), math.Float32frombits(0x7fa00000), 1e-45}
	ordered := []float32{0, float32(math.Inf(1)), float32(math.Inf(-1)), 1e-45, -1e-45}
	// Signed zeros without NaNs: the AVX-512 VRANGEPS kernel keeps them
	// (the AVX2 kernel reports them, and the exact one pools the plane).
	zeros := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(-1)), 1e-45, -1e-45}
	for _, l := range levels() {
		withLevel(t, l, func() {
			for _, sc := range []struct {
				lo       float32
				specials []float32
			}{{float32(math.Inf(-1)), all}, {-math.MaxFloat32, all}, {float32(math.Inf(-1)), ordered}, {-math.MaxFloat32, ordered},
				{float32(math.Inf(-1)), zeros}, {float32(math.Copysign(0, -1)), zeros},
				{math.Float32frombits(0x7fc00077), ordered}} { // a NaN floor: the exact kernel at every level
				lo, specials := sc.lo, sc.specials
				for _, rows := range []int{1, 2, 5} {
					for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 55, 100} {
						for _, pad := range []int{0, 3} {
							ss, ds := 2*n+1+pad, n+2*pad
							src := poolSource(r, 2*rows*ss+2*n+1, specials)
							off := r.Intn(4)
							buf, dst := guarded((rows-1)*ds+n, off)
							MaxPool3x3S2F32(dst, ds, src, ss, rows, n, lo)
							checkPooledRows(t, fmt.Sprintf("%s rows=%d n=%d pad=%d", l, rows, n, pad), dst, ds, rows, n, src, lo, pool3Window(ss))
							checkGuards(t, l.String(), buf, len(dst), off)
						}
					}
				}
			}
			// One NaN in a finite plane, at each row's first, middle and
			// last column (2n, which the VRANGEPS kernel leaves to its
			// caller): the output must be the twin's.
			for _, n := range []int{8, 16, 17, 33} {
				const rows = 3
				ss := 2*n + 1
				for _, col := range []int{0, n, 2 * n} {
					for row := 0; row <= 2*rows; row++ {
						src := poolSource(r, 2*rows*ss+2*n+1, ordered)
						src[row*ss+col] = math.Float32frombits(0x7fc00042)
						buf, dst := guarded((rows-1)*n+n, 0)
						MaxPool3x3S2F32(dst, n, src, ss, rows, n, float32(math.Inf(-1)))
						checkPooledRows(t, fmt.Sprintf("%s one NaN at row %d col %d, n=%d", l, row, col, n), dst, n, rows, n, src, float32(math.Inf(-1)), pool3Window(ss))
						checkGuards(t, l.String(), buf, len(dst), 0)
					}
				}
			}
			// One -0 beside a +0 in a negative plane, at each row's first,
			// middle and last column (the AVX2 kernel's own check, and its
			// caller's of column 2n): the windows' maximum is +0 in every
			// order of the taps, which VMAXPS alone would not give.
			for _, n := range []int{8, 16, 17, 33} {
				const rows = 3
				ss := 2*n + 1
				for _, col := range []int{0, n, 2 * n} {
					for _, side := range []int{-1, 1} {
						for row := 0; row <= 2*rows; row++ {
							src := make([]float32, 2*rows*ss+2*n+1)
							for i := range src {
								src[i] = -1
							}
							src[row*ss+col] = float32(math.Copysign(0, -1))
							if c := col + side; c >= 0 && c <= 2*n {
								src[row*ss+c] = 0
							}
							buf, dst := guarded((rows-1)*n+n, 0)
							MaxPool3x3S2F32(dst, n, src, ss, rows, n, float32(math.Inf(-1)))
							checkPooledRows(t, fmt.Sprintf("%s one -0 at row %d col %d (+0 at %+d), n=%d", l, row, col, side, n), dst, n, rows, n, src, float32(math.Inf(-1)), pool3Window(ss))
							checkGuards(t, l.String(), buf, len(dst), 0)
						}
					}
				}
			}
			s := make([]float32, 64)
			mustPanic(t, "MaxPool3x3S2F32",
				func() { MaxPool3x3S2F32(make([]float32, 7), 8, s, 17, 1, 8, 0) }, // short dst
				func() { MaxPool3x3S2F32(make([]float32, 8), 8, s, 17, 2, 8, 0) }, // short src
				func() { MaxPool3x3S2F32(make([]float32, 8), 8, s, 16, 1, 8, 0) }, // srcStride < 2n+1
				func() { MaxPool3x3S2F32(s[40:48], 8, s, 17, 1, 8, 0) },           // overlap
			)
		})
	}
}

// checkPooledRows checks the rows rows of n pooled outputs in dst (ds
// apart) against TapMaxF32's twin on src from lo, output row y's taps at
// taps(y) plus twice the output column (the twin's index runs over every
// column, so its even outputs are the stride-2 windows'), and that the gaps
// between rows still hold the sentinel.
func checkPooledRows(t *testing.T, what string, dst []float32, ds, rows, n int, src []float32, lo float32, taps func(y int) []int) {
	t.Helper()
	all := make([]float32, 2*n-1)
	for y := 0; y < rows; y++ {
		tapMaxGo(all, src, taps(y), lo)
		for x := 0; x < n; x++ {
			if g, w := math.Float32bits(dst[y*ds+x]), math.Float32bits(all[2*x]); g != w {
				t.Fatalf("%s: [%d][%d] %#x, want %#x", what, y, x, g, w)
			}
		}
		for x := n; x < ds && y < rows-1; x++ {
			if math.Float32bits(dst[y*ds+x]) != math.Float32bits(sentinel) {
				t.Fatalf("%s: wrote the gap after row %d", what, y)
			}
		}
	}
}

// poolSource returns n normal values, a fifth of them replaced by one of
// specials.
func poolSource(r *rand.Rand, n int, specials []float32) []float32 {
	src := make([]float32, n)
	for i := range src {
		src[i] = float32(r.NormFloat64())
		if r.Intn(5) == 0 {
			src[i] = specials[r.Intn(len(specials))]
		}
	}
	return src
}

// TestAvgPool2x2 compares AvgPool2x2F32 at every level with the float32
// average pooling's arithmetic written out (the sum from +0 of the four
// taps in window order, then a division by 4), bit for bit, on widths
// around both vector sizes with strides wider than the rows and guard
// bands; inputs have NaN payloads of both signs, infinities, signed zeros,
// subnormals and values whose sum overflows.
func TestAvgPool2x2(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00123), 1e-45, -3e-39, 3e38, -3e38}
	for _, l := range levels() {
		withLevel(t, l, func() {
			for _, rows := range []int{1, 2, 5} {
				for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 47, 64, 100} {
					for _, pad := range []int{0, 3} {
						what := fmt.Sprintf("%s rows=%d n=%d pad=%d", l, rows, n, pad)
						ss, ds := 2*n+pad, n+2*pad
						src := poolSource(r, (2*rows-1)*ss+2*n, specials)
						off := r.Intn(4)
						buf, dst := guarded((rows-1)*ds+n, off)
						AvgPool2x2F32(dst, ds, src, ss, rows, n)
						for y := 0; y < rows; y++ {
							for x := 0; x < n; x++ {
								up := 2*y*ss + 2*x
								var s float32
								for _, i := range []int{up, up + 1, up + ss, up + ss + 1} {
									s = addL(s, src[i]) // the running sum the first operand (a NaN's choice)
								}
								if g, w := math.Float32bits(dst[y*ds+x]), math.Float32bits(s/4); g != w {
									t.Fatalf("%s: [%d][%d] %#x, want %#x", what, y, x, g, w)
								}
							}
							for x := n; x < ds && y < rows-1; x++ {
								if math.Float32bits(dst[y*ds+x]) != math.Float32bits(sentinel) {
									t.Fatalf("%s: wrote the gap after row %d", what, y)
								}
							}
						}
						checkGuards(t, what, buf, len(dst), off)
					}
				}
			}
		})
	}
	s := make([]float32, 64)
	mustPanic(t, "AvgPool2x2F32",
		func() { AvgPool2x2F32(make([]float32, 7), 8, s, 16, 1, 8) }, // short dst
		func() { AvgPool2x2F32(make([]float32, 8), 8, s, 16, 3, 8) }, // short src
		func() { AvgPool2x2F32(s[20:28], 8, s[16:], 16, 1, 8) },      // overlap
	)
}

// TestAvgPool3x3S1P1 runs AvgPool3x3S1P1F32 at every level on planes
// around both vector sizes (one row or column, partial blocks, several
// blocks, several planes) with guard bands, against the sums over an
// explicitly zero-padded plane (all nine taps from +0 in the window's
// order, the flat path's arithmetic: a padding tap must change no bit),
// divided by 9 or, without includePad, by the taps inside the plane.
// Inputs as TestAvgPool2x2's: NaN payloads of both signs (the first NaN a
// window meets must win), infinities, signed zeros, subnormals, overflow.
func TestAvgPool3x3S1P1(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00123), 1e-45, -3e-39, 3e38, -3e38}
	geoms := [][3]int{{1, 1, 1}, {2, 1, 5}, {1, 5, 1}, {3, 2, 2}, {1, 7, 7}, {2, 3, 8}, {1, 4, 9},
		{2, 2, 16}, {1, 3, 17}, {3, 9, 33}, {2, 8, 8}, {1, 4, 47}, {2, 6, 64}, {1, 2, 130}, {2, 17, 17}, {1, 35, 35}}
	for _, l := range levels() {
		withLevel(t, l, func() {
			for _, g := range geoms {
				planes, h, w := g[0], g[1], g[2]
				for _, incl := range []bool{true, false} {
					what := fmt.Sprintf("%s %dx%dx%d includePad=%v", l, planes, h, w, incl)
					src := poolSource(r, planes*h*w, specials)
					off := r.Intn(4)
					buf, dst := guarded(planes*h*w, off)
					AvgPool3x3S1P1F32(dst, src, planes, h, w, incl)
					wp := w + 2
					padded := make([]float32, (h+2)*wp)
					for p := 0; p < planes; p++ {
						for y := 0; y < h; y++ {
							copy(padded[(y+1)*wp+1:], src[(p*h+y)*w:(p*h+y+1)*w])
						}
						for y := 0; y < h; y++ {
							for x := 0; x < w; x++ {
								var s float32
								for i := 0; i < 3; i++ {
									for j := 0; j < 3; j++ {
										s = addL(s, padded[(y+i)*wp+x+j]) // the running sum first (a NaN's choice)
									}
								}
								div := 9
								if !incl {
									div = (min(y+1, h-1) - max(y-1, 0) + 1) * (min(x+1, w-1) - max(x-1, 0) + 1)
								}
								if gb, wb := math.Float32bits(dst[(p*h+y)*w+x]), math.Float32bits(s/float32(div)); gb != wb {
									t.Fatalf("%s: plane %d [%d,%d] %#x, want %#x", what, p, y, x, gb, wb)
								}
							}
						}
					}
					checkGuards(t, what, buf, planes*h*w, off)
				}
			}
		})
	}
	s := make([]float32, 64)
	mustPanic(t, "AvgPool3x3S1P1F32",
		func() { AvgPool3x3S1P1F32(make([]float32, 15), s, 1, 4, 4, true) },      // short dst
		func() { AvgPool3x3S1P1F32(make([]float32, 64), s[:15], 1, 4, 4, true) }, // short src
		func() { AvgPool3x3S1P1F32(s[8:24], s[:16], 1, 4, 4, true) },             // overlap
	)
}
