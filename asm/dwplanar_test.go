package asm

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"unsafe"
)

// TestDepthwisePlanar checks DepthwisePlanar3x3F32 at each assembly level
// against its twin, bit for bit: MobileNetV2's planes (112 to 7, stride 1
// and 2, padding 1) and odd ones (widths that leave one, two or many
// vectors a row, a last partial vector, no padding, padding only before),
// data with NaN payloads, signed zeros and infinities, chains of every
// step, guard bands around the output; and that a plan refuses what the
// kernels cannot do.
func TestDepthwisePlanar(t *testing.T) {
	r := rand.New(rand.NewSource(23))
	sp := specials()
	geoms := []struct{ h, w, sh, sw, pt, pb, pl, pr int }{
		{112, 112, 1, 1, 1, 1, 1, 1}, {56, 56, 1, 1, 1, 1, 1, 1}, {28, 28, 1, 1, 1, 1, 1, 1}, {14, 14, 1, 1, 1, 1, 1, 1}, {7, 7, 1, 1, 1, 1, 1, 1},
		{112, 112, 2, 2, 1, 1, 1, 1}, {56, 56, 2, 2, 1, 1, 1, 1}, {28, 28, 2, 2, 1, 1, 1, 1}, {14, 14, 2, 2, 1, 1, 1, 1},
		{5, 40, 1, 1, 0, 0, 0, 0}, {9, 33, 1, 1, 1, 1, 1, 1}, {6, 17, 1, 2, 1, 0, 1, 0}, {11, 70, 2, 1, 1, 1, 1, 1},
		{3, 3, 1, 1, 1, 1, 1, 1}, {4, 65, 2, 2, 0, 1, 0, 1}, {8, 100, 1, 2, 2, 2, 2, 0},
		// The blocked kernel's row widths of five, six and eight vectors,
		// a whole last vector, padding rows past one, a partial last block.
		{6, 80, 1, 1, 0, 0, 0, 0}, {7, 96, 1, 1, 1, 1, 1, 1}, {5, 128, 1, 1, 1, 1, 1, 1}, {13, 16, 1, 1, 1, 1, 1, 1},
		{4, 50, 1, 1, 2, 0, 1, 1}, {3, 120, 1, 1, 0, 2, 0, 0}, {11, 47, 1, 1, 1, 1, 1, 0},
		// At stride 2: no padding (odd and even widths), TensorFlow's
		// padding after only, rows of up to eight output vectors, a last
		// input vector whole or partial, padding rows past one.
		{9, 33, 2, 2, 0, 0, 0, 0}, {8, 64, 2, 2, 0, 1, 0, 1}, {7, 255, 2, 2, 1, 1, 1, 1}, {10, 224, 2, 2, 0, 1, 0, 1},
		{5, 31, 2, 2, 2, 2, 1, 1}, {6, 96, 2, 2, 1, 0, 1, 0}, {13, 17, 2, 2, 1, 1, 0, 0}, {3, 3, 2, 2, 1, 1, 1, 1},
		// The AVX2 blocked kernel: rows of one vector (whole, partial;
		// left padding 0 and 1), two and three vectors with the unmasked
		// taps reaching the row's last column, one past it (padding 2
		// after: not blocked), blocks of four rows and a partial last one.
		{10, 8, 1, 1, 0, 0, 0, 0}, {12, 10, 1, 1, 0, 0, 0, 0}, {9, 8, 1, 1, 1, 1, 1, 1}, {9, 9, 1, 1, 1, 1, 1, 1},
		{17, 18, 1, 1, 1, 1, 1, 1}, {9, 26, 1, 1, 0, 0, 0, 0}, {9, 16, 1, 1, 1, 1, 1, 2}, {21, 57, 1, 1, 1, 1, 1, 1},
		// And at stride 2: one output vector a row (both paddings), two
		// whose first reads up to the row's last column (both paddings),
		// one past it (padding 2 after: not blocked).
		{17, 15, 2, 2, 1, 1, 1, 1}, {17, 18, 2, 2, 0, 0, 0, 0}, {19, 17, 2, 2, 1, 1, 1, 1}, {18, 18, 2, 2, 0, 1, 0, 1},
		{17, 16, 2, 2, 1, 1, 1, 2},
	}
	for _, l := range levels() {
		if l == LevelGo {
			continue
		}
		withLevel(t, l, func() {
			for _, g := range geoms {
				oh := (g.h+g.pt+g.pb-3)/g.sh + 1
				ow := (g.w+g.pl+g.pr-3)/g.sw + 1
				p, ok := NewDWPlanar(g.h, g.w, oh, ow, g.sh, g.sw, g.pt, g.pl)
				if !ok {
					continue
				}
				// The blocked kernel where it applies: AVX-512, the same
				// stride both ways, left padding 0 or 1, at most eight
				// output vectors a row; at stride 1 input rows of as many
				// vectors, at stride 2 all but the kernel's last three
				// input slots whole. AVX2: the same stride both ways, left
				// padding 0 or 1, every vector but the last reading inside
				// the row (one vector a row; or the last column any of them
				// reads, of the last but one, 8(nv-1)+1-pl at stride 1,
				// 16(nv-2)+17-pl at stride 2).
				m := (ow + 15) / 16
				blocked := l == LevelAVX512 && g.sh == g.sw && g.pl <= 1 && m <= 8
				if g.sw == 1 {
					blocked = blocked && (g.w+15)/16 == m
				} else {
					blocked = blocked && g.w >= 16*(2*m+1-g.pl-3)
				}
				if nv := (ow + 7) / 8; l == LevelAVX2 {
					last := 8*(nv-1) + 1 - g.pl // stride 1
					if g.sw == 2 {
						last = 16*(nv-2) + 17 - g.pl
					}
					blocked = g.sh == g.sw && g.pl <= 1 && (nv == 1 || last < g.w)
				}
				if blocked != (p.rowsM > 0) {
					t.Errorf("%s %+v: blocked kernel %v, want %v", l, g, p.rowsM > 0, blocked)
				}
				for _, steps := range []int{0, 1, 4} {
					what := fmt.Sprintf("%s %+v steps=%d", l, g, steps)
					src := make([]float32, g.h*g.w)
					for i := range src {
						src[i] = float32(r.NormFloat64())
						if r.Intn(20) == 0 {
							src[i] = sp[r.Intn(len(sp))]
						}
					}
					w := make([]float32, 9)
					for i := range w {
						w[i] = float32(r.NormFloat64())
					}
					codes, sc := randChain(r, steps, sp)
					off := r.Intn(4)
					buf, dst := guarded(oh*ow, off)
					DepthwisePlanar3x3F32(p, dst, src, w, codes, sc)
					want := make([]float32, oh*ow)
					dwPlanarGo(want, src, w, g.h, g.w, oh, ow, g.sh, g.sw, g.pt, g.pl, codes, sc)
					for i := range want {
						if gb, wb := math.Float32bits(dst[i]), math.Float32bits(want[i]); gb != wb {
							t.Fatalf("%s: [%d,%d] %#x, want %#x", what, i/ow, i%ow, gb, wb)
						}
					}
					checkGuards(t, what, buf, oh*ow, off)
				}
			}
			for _, g := range [][8]int{{10, 10, 8, 8, 1, 3, 0, 0}, {10, 10, 8, 8, 1, 1, 0, 3}, {5, 33, 5, 52, 1, 1, 1, 1}} {
				if _, ok := NewDWPlanar(g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7]); ok {
					t.Errorf("%s: NewDWPlanar%v accepted", l, g)
				}
			}
			// A plan run at another level (the Go one) takes the twin.
			p, _ := NewDWPlanar(8, 8, 8, 8, 1, 1, 1, 1)
			x := make([]float32, 64)
			for i := range x {
				x[i] = float32(i)
			}
			w := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}
			got, want := make([]float32, 64), make([]float32, 64)
			withLevel(t, LevelGo, func() { DepthwisePlanar3x3F32(p, got, x, w, nil, nil) })
			DepthwisePlanar3x3F32(p, want, x, w, nil, nil)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s: at the Go level [%d] %v, want %v", l, i, got[i], want[i])
				}
			}
			mustPanic(t, "DepthwisePlanar3x3F32",
				func() { DepthwisePlanar3x3F32(p, make([]float32, 63), x, make([]float32, 9), nil, nil) },
				func() { DepthwisePlanar3x3F32(p, make([]float32, 64), x[:63], make([]float32, 9), nil, nil) },
				func() { DepthwisePlanar3x3F32(p, make([]float32, 64), x, make([]float32, 8), nil, nil) },
				func() {
					DepthwisePlanar3x3F32(p, make([]float32, 64), x, []float32{0, 0, 0, 0, float32(math.Inf(1)), 0, 0, 0, 0}, nil, nil)
				},
				func() { DepthwisePlanar3x3F32(p, x, x, make([]float32, 9), nil, nil) },
			)
		})
	}
}

