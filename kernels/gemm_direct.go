package kernels

import (
	"unsafe"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/internal/freelist"
)

// Small-M path. With few rows each B element takes part in few products, so
// packing B (read, write, read again) costs more than the arithmetic; the
// direct kernels (asm.SgemmDirect) read B in place, streaming it once per
// row group. They compute each element with the packed kernels' arithmetic
// over the same depth blocks (gemmDepth), so results are bit-identical to the
// packed path.

// directGroup is one row group of the small-M path: rows [i0, i0+r) run
// with the r-row direct kernel (tile width w), A packed at apack[aoff:].
type directGroup struct {
	i0, r, w, aoff int
}

// gemmDirectStrip is the column strip of one small-M work item: a multiple
// of every direct tile width (64, 32, 24), so that each B row segment spans
// whole cache lines, and its kc x 192 block (192 KiB) stays in L2 while every
// row group runs over it.
const gemmDirectStrip = 192

// directPrefetchFloats is the size of B (floats) from which the small-M
// path's kernels prefetch each B row's next tile into L2
// (asm.SgemmDirectUnchecked): a B of more than half a megabyte comes from
// beyond the L2, and a tile reading its rows (each in another page) from
// memory waited on every one. BenchmarkSgemmSmallM, 1 thread, AVX-512
// Intel Xeon, five alternated runs, µs, medians: 4 x 3072 x 768 2536 ->
// 914, 8 rows 3574 -> 2176, 2 rows 1162 -> 710; at RELAXGO_ISA=avx2 4 rows
// 2821 -> 1093. Against a 256 x 256 B, in the L2, the prefetches cost up
// to 12% (6 rows 17.2 -> 19.3).
const directPrefetchFloats = 1 << 17

// gemmDirectOK reports whether the job can take the small-M path.
func (j *gemmJob) directOK() bool {
	if j.pb != nil || j.b.conv || j.b.trans || j.m > gemmSmallRows {
		return false
	}
	return gemmDirectAvailable()
}

// gemmDirectAvailable reports whether the active SIMD level has the small-M
// direct kernels.
func gemmDirectAvailable() bool {
	_, ok := asm.SgemmDirectTile(1)
	return ok
}

// runDirect is the small-M driver (m <= gemmSmallRows, B row-major).
func (j *gemmJob) runDirect(threads int) {
	m, n, k := j.m, j.n, j.k
	abuf := gemmGetDirectBuf(m * k)
	apack := *abuf
	j.ngroups = 0
	off := 0
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
		j.groups[j.ngroups] = directGroup{i0: i0, r: r, w: w, aoff: off}
		j.ngroups++
		off += k * r
		i0 += r
	}
	j.bpack = apack
	j.directPref = k*n > directPrefetchFloats
	items := (n + gemmDirectStrip - 1) / gemmDirectStrip
	if threads == 1 {
		j.directFn(0, items)
	} else {
		ParallelFor(items, 1, j.directFn)
	}
	j.bpack = nil
	gemmDirectPool.Put(abuf)
}

// gemmDirectPool holds the small-M path's packed-A buffers (only growing,
// like gemmBPool, but separate so that the two size populations do not
// evict each other's buffers).
var gemmDirectPool freelist.Affine[*[]float32]

func gemmGetDirectBuf(n int) *[]float32 { return growBuf(&gemmDirectPool, n) }

// directTiles runs small-M work items [lo, hi): item t is column strip t
// (gemmDirectStrip wide) of every row group, over the whole depth.
func (j *gemmJob) directTiles(lo, hi int) {
	n, k := j.n, j.k
	c, ldc := j.c, j.ldc
	var tile [4 * 64]float32
	var tbuf *[]float32
	for t := lo; t < hi; t++ {
		s0 := t * gemmDirectStrip
		s1 := min(n, s0+gemmDirectStrip)
		for pc, kc := 0, 0; pc < k; pc += kc {
			kc = gemmDepth(pc, k)
			bet := j.beta
			if pc > 0 {
				bet = 1
			}
			for gi := 0; gi < j.ngroups; gi++ {
				gr := &j.groups[gi]
				for j0 := s0; j0 < s1; j0 += gr.w {
					j.directTile(gr, pc, kc, j0, min(gr.w, s1-j0), bet, &tile, &tbuf)
				}
			}
		}
		if j.hasEp {
			gemmEpilogueRows(&j.ep, c[s0:], ldc, 0, j.m, s0, s1)
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
			unsafe.Pointer(&c[gr.i0*ldc+j0]), ldc, alpha, bet, j.directPref)
		return
	}
	// Edge tile: B's last columns packed zero-padded, C through a
	// scratch tile.
	if *tbuf == nil {
		*tbuf = gemmGetABuf(gemmKCMax * 64)
	}
	bt := **tbuf
	gemmPackB(false, b, ldb, pc, kc, j0, cols, w, bt)
	if bet != 0 {
		for i := 0; i < r; i++ {
			copy(tile[i*w:i*w+cols], c[(gr.i0+i)*ldc+j0:(gr.i0+i)*ldc+j0+cols])
		}
	}
	asm.SgemmDirectUnchecked(r, kc, ap, unsafe.Pointer(&bt[0]), w, unsafe.Pointer(&tile[0]), w, alpha, bet, false)
	for i := 0; i < r; i++ {
		copy(c[(gr.i0+i)*ldc+j0:(gr.i0+i)*ldc+j0+cols], tile[i*w:i*w+cols])
	}
}

