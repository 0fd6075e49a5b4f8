package kernels

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/internal/freelist"
	"github.com/relaxgo/relaxgo/runtime"
)

// Pointwise convolutions of small planes with the positions as the GEMM's
// rows. A 1x1 convolution is out (o x hw) = W (o x c) · X (c x hw); with
// the plane's positions as the product's columns, a 7x7 plane's 49
// columns are computed as 64 by the 32-wide tiles, and a 14x14 plane's 196
// as 224. The transposed product, T (hw x o) = Xᵀ · Wᵀ, takes the
// positions as rows in tiles of 7 (asm.SgemmKernelStrided, which reads X
// in place: step p's 7 values are consecutive positions of channel p) and
// the channels as columns in panels of 32 at AVX-512, 16 at AVX2 (Wᵀ
// packed once, a constant's). At AVX2 a pointwise convolution packs Xᵀ
// into the main tile's panels of 6 positions instead (posMain) and runs
// asm.SgemmKernel, a last partial panel asm.SgemmKernelRows. A window (3x3,
// strided) gathers its patches from the padded planes: at AVX-512 in the
// kernel (asm.SgemmKernelGather, 7 positions of an output row), at AVX2
// packed a depth block at a time into the main tile's panels for all the
// channel panels (packPatches; the 7x16 gather tile reads its second B
// vector from memory at every row), the last two panels 4 and 3 or 4
// positions where the last would hold 1 or 2.
// The chain then runs on T with an operand per column (asm.ChainColsF32),
// and T is transposed into out. The sums are the direct product's, step by
// step in the same depth order and depth blocks (an FMA's two factors
// commute), so the bits are the same.

// convPosUse reports whether the float32 convolution g takes this path:
// one group, whole channel panels (32 at AVX-512, 16 at AVX2), no plane
// whose chain bits depend on a one-element chunk; a pointwise convolution
// in whole 7-position tiles whose position tiles as the GEMM's columns (as
// wide as the panels) would compute at least 10% padding, or another of
// column stride 1 or 2 whose output rows are whole 7-position tiles and
// whose flat rows (the indirect path's) would compute at least 10% more
// columns than it has outputs, or (where the 14-row kernels are) of column
// stride 2 and deeper than a depth block.
func convPosUse(g *conv2dGeom, chain *rowChain) bool {
	if !convPosFits(g, chain) {
		return false
	}
	if posForced {
		return true
	}
	_, nr, _ := asm.SgemmTileStrided()
	hw := g.oh * g.ow
	computed := (hw + nr - 1) / nr * nr
	if !g.pointwise() {
		if _, _, ok := asm.SgemmTileStrided14(); ok && g.sw == 2 && g.c*g.kh*g.kw > gemmKCMax {
			// A column stride 2 window deeper than a depth block: two
			// tiles a call beat the indirect path's phase planes
			// (BenchmarkConv2DChainLayers, 1 thread, six alternated runs:
			// ResNet-18's 64->128 3x3/2 on 56² 1623 -> 1522 µs, in a
			// slower phase 2653 -> 2294; its first 7x7/2, 147 deep, 1.27x
			// slower here, keeps the indirect path).
			return true
		}
		computed = (g.oh*g.flatWidth() + nr - 1) / nr * nr
	}
	return 10*computed >= 11*hw
}

// posResidual reports whether the position path runs chain's residual
// step on T (rowChain.colsResidual) for g: where T of the whole plane is
// at most posResidualBytes, and then as one chunk at one thread, so that
// the residual is read plane after plane, in order. In chunks of
// positions it is read a chunk's positions of every plane at a time, as
// many streams as channels, which ran slower than the pass after the
// product: ResNet-50's 256->1024 on 14² (800 KB of T, four chunks)
// 2.32-2.62 -> 2.96-3.09 ms a call in the model. Whole, its 512->2048 on
// 7² (400 KB) went 2.91-3.06 -> 2.23-2.51 ms at 1 thread and 1.63-1.66 ->
// 1.36-1.44 at 2 (where the threads' chunks split T again), 256->1024 on
// 14² whole 2.79-2.85 -> 2.70-3.04 (no gain: it keeps the pass after);
// MobileNetV2's 576->96 on 14² (75 KB) 348-442 -> 330-370 µs, 960->160 on
// 7² 258-302 -> 246-255 (`relaxgo profile --by shape`, three alternated
// pairs each, AVX-512 Intel Xeon).
func posResidual(g *conv2dGeom, chain *rowChain) bool {
	return chain.colsResidual(g.oh*g.ow) && 4*g.oh*g.ow*g.o <= posResidualBytes
}