// TestDepthwisePlanarSweep runs every plan NewDWPlanar accepts over a
// sweep of small geometries (widths 1 to 70, heights that leave no, one
// and several whole blocks and a partial one, strides 1 and 2, padding 0
// to 2 before and after) at each assembly level, bit for bit against the
// twin with guards around the output: the blocked kernels' edge vectors,
// row pointers and block overlaps on every width the vector sizes meet.
func TestDepthwisePlanarSweep(t *testing.T) {
	r := rand.New(rand.NewSource(29))
	widths := 70
	if testing.Short() {
		widths = 40
	}
	w9 := make([]float32, 9)
	for i := range w9 {
		w9[i] = float32(r.NormFloat64())
	}
	for _, l := range levels() {
		if l == LevelGo {
			continue
		}
		withLevel(t, l, func() {
			blocked := 0
			for w := 1; w <= widths; w++ {
				for _, h := range []int{3, 4, 9, 17} {
					for s := 1; s <= 2; s++ {
						for pl := 0; pl <= 2; pl++ {
							for _, pad := range [][2]int{{pl, pl}, {pl, 2 - pl}, {1, 0}} {
								pt, pr := pad[0], pad[1]
								pb := pr
								if w+pl+pr < 3 || h+pt+pb < 3 {
									continue
								}
								oh, ow := (h+pt+pb-3)/s+1, (w+pl+pr-3)/s+1
								p, ok := NewDWPlanar(h, w, oh, ow, s, s, pt, pl)
								if !ok {
									continue
								}
								if p.Blocked() && oh >= p.rowsR {
									blocked++
								}
								src := make([]float32, h*w)
								for i := range src {
									src[i] = float32(r.NormFloat64())
								}
								off := r.Intn(4)
								buf, dst := guarded(oh*ow, off)
								DepthwisePlanar3x3F32(p, dst, src, w9, nil, nil)
								want := make([]float32, oh*ow)
								dwPlanarGo(want, src, w9, h, w, oh, ow, s, s, pt, pl, nil, nil)
								what := fmt.Sprintf("%s h=%d w=%d s=%d pt=%d pl=%d pr=%d", l, h, w, s, pt, pl, pr)
								for i := range want {
									if gb, wb := math.Float32bits(dst[i]), math.Float32bits(want[i]); gb != wb {
										t.Fatalf("%s: [%d,%d] %#x, want %#x", what, i/ow, i%ow, gb, wb)
									}
								}
								checkGuards(t, what, buf, oh*ow, off)
							}
						}
					}
				}
			}
			if blocked == 0 {
				t.Errorf("%s: no geometry of the sweep ran a blocked kernel", l)
			}
		})
	}
}

