package kernels

import (
	"fmt"
	"unsafe"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/internal/extent"
	"github.com/relaxgo/relaxgo/internal/freelist"
)

// Cache blocking of the SGEMM driver (Goto/BLIS loop order jc, pc, ic, jr, ir).
// Each kc x nr packed B micro-panel is read by every row tile of an mc x kc
// packed A block (in L2); the kc x nc packed B block lives in L3. At 256 or
// 320 deep a micro-panel of 32 or 48 columns (32-60 KB) is more than an L1,
// so it too comes from L2 for each tile (RATIONALE, "Loop heads aligned to
// 64 bytes"). Against a pre-packed B with a large C, jc runs over slices of
// C that stay in L2 (gemmSliceCols).
const (
	gemmKC = 256  // depth of one packed block (gemmDepth)
	gemmMC = 168  // rows of one packed A block (multiple of 14 and 6)
	gemmNC = 4096 // columns of one packed B block
)

// GemmEpilogue is an optional operation fused into Sgemm's write-back: after
// the final k block of a tile, c[i][j] += RowBias[i] + ColBias[j] (either
// slice may be nil; each has m resp. n elements), then c[i][j] += Res[i*ResLd+j]
// (Res + c with ResLeft; a residual connection laid out as C), and then, if
// Relu, c[i][j] = max(c[i][j], 0). It costs nothing extra in memory traffic
// because the tile is still in L1.
type GemmEpilogue struct {
	RowBias []float32
	ColBias []float32
	Res     []float32
	ResLd   int
	ResLeft bool
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
	return sgemmEx(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, ep, nil)
}

// sgemmEx is SgemmEx, with B taken from pb instead when pb is not nil.
func sgemmEx(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, ep *GemmEpilogue, pb *PackedB) error {
	return sgemmExOn(false, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, ep, pb)
}

// sgemmExOn is sgemmEx, on the calling goroutine alone when serial is set:
// a product that is one of several a ParallelFor's items run, which would
// otherwise start a ParallelFor of its own inside the item, whose helper
// is busy with the other items (the caller then spins on its chunks'
// completion: softmax attention's 4 heads at 2 threads ran 1.2x faster
// than at 1, not 2x). The bits do not depend on the thread count.
func sgemmExOn(serial, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, ep *GemmEpilogue, pb *PackedB) error {
	if pb != nil {
		if err := checkGemm(transA, false, m, n, 0, len(a), lda, 0, ldb, len(c), ldc); err != nil {
			return err
		}
		ar, ac := m, k
		if transA {
			ar, ac = k, m
		}
		if err := gemmCheckMat("A", ar, ac, len(a), lda); err != nil {
			return err
		}
	} else if err := checkGemm(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc); err != nil {
		return err
	}
	if ep != nil {
		if ep.RowBias != nil && len(ep.RowBias) < m {
			return fmt.Errorf("kernels: sgemm: row bias has %d elements, need %d", len(ep.RowBias), m)
		}
		if ep.ColBias != nil && len(ep.ColBias) < n {
			return fmt.Errorf("kernels: sgemm: column bias has %d elements, need %d", len(ep.ColBias), n)
		}
		if ep.Res != nil && (ep.ResLd < n || !extent.OK(m, n, ep.ResLd, len(ep.Res))) {
			return fmt.Errorf("kernels: sgemm: residual of %d elements with stride %d does not cover %dx%d", len(ep.Res), ep.ResLd, m, n)
		}
		if ep.RowBias == nil && ep.ColBias == nil && ep.Res == nil && !ep.Relu {
			ep = nil
		}
	}
	if m == 0 || n == 0 {
		return nil
	}
	if gemmNarrowOK(transA, transB, m, n, k, alpha, b) {
		gemmNarrow(serial, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, ep)
		return nil
	}
	j := getGemmJob()
	j.c, j.ldc, j.m, j.n, j.beta, j.serial = c, ldc, m, n, beta, serial
	if ep != nil {
		j.ep, j.hasEp = *ep, true
	}
	if k == 0 || alpha == 0 {
		if serial {
			j.scaleFn(0, m)
		} else {
			ParallelFor(m, max(1, 4096/n), j.scaleFn)
		}
	} else {
		j.transA, j.k, j.alpha, j.a, j.lda = transA, k, alpha, a, lda
		j.b = gemmB{trans: transB, b: b, ldb: ldb}
		j.pb = pb
		j.run()
	}
	putGemmJob(j)
	return nil
}

// gemmB is the B operand of the blocked driver: a row-major matrix (or its
// transpose), or, when conv is set, the virtual patch matrix of one image
// group of a convolution (implicit GEMM, no im2col buffer).
type gemmB struct {
	trans bool
	b     []float32
	ldb   int
	conv  bool
	geom  conv2dGeom // when conv: the convolution whose patches B holds
}

// pack packs depth [p0, p0+kc) and columns [j0, j0+cols) of B into dst as
// dst[p*nr+j], zero-filling columns j >= cols.
func (s *gemmB) pack(p0, kc, j0, cols, nr int, dst []float32) {
	if s.conv {
		convPackB(&s.geom, s.b, p0, kc, j0, cols, nr, dst)
		return
	}
	gemmPackB(s.trans, s.b, s.ldb, p0, kc, j0, cols, nr, dst)
}
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
	if rows < 0 || cols < 0 {
		return fmt.Errorf("kernels: sgemm: %s has negative size %dx%d", name, rows, cols)
	}
	// Overflow-safe: (rows-1)*ld+cols wraps around for a huge ld or rows.
	if !extent.OK(rows, cols, ld, length) {
		return fmt.Errorf("kernels: sgemm: %s is %dx%d with stride %d but has only %d elements", name, rows, cols, ld, length)
	}
	return nil
}

// gemmEpilogueRows runs the epilogue on rows [i0, i0+rows) and columns [c0,
// c1) of C, whose row i0 starts at c[c0:] (row i at c[(i-i0)*ldc+c0:]), in
// one asm.EpilogueRowsF32 call: the same additions and relu as the separate
// kernels (AddScalarF32, AddF32, ReluF32) row by row, so the same bits. The
// blocked driver ran it on a row block's groups of about 128 columns a call
// per row and step: compare.sh's transformer at 1 thread spent 5% of its
// time in those calls, mostly in their overhead (BenchmarkEpilogueRows, 8
// rows of 128 with a bias and a residual: 178 ns as calls per row, 66 in
// one call). Where every tile is whole the kernels run it instead (epK).
func gemmEpilogueRows(ep *GemmEpilogue, c []float32, ldc, i0, rows, c0, c1 int) {
	var rb, cb, res []float32
	if ep.RowBias != nil {
		rb = ep.RowBias[i0 : i0+rows]
	}
	if ep.ColBias != nil {
		cb = ep.ColBias[c0:c1]
	}
	if ep.Res != nil {
		res = ep.Res[i0*ep.ResLd+c0:]
	}
	asm.EpilogueRowsF32(c, ldc, rows, c1-c0, rb, cb, res, ep.ResLd, gemmEpiFlags(ep))
}