// posResidualBytes is the largest T (bytes) of a plane whose residual
// step runs on T (posResidual): half of a 1 MiB L2.
const posResidualBytes = 512 << 10

// posForced makes convPosUse take every convolution the path fits (tests
// run shapes the padding rule gives to other paths at some level).
var posForced bool

// convPosFits reports whether the path can run g at all: one group, whole
// channel panels of the strided tile (at a level that has it), whole
// 7-position tiles of each output row for a window (column stride 1 or 2;
// a pointwise plane's last tile may be partial: convPosJob.tail), and no
// plane whose chain bits depend on a one-element chunk. Planes of a
// partial last tile (13², 17²: SqueezeNet's and Inception-v3's pointwise
// layers) had taken the indirect path (BenchmarkConvPaths, 1 thread, two
// runs, µs, indirect-wide against positions: 768->192 on 17² 527-532 and
// 487-507, 512->64 on 13² 76-77 and 67-70; at 2 threads 334-347 and 277-295,
// 74-76 and 60).
func convPosFits(g *conv2dGeom, chain *rowChain) bool {
	mr, nr, ok := asm.SgemmTileStrided()
	hw := g.oh * g.ow
	if !ok || g.g != 1 || g.o%nr != 0 || !chain.inKernelPass(hw) && !chain.colsResidual(hw) {
		return false
	}
	if g.pointwise() {
		return true // a partial last tile from a copy (convPosJob.tail)
	}
	return g.ow%mr == 0 && g.sw <= 2
}

// posMain reports whether a pointwise convolution on this path packs Xᵀ
// in the main tile's panels (SgemmTile's rows of positions, its panels'
// width of channels) and runs the main kernel, a last partial tile by
// asm.SgemmKernelRows: at AVX2, where the strided tile's 7 rows leave no
// register for its second B vector (it reads it from memory at every row,
// 13% slower in L1) and there are row kernels for any number of positions.
// At AVX-512 the strided kernel reads X in place.
func posMain() bool {
	mr, nr := asm.SgemmTile()
	_, snr, ok := asm.SgemmTileStrided()
	return ok && nr == snr && asm.SgemmKernelRowsOK(mr-1)
}

// posEntry is a constant weight's transpose packed for a tile width
// (constTransposed), made on first use at the level that has it.
type posEntry struct {
	once  sync.Once
	done  atomic.Bool
	o, c  int
	level asm.Level
	pb    *PackedB
}

// constPos maps a registered constant *runtime.Tensor to its *posEntry.
var constPos sync.Map

// constPosWeights returns the registered constant w (o x c, c the input
// channels times the window's taps) as Wᵀ packed in panels of the strided
// tile's width, or nil (not a constant, or packed at another level).
func constPosWeights(w *runtime.Tensor, o, c int) *PackedB {
	_, nr, _ := asm.SgemmTileStrided()
	return constTransposed(&constPos, w, o, c, nr)
}

// constTransposed returns the registered constant w (o x c) as Wᵀ packed in
// panels of nr columns, cached in m, or nil (not a constant, or packed with
// another shape or at another level).
func constTransposed(m *sync.Map, w *runtime.Tensor, o, c, nr int) *PackedB {
	if _, ok := constPacked.Load(w); !ok {
		return nil
	}
	e := cacheEntry[posEntry](m, w)
	if !e.done.Load() {
		e.once.Do(func() {
			e.o, e.c, e.level = o, c, asm.CurrentLevel()
			e.pb = packBFor(true, c, o, w.Float32s(), c, nr)
			e.done.Store(true)
		})
	}
	if e.o != o || e.c != c || e.level != asm.CurrentLevel() {
		return nil
	}
	return e.pb
}

// posChunkBytes is about the size of the part of T computed, chained and
// transposed out at a time: the whole T of a large plane (ResNet-18's first
// layer: 64 channels of 112² positions, 3.2 MB) left L2 between the three
// passes.
var posChunkBytes = 256 << 10