// gemmNarrowMaxMNK is the largest product (m*n*k) the narrow path takes
// at any width.
// Up to it, the blocked driver's work around the arithmetic (packing A and
// B, pooled jobs and buffers, edge tiles) costs more than the narrow
// kernels' weaker register reuse: BenchmarkSgemmNarrow, ns narrow vs
// blocked on an AVX-512 AMD EPYC, 8x8x8 32 vs 192, 8x32x32 98 vs 487,
// 32x32x32 321 vs 577, 64x64x32 1275 vs 1534 (AVX2 kernels: 2547 vs 3045).
// Past it the two meet (128³ 18.8 vs 18.5 µs).
var gemmNarrowMaxMNK = 1 << 17

// gemmNarrowOff turns the narrow path off (tests compare it with the
// blocked driver).
var gemmNarrowOff bool

// gemmNarrowOK reports whether a product takes the narrow path: untransposed,
// B in place, some arithmetic to do, and small (gemmNarrowMaxMNK) or one
// strip wide (n <= asm.SgemmNarrowWidth(), any m and k). A product that
// narrow, a classifier's 10 or 2 outputs, fills a fraction of the blocked
// driver's tiles (10 of 32 or 48 columns) and packs B for it; the narrow
// kernel computes one 16-column (AVX-512) or 8-column (AVX2) strip with A
// read in place. Before this rule, 1 thread, µs narrow vs the blocked
// driver with the weight pre-packed (RegisterConstant), AVX-512 Intel
// Xeon, two runs of a throwaway benchmark of the three paths: 64x10x1024
// 42-44 vs 91-110, 128x2x768 60-71 vs 128-146, 64x16x1024 31-42 vs 74-91,
// 256x10x512 67-88 vs 161-181; at 24 or 32 columns (two strips) no
// faster. AVX2 kernels on the same machine: 128x2x768 34-44 vs 87-103; at
// 10 or 16 columns (two strips) mixed. BenchmarkSgemmNarrowColumns times
// the narrow path against the blocked driver packing B per call.
func gemmNarrowOK(transA, transB bool, m, n, k int, alpha float32, b []float32) bool {
	if transA || transB || b == nil || k <= 0 || alpha == 0 || gemmNarrowOff {
		return false
	}
	return m*n*k <= gemmNarrowMaxMNK || n <= asm.SgemmNarrowWidth()
}

// gemmNarrow is the narrow path: column strips of a vector, each over the
// same depth blocks (gemmDepth) as the blocked driver (beta on the first, 1
// after), with every operand read in place by asm.SgemmNarrow; so the bits
// are the blocked driver's. Then the epilogue, row by row. Products past
// gemmParallelMinMNK split their rows over the threads (the same bits:
// each row is computed alone).
func gemmNarrow(serial bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, ep *GemmEpilogue) {
	g := narrowGemm{n: n, k: k, alpha: alpha, a: a, lda: lda, b: b, ldb: ldb, beta: beta, c: c, ldc: ldc, ep: ep}
	if serial || gemmThreads(m, n, k) == 1 {
		g.rows(0, m)
		return
	}
	j := getGemmJob()
	j.narrow = g
	ParallelFor(m, grainRows(1<<16, n*k), j.narrowFn)
	putGemmJob(j)
}

// narrowGemm is one product on the narrow path (gemmNarrow's arguments).
type narrowGemm struct {
	n, k, lda, ldb, ldc int
	alpha, beta         float32
	a, b, c             []float32
	ep                  *GemmEpilogue
}

// rows runs the narrow path on rows [lo, hi) of the product.
func (g *narrowGemm) rows(lo, hi int) {
	n, k, lda, ldb, ldc := g.n, g.k, g.lda, g.ldb, g.ldc
	w := asm.SgemmNarrowWidth()
	for j0 := 0; j0 < n; j0 += w {
		cols := min(w, n-j0)
		for pc, kc := 0, 0; pc < k; pc += kc {
			kc = gemmDepth(pc, k)
			bet := g.beta
			if pc > 0 {
				bet = 1
			}
			asm.SgemmNarrowUnchecked(hi-lo, cols, kc, unsafe.Pointer(&g.a[lo*lda+pc]), lda, unsafe.Pointer(&g.b[pc*ldb+j0]), ldb,
				unsafe.Pointer(&g.c[lo*ldc+j0]), ldc, g.alpha, bet)
		}
	}
	if g.ep != nil && hi > lo {
		gemmEpilogueRows(g.ep, g.c[lo*ldc:], ldc, lo, hi-lo, 0, n)
	}
}

// narrowRows is the job's narrow product's rows [lo, hi) (narrowFn).
func (j *gemmJob) narrowRows(lo, hi int) { j.narrow.rows(lo, hi) }