// gemmEpiFlags is ep's steps as asm.EpilogueRowsF32's flags.
func gemmEpiFlags(ep *GemmEpilogue) int {
	flags := 0
	if ep.RowBias != nil {
		flags |= asm.EpiRowBias
	}
	if ep.ColBias != nil {
		flags |= asm.EpiColBias
	}
	if ep.Res != nil {
		flags |= asm.EpiRes
		if ep.ResLeft {
			flags |= asm.EpiResLeft
		}
	}
	if ep.Relu {
		flags |= asm.EpiRelu
	}
	return flags
}

// kernelEpi runs the job's micro-kernel with the epilogue in registers
// (epK) on the whole tile of rows r0... and columns j0...
func (j *gemmJob) kernelEpi(next bool, kc int, a, b, c unsafe.Pointer, ldc int, alpha, beta float32, r0, j0 int) {
	cb, res := j.epiOperands(r0, j0)
	asm.SgemmKernelEpiUnchecked(j.tile, next, kc, a, b, c, ldc, alpha, beta, cb, res, j.ep.ResLd, j.epFlags)
}

// kernelRowA runs the 8x32 tile reading A in place (rowA) at a, A's row
// r0 and column pc, with epi the epilogue in the kernel as kernelEpi.
func (j *gemmJob) kernelRowA(next bool, kc int, a, b, c unsafe.Pointer, ldc int, alpha, beta float32, epi bool, r0, j0 int) {
	var cb, res unsafe.Pointer
	flags := 0
	if epi {
		cb, res = j.epiOperands(r0, j0)
		flags = j.epFlags
	}
	asm.SgemmKernelRowAUnchecked(next, kc, a, j.lda, b, c, ldc, alpha, beta, epi, cb, res, j.ep.ResLd, flags)
}

// epiOperands is the epilogue's column bias and residual at the tile of
// rows r0... and columns j0... (nil where the epilogue has none).
func (j *gemmJob) epiOperands(r0, j0 int) (cb, res unsafe.Pointer) {
	if j.ep.ColBias != nil {
		cb = unsafe.Pointer(&j.ep.ColBias[j0])
	}
	if j.ep.Res != nil {
		res = unsafe.Pointer(&j.ep.Res[r0*j.ep.ResLd+j0])
	}
	return cb, res
}

// gemmKCTail is how much deeper than gemmKC a product's last depth block
// may be: a rest of at most gemmKC+gemmKCTail is one block, not a gemmKC one
// and a shallow one. Each block is a pass over C's tiles (loaded, added to,
// stored) and, in the indirect convolution, a pass through the scratch
// before the copy out; a last block a few steps deep cost a whole pass for
// little work: a 3x3 layer of 32 input channels (288 deep) ran 256 + 32,
// one of 64 (576) 256 + 256 + 64, the mlp's 784-deep product 256 x 3 + 16.
const gemmKCTail = 64

// gemmKCMax is the deepest depth block.
const gemmKCMax = gemmKC + gemmKCTail

// gemmDepth is the depth of the block that starts at pc of a product k
// deep: gemmKC, or the whole rest where that is at most gemmKCMax. Every
// path blocks its depth by it (the packed driver, the direct and narrow
// paths, packed weights, the indirect and position convolutions), so that
// a product has the same bits on each.
func gemmDepth(pc, k int) int {
	if r := k - pc; r <= gemmKCMax {
		return r
	}
	return gemmKC
}

// Packing buffers. A panels (at most gemmMC x gemmKCMax) come from a pool of
// fixed-size buffers; B blocks from a pool whose buffers only grow (a buffer
// too small for a request is dropped and replaced by one of the requested
// size), so neither kind is ever reallocated once the pools are warm.
var gemmAPool = freelist.Affine[*[]float32]{New: func() *[]float32 {
	s := make([]float32, gemmMC*gemmKCMax, gemmMC*gemmKCMax+16)
	return &s
}}

var gemmBPool freelist.Affine[*[]float32]

func gemmGetABuf(n int) *[]float32 {
	p := gemmAPool.Get()
	*p = (*p)[:n]
	return p
}

func gemmPutABuf(p *[]float32) { gemmAPool.Put(p) }

func gemmGetBBuf(n int) *[]float32 { return growBuf(&gemmBPool, n) }

// growBuf takes a buffer of n floats from a pool of buffers that only grow:
// one too small is dropped and replaced by one of n (plus a vector's slack).
func growBuf(pool *freelist.Affine[*[]float32], n int) *[]float32 {
	if p := pool.Get(); p != nil && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	s := make([]float32, n, n+16)
	return &s
}

func gemmPutBBuf(p *[]float32) { gemmBPool.Put(p) }

// gemmJob is one call of the blocked driver. Jobs are pooled and their
// ParallelFor bodies are method values bound once per job, so a call
// allocates nothing: the loop state that the bodies read (jc, pc, ...) lives
// in the job, not in captured variables.
type gemmJob struct {
	// Operands: C (m x n) = alpha*op(A)*B + beta*C, then the epilogue.
	transA  bool
	m, n, k int
	// small selects the asm.SgemmTileSmall micro-kernel, wide the
	// asm.SgemmTileWide one, mid the asm.SgemmTileMid one.
	small, wide, mid bool
	// pfNext: each panel's first row tile prefetches the next panel
	// (asm.SgemmKernelNextUnchecked), set once in run.
	pfNext bool

	alpha  float32
	a      []float32
	lda    int
	b      gemmB
	pb     *PackedB // B pre-packed (b unused), or nil
	pbv    PackedB  // sgemmOn's copy of its pb
	pa     *packedA // A pre-packed (a unused by the blocked path), or nil
	beta   float32
	c      []float32
	ldc    int
	ep     GemmEpilogue
	hasEp  bool
	serial bool // one thread whatever the size (sgemmOn)
	// paSlices is A packed by run itself for C's column slices
	// (gemmSliceCols; pa then points at it).
	paSlices packedA
	// kchain: the last depth block's tiles run asm.SgemmKernelChain with
	// the chain's codes (kcodes, kns steps) and its scalars in blocks of
	// mr rows (kchainT, laneBlocks' layout), so a convolution's bias and
	// clip are applied in registers (sgemmChain).
	kchain  bool
	kcodes  *uint8
	kns     int
	kchainT []float32

	// Blocking, fixed for the whole call.
	mr, nr, mc, mblocks int
	// half is asm.SgemmHalfWidth(mr) when the product's last column panel
	// holds at most that many columns and is packed and computed at that
	// width (halfPanel), else 0.
	half     int
	fusePack bool // each compute item packs its own B panels

	// cur is the current (jc, pc) block, set before each ParallelFor
	// (depthItems' items each run their own).
	cur gemmBlock
	// bpack is the small-M direct path's packed A (gemm_direct.go).
	bpack []float32

	// tile is the job's micro-kernel tile (main, middle or wide), set in
	// run. epK: the last depth block's tiles run the epilogue in the
	// kernel (asm.SgemmKernelEpiUnchecked with epFlags); rowA: the tiles
	// read A in place, row-major, instead of a packed panel
	// (asm.SgemmKernelRowAUnchecked). Both set in run, where every tile
	// is whole.
	tile    asm.SgemmTileKind
	epK     bool
	epFlags int
	rowA    bool

	// The small-M path's row groups (gemm_direct.go), and whether its
	// kernels prefetch B (directPrefetchFloats).
	groups     [gemmSmallRows]directGroup
	ngroups    int
	directPref bool

	// The narrow path's product when it runs on the threads.
	narrow narrowGemm

	packFn, computeFn, scaleFn, directFn, narrowFn, depthFn func(lo, hi int)
}