// convPosJob is one image's transposed product; pooled, with its work
// functions bound once.
type convPosJob struct {
	x, t     []float32 // the input (padded planes when offs is set) and T
	pb       *PackedB
	c, o, hw int // depth (channels times taps), output channels, positions
	mr, nr   int // the tile: positions (rows of T) by channels
	tiles    int // 7-position tiles of the current chunk
	t0       int // the chunk's first tile; T holds the chunk's rows
	// A convolution with a window: the patch's offsets in the padded
	// planes, the padded row, output width and strides.
	gather bool // a window: A gathered through offs
	main   bool // x is Xᵀ packed in the main tile's panels (posMain)
	// A window at AVX2 (posMain): a holds the chunk's patches at depth
	// block pc in the main tile's panels (packPatches), tile by tile.
	packed               bool
	a                    []float32
	pc                   int
	cut                  int // rowTile's cut of the packed tiles
	offs                 []int
	wp, ow, sh, sw, rowT int // rowT: 7-position tiles per output row
	// pairs: the strided and gathering tiles run two at a time where a run
	// has two (asm.SgemmTileStrided14: 14 rows against the same panel).
	pairs bool
	// tail: a pointwise plane's last, partial position tile (tile
	// tailTile) copied out of X, mr positions a depth step (zeros past
	// the plane), which the strided kernel reads instead of X: in place it
	// would read past the last channel's plane.
	tail     []float32
	tailTile int
	// The image's output planes, the chain's codes and lane table (nil
	// without a chain), and the tiles of a chunk run by chunks.
	out   []float32
	codes []uint8
	sc    []float32
	// With a residual (rc, the chain, not nil; its res the planes of the
	// one image, as conv2dChain sends a residual's several images
	// elsewhere), codes and sc are the steps before its step (rc.resStep
	// on T and the residual transposed), codes2 and sc2 the steps after it.
	rc               *rowChain
	codes2           []uint8
	sc2              []float32
	csize            int
	blockFn, chunkFn func(lo, hi int)
	// With the threads splitting channel panels (posColSplit): T whole,
	// shared (each thread writes its panels' columns).
	tcols  []float32
	colsFn func(lo, hi int)
}

var convPosPool = freelist.List[*convPosJob]{New: func() *convPosJob {
	j := new(convPosJob)
	j.blockFn = j.blockItems
	j.chunkFn = j.chunks
	j.colsFn = j.cols
	return j
}}

// posColSplit reports whether the threads split a layer's channel panels
// rather than its positions: where the weight (kk x o floats, read again
// by every chunk of positions) outweighs twice the input (read by every
// thread when they split the panels) and there are panels for every thread.
// ResNet-18's 512->512 3x3 on 7² (9.4 MB of weight, 7 tiles) went in
// chunks of 2 tiles over 2 threads, so its weight streamed 4 times a call.
// BenchmarkConv2DChainThreads (warm) and BenchmarkConvColdThreads (the
// caches flushed before each call, in brackets), 2 threads, two
// alternated runs, µs:
// 512->512 3x3 on 7² 755-836 -> 670-671 (981-1163 -> 921-940), 256->512
// 3x3/2 on 14² 423-436 -> 409-412 (631-723 -> 574-593), 128->256 3x3/2 on
// 28² 376-387 -> 373-374 (560-602 -> 519-526). The models at 2 threads
// (relaxgo bench --threads 2, alternated pairs, medians): ResNet-18
// 10.4-12.2 -> 9.7-11.6 ms (six pairs, each faster), MobileNetV2 4.12-4.42
// -> 4.01-4.05 in four pairs of five, SqueezeNet within noise.
func posColSplit(kk, o, nr, inBytes, threads int) bool {
	return threads > 1 && o/nr >= threads && 4*kk*o > 2*inBytes
}

// cols computes channel panels [lo, hi) of the whole of T (j.tcols, every
// tile), then their columns' chain and their output planes
// (chainOutBlock): the channel-panel split of posColSplit.
func (j *convPosJob) cols(lo, hi int) {
	ntiles := (j.hw + j.mr - 1) / j.mr
	j.itemsInto(j.tcols, 0, ntiles, lo*ntiles, hi*ntiles)
	j.chainOutBlock(j.tcols, 0, j.hw, lo*j.nr, hi*j.nr)
}

