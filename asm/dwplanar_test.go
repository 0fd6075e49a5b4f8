package asm

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
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