var gemmJobPool = freelist.List[*gemmJob]{New: func() *gemmJob {
	j := new(gemmJob)
	j.packFn, j.computeFn, j.scaleFn, j.directFn, j.narrowFn = j.packPanels, j.computeTiles, j.scaleRows, j.directTiles, j.narrowRows
	j.depthFn = j.depthItems
	return j
}}

func getGemmJob() *gemmJob { return gemmJobPool.Get() }

// putGemmJob drops the job's references to caller memory and pools it.
func putGemmJob(j *gemmJob) {
	packFn, computeFn, scaleFn, directFn, narrowFn, depthFn := j.packFn, j.computeFn, j.scaleFn, j.directFn, j.narrowFn, j.depthFn
	*j = gemmJob{packFn: packFn, computeFn: computeFn, scaleFn: scaleFn, directFn: directFn, narrowFn: narrowFn, depthFn: depthFn}
	gemmJobPool.Put(j)
}

// scaleRows handles k == 0 or alpha == 0: C = beta*C, then the epilogue.
func (j *gemmJob) scaleRows(lo, hi int) {
	for i := lo; i < hi; i++ {
		row := j.c[i*j.ldc : i*j.ldc+j.n]
		if j.beta == 0 {
			clear(row)
		} else if j.beta != 1 {
			asm.MulScalarF32(row, row, j.beta)
		}
	}
	if j.hasEp && hi > lo {
		gemmEpilogueRows(&j.ep, j.c[lo*j.ldc:], j.ldc, lo, hi-lo, 0, j.n)
	}
}

// sgemm is the blocked driver for the convolution's implicit GEMM: C (m x n,
// row stride ldc) = alpha*op(A)*B + beta*C with B read through src. Sizes must
// have been validated, and m, n, k must be positive.
func sgemm(transA bool, m, n, k int, alpha float32, a []float32, lda int, src *gemmB, beta float32, c []float32, ldc int, pa *packedA) {
	sgemmOn(false, transA, m, n, k, alpha, a, lda, src, nil, beta, c, ldc, pa)
}

// sgemmChain is sgemm (alpha 1, beta 0) followed by chain (nil for none)
// on C's rows, row i as chain row row0+i of n elements. Where the level
// has asm.SgemmTileChain and the chain can run in a kernel (no residual,
// no one-element chunk: rowChain.inKernelPass), the last depth block's
// tiles run it in registers before their store; else it runs in a pass
// over C after the product. The bits are the same either way.
//
// BenchmarkConv2DChainLayers on an AVX2-only AMD EPYC (Zen 3), minimum of
// six runs alternated with the pass (scripts/ab_bench.sh): MobileNetV2's 16->96 1x1 on 112²
// 1117 -> 852 µs, 24->144 on 56² 408 -> 387, 96->576 on 14² 347 -> 287.
// (Running the chain in Go on the groups of columns the epilogue visits
// was slower than the pass, 1229 -> 1604 µs: a call per 128 elements.)
func sgemmChain(m, n, k int, a []float32, lda int, src *gemmB, c []float32, ldc int, pa *packedA, chain *rowChain, row0 int) {
	cmr, ok := gemmChainTile()
	if chain == nil || !ok || !chain.inKernelPass(n) {
		sgemm(false, m, n, k, 1, a, lda, src, 0, c, ldc, pa)
		if chain != nil {
			chainPlanes(chain, c, ldc, m, row0)
		}
		return
	}
	ns := len(chain.codes)
	tb := getScratch((m + cmr - 1) / cmr * cmr * max(ns, 1))
	defer putScratch(tb)
	j := getGemmJob()
	j.m, j.n, j.k, j.alpha, j.a, j.lda = m, n, k, 1, a, lda
	j.b = *src
	j.c, j.ldc, j.pa = c, ldc, pa
	j.kchain, j.kns = true, ns
	if ns > 0 {
		j.kcodes = &chain.codes[0]
		j.kchainT = laneBlocks(*tb, chain.table[row0*ns:(row0+m)*ns], m, ns, cmr)
	}
	j.run()
	putGemmJob(j)
}

// gemmChainTile reports the rows of asm.SgemmTileChain's tile when the
// driver can only choose that tile at this level (its main and small tiles,
// no wide, middle or half-width one), so that every tile of a sgemmChain
// product can run the chain kernel.
func gemmChainTile() (int, bool) {
	mr, nr, ok := asm.SgemmTileChain()
	tmr, tnr := asm.SgemmTile()
	smr, snr := asm.SgemmTileSmall()
	_, _, wide := asm.SgemmTileWide()
	_, _, mid := asm.SgemmTileMid()
	_, half := asm.SgemmHalfWidth(mr)
	return mr, ok && tmr == mr && tnr == nr && smr == mr && snr == nr && !wide && !mid && !half
}

// sgemmOn is sgemm with B pre-packed in pb instead when pb is not nil
// (src unused), on the calling goroutine alone when serial is set (a
// product that is one of several running in parallel).
func sgemmOn(serial, transA bool, m, n, k int, alpha float32, a []float32, lda int, src *gemmB, pb *PackedB, beta float32, c []float32, ldc int, pa *packedA) {
	j := getGemmJob()
	j.transA, j.m, j.n, j.k, j.alpha, j.a, j.lda = transA, m, n, k, alpha, a, lda
	if pb != nil {
		// A copy, so that the caller's PackedB (often a local) does not
		// escape into the pooled job.
		j.pbv = *pb
		j.pb = &j.pbv
	} else {
		j.b = *src
	}
	j.beta, j.c, j.ldc = beta, c, ldc
	j.pa, j.serial = pa, serial
	j.run()
	putGemmJob(j)
}

// gemmSmallRows is the largest m run with asm.SgemmTileSmall's tile.
const gemmSmallRows = 8