// itemsInto computes work items [lo, hi) of the chunk of tiles tiles from
// tile t0 into its T, t: item i is position tile i%tiles against channel
// panel i/tiles, over the whole depth in gemmDepth blocks. A run of items on
// one panel goes depth block by depth block, each block over the run's
// tiles (item by item, a 3x3 convolution of 512 channels read its 295 KB
// panel again for every tile, from an L2 it shared with the input).
//
// A shallow block stays in L1 across the tiles; a 256-deep one is 32 KB,
// all of L1, and streams from L2, so where the level has the 14-row
// kernels the run's tiles go two at a time (tile2), each B vector loaded
// serving 14 rows: BenchmarkConv2DChainLayers, 1 thread, medians of eight
// alternated runs, ResNet-18's 512->512 3x3 on 7² 2847 -> 2462 µs and
// 256->512 3x3/2 on 14² 1337 -> 1116, MobileNetV2's 960->320 on 7² 323 ->
// 267 and 384->64 on 14² 112 -> 94 (96->576, 96 deep, unchanged).
//
// The run's first tile on a block prefetches the panel ahead of its reads,
// for a weight coming from memory; the others find it in L1 and go without
// (prefetching at every tile brought the next panel into L1 again and
// again, evicting the input's lines: BenchmarkConv2DChainLayers, 1 thread,
// medians of eight alternated runs, MobileNetV2's 96->576 on 14² 499 ->
// 358 µs).
func (j *convPosJob) itemsInto(t []float32, t0, tiles, lo, hi int) {
	for it := lo; it < hi; {
		end := min(hi, (it/tiles+1)*tiles)
		for pc := 0; pc < j.c; pc += gemmDepth(pc, j.c) {
			for i := it; i < end; i++ {
				if j.pairs && i+1 < end && (j.tail == nil || t0+(i+1)%tiles != j.tailTile) {
					// Two tiles in one call (asm.SgemmTileStrided14).
					j.tile2(t, t0, i/tiles, t0+i%tiles, pc, i == it)
					i++
					continue
				}
				j.tile(t, t0, i/tiles, t0+i%tiles, pc, i == it)
			}
		}
		it = end
	}
}

// chunks computes chunks [lo, hi) of j.csize tiles each (the last the
// rest) on its own T: the products of every channel panel, the chain on
// T's columns and T transposed into j.out, while T is in cache. One
// thread's chunks share a scratch T.
func (j *convPosJob) chunks(lo, hi int) {
	ntiles := (j.hw + j.mr - 1) / j.mr
	tb := getScratch(min(j.csize, ntiles) * j.mr * j.o)
	defer putScratch(tb)
	t := *tb
	for c := lo; c < hi; c++ {
		t0 := c * j.csize
		tiles := min(j.csize, ntiles-t0)
		j.itemsInto(t, t0, tiles, 0, tiles*(j.o/j.nr))
		j.chainOut(t, t0, tiles)
	}
}

// chainOut runs the chain on the rows of T (t) that the chunk of tiles
// tiles from t0 computed, and transposes them into j.out.
func (j *convPosJob) chainOut(t []float32, t0, tiles int) {
	j.chainOutBlock(t, t0*j.mr, min(tiles*j.mr, j.hw-t0*j.mr), 0, j.o)
}

// chainOutBlock runs the chain on the block of T (t) of its rows from
// position p0 (t's first row) on and its columns [c0, c1) (channels), and
// transposes the block into those channels' planes of j.out.
func (j *convPosJob) chainOutBlock(t []float32, p0, rows, c0, c1 int) {
	cols := c1 - c0
	tc := t[c0:]
	if ns := len(j.codes); ns > 0 {
		asm.ChainColsF32(tc, j.o, rows, cols, j.codes, j.sc[c0*ns:])
	}
	if j.rc != nil {
		// The residual's block transposed as T, its step on T (whole rows
		// in one call, a block of columns row by row), then the steps
		// after it.
		rb := getScratch(rows * cols)
		r := (*rb)[:rows*cols]
		asm.TransposeF32(r, cols, j.rc.res[c0*j.hw+p0:], j.hw, cols, rows)
		if cols == j.o {
			j.rc.resStep(t[:rows*j.o], r)
		} else {
			for p := range rows {
				j.rc.resStep(t[p*j.o+c0:p*j.o+c1], r[p*cols:(p+1)*cols])
			}
		}
		putScratch(rb)
		if ns := len(j.codes2); ns > 0 {
			asm.ChainColsF32(tc, j.o, rows, cols, j.codes2, j.sc2[c0*ns:])
		}
	}
	asm.TransposeF32(j.out[c0*j.hw+p0:], j.hw, tc, j.o, rows, cols)
}