// BenchmarkDepthwisePlanarL1 times DepthwisePlanar3x3F32 on one plane in
// L1 (MobileNetV2's widths, stride 1, padding 1), the output placed at
// each 512-byte step of a 4 KB page from the input's page offset, and
// reports ns an output row. The rate depends on where the output lies
// against the input and the plan's tables (roffs, masks: placed by the
// allocator, so it moves between runs): a masked load that follows a store
// matching its address in the low bits waits for that store. On the AMD
// EPYC Zen 5 it was written on, 14² ran 5.4-6.7 or 33-35 ns a row by
// placement; see RATIONALE, "The planar depthwise kernel's rate".
func BenchmarkDepthwisePlanarL1(b *testing.B) {
	if level == LevelGo {
		b.Skip("no assembly kernels")
	}
	for _, hw := range []int{14, 28, 56, 112} {
		p, ok := NewDWPlanar(hw, hw, hw, hw, 1, 1, 1, 1)
		if !ok {
			b.Fatalf("no plan for %dx%d", hw, hw)
		}
		page := (4*hw*hw + 4095) / 4096 * 1024 // the input's pages, in floats
		buf := make([]float32, 3*page+2048)
		base := int((4096 - uintptr(unsafe.Pointer(&buf[0]))%4096) % 4096 / 4)
		src := buf[base : base+hw*hw]
		for i := range src {
			src[i] = float32(i%7) - 3
		}
		w := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}
		for off := 0; off < 4096; off += 512 {
			d0 := base + page + off/4
			dst := buf[d0 : d0+hw*hw]
			b.Run(fmt.Sprintf("%dx%d/out=+%d", hw, hw, off), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					DepthwisePlanar3x3F32(p, dst, src, w, nil, nil)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*hw), "ns/row")
			})
		}
	}
}