// kernel runs the micro-kernel of the job's tile with static calls (the
// pointers stay non-escaping, so edge tiles live on the stack); with next
// (a pre-packed panel's first row tile, pfNext) the tile's form that also
// prefetches the next B panel.
func (j *gemmJob) kernel(next bool, kc int, a, b, c unsafe.Pointer, ldc int, alpha, beta float32) {
	switch {
	case j.wide && next:
		asm.SgemmKernelWideNextUnchecked(kc, a, b, c, ldc, alpha, beta)
	case j.wide:
		asm.SgemmKernelWideUnchecked(kc, a, b, c, ldc, alpha, beta)
	case j.small:
		asm.SgemmKernelSmallUnchecked(kc, a, b, c, ldc, alpha, beta)
	case j.mid && next:
		asm.SgemmKernelMidNextUnchecked(kc, a, b, c, ldc, alpha, beta)
	case j.mid:
		asm.SgemmKernelMidUnchecked(kc, a, b, c, ldc, alpha, beta)
	case next:
		asm.SgemmKernelNextUnchecked(kc, a, b, c, ldc, alpha, beta)
	default:
		asm.SgemmKernelUnchecked(kc, a, b, c, ldc, alpha, beta)
	}
}

// rowsKernel reports whether a tile of nrows rows (fewer than the tile's)
// at width kn runs asm.SgemmKernelRows: the job's tile is SgemmTile's at
// its full width, the level has the kernel, and the tile is not one the
// chain kernel runs. Each element gets the whole tile's bits.
// BenchmarkSgemmPacked, AVX2 AMD EPYC (Zen 3), 1 thread, minimum of four
// alternated runs, µs: m=8 n=3072 k=768 660 -> 512, m=1 n=768 k=768 86 ->
// 49, m=64 n=1024 k=784 1166 -> 1131; the decoder and encoder fixtures
// (32 tokens: 2 rows left over) 5% faster in the model.
func (j *gemmJob) rowsKernel(nrows, kn int, last bool) bool {
	tmr, tnr := asm.SgemmTile()
	return !j.wide && !j.mid && j.mr == tmr && j.nr == tnr && kn == j.nr && !(j.kchain && last) && asm.SgemmKernelRowsOK(nrows)
}

// lastCut returns, for a row block of mcur rows whose A the driver packs
// itself (not prepacked), the rows of its second-to-last row tile when its
// last two tiles share their rows (rowTile), else 0: where the last tile
// would hold 1 or 2 rows on the row kernels (AVX2), the two run 4 and 3 or
// 4 and 4. A row kernel's accumulators are its rows' (two vectors a row),
// and below 8 they cannot cover the FMA latency: 1 or 2 rows ran at a
// quarter or half of the tile's rate. The bits do not change: every
// element is the same sum whichever tile computes it.
func (j *gemmJob) lastCut(mcur int, prepacked bool) int {
	if prepacked || j.kchain || !j.rowsKernel(4, j.nr, false) {
		return 0
	}
	return lastTilesCut(mcur, j.mr)
}

// lastTilesCut is rowTile's cut for n rows in tiles of mr run by the row
// kernels: 4 where the last tile would hold 1 or 2 rows, else 0.
func lastTilesCut(n, mr int) int {
	if rem := n % mr; (rem != 1 && rem != 2) || n < mr || !asm.SgemmKernelRowsOK(4) {
		return 0
	}
	return 4
}

// rowTile returns the first row (in the block) and the rows of row tile
// ip of a row block of mcur rows in tiles of mr: mr rows each, the last
// one the rest, except that with cut (lastCut) the last two share their
// rows as cut and the rest.
func rowTile(ip, mcur, mr, cut int) (off, rows int) {
	off, rows = ip*mr, min(mr, mcur-ip*mr)
	if cut == 0 {
		return off, rows
	}
	switch nt := (mcur + mr - 1) / mr; ip {
	case nt - 2:
		return off, cut
	case nt - 1:
		return (nt-2)*mr + cut, mcur - (nt-2)*mr - cut
	}
	return off, rows
}

// tileKernel runs the job's micro-kernel at width kn on the tile of rows
// r0...: the tile's own width, or the half width (asm.SgemmKernelHalf) on
// the last panel; with kchain, the last depth block on the chain kernel,
// with the scalars of the tile's rows.
func (j *gemmJob) tileKernel(r0, kn, kc int, a, b, c unsafe.Pointer, ldc int, alpha, beta float32, first, last bool) {
	next := first && j.pfNext
	if j.kchain && last {
		var sc *float32
		if j.kns > 0 {
			sc = &j.kchainT[r0/j.mr*j.kns*j.mr]
		}
		if next {
			asm.SgemmKernelChainNextUnchecked(kc, a, b, c, ldc, alpha, beta, j.kcodes, sc, j.kns)
			return
		}
		asm.SgemmKernelChainUnchecked(kc, a, b, c, ldc, alpha, beta, j.kcodes, sc, j.kns)
		return
	}
	if kn != j.nr {
		asm.SgemmKernelHalfUnchecked(j.mr, kc, a, b, c, ldc, alpha, beta)
		return
	}
	j.kernel(next, kc, a, b, c, ldc, alpha, beta)
}

// gemmUseWide reports whether an m x n product (without pre-packed A) runs
// on asm.SgemmTileWide's tile: the level has it, m is past the small tile's
// range, and its tiles cover less padding than SgemmTile's (m = 64 or 128
// against n = 768 or 1024: the 14-row tile computes 9% padding rows).
func gemmUseWide(m, n int) bool {
	wmr, wnr, ok := asm.SgemmTileWide()
	if !ok || m <= gemmSmallRows {
		return false
	}
	mr, nr := asm.SgemmTile()
	wide := tilePadded(m, n, wmr, wnr)
	if gemmUseMid(m, n) {
		// On a tie with the middle tile the wide one: its three B vectors
		// per broadcast row stream B better (64 x 3072 x 768, B packed per
		// call: 198 GFLOP/s wide, 183 middle).
		mmr, mnr, _ := asm.SgemmTileMid()
		return wide <= tilePadded(m, n, mmr, mnr)
	}
	return wide < tilePadded(m, n, mr, nr)
}

// gemmUseMid reports whether an m x n product on SgemmTile's panels runs
// on asm.SgemmTileMid's tile instead: the level has it, m is past the small
// tile's range, and its 8-row tiles cover fewer padding rows than the
// 14-row ones (m = 32, 64, 128: none against 10, 6 and 12). In L1 the two
// kernels run at the same rate (~260 GFLOP/s on an AVX-512 EPYC).
func gemmUseMid(m, n int) bool {
	mmr, mnr, ok := asm.SgemmTileMid()
	if !ok || m <= gemmSmallRows {
		return false
	}
	mr, nr := asm.SgemmTile()
	return mnr == nr && tilePadded(m, n, mmr, mnr) < tilePadded(m, n, mr, nr)
}

// tilePadded is the size of an m x n product rounded up to whole mr x nr
// tiles: what the micro-kernel computes, padding included.
func tilePadded(m, n, mr, nr int) int {
	return (m + mr - 1) / mr * mr * ((n + nr - 1) / nr * nr)
}