// tileBase is position tile tt's first position p0 and, for a window, the
// padded input's index base of its first patch.
func (j *convPosJob) tileBase(tt int) (p0, base int) {
	if !j.gather {
		return tt * j.mr, 0
	}
	oy, ox := tt/j.rowT, tt%j.rowT*j.mr
	return oy*j.ow + ox, oy*j.sh*j.wp + ox*j.sw
}

// tileArgs is the operands of depth block pc of position tile tt against
// channel panel jp: its first position p0 and input base (tileBase), its
// rows of T (the chunk's from tile t0), the panel's block, the block's depth
// and beta (1 past the first block).
func (j *convPosJob) tileArgs(t []float32, t0, jp, tt, pc int) (p0, base int, cp, bp unsafe.Pointer, kc int, beta float32) {
	p0, base = j.tileBase(tt)
	cp = unsafe.Pointer(&t[(p0-t0*j.mr)*j.o+jp*j.nr])
	kc = gemmDepth(pc, j.c)
	if pc > 0 {
		beta = 1
	}
	bp = unsafe.Pointer(&j.pb.data[pc*j.pb.npanels*j.nr+jp*kc*j.nr])
	return p0, base, cp, bp, kc, beta
}

// tile2 is tile on position tiles tt and tt+1 in one call, whose 14
// positions are consecutive rows of T: the strided kernel's 14 rows, or
// the gathering one's two bases (the second tile may start another output
// row).
func (j *convPosJob) tile2(t []float32, t0, jp, tt, pc int, prefetch bool) {
	p0, base, cp, bp, kc, beta := j.tileArgs(t, t0, jp, tt, pc)
	if j.gather {
		_, base2 := j.tileBase(tt + 1)
		asm.SgemmKernelGather14Unchecked(j.sw, kc, unsafe.Pointer(&j.x[base]), base2-base, &j.offs[pc], bp, cp, j.o, 1, beta, prefetch)
		return
	}
	asm.SgemmKernelStrided14Unchecked(kc, unsafe.Pointer(&j.x[pc*j.hw+p0]), j.hw, bp, cp, j.o, 1, beta, prefetch)
}

// tile computes depth block pc of position tile tt against channel panel
// jp into t, the T of the chunk starting at tile t0; prefetch selects the
// strided and gathering kernels' form that prefetches the panel.
func (j *convPosJob) tile(t []float32, t0, jp, tt, pc int, prefetch bool) {
	mr := j.mr
	p0, base, cp, bp, kc, beta := j.tileArgs(t, t0, jp, tt, pc)
	switch {
	case j.gather:
		asm.SgemmKernelGatherUnchecked(j.sw, kc, unsafe.Pointer(&j.x[base]), &j.offs[pc], bp, cp, j.o, 1, beta, prefetch)
	case j.main:
		ap := unsafe.Pointer(&j.x[(tt*j.c+pc)*mr])
		if rows := min(mr, j.hw-p0); rows < mr {
			asm.SgemmKernelRowsUnchecked(rows, kc, ap, bp, cp, j.o, 1, beta)
		} else {
			asm.SgemmKernelUnchecked(kc, ap, bp, cp, j.o, 1, beta)
		}
	case j.tail != nil && tt == j.tailTile:
		asm.SgemmKernelStridedUnchecked(kc, unsafe.Pointer(&j.tail[pc*mr]), mr, bp, cp, j.o, 1, beta, prefetch)
	default:
		asm.SgemmKernelStridedUnchecked(kc, unsafe.Pointer(&j.x[pc*j.hw+p0]), j.hw, bp, cp, j.o, 1, beta, prefetch)
	}
}

