package asm

import (
	"math"
	"math/rand"
	"testing"
)

// TestWinogradTransformsMatchTwin checks the transforms of F(2x2, 3x3) and
// F(4x4, 3x3) at every level against their Go twins bit for bit (inputs
// with signed zeros, infinities and NaNs), on tile counts around the
// vector widths, with guard bands around every output block.
func TestWinogradTransformsMatchTwin(t *testing.T) {
	for _, f := range []struct {
		name              string
		planes, xis, outs int // phase planes, products and outputs per tile
		in                func(v []float32, vstride int, p []float32, psub, wq, n int)
		out               func(y []float32, ystride int, m []float32, mstride, n int)
	}{
		{"F(2x2,3x3)", 4, 16, 4, WinogradInF32, WinogradOutF32},
		{"F(4x4,3x3)", 16, 36, 16, WinogradIn6F32, WinogradOut6F32},
	} {
		r := rand.New(rand.NewSource(9))
		for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 33, 100} {
			wq := n/3 + 2
			psub := n + wq + 3
			p := make([]float32, f.planes*psub+guard)
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
			m := make([]float32, f.xis*vstride)
			for i := range m {
				m[i] = float32(r.NormFloat64())
			}
			var wantV, wantY []float32
			for _, l := range levels() {
				withLevel(t, l, func() {
					v := make([]float32, f.xis*vstride)
					y := make([]float32, f.outs*vstride)
					for i := range v {
						v[i] = sentinel
					}
					for i := range y {
						y[i] = sentinel
					}
					f.in(v, vstride, p, psub, wq, n)
					f.out(y, vstride, m, vstride, n)
					for _, blk := range []struct {
						name string
						s    []float32
					}{{"in", v}, {"out", y}} {
						for i, x := range blk.s {
							if (i%vstride >= n) != (math.Float32bits(x) == math.Float32bits(sentinel)) {
								t.Fatalf("%s level %v n=%d %s: element %d of block %d: %v (written outside the tiles, or not written)", f.name, l, n, blk.name, i%vstride, i/vstride, x)
							}
						}
					}
					if wantV == nil {
						wantV, wantY = v, y
						return
					}
					for i := range v {
						if math.Float32bits(v[i]) != math.Float32bits(wantV[i]) {
							t.Fatalf("%s level %v n=%d in[%d]: %v, twin %v", f.name, l, n, i, v[i], wantV[i])
						}
					}
					for i := range y {
						if math.Float32bits(y[i]) != math.Float32bits(wantY[i]) {
							t.Fatalf("%s level %v n=%d out[%d]: %v, twin %v", f.name, l, n, i, y[i], wantY[i])
						}
					}
				})
			}
		}
	}
}

// TestWinograd6Exact checks the F(4x4, 3x3) transforms against their
// definition: on small integers every operation is exact, so B^T d B and
// A^T m A computed in float64 from the matrices give the same values.
func TestWinograd6Exact(t *testing.T) {
	bt := [6][6]float64{{4, 0, -5, 0, 1, 0}, {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0}, {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}}
	at := [4][6]float64{{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}}
	r := rand.New(rand.NewSource(11))
	const n, wq = 20, 9
	psub := n + wq + 2
	p := make([]float32, 16*psub)
	for i := range p {
		p[i] = float32(r.Intn(17) - 8)
	}
	m := make([]float32, 36*n)
	for i := range m {
		m[i] = float32(r.Intn(17) - 8)
	}
	for _, l := range levels() {
		withLevel(t, l, func() {
			v, y := make([]float32, 36*n), make([]float32, 16*n)
			WinogradIn6F32(v, n, p, psub, wq, n)
			WinogradOut6F32(y, n, m, n, n)
			for k := 0; k < n; k++ {
				var d [6][6]float64
				for i := 0; i < 6; i++ {
					for j := 0; j < 6; j++ {
						d[i][j] = float64(p[((i%4)*4+j%4)*psub+k+(i/4)*wq+j/4])
					}
				}
				for rr := 0; rr < 6; rr++ {
					for s := 0; s < 6; s++ {
						var want float64
						for i := 0; i < 6; i++ {
							for j := 0; j < 6; j++ {
								want += bt[rr][i] * d[i][j] * bt[s][j]
							}
						}
						if got := float64(v[(6*rr+s)*n+k]); got != want {
							t.Fatalf("level %v tile %d in[%d][%d] = %v, want %v", l, k, rr, s, got, want)
						}
					}
				}
				for a := 0; a < 4; a++ {
					for b := 0; b < 4; b++ {
						var want float64
						for i := 0; i < 6; i++ {
							for j := 0; j < 6; j++ {
								want += at[a][i] * float64(m[(6*i+j)*n+k]) * at[b][j]
							}
						}
						if got := float64(y[(4*a+b)*n+k]); got != want {
							t.Fatalf("level %v tile %d out[%d][%d] = %v, want %v", l, k, a, b, got, want)
						}
					}
				}
			}
		})
	}
}
