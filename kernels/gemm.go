package kernels

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/relaxgo/relaxgo/asm"
)

// Cache blocking of the SGEMM driver (Goto/BLIS loop order jc, pc, ic, jr, ir).
// A kc x nr packed B micro-panel stays in L1 while the micro-kernel streams
// mc x kc packed A panels from L2; the kc x nc packed B block lives in L3.
const (
	gemmKC = 256  // depth of one packed block
	gemmMC = 168  // rows of one packed A block (multiple of 14 and 6)
	gemmNC = 4096 // columns of one packed B block
)

// GemmEpilogue is an optional operation fused into Sgemm's write-back: after
// the final k block of a tile, c[i][j] += RowBias[i] + ColBias[j] (either
// slice may be nil; each has m resp. n elements) and then, if Relu, c[i][j] =
// max(c[i][j], 0). It costs nothing extra in memory traffic because the tile
// is still in L1.
type GemmEpilogue struct {
	RowBias []float32
	ColBias []float32
	Relu    bool
}

// Sgemm computes C = alpha*op(A)*op(B) + beta*C for row-major float32
// matrices, where op(A) is m x k (A is m x k with row stride lda, or k x m if
// transA), op(B) is k x n (B is k x n with row stride ldb, or n x k if transB)
// and C is m x n with row stride ldc. When beta == 0, C is not read (NaNs in
// it do not propagate). It is packed, cache-blocked and register-tiled on the
// asm micro-kernel, parallel over the worker pool, and gives bit-identical
// results for any thread count. It returns an error for inconsistent sizes.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) error {
	return SgemmEx(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, nil)
}

// SgemmEx is Sgemm with an optional fused epilogue (nil for none).
func SgemmEx(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, ep *GemmEpilogue) error {
	if err := checkGemm(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc); err != nil {
		return err
	}
	if ep != nil {
		if ep.RowBias != nil && len(ep.RowBias) < m {
			return fmt.Errorf("kernels: sgemm: row bias has %d elements, need %d", len(ep.RowBias), m)
		}
		if ep.ColBias != nil && len(ep.ColBias) < n {
			return fmt.Errorf("kernels: sgemm: column bias has %d elements, need %d", len(ep.ColBias), n)
		}
		if ep.RowBias == nil && ep.ColBias == nil && !ep.Relu {
			ep = nil
		}
	}
	if m == 0 || n == 0 {
		return nil
	}
	if k == 0 || alpha == 0 {
		ParallelFor(m, max(1, 4096/n), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				row := c[i*ldc : i*ldc+n]
				if beta == 0 {
					clear(row)
				} else if beta != 1 {
					asm.MulScalarF32(row, row, beta)
				}
				gemmApplyEpilogue(ep, row, i, 0)
			}
		})
		return nil
	}
	packB := func(p0, kc, j0, cols, nr int, dst []float32) {
		gemmPackB(transB, b, ldb, p0, kc, j0, cols, nr, dst)
	}
	sgemm(transA, m, n, k, alpha, a, lda, packB, beta, c, ldc, ep)
	return nil
}

// gemmPackFunc packs depth [p0, p0+kc) and columns [j0, j0+cols) of the
// (possibly virtual) B operand into dst as dst[p*nr+j], zero-filling columns
// j >= cols. Convolutions pass one that reads image patches directly
// (implicit GEMM, no im2col buffer).
type gemmPackFunc func(p0, kc, j0, cols, nr int, dst []float32)

func checkGemm(transA, transB bool, m, n, k, la, lda, lb, ldb, lc, ldc int) error {
	if m < 0 || n < 0 || k < 0 {
		return fmt.Errorf("kernels: sgemm: negative size m=%d n=%d k=%d", m, n, k)
	}
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	if err := gemmCheckMat("A", ar, ac, la, lda); err != nil {
		return err
	}
	if err := gemmCheckMat("B", br, bc, lb, ldb); err != nil {
		return err
	}
	return gemmCheckMat("C", m, n, lc, ldc)
}

func gemmCheckMat(name string, rows, cols, length, ld int) error {
	if ld < max(1, cols) {
		return fmt.Errorf("kernels: sgemm: leading dimension of %s is %d, less than its %d columns", name, ld, cols)
	}
	if rows > 0 && cols > 0 && length < (rows-1)*ld+cols {
		return fmt.Errorf("kernels: sgemm: %s is %dx%d with stride %d but has only %d elements", name, rows, cols, ld, length)
	}
	return nil
}

func gemmApplyEpilogue(ep *GemmEpilogue, row []float32, i, j0 int) {
	if ep == nil {
		return
	}
	if ep.RowBias != nil {
		asm.AddScalarF32(row, row, ep.RowBias[i])
	}
	if ep.ColBias != nil {
		asm.AddF32(row, row, ep.ColBias[j0:j0+len(row)])
	}
	if ep.Relu {
		asm.ReluF32(row, row)
	}
}

var gemmBufPool sync.Pool

func gemmGetBuf(n int) *[]float32 {
	if p, ok := gemmBufPool.Get().(*[]float32); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	s := make([]float32, n, n+16)
	return &s
}

func gemmPutBuf(p *[]float32) { gemmBufPool.Put(p) }

