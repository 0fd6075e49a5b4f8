package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// TestConvPackPanelsMatchesConvPackB checks the row-wise conv packer
// against the per-panel one over strides, dilations, paddings and column
// ranges that start and end mid-row.
func TestConvPackPanelsMatchesConvPackB(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for _, gc := range []conv2dGeom{
		{c: 3, h: 9, w: 11, kh: 3, kw: 3, sh: 1, sw: 1, pt: 1, pl: 1, pb: 1, pr: 1, dh: 1, dw: 1},
		{c: 2, h: 13, w: 7, kh: 3, kw: 2, sh: 2, sw: 2, pt: 0, pl: 1, pb: 2, pr: 0, dh: 1, dw: 2},
		{c: 4, h: 5, w: 30, kh: 1, kw: 5, sh: 1, sw: 3, pt: 2, pl: 3, pb: 0, pr: 3, dh: 2, dw: 1},
		{c: 1, h: 20, w: 20, kh: 5, kw: 5, sh: 1, sw: 1, pt: 0, pl: 0, pb: 0, pr: 0, dh: 1, dw: 1},
	} {
		g := gc
		g.oh = (g.h+g.pt+g.pb-(g.kh-1)*g.dh-1)/g.sh + 1
		g.ow = (g.w+g.pl+g.pr-(g.kw-1)*g.dw-1)/g.sw + 1
		x := gemmRandF32(r, g.c*g.h*g.w)
		kk, pix := g.c*g.kh*g.kw, g.oh*g.ow
		for _, nr := range []int{16, 32} {
			for _, rng := range [][4]int{{0, kk, 0, pix}, {1, kk - 2, 3, pix - 5}, {2, 1, pix / 2, pix - pix/2}} {
				p0, kc, j0, ncols := rng[0], rng[1], rng[2], rng[3]
				np := (ncols + nr - 1) / nr
				want := make([]float32, np*kc*nr)
				for jp := 0; jp < np; jp++ {
					convPackB(&g, x, p0, kc, j0+jp*nr, min(nr, ncols-jp*nr), nr, want[jp*kc*nr:(jp+1)*kc*nr])
				}
				got := make([]float32, len(want))
				for i := range got {
					got[i] = float32(math.NaN())
				}
				rowbuf := make([]float32, np*nr)
				convPackPanels(&g, x, p0, kc, j0, ncols, nr, got, rowbuf)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s nr=%d range %v: [%d] = %v, want %v", fmt.Sprint(g), nr, rng, i, got[i], want[i])
					}
				}
			}
		}
	}
}