// convPosF32 is the convolution g (convPosUse) with Wᵀ packed in pb: per
// image, T = Xᵀ · Wᵀ (for a window, X the patches of the padded planes,
// gathered by asm.SgemmKernelGather in 7-position tiles of an output row,
// or at AVX2 packed by packPatches),
// the chain on T's columns, T into out.
func convPosF32(g *conv2dGeom, out, x []float32, pb *PackedB, chain *rowChain) {
	mr, nr, _ := asm.SgemmTileStrided()
	main := posMain()
	if main {
		mr, _ = asm.SgemmTile()
	}
	hw := g.oh * g.ow
	ntiles := (hw + mr - 1) / mr
	// T by chunks of whole tiles of about posChunkBytes, each chained and
	// transposed out while still in L2.
	chunk := max(1, posChunkBytes/(4*mr*g.o)) // tiles
	if chain != nil && chain.res != nil {
		// T whole (posResidual): the residual read plane after plane.
		chunk = max(chunk, ntiles)
	}
	packed := !g.pointwise() && main
	// A last packed tile of 1 or 2 positions cannot cover the FMA latency:
	// the last two run 4 and 3 or 4, as the GEMM's last row tiles, in one
	// chunk (one tile more than the others at most).
	cut := 0
	if packed {
		cut = lastTilesCut(hw, mr)
	}
	ctiles := chunk
	if cut != 0 {
		ctiles++
	}
	j := convPosPool.Get()
	if packed {
		// The chunks' T (the others' chunks take their own, chunks).
		tb := getScratch(min(hw, ctiles*mr) * g.o)
		defer putScratch(tb)
		j.t = *tb
	}
	switch {
	case chain != nil && chain.res != nil:
		// The steps' tables before and after the residual's, each in
		// lane blocks: the columns of the chain's row-major table split.
		ns, at := len(chain.codes), chain.resAt
		cb, sb, sb2 := getScratch(ns*g.o), getScratch(at*g.o), getScratch((ns-at)*g.o)
		defer putScratch(cb)
		defer putScratch(sb)
		defer putScratch(sb2)
		before, after := (*cb)[:at*g.o], (*cb)[at*g.o:ns*g.o]
		for i := 0; i < g.o; i++ {
			row := chain.table[i*ns : (i+1)*ns]
			copy(before[i*at:(i+1)*at], row[:at])
			copy(after[i*(ns-at):(i+1)*(ns-at)], row[at:])
		}
		lanes := asm.BlockLanes()
		j.codes, j.sc = chain.codes[:at], laneBlocks(*sb, before, g.o, at, lanes)
		j.codes2, j.sc2 = chain.codes[at:], laneBlocks(*sb2, after, g.o, ns-at, lanes)
		j.rc = chain
	case chain != nil && len(chain.codes) > 0:
		sb := getScratch(len(chain.codes) * g.o)
		defer putScratch(sb)
		j.codes = chain.codes
		j.sc = chain.laneTable(sb, asm.BlockLanes())
	}
	kk := g.c * g.kh * g.kw
	j.pb, j.c, j.o, j.hw, j.mr, j.nr = pb, kk, g.o, hw, mr, nr
	j.offs, j.gather, j.main = j.offs[:0], !g.pointwise(), main
	_, nr14, ok14 := asm.SgemmTileStrided14()
	j.pairs = !main && ok14 && nr14 == nr && mr == 7
	j.packed, j.cut = packed, cut
	var xs *[]float32
	hp, wp := g.h+g.pt+g.pb, g.w+g.pl+g.pr
	if j.gather {
		// The padded planes and the patch's offsets in them, (channel,
		// window row, window column) in the weights' order.
		for ci := 0; ci < g.c; ci++ {
			for dy := 0; dy < g.kh; dy++ {
				for dx := 0; dx < g.kw; dx++ {
					j.offs = append(j.offs, ci*hp*wp+dy*g.dh*wp+dx*g.dw)
				}
			}
		}
		j.wp, j.ow, j.sh, j.sw = wp, g.ow, g.sh, g.sw
		if !packed {
			j.rowT = g.ow / mr
		}
		if g.pt != 0 || g.pl != 0 || g.pb != 0 || g.pr != 0 {
			// Without padding the input is its own padded planes: no copy
			// (ResNet-18's 1x1/2 shortcuts copied up to 800 KB a call).
			xs = getScratch(g.c * hp * wp)
			defer putScratch(xs)
		}
	}
	var xp *[]float32
	if main && !j.gather {
		xp = getScratch(ntiles * mr * kk)
		defer putScratch(xp)
	}
	rem := hw % mr
	if !main && !j.gather && rem != 0 {
		tb := getScratch(kk * mr)
		defer putScratch(tb)
		j.tail, j.tailTile = *tb, ntiles-1
	}
	if packed {
		ab := getScratch(min(ctiles, ntiles) * mr * min(gemmKCMax, kk))
		defer putScratch(ab)
		j.a = *ab
	}
	for n := 0; n < g.n; n++ {
		j.x = x[n*g.c*g.h*g.w : (n+1)*g.c*g.h*g.w]
		if xp != nil {
			packPosTiles(*xp, j.x, kk, hw, mr)
			j.x = *xp
		}
		if j.tail != nil {
			p0 := hw - rem
			for p := 0; p < kk; p++ {
				d := j.tail[p*mr : (p+1)*mr]
				copy(d, j.x[p*hw+p0:(p+1)*hw])
				clear(d[rem:])
			}
		}
		if xs != nil {
			p := *xs
			clear(p)
			for ci := 0; ci < g.c; ci++ {
				copyRows(p[ci*hp*wp+g.pt*wp+g.pl:], wp, j.x[ci*g.h*g.w:], g.w, g.h, g.w)
			}
			j.x = p
		}
		j.out = out[n*g.o*hw : (n+1)*g.o*hw]
		if !j.packed {
			// Chunks of tiles over the threads, each computed, chained
			// and transposed out by one, instead of each chunk's
			// products over the threads and then its chain and
			// transpose on the calling thread alone. At least two
			// chunks a thread where there are tiles enough; the chunk
			// boundaries do not change a value. MobileNetV2 at 2
			// threads on an AVX-512 Intel Xeon (`relaxgo profile --by
			// shape --threads 2`, five alternated pairs), ms a call of
			// the model: its three 96->576 on 14² 1.00-1.66 -> 0.79-1.09,
			// its four 64->384 0.72-1.15 -> 0.51-0.71; alone in a loop
			// (BenchmarkConvPosThreads), with T and the output warm,
			// within that machine's noise.
			th := NumThreads()
			if posColSplit(kk, g.o, nr, 4*g.c*g.h*g.w, th) {
				tb := getScratch(ntiles * mr * g.o)
				j.tcols = *tb
				ParallelFor(g.o/nr, 1, j.colsFn)
				j.tcols = nil
				putScratch(tb)
				continue
			}
			j.csize = chunk
			if th > 1 {
				j.csize = min(chunk, max(1, (ntiles+2*th-1)/(2*th)))
			}
			ParallelFor((ntiles+j.csize-1)/j.csize, 1, j.chunkFn)
			continue
		}
		for t0 := 0; t0 < ntiles; t0 += j.tiles {
			j.t0, j.tiles = t0, min(chunk, ntiles-t0)
			if cut != 0 && t0+j.tiles == ntiles-1 {
				j.tiles++ // the last two tiles' positions go in one chunk
			}
			// Depth block by depth block: the chunk's patches packed once
			// for all channel panels.
			for pc, kc := 0, 0; pc < kk; pc += kc {
				kc = gemmDepth(pc, kk)
				j.pc = pc
				j.packPatches(pc, kc)
				ParallelFor(j.tiles*(g.o/nr), 1, j.blockFn)
			}
			j.chainOut(j.t, t0, j.tiles)
		}
	}
	j.x, j.t, j.pb, j.a, j.out, j.codes, j.sc, j.tail = nil, nil, nil, nil, nil, nil, nil, nil
	j.rc, j.codes2, j.sc2 = nil, nil, nil
	convPosPool.Put(j)
}