// gemmThreads is the thread count for an m x n x k product: one below
// gemmParallelMinMNK and gemmParallelMinMN, where waking workers costs more
// than the arithmetic.
func gemmThreads(m, n, k int) int {
	if int64(m)*int64(n)*int64(k) < gemmParallelMinMNK && int64(m)*int64(n) < gemmParallelMinMN {
		return 1
	}
	return NumThreads()
}

// gemmParallelMinMNK is the m*n*k below which Sgemm stays on one goroutine:
// handing out the work costs more than the second thread saves. Since the
// worker pool spins instead of parking between jobs (parallel.go), two
// threads win from 64³ (BenchmarkSgemmThreads, AVX2, µs for 1 → 2 threads:
// 64³ 11.0 → 9.1, 96³ 28.9 → 19.1, 128³ 64.0 → 40.6; with parked workers
// 128³ was still slower on two threads, and the threshold was 4M).
const gemmParallelMinMNK = 1 << 18

// gemmPackParallelMinMNK is gemmParallelMinMNK for the blocked driver
// packing B (an activation, not a pre-packed weight) apart from the products
// (not fusePack): its threads meet twice a depth block, after packing and
// after computing, and below it two threads were slower than one
// (BenchmarkSgemmThreads, AVX-512 Intel Xeon, medians of eight runs, µs at 1
// and 2 threads: 64x64x64 9.8 and 11.2, 32x128x128 22.0 and 25.4; from 96³
// two were faster, 29.5 and 25.9). The small-M direct path, pre-packed
// weights and fusePack (one meeting) keep the lower threshold: a one-row
// product of 768x768 takes 96-120 µs on one thread, 42-64 on two.
const gemmPackParallelMinMNK = 3 << 18

// gemmParallelMinMN is the output size (m*n) from which Sgemm splits even a
// shallow product: with a small depth (a first convolution layer: 27) the
// time goes to packing and storing the output, which the threads share
// (cnn_64x64's 3->32 convolution, 32 x 4096 x 27: 250 us on one thread).
const gemmParallelMinMN = 1 << 16