// sgemm is the blocked driver. Sizes must have been validated.
func sgemm(transA bool, m, n, k int, alpha float32, a []float32, lda int, packB gemmPackFunc, beta float32, c []float32, ldc int, ep *GemmEpilogue) {
	mr, nr := asm.SgemmTile()
	threads := NumThreads()
	mc := gemmMC / mr * mr
	mblocks := (m + mc - 1) / mc
	// Split m finer when there are too few row blocks to keep every thread busy.
	if mblocks < threads && m > mr {
		mblocks = min(threads, (m+mr-1)/mr)
	}
	mc = ((m+mblocks-1)/mblocks + mr - 1) / mr * mr
	mblocks = (m + mc - 1) / mc

	nc := min(gemmNC, (n+nr-1)/nr*nr)
	bbuf := gemmGetBuf(min(k, gemmKC) * nc)
	defer gemmPutBuf(bbuf)
	bpack := *bbuf

	for jc := 0; jc < n; jc += nc {
		ncur := min(nc, n-jc)
		npanels := (ncur + nr - 1) / nr
		// Split columns too when the row blocks alone cannot feed the threads.
		nsplit := 1
		if mblocks < threads {
			nsplit = min(npanels, (threads+mblocks-1)/mblocks)
		}
		for pc := 0; pc < k; pc += gemmKC {
			kc := min(gemmKC, k-pc)
			ParallelFor(npanels, max(1, 4096/(kc*nr)), func(lo, hi int) {
				for jp := lo; jp < hi; jp++ {
					packB(pc, kc, jc+jp*nr, min(nr, ncur-jp*nr), nr, bpack[jp*kc*nr:(jp+1)*kc*nr])
				}
			})
			bet := beta
			if pc > 0 {
				bet = 1
			}
			last := pc+kc >= k
			ParallelFor(mblocks*nsplit, 1, func(lo, hi int) {
				abuf := gemmGetBuf(mc * kc)
				defer gemmPutBuf(abuf)
				apack := *abuf
				var tile [16 * 32]float32
				prevIB := -1
				for t := lo; t < hi; t++ {
					ib, js := t/nsplit, t%nsplit
					i0 := ib * mc
					mcur := min(mc, m-i0)
					if ib != prevIB {
						for ip := 0; ip*mr < mcur; ip++ {
							gemmPackA(transA, a, lda, i0+ip*mr, min(mr, mcur-ip*mr), pc, kc, mr, apack[ip*kc*mr:(ip+1)*kc*mr])
						}
						prevIB = ib
					}
					jpLo, jpHi := js*npanels/nsplit, (js+1)*npanels/nsplit
					for jp := jpLo; jp < jpHi; jp++ {
						j0 := jc + jp*nr
						ncols := min(nr, n-j0)
						bp := unsafe.Pointer(&bpack[jp*kc*nr])
						for ip := 0; ip*mr < mcur; ip++ {
							r0 := i0 + ip*mr
							nrows := min(mr, m-r0)
							ap := unsafe.Pointer(&apack[ip*kc*mr])
							if nrows == mr && ncols == nr {
								asm.SgemmKernelUnchecked(kc, ap, bp, unsafe.Pointer(&c[r0*ldc+j0]), ldc, alpha, bet)
							} else {
								// Edge tile: run the same kernel on a scratch tile.
								if bet != 0 {
									for i := 0; i < nrows; i++ {
										copy(tile[i*nr:i*nr+ncols], c[(r0+i)*ldc+j0:(r0+i)*ldc+j0+ncols])
									}
								}
								asm.SgemmKernelUnchecked(kc, ap, bp, unsafe.Pointer(&tile[0]), nr, alpha, bet)
								for i := 0; i < nrows; i++ {
									copy(c[(r0+i)*ldc+j0:(r0+i)*ldc+j0+ncols], tile[i*nr:i*nr+ncols])
								}
							}
							if last && ep != nil {
								for i := 0; i < nrows; i++ {
									gemmApplyEpilogue(ep, c[(r0+i)*ldc+j0:(r0+i)*ldc+j0+ncols], r0+i, j0)
								}
							}
						}
					}
				}
			})
		}
	}
}

// gemmPackA packs rows [i0, i0+rows) and depth [p0, p0+kc) of op(A) into dst as
// dst[p*mr+i] (rows beyond `rows` are zero).
func gemmPackA(trans bool, a []float32, lda, i0, rows, p0, kc, mr int, dst []float32) {
	if rows < mr {
		clear(dst[:kc*mr])
	}
	if !trans {
		for i := 0; i < rows; i++ {
			src := a[(i0+i)*lda+p0 : (i0+i)*lda+p0+kc]
			for p, v := range src {
				dst[p*mr+i] = v
			}
		}
		return
	}
	for p := 0; p < kc; p++ {
		copy(dst[p*mr:p*mr+rows], a[(p0+p)*lda+i0:(p0+p)*lda+i0+rows])
	}
}

// gemmPackB packs depth [p0, p0+kc) and columns [j0, j0+cols) of op(B) into dst
// as dst[p*nr+j] (columns beyond `cols` are zero).
func gemmPackB(trans bool, b []float32, ldb, p0, kc, j0, cols, nr int, dst []float32) {
	if cols < nr {
		clear(dst[:kc*nr])
	}
	if !trans {
		for p := 0; p < kc; p++ {
			copy(dst[p*nr:p*nr+cols], b[(p0+p)*ldb+j0:(p0+p)*ldb+j0+cols])
		}
		return
	}
	for j := 0; j < cols; j++ {
		src := b[(j0+j)*ldb+p0 : (j0+j)*ldb+p0+kc]
		for p, v := range src {
			dst[p*nr+j] = v
		}
	}
}