// blockItems computes work items [lo, hi) of depth block j.pc from the
// packed patches: item i is position tile i%tiles against channel panel
// i/tiles, so a run of items reads its panel's block from L1.
func (j *convPosJob) blockItems(lo, hi int) {
	mr, nr, pc := j.mr, j.nr, j.pc
	kc := gemmDepth(pc, j.c)
	var beta float32
	if pc > 0 {
		beta = 1
	}
	for it := lo; it < hi; it++ {
		jp, ti := it/j.tiles, it%j.tiles
		p0, rows := j.tileRows(j.t0 + ti)
		cp := unsafe.Pointer(&j.t[(p0-j.t0*mr)*j.o+jp*nr])
		bp := unsafe.Pointer(&j.pb.data[pc*j.pb.npanels*nr+jp*kc*nr])
		ap := unsafe.Pointer(&j.a[ti*kc*mr])
		if rows < mr {
			asm.SgemmKernelRowsUnchecked(rows, kc, ap, bp, cp, j.o, 1, beta)
		} else {
			asm.SgemmKernelUnchecked(kc, ap, bp, cp, j.o, 1, beta)
		}
	}
}

// tileRows is the first position and the number of positions of packed
// tile t (rowTile over the plane's positions).
func (j *convPosJob) tileRows(t int) (p0, rows int) { return rowTile(t, j.hw, j.mr, j.cut) }