// run is the blocked driver (m, n, k > 0, alpha != 0).
func (j *gemmJob) run() {
	m, n, k := j.m, j.n, j.k
	mr, nr := asm.SgemmTile()
	// Few rows (small batches): the small tile wastes less of each
	// micro-kernel call on padding rows.
	j.small = m <= gemmSmallRows
	if j.small {
		mr, nr = asm.SgemmTileSmall()
	}
	// The wide tile where it computes less padding; B pre-packed for it
	// decides by itself.
	if wmr, wnr, ok := asm.SgemmTileWide(); ok && j.pa == nil && !j.b.conv &&
		((j.pb != nil && j.pb.nr == wnr) || (j.pb == nil && gemmUseWide(m, n))) {
		j.small, j.wide = false, true
		mr, nr = wmr, wnr
	}
	// The middle tile on the same panels where its 8 rows pad less (B's
	// panels are SgemmTile's either way; A pre-packed must be in 8-row
	// panels, as a pointwise convolution's weights are packed for it).
	if mmr, _, ok := asm.SgemmTileMid(); ok && !j.small && !j.wide && (j.pa == nil || j.pa.mr == mmr) && !j.b.conv &&
		(j.pb == nil || j.pb.nr == nr) && gemmUseMid(m, n) {
		j.mid = true
		mr = mmr
	}
	// A pre-packed B (a constant weight) is not in L2 when a model's layer
	// runs: each panel's first row tile prefetches the next panel, which
	// then arrives while the panel's other row tiles compute. In the model,
	// 1 thread, AVX2 AMD EPYC (Zen 3), median of six alternated rounds of
	// `relaxgo bench --mode=bytecode`: compare.sh's mlp 4.09 -> 3.75 ms,
	// its transformer 3.96 -> 3.39 ms. At AVX-512 (the main, middle and
	// wide tiles; an Intel Xeon whose memory copies run at 3-4 GB/s past
	// the L2) the fastest of 300 calls, five alternated pairs: mlp
	// 2.87-3.13 -> 2.78-2.89 ms, transformer 2.64-2.98 -> 2.59-2.94 (the
	// medians within that machine's noise). Alone, with the weight in L3
	// (BenchmarkSgemmPacked), no change beyond the noise. The small tile
	// runs as it is.
	j.pfNext = j.pb != nil && !j.small
	// Small products run on the calling goroutine. (Blocking, and so the
	// result, is the same.)
	threads := gemmThreads(m, n, k)
	if j.serial {
		threads = 1
	}
	if j.directOK() && !j.kchain {
		j.runDirect(threads)
		return
	}
	mc := gemmMC / mr * mr
	mblocks := (m + mc - 1) / mc
	// One row block and enough column panels: the threads split the columns
	// (exactly balanced, A packed by each) and each packs its own B panels
	// in the compute pass, saving a barrier per depth block.
	fuse := mblocks == 1 && j.pb == nil && (n+nr-1)/nr >= 4*threads
	if j.pb == nil && !fuse && int64(m)*int64(n)*int64(k) < gemmPackParallelMinMNK && int64(m)*int64(n) < gemmParallelMinMN {
		threads = 1 // the packing and the products would split separately
	}
	j.fusePack = threads > 1 && fuse
	// A pre-packed B (a weight) that one row block covers: the threads
	// split its panels, each reading its half of B, where split rows
	// would each stream all of it past the L2. compare.sh's mlp (64 rows,
	// 3.2 and 4 MB of weights) at 2 threads, AVX-512 Intel Xeon, four
	// alternated pairs of `relaxgo bench --mode=compiled -n 200`: medians
	// 1.53-2.24 -> 1.36-2.35 ms (three of four pairs faster), fastest
	// calls 1.30-1.32 -> 1.20-1.33; the transformer's 128-row products
	// unchanged (`relaxgo profile --by shape`).
	//
	// Only where B is large against A and C (gemmColSplitB): split
	// columns make the next operator, which reads whole rows of C (a
	// layer norm, an elementwise op, the next product's A), take half of
	// them from the other core's cache, and the threads' halves of A
	// likewise; split rows keep a thread's rows (tokens) on its core from
	// product to product, at the price of every thread reading all of B.
	colSplit := j.pb != nil && mblocks == 1 && (n+nr-1)/nr >= 4*threads && gemmColSplitB(m, n, k)
	// Else split m finer when there are too few row blocks to keep every thread busy.
	if !j.fusePack && !colSplit && mblocks < threads && m > mr {
		mblocks = min(threads, (m+mr-1)/mr)
	}
	// Balance the row blocks over the threads: a multiple of the thread
	// count, so no thread idles while another finishes an extra block.
	if threads > 1 && mblocks > threads && mblocks%threads != 0 {
		mblocks = min((mblocks+threads-1)/threads*threads, (m+mr-1)/mr)
	}
	mc = ((m+mblocks-1)/mblocks + mr - 1) / mr * mr
	mblocks = (m + mc - 1) / mc
	j.mr, j.nr, j.mc, j.mblocks = mr, nr, mc, mblocks
	// The last panel on the half-width tile when it fits one (B packed
	// here, not pre-packed at the full width): SqueezeNet's classifier,
	// 1000 x 169 x 512, computes 176 columns instead of 192.
	j.half = 0
	if hn, ok := asm.SgemmHalfWidth(mr); ok && j.pb == nil && hn < nr && n%nr > 0 && n%nr <= hn {
		j.half = hn
	}

	// The epilogue in the kernel, on the tile in registers before its
	// store, where every tile is whole (no edge tiles, whose epilogue
	// would run in the group pass): a column bias, a residual, relu, each
	// step EpilogueRowsF32's operation, so the same bits as that pass.
	j.tile = asm.TileMain
	if j.wide {
		j.tile = asm.TileWide
	} else if j.mid {
		j.tile = asm.TileMid
	}
	whole := !j.kchain && !j.small && j.half == 0 && m%mr == 0 && n%nr == 0
	j.epK = whole && j.hasEp && j.ep.RowBias == nil && asm.SgemmEpiOK(j.tile)
	if j.epK {
		j.epFlags = gemmEpiFlags(&j.ep)
	}

	// A pre-packed B's product whose tiles are all whole 8x32 ones reads
	// A where it lies, row by row, instead of packing it first: the packed
	// kernel's arithmetic on the same values (asm.SgemmKernelRowAUnchecked).
	// BenchmarkSgemmPacked, pre-packed, AMD EPYC (Zen 5) VM, three
	// alternated runs, µs: 128x256x1024 (the transformer's FFN-down) 362-380
	// -> 345-361 at 1 thread, 207-219 -> 197-205 at 2; 128x1024x256 348-357
	// -> 340-343; 64x1024x784 (the mlp's first layer) 565-597 -> 549-559;
	// 128x768x3072 3433-3543 -> 3422-3461.
	j.rowA = whole && asm.SgemmRowAOK(j.tile) && j.pb != nil && j.pa == nil && !j.transA && j.lda >= k
	// A whole number of panels (gemmNC is not a multiple of the wide
	// tile's 48 columns).
	nc := min(gemmNC/nr*nr, (n+nr-1)/nr*nr)
	var apack *[]float32
	if sliceNC := gemmSliceCols(m, n, k, nr); sliceNC > 0 && threads == 1 && j.pb != nil && j.pa == nil && !j.transA && !j.rowA {
		// C in column slices whose rows stay in L2 over the depth blocks
		// (gemmSliceBytes), A packed once for all of them.
		np := (m + mr - 1) / mr
		apack = getScratch(k * np * mr)
		packAInto(*apack, m, k, j.a, j.lda, mr)
		j.paSlices = packedA{m: m, k: k, mr: mr, npanels: np, level: asm.CurrentLevel(), data: *apack}
		j.pa = &j.paSlices
		nc = sliceNC
	}
	if threads > 1 && j.pb != nil && !j.fusePack && n <= nc {
		// A pre-packed B in one column block on more than one thread:
		// each item (a row block against a column slice) runs every
		// depth block itself. Items share nothing from one depth block
		// to the next (each packs its own A and writes its own part of
		// C; B is read only), so they need not meet after each: one
		// ParallelFor a product, not one a depth block, and no thread
		// waits at each block for the other's slower panels. Each
		// element's depth blocks run in the same order on the same
		// kernels: the same bits.
		npanels := (n + nr - 1) / nr
		nsplit := 1
		if mblocks < threads {
			nsplit = min(npanels, (threads+mblocks-1)/mblocks)
		}
		j.cur.jc, j.cur.ncur, j.cur.npanels, j.cur.nsplit = 0, n, npanels, nsplit
		ParallelFor(mblocks*nsplit, 1, j.depthFn)
		return
	}
	var bbuf *[]float32
	if j.pb == nil {
		bbuf = gemmGetBBuf(min(k, gemmKCMax)*nc + (nc/nr+1)*gemmPanelPad)
		j.cur.bpack = *bbuf
	}

	for jc := 0; jc < n; jc += nc {
		ncur := min(nc, n-jc)
		npanels := (ncur + nr - 1) / nr
		// Split columns too when the row blocks alone cannot feed the threads.
		nsplit := 1
		if mblocks < threads {
			nsplit = min(npanels, (threads+mblocks-1)/mblocks)
		}
		if j.fusePack {
			nsplit = min(npanels, threads)
		}
		j.cur.jc, j.cur.ncur, j.cur.npanels, j.cur.nsplit = jc, ncur, npanels, nsplit
		for pc, kc := 0, 0; pc < k; pc += kc {
			kc = gemmDepth(pc, k)
			j.cur.pc, j.cur.kc = pc, kc
			j.cur.ps = kc * nr // a pre-packed weight's panels, and the convolution packer's
			if j.pb == nil && !j.b.conv {
				j.cur.ps += gemmPanelPad
			}
			if j.pb != nil {
				// Pre-packed: the block's panels start at panel jc/nr.
				j.cur.bpack = j.pb.data[pc*j.pb.npanels*nr+(jc/nr)*kc*nr:]
			} else if j.fusePack {
				// Packed by computeTiles.
			} else if threads == 1 {
				j.packFn(0, npanels)
			} else {
				// Chunks of several panels: the conv packer works across a
				// chunk's panels a depth row at a time.
				ParallelFor(npanels, max(1, 4096/(kc*nr), npanels/(4*threads)), j.packFn)
			}
			j.cur.bet = j.beta
			if pc > 0 {
				j.cur.bet = 1
			}
			j.cur.last = pc+kc >= k
			if threads == 1 {
				j.computeFn(0, mblocks*nsplit)
			} else {
				ParallelFor(mblocks*nsplit, 1, j.computeFn)
			}
		}
	}
	j.cur.bpack = nil
	if bbuf != nil {
		gemmPutBBuf(bbuf)
	}
	if apack != nil {
		j.pa, j.paSlices = nil, packedA{}
		putScratch(apack)
	}
}

// gemmColSplitB reports whether an m x n x k product's B is large enough
// (more than twice A and C together) that its threads split B's columns
// rather than A's rows: reading B from the shared L3 (or memory) once per
// thread then costs more than moving half of A and C between cores. Where
// moving lines between cores is dear (an AMD EPYC Zen 5 VM: a round trip
// of 470-530 ns, 13-30 GB/s for a 512 KB buffer written on the other
// core, against 5 µs read back on its own), compare.sh's transformer at 2
// threads (128-row products, 256 KB and 1 MB weights), `relaxgo bench
// --mode=compiled --threads 2`, four alternated pairs in two stretches of
// the machine: medians 1.05-1.29 -> 0.84-1.10 ms; its mlp (64 rows, 3.2
// and 4 MB) keeps split columns (split rows: 748-840 -> 790-863 µs).
func gemmColSplitB(m, n, k int) bool {
	return int64(k)*int64(n) > 2*int64(m)*(int64(k)+int64(n))
}