// TestMaxPool3x3S1P1 checks MaxPool3x3S1P1F32 at each level against
// maxPool3S1Ref bit for bit on planes of one to
// many column blocks, several planes a call, data with signed zeros and
// infinities but no NaN, from -Inf and from the lowest finite value, with
// guard bands around the output; that a NaN anywhere in the source (or in
// lo) makes it report false; and that it does at levels without the
// kernel.
func TestMaxPool3x3S1P1(t *testing.T) {
	r := rand.New(rand.NewSource(31))
	for _, l := range levels() {
		// The values the level's kernel takes: at AVX2 no negative zero.
		zeroInf := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1))}
		if l == LevelAVX2 {
			zeroInf = zeroInf[2:]
		}
		withLevel(t, l, func() {
			for _, g := range [][3]int{{1, 7, 7}, {3, 14, 14}, {2, 28, 28}, {1, 1, 1}, {2, 1, 5}, {1, 5, 1}, {2, 2, 16}, {1, 3, 17}, {3, 9, 33}, {1, 4, 47}, {2, 6, 64}, {1, 2, 130}} {
				planes, h, w := g[0], g[1], g[2]
				for _, lo := range []float32{float32(math.Inf(-1)), -math.MaxFloat32} {
					what := fmt.Sprintf("%s %dx%dx%d lo=%v", l, planes, h, w, lo)
					src := make([]float32, planes*h*w)
					for i := range src {
						src[i] = float32(r.NormFloat64())
						if r.Intn(6) == 0 {
							src[i] = zeroInf[r.Intn(len(zeroInf))]
						}
					}
					off := r.Intn(4)
					buf, dst := guarded(planes*h*w, off)
					ok := MaxPool3x3S1P1F32(dst, src, planes, h, w, lo)
					if ok != (l != LevelGo) {
						t.Fatalf("%s: reported %v", what, ok)
					}
					if !ok {
						continue
					}
					want := make([]float32, h*w)
					for p := 0; p < planes; p++ {
						maxPool3S1Ref(want, src[p*h*w:], h, w, lo)
						for i := range want {
							if gb, wb := math.Float32bits(dst[p*h*w+i]), math.Float32bits(want[i]); gb != wb {
								t.Fatalf("%s: plane %d [%d,%d] %#x, want %#x", what, p, i/w, i%w, gb, wb)
							}
						}
					}
					checkGuards(t, what, buf, planes*h*w, off)
					// A NaN anywhere (a plane's first and last element, a
					// row's last, any), or as lo: reported.
					bads := []float32{float32(math.NaN())}
					if l == LevelAVX2 {
						bads = append(bads, float32(math.Copysign(0, -1)))
					}
					for _, b := range bads {
						for _, k := range []int{0, w - 1, h*w - 1, len(src) - 1, r.Intn(len(src))} {
							v := src[k]
							src[k] = b
							if MaxPool3x3S1P1F32(dst, src, planes, h, w, lo) {
								t.Fatalf("%s: %v at %d not reported", what, b, k)
							}
							src[k] = v
						}
					}
					if MaxPool3x3S1P1F32(dst, src, planes, h, w, float32(math.NaN())) {
						t.Fatalf("%s: a NaN lo not reported", what)
					}
				}
			}
		})
	}
}

// maxPool3S1Ref is the 3x3, stride-1 max pooling with padding 1 of one h x
// w plane: each output the running maximum from lo (maxNaN, TapMaxF32's
// step) over the window's taps inside the plane in row-major order.
func maxPool3S1Ref(dst, src []float32, h, w int, lo float32) {
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			m := lo
			for iy := y - 1; iy <= y+1; iy++ {
				for ix := x - 1; ix <= x+1; ix++ {
					if iy >= 0 && iy < h && ix >= 0 && ix < w {
						m = maxNaN(m, src[iy*w+ix])
					}
				}
			}
			dst[y*w+x] = m
		}
	}
}