// packPatches writes the chunk's patches at depth [pc, pc+kc) into j.a in
// the main tile's panels (mr positions a step), tile by tile:
// a[(ti*kc+k)*mr+r] is the value at depth pc+k of the tile's position r in
// the padded planes, 0 past its positions. The positions of a panel may lie
// on two output rows.
func (j *convPosJob) packPatches(pc, kc int) {
	mr := j.mr
	x, offs := j.x, j.offs[pc:pc+kc]
	var b [8]int // a position's base in the padded planes; mr <= 8
	for ti := 0; ti < j.tiles; ti++ {
		p0, rows := j.tileRows(j.t0 + ti)
		for r := 0; r < rows; r++ {
			p := p0 + r
			b[r] = p/j.ow*j.sh*j.wp + p%j.ow*j.sw
		}
		d := j.a[ti*kc*mr : (ti+1)*kc*mr]
		if rows == 6 && mr == 6 { // the AVX2 tile, posMain's level
			for k, o := range offs {
				dk := d[k*6 : k*6+6 : k*6+6]
				dk[0], dk[1], dk[2] = x[o+b[0]], x[o+b[1]], x[o+b[2]]
				dk[3], dk[4], dk[5] = x[o+b[3]], x[o+b[4]], x[o+b[5]]
			}
			continue
		}
		for k, o := range offs {
			dk := d[k*mr : k*mr+mr : k*mr+mr]
			for r := range dk {
				if r < rows {
					dk[r] = x[o+b[r]]
				} else {
					dk[r] = 0
				}
			}
		}
	}
}

// packPosTiles writes X (c x hw) as Xᵀ in panels of mr positions, panel by
// panel, each over the whole depth: dst[(t*c+k)*mr+i] = x[k*hw+t*mr+i], a
// last partial panel's missing positions zero. It copies blocks of 16 of
// X's rows into every panel at a time, while the rows are in L1; the AVX2
// tile's six floats move as three words (as a [6]float32 they took a
// memmove call each: 4x as long).
func packPosTiles(dst, x []float32, c, hw, mr int) {
	const kb = 16
	full, rows := hw/mr, hw%mr
	if rows > 0 {
		clear(dst[full*c*mr : (full+1)*c*mr])
	}
	for k0 := 0; k0 < c; k0 += kb {
		n := min(kb, c-k0)
		if mr == 6 {
			for t := 0; t < full; t++ {
				d := dst[(t*c+k0)*6 : (t*c+k0+n)*6]
				for k := 0; k < n; k++ {
					src := x[(k0+k)*hw+t*6 : (k0+k)*hw+t*6+6]
					dw, sw := (*[3]uint64)(unsafe.Pointer(&d[k*6])), (*[3]uint64)(unsafe.Pointer(&src[0]))
					dw[0], dw[1], dw[2] = sw[0], sw[1], sw[2]
				}
			}
		} else if full > 0 {
			asm.CopyBlocksF32(dst[k0*mr:], c*mr, mr, x[k0*hw:], mr, hw, full, n, mr)
		}
		if rows > 0 {
			asm.CopyRowsF32(dst[(full*c+k0)*mr:], mr, x[k0*hw+full*mr:], hw, n, rows)
		}
	}
}