// gemmPanelPad is the floats left between the B panels a product packs
// for itself (not a pre-packed weight's, whose layout PackB fixes): one
// cache line. Back to back, panels of kc x nr floats start a power of two
// apart (256 x 16 floats: 16 KiB), so the packing, which writes a depth
// row across every panel in turn, sends all its stores of a row to one L1
// set (and reads the panels back through one set too). BenchmarkSgemmPacked
// unpacked, 1 thread, AMD EPYC (Zen 5), three alternated runs, GFLOP/s:
// AVX2 64x1024x784 73-78 -> 92-95, 128x768x3072 80-83 -> 93-95;
// AVX-512 64x1024x784 141-144 -> 166-178, 128x768x3072 within the noise
// (164-175 -> 162-182). Two lines measured the same as one.
const gemmPanelPad = 16

// gemmSliceBytes is the size of a column slice of C (m rows) that the
// driver keeps in L2 over every depth block of a product against a
// pre-packed B whose C is larger than twice that.
const gemmSliceBytes = 256 << 10

// gemmSliceCols returns the columns of C's slices for an m x n x k product
// on panels of nr (0: one slice, gemmNC columns).
func gemmSliceCols(m, n, k, nr int) int {
	if k <= gemmKCMax || 4*int64(m)*int64(n) <= 2*gemmSliceBytes {
		return 0
	}
	return max(nr, gemmSliceBytes/(4*m)/nr*nr)
}

// halfPanel reports whether panel jp of the current block is the
// product's last and is packed and computed at the half width.
func (j *gemmJob) halfPanel(b *gemmBlock, jp int) bool {
	return j.half > 0 && jp == b.npanels-1 && b.jc+b.ncur == j.n
}

// packPanels packs B micro-panels [lo, hi) of the current block.
func (j *gemmJob) packPanels(lo, hi int) {
	blk := &j.cur
	nr, kc := j.nr, blk.kc
	if hi > lo && j.halfPanel(blk, hi-1) {
		// The last panel at the half width, in its full-width slot.
		hi--
		j0 := blk.jc + hi*nr
		j.b.pack(blk.pc, kc, j0, j.n-j0, j.half, blk.bpack[hi*blk.ps:hi*blk.ps+kc*j.half])
	}
	if j.b.conv && hi > lo {
		j0 := blk.jc + lo*nr
		ncols := min(hi*nr, blk.ncur) - lo*nr
		rb := gemmGetABuf((hi - lo) * nr)
		convPackPanels(&j.b.geom, j.b.b, blk.pc, kc, j0, ncols, nr, blk.bpack[lo*kc*nr:hi*kc*nr], *rb)
		gemmPutABuf(rb)
		return
	}
	if !j.b.conv && !j.b.trans {
		// The whole panels in one call, a depth row at a time across them:
		// B is read sequentially, which the hardware prefetchers follow; a
		// panel at a time strides by ldb, whose rows of 4 KiB (N=1024) all
		// map to one L1 set. Packing a depth block at a time
		// (BenchmarkPackB, AVX-512 Intel Xeon, 1 thread, GB/s of B):
		// 1024x1024 1.7-4.5 by panels or fixed-size Go moves, 7.8-10.2 in
		// one call; 3072x768 1.1-1.6 and 4.6-6.1.
		if full := min(hi, blk.ncur/nr); full > lo {
			asm.CopyBlocksF32(blk.bpack[lo*blk.ps:], nr, blk.ps, j.b.b[blk.pc*j.b.ldb+blk.jc+lo*nr:], j.b.ldb, nr, kc, full-lo, nr)
			lo = full
		}
	}
	for jp := lo; jp < hi; jp++ {
		j.b.pack(blk.pc, kc, blk.jc+jp*nr, min(nr, blk.ncur-jp*nr), nr, blk.bpack[jp*blk.ps:jp*blk.ps+kc*nr])
	}
}

// gemmBlock is one (jc, pc) block of the blocked driver: its columns
// [jc, jc+ncur) in npanels panels, split nsplit ways, its depth [pc, pc+kc),
// its packed B panels (ps floats apart), the beta its tiles scale C by, and
// whether it is the last depth block (the epilogue's).
type gemmBlock struct {
	jc, ncur, npanels, nsplit int
	pc, kc, ps                int
	bpack                     []float32
	bet                       float32
	last                      bool
}

// depthItems runs work items [lo, hi) of a product against a pre-packed B
// in one column block (run), each over every depth block in turn.
func (j *gemmJob) depthItems(lo, hi int) {
	nr, k := j.nr, j.k
	for t := lo; t < hi; t++ {
		for pc, kc := 0, 0; pc < k; pc += kc {
			kc = gemmDepth(pc, k)
			b := gemmBlock{ncur: j.cur.ncur, npanels: j.cur.npanels, nsplit: j.cur.nsplit, pc: pc, kc: kc, ps: kc * nr,
				bpack: j.pb.data[pc*j.pb.npanels*nr:], bet: j.beta, last: pc+kc >= k}
			if pc > 0 {
				b.bet = 1
			}
			j.tiles(&b, t, t+1)
		}
	}
}

// computeTiles runs work items [lo, hi) of the current block: item t is row
// block t/nsplit against column slice t%nsplit of the packed B block.
func (j *gemmJob) computeTiles(lo, hi int) { j.tiles(&j.cur, lo, hi) }

