package kernels

import (
	"unsafe"

	"github.com/relaxgo/relaxgo/asm"
)

// Small-M path. With few rows each B element takes part in few products, so
// packing B (read, write, read again) costs more than the arithmetic; the
// direct kernels (asm.SgemmDirect) read B in place, streaming it once per
// row group. They compute each element with the packed kernels' arithmetic
// over the same gemmKC depth blocks, so results are bit-identical to the
// packed path.

// directGroup is one row group of the small-M path: rows [i0, i0+r) run
// with the r-row direct kernel (tile width w), A packed at apack[aoff:],
// work items [tile0, tile0+ceil(n/w)).
type directGroup struct {
	i0, r, w, aoff, tile0 int
}

// gemmDirectOK reports whether the job can take the small-M path.
func (j *gemmJob) directOK() bool {
	if j.pb != nil || j.b.conv || j.b.trans || j.m > gemmSmallRows {
		return false
	}
	_, ok := asm.SgemmDirectTile(1)
	return ok
}

// runDirect is the small-M driver (m <= gemmSmallRows, B row-major).
func (j *gemmJob) runDirect(threads int) {
	m, n, k := j.m, j.n, j.k
	abuf := gemmGetBBuf(m * k)
	apack := *abuf
	j.ngroups = 0
	items, off := 0, 0
	for i0 := 0; i0 < m; {
		r := 4
		if m-i0 < 4 {
			r = 2
			if m-i0 < 2 {
				r = 1
			}
		}
		w, _ := asm.SgemmDirectTile(r)
		gemmPackA(j.transA, j.a, j.lda, i0, r, 0, k, r, apack[off:off+k*r])
		j.groups[j.ngroups] = directGroup{i0: i0, r: r, w: w, aoff: off, tile0: items}
		j.ngroups++
		items += (n + w - 1) / w
		off += k * r
		i0 += r
	}
	// When every group has the same tile width (m = 4, 8: groups of 4 rows)
	// an item is one column tile of all the groups, so that each B block
	// is read from memory once and reused from cache by the other groups.
	j.sameW = true
	for g := 1; g < j.ngroups; g++ {
		j.sameW = j.sameW && j.groups[g].w == j.groups[0].w
	}
	if j.sameW {
		items = (n + j.groups[0].w - 1) / j.groups[0].w
	}
	j.bpack = apack
	if threads == 1 {
		j.directFn(0, items)
	} else {
		ParallelFor(items, 1, j.directFn)
	}
	j.bpack = nil
	gemmPutBBuf(abuf)
}

// directTiles runs small-M work items [lo, hi): item t is one column tile
// of one row group, over the whole depth.
func (j *gemmJob) directTiles(lo, hi int) {
	n, k := j.n, j.k
	c, ldc := j.c, j.ldc
	var tile [4 * 64]float32
	var tbuf *[]float32
	g := 0
	for t := lo; t < hi; t++ {
		g0, g1, jt := 0, j.ngroups, t
		if !j.sameW {
			for g+1 < j.ngroups && j.groups[g+1].tile0 <= t {
				g++
			}
			g0, g1, jt = g, g+1, t-j.groups[g].tile0
		}
		w := j.groups[g0].w
		j0 := jt * w
		cols := min(w, n-j0)
		for pc := 0; pc < k; pc += gemmKC {
			kc := min(gemmKC, k-pc)
			bet := j.beta
			if pc > 0 {
				bet = 1
			}
			for gi := g0; gi < g1; gi++ {
				j.directTile(&j.groups[gi], pc, kc, j0, cols, bet, &tile, &tbuf)
			}
		}
		if j.hasEp {
			for gi := g0; gi < g1; gi++ {
				gr := &j.groups[gi]
				for i := 0; i < gr.r; i++ {
					row := gr.i0 + i
					gemmApplyEpilogue(&j.ep, c[row*ldc+j0:row*ldc+j0+cols], row, j0)
				}
			}
		}
	}
	if tbuf != nil {
		gemmPutABuf(tbuf)
	}
}

// directTile runs one depth block of one row group's column tile.
func (j *gemmJob) directTile(gr *directGroup, pc, kc, j0, cols int, bet float32, tile *[4 * 64]float32, tbuf **[]float32) {
	b, ldb, c, ldc, alpha := j.b.b, j.b.ldb, j.c, j.ldc, j.alpha
	r, w := gr.r, gr.w
	a := j.bpack[gr.aoff : gr.aoff+j.k*r]
	ap := unsafe.Pointer(&a[pc*r])
	if cols == w {
		asm.SgemmDirectUnchecked(r, kc, ap, unsafe.Pointer(&b[pc*ldb+j0]), ldb,
			unsafe.Pointer(&c[gr.i0*ldc+j0]), ldc, alpha, bet)
		return
	}
	// Edge tile: B's last columns packed zero-padded, C through a
	// scratch tile.
	if *tbuf == nil {
		*tbuf = gemmGetABuf(gemmKC * 64)
	}
	bt := **tbuf
	gemmPackB(false, b, ldb, pc, kc, j0, cols, w, bt)
	if bet != 0 {
		for i := 0; i < r; i++ {
			copy(tile[i*w:i*w+cols], c[(gr.i0+i)*ldc+j0:(gr.i0+i)*ldc+j0+cols])
		}
	}
	asm.SgemmDirectUnchecked(r, kc, ap, unsafe.Pointer(&bt[0]), w, unsafe.Pointer(&tile[0]), w, alpha, bet)
	for i := 0; i < r; i++ {
		copy(c[(gr.i0+i)*ldc+j0:(gr.i0+i)*ldc+j0+cols], tile[i*w:i*w+cols])
	}
}
