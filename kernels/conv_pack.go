package kernels

import "github.com/relaxgo/relaxgo/asm"

// convPackPanels packs depth rows [p0, p0+kc) of the implicit-GEMM B of one
// image group xg (see convPackB) for the ncols columns (output pixels)
// starting at j0, into consecutive nr-wide panels dst[jp*kc*nr + p*nr + j]
// (columns past ncols are zero). It works a depth row at a time across all
// the panels: the row's values are gathered into rowbuf with one contiguous
// copy per output row (stride 1) and then moved into the panels with one
// asm.CopyRowsF32 call, instead of re-deriving the patch geometry per panel
// and per row. rowbuf needs ncols rounded up to nr floats. The values are
// those of convPackB.
func convPackPanels(g *conv2dGeom, xg []float32, p0, kc, j0, ncols, nr int, dst, rowbuf []float32) {
	np := (ncols + nr - 1) / nr
	clear(rowbuf[ncols : np*nr])
	hw := g.h * g.w
	oy0, ox0 := j0/g.ow, j0%g.ow
	for p := 0; p < kc; p++ {
		r := p0 + p
		c, i, jj := r/(g.kh*g.kw), r/g.kw%g.kh, r%g.kw
		xc := xg[c*hw : (c+1)*hw]
		di, dj := i*g.dh-g.pt, jj*g.dw-g.pl
		oy, ox := oy0, ox0
		for q := 0; q < ncols; {
			l := min(ncols-q, g.ow-ox)
			seg := rowbuf[q : q+l]
			ih := oy*g.sh + di
			switch {
			case uint(ih) >= uint(g.h):
				clear(seg)
			case g.sw == 1:
				xr := xc[ih*g.w : (ih+1)*g.w]
				iw := ox + dj
				lo, hi := max(0, -iw), min(l, g.w-iw)
				if hi <= lo {
					clear(seg)
					break
				}
				clear(seg[:lo])
				copy(seg[lo:hi], xr[iw+lo:iw+hi])
				clear(seg[hi:])
			default:
				xr := xc[ih*g.w : (ih+1)*g.w]
				iw := ox*g.sw + dj
				for t := range seg {
					if uint(iw) < uint(g.w) {
						seg[t] = xr[iw]
					} else {
						seg[t] = 0
					}
					iw += g.sw
				}
			}
			q += l
			oy, ox = oy+1, 0
		}
		asm.CopyRowsF32(dst[p*nr:], kc*nr, rowbuf, nr, np, nr)
	}
}