// tiles runs work items [lo, hi) of block b (computeTiles').
func (j *gemmJob) tiles(b *gemmBlock, lo, hi int) {
	m, n, mr, nr, mc, kc := j.m, j.n, j.mr, j.nr, j.mc, b.kc
	nsplit, npanels, jc, pc := b.nsplit, b.npanels, b.jc, b.pc
	c, ldc, alpha, bet := j.c, j.ldc, j.alpha, b.bet
	bpack := b.bpack
	var ep *GemmEpilogue
	if b.last && j.hasEp {
		ep = &j.ep
	}
	prevIB, cut := -1, 0
	prepacked := j.pa != nil && j.pa.mr == mr
	// The row block's A packed here, unless it is pre-packed or read where
	// it lies (rowA).
	var apack, abuf []float32
	if !prepacked && !j.rowA {
		p := gemmGetABuf(mc * kc)
		defer gemmPutABuf(p)
		abuf = *p
	}
	for t := lo; t < hi; t++ {
		ib, js := t/nsplit, t%nsplit
		i0 := ib * mc
		mcur := min(mc, m-i0)
		if ib != prevIB && !j.rowA {
			cut = j.lastCut(mcur, prepacked)
			if prepacked {
				// Packed once: the block's panels are consecutive.
				apack = j.pa.data[pc*j.pa.npanels*mr+(i0/mr)*kc*mr:]
			} else {
				apack = abuf
				for ip := 0; ip*mr < mcur; ip++ {
					off, rows := rowTile(ip, mcur, mr, cut)
					gemmPackA(j.transA, j.a, j.lda, i0+off, rows, pc, kc, mr, apack[ip*kc*mr:(ip+1)*kc*mr])
				}
			}
			prevIB = ib
		}
		jpLo, jpHi := js*npanels/nsplit, (js+1)*npanels/nsplit
		if j.fusePack {
			j.packPanels(jpLo, jpHi)
		}
		// The epilogue runs over groups of panels (about 128 columns) of the
		// row block once their tiles are done, still in cache: one call per
		// group (gemmEpilogueRows), not per tile row (16 columns a call cost
		// more in call overhead than the bias add itself) nor per row.
		grp := max(1, 128/nr)
		for jg := jpLo; jg < jpHi; jg += grp {
			jgHi := min(jg+grp, jpHi)
			for jp := jg; jp < jgHi; jp++ {
				j0 := jc + jp*nr
				ncols := min(nr, n-j0)
				bp := unsafe.Pointer(&bpack[jp*b.ps])
				kn := nr // the tile's width
				if j.halfPanel(b, jp) {
					kn = j.half
				}
				for ip := 0; ip*mr < mcur; ip++ {
					off, nrows := rowTile(ip, mcur, mr, cut)
					r0 := i0 + off
					if j.rowA {
						// Every tile whole (run): A's rows where they lie.
						j.kernelRowA(ip == 0 && j.pfNext, kc, unsafe.Pointer(&j.a[r0*j.lda+pc]), bp, unsafe.Pointer(&c[r0*ldc+j0]), ldc, alpha, bet, ep != nil && j.epK, r0, j0)
						continue
					}
					ap := unsafe.Pointer(&apack[ip*kc*mr])
					if nrows == mr && ncols == kn {
						if ep != nil && j.epK {
							j.kernelEpi(ip == 0 && j.pfNext, kc, ap, bp, unsafe.Pointer(&c[r0*ldc+j0]), ldc, alpha, bet, r0, j0)
							continue
						}
						j.tileKernel(r0, kn, kc, ap, bp, unsafe.Pointer(&c[r0*ldc+j0]), ldc, alpha, bet, ip == 0, b.last)
						continue
					}
					rows := j.rowsKernel(nrows, kn, b.last)
					if rows && ncols == kn {
						// Only the product's rows, straight into C.
						asm.SgemmKernelRowsUnchecked(nrows, kc, ap, bp, unsafe.Pointer(&c[r0*ldc+j0]), ldc, alpha, bet)
						continue
					}
					// Edge tile: run the same kernel on a scratch tile
					// (declared here: zeroing 2 KB for every call cost a
					// small product more than its edge tiles).
					var tile [16 * 32]float32
					if bet != 0 {
						for i := 0; i < nrows; i++ {
							copy(tile[i*kn:i*kn+ncols], c[(r0+i)*ldc+j0:(r0+i)*ldc+j0+ncols])
						}
					}
					if rows {
						asm.SgemmKernelRowsUnchecked(nrows, kc, ap, bp, unsafe.Pointer(&tile[0]), kn, alpha, bet)
					} else {
						j.tileKernel(r0, kn, kc, ap, bp, unsafe.Pointer(&tile[0]), kn, alpha, bet, false, b.last)
					}
					for i := 0; i < nrows; i++ {
						copy(c[(r0+i)*ldc+j0:(r0+i)*ldc+j0+ncols], tile[i*kn:i*kn+ncols])
					}
				}
			}
			if ep != nil && !j.epK {
				c0, c1 := jc+jg*nr, min(jc+jgHi*nr, n)
				gemmEpilogueRows(ep, c[i0*ldc+c0:], ldc, i0, mcur, c0, c1)
			}
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
		gemmPackARows(a, lda, i0, rows, p0, kc, mr, dst[:kc*mr])
		return
	}
	for p := 0; p < kc; p++ {
		copy(dst[p*mr:p*mr+rows], a[(p0+p)*lda+i0:(p0+p)*lda+i0+rows])
	}
}

// gemmPackARows is gemmPackA of a row-major A: groups of 8 and 4 rows
// through asm.PackAF32 (8x8 transposes), the rest as the last 4 rows where
// there are 4, else pairs and single rows in Go.
// BenchmarkPackA, a 128x256 A into 14-row panels on an AVX-512 AMD EPYC:
// a row at a time 2.3 Gelem/s, Go loops over row groups 3.1, transposes
// 8.6 (8-row panels 20).
func gemmPackARows(a []float32, lda, i0, rows, p0, kc, mr int, dst []float32) {
	row := func(i int) []float32 { o := (i0+i)*lda + p0; return a[o : o+kc] }
	i := 0
	for ; i+8 <= rows; i += 8 {
		asm.PackAF32(8, dst[i:], mr, a[(i0+i)*lda+p0:], lda, kc)
	}
	for ; i+4 <= rows; i += 4 {
		asm.PackAF32(4, dst[i:], mr, a[(i0+i)*lda+p0:], lda, kc)
	}
	if i < rows && rows >= 4 {
		// The last 1 to 3 rows with the three before them again, the same
		// values over those: AVX2's 6-row panels as 4 + 4 rows, not 4 in
		// asm and 2 in Go (5x slower a value; the attention's products
		// spent 13% of their time packing A).
		asm.PackAF32(4, dst[rows-4:], mr, a[(i0+rows-4)*lda+p0:], lda, kc)
		return
	}
	for ; i+2 <= rows; i += 2 {
		r0, r1 := row(i), row(i+1)
		r1 = r1[:len(r0)]
		for p := range r0 {
			d := (*[2]float32)(dst[p*mr+i:])
			d[0], d[1] = r0[p], r1[p]
		}
	}
	for ; i < rows; i++ {
		for p, v := range row(i) {
			dst[p*mr+i] = v
		}
	}
}

// gemmPackB packs depth [p0, p0+kc) and columns [j0, j0+cols) of op(B) into dst
// as dst[p*nr+j] (columns beyond `cols` are zero).
func gemmPackB(trans bool, b []float32, ldb, p0, kc, j0, cols, nr int, dst []float32) {
	if cols < nr {
		clear(dst[:kc*nr])
	}
	if !trans {
		if kc > 0 && cols > 0 {
			asm.CopyRowsF32(dst, nr, b[p0*ldb+j0:], ldb, kc, cols)
		}
		return
	}
	// B stored transposed: its columns are rows of the storage, each a
	// panel column. Groups of eight and four go through asm.PackAF32's 8x8
	// transposes (it packs A's rows into panels the same way), the rest a
	// value at a time.
	j := 0
	if kc > 0 {
		for ; j+8 <= cols; j += 8 {
			asm.PackAF32(8, dst[j:], nr, b[(j0+j)*ldb+p0:], ldb, kc)
		}
		for ; j+4 <= cols; j += 4 {
			asm.PackAF32(4, dst[j:], nr, b[(j0+j)*ldb+p0:], ldb, kc)
		}
	}
	for ; j < cols; j++ {
		src := b[(j0+j)*ldb+p0 : (j0+j)*ldb+p0+kc]
		for p, v := range src {
			dst[p*nr+j] = v
		}
	}
}
