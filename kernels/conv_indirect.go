package kernels

import (
	"slices"
	"unsafe"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/internal/freelist"
)

// The indirect convolution: the implicit GEMM of a float32 convolution group
// (C = W x B, W the og x kk weights, B the kk x pixels patch matrix) with
// B's rows read where they already lie instead of being packed.
//
// The group's input is copied once into a zero-padded image split by stride
// phase: for strides (sh, sw), plane (c, ph, pw) holds the padded rows and
// columns congruent to ph mod sh and pw mod sw, hs x ws values each. In that
// layout an output pixel (oy, ox), taken at the flat index f = oy*ws + ox of
// an output whose rows are ws wide, reads tap (c, i, j) at
//
//	off(c, i, j) + f,  off = plane(c, i*dh mod sh, j*dw mod sw) + (i*dh/sh)*ws + (j*dw/sw)
//
// so every patch row is a contiguous run of the copy at a fixed offset, and
// the micro-kernel (asm.SgemmKernelIndirect) reads a panel of nr consecutive
// flat pixels through the table off[p]. The ws-ow columns of each flat row
// past the output's width are computed and dropped (they read the next row's
// start or the zero slack at the end of the copy).
//
// Work items are (row block, chunk of column panels); each accumulates its
// tiles over every depth block in a scratch buffer, as the packed driver
// accumulates in C, and then copies the valid pixels out while they are in
// cache. The depth blocks (gemmDepth), the packed weights, the kernel's
// arithmetic and the order of accumulation are those of the packed driver,
// so every output has the same bits as there.

// convIndirectMinRows is the fewest output channels per group the indirect
// path takes on the main tile: below it the packed driver's small tile
// wastes less.
const convIndirectMinRows = gemmSmallRows + 1

// convPackCost is what packing one patch value costs the packed
// convolution path, in FMA vectors of the micro-kernel (planConvIndirect).
const convPackCost = 4

// convPointwiseIndirectMax and convPointwiseIndirectWideMax are the most
// output channels of a pointwise convolution that planConvIndirect sends
// down the indirect path, on any tile and on the wide one.
const (
	convPointwiseIndirectMax     = 64
	convPointwiseIndirectWideMax = 256
)

// narrowPanelPays reports whether a pointwise convolution of n positions
// with more output channels than convPointwiseIndirectWideMax, on the
// wide tile, takes the indirect path anyway: where the wide tile's panels
// of wnr columns, the last one narrow (asm.SgemmIndirectNarrow), compute
// fewer columns than the packed driver's panels of nr. SqueezeNet's
// 512->1000 classifier on 13² (169 positions: 192 columns packed, 176
// indirect), BenchmarkConv2DChainLayers, 1 thread, alternated runs:
// 992-1008 -> 961-967 µs (three runs), 948-966 -> 896-921 (six).
func narrowPanelPays(n, nr, wnr int) bool {
	if nr <= 0 || wnr <= 0 {
		return false
	}
	packed := (n + nr - 1) / nr * nr
	ind := (n + wnr - 1) / wnr * wnr
	if w, ok := asm.SgemmIndirectNarrow(true, n%wnr); ok {
		ind = n/wnr*wnr + w
	}
	return ind < packed
}

// convPlan is how conv2dF32 runs a group: on the indirect path or the
// packed one, and on which tile.
type convPlan struct {
	indirect bool // convIndirectF32 rather than the packed GEMM driver
	wide     bool // on asm.SgemmIndirectTile(true)'s tile
}

// planConvIndirect chooses the path of a group of og output channels.
//
// The indirect path needs enough rows for the main tile, or 6 to 8 (75% or
// more of the wide tile's 8 rows, which then runs alone: cnn_small's 3->8
// convolution). Its flat rows' extra columns may cost at most a quarter
// more column panels than the packed driver computes: skipping the packing
// outweighs that (at equal panel counts the indirect path is 1.2-1.8x
// faster on ResNet's and cnn_64x64's layers, and 1.4x on a 4x4 image
// computed 6 columns wide; BenchmarkConvPaths, an AVX-512 AMD EPYC). A
// pointwise convolution reads its input in place, which wins while few
// output rows share each panel (1 thread: 16 outputs 1.39x, 24 1.54x, 32
// 1.31x, 64 1.15x, 144 0.74x, 160 1.0x, 384 0.75x; the input's rows lie a
// plane apart, which probably crowds few cache sets where packed panels
// are contiguous): up to 64 output channels. On the wide tile, whose
// kernel runs the chain and stores the output rows itself (AVX-512), up
// to 256: BenchmarkConv2DChainLayers, 1 thread, packed -> indirect:
// 16->96 on 112² 286 -> 200 µs, 24->144 on 56² 134 -> 103, 64->256 on 56²
// 520 -> 440, 64->256 on 13² 36 -> 31, 512->128 on 28² 543 -> 446; from
// 512 outputs it is mixed (128->512 on 28² 466 -> 489, 2048->512 on 9²
// 912 -> 853), and at AVX2 (no such kernel) 16->96 on 112² took 430 ->
// 583.
//
// The wide tile is taken when it computes fewer padding rows and columns
// (tilePadded) than the main one, e.g. 64 or 128 channels (the main tile's
// 14 rows cover 91%) on images at least 14 wide.
func planConvIndirect(g *conv2dGeom, og int) convPlan {
	if g.c/max(g.g, 1)*g.kh*g.kw == 0 {
		return convPlan{} // no depth: the packed driver writes the zeros
	}
	mr, nr := asm.SgemmTile()
	wmr, wnr, wideOK := asm.SgemmIndirectTile(true)
	wideOnly := wideOK && og <= wmr && 4*og >= 3*wmr
	// (Where the small tile is the main one, AVX2's 6x16, the packed
	// driver has nothing to gain on few channels: the indirect path runs
	// the same tile without packing patches, 3x8 on 16x16 5.4 -> 2.2 us.)
	smr, snr := asm.SgemmTileSmall()
	if og < convIndirectMinRows && !wideOnly && (smr != mr || snr != nr) {
		return convPlan{}
	}
	ntot := g.oh * g.flatWidth()
	wide := wideOK && (og < convIndirectMinRows || tilePadded(og, ntot, wmr, wnr) < tilePadded(og, ntot, mr, nr))
	if g.pointwise() {
		if og > convPointwiseIndirectMax && !(wide && (og <= convPointwiseIndirectWideMax || narrowPanelPays(ntot, nr, wnr))) {
			return convPlan{}
		}
	} else if flat, packed := (ntot+nr-1)/nr, (g.oh*g.ow+nr-1)/nr; flat > packed {
		// The indirect path computes the flat columns' extra tiles; the
		// packed one first packs its tiles' patches, nr values a depth
		// step, each costing about convPackCost FMA vectors of the
		// tile's rt*mr*nr/lanes a step (measured: 0.47 ns a value at
		// AVX2, where 3x8 on 16x16 takes 5.4 us packed, 2.2 indirect).
		rt, vecs := (og+mr-1)/mr, mr*nr/asm.BlockLanes()
		if flat*rt*vecs > packed*(rt*vecs+convPackCost*nr) {
			return convPlan{}
		}
	}
	return convPlan{indirect: true, wide: wide}
}

// scatterPrefetchMinBytes is the output size (a group's) from which the
// scattering tile prefetches its rows ahead of its stores
// (asm.SgemmKernelIndirectChainScatterUnchecked): a quarter of an L2. A
// layer's output is rarely in cache when it runs, its storage last written
// layers before, and the tiles of an output of many channels are as many
// store streams, more than the hardware prefetchers follow. From 1 MiB
// (where it was first set, an L2 on the AMD EPYC it was measured on), with
// the caches flushed, SqueezeNet's 3->64 3x3/2 on 224² (3.2 MB) 441-494 ->
// 325-370 µs, MobileNetV2's 16->96 on 112² (4.8 MB) 530-537 -> 395-442
// (BenchmarkConvColdOutput). From 256 KiB (an AVX-512 Intel Xeon, 1 MiB of
// L2 a core): with the caches flushed, SqueezeNet's 16->64 3x3 on 55² (774
// KB) 1234-1580 -> 776-1175 µs, MobileNetV2's 32->16 on 112² (800 KB)
// 868-951 -> 748-918; in the model (`relaxgo profile --by shape --threads
// 1`, six alternated runs each) SqueezeNet's two 16->64 3x3 layers 2.17-2.49
// -> 1.53-2.15 ms a call, its two 16->64 1x1 475-535 -> 346-424 µs, the
// whole model 14.3-17.4 -> 13.5-16.6 ms; cnn_64x64's 3->32 on 64² (512 KB,
// its working set within the L2) 168-217 -> 180-211 µs, no change past the
// noise. 64 KiB changed nothing further in SqueezeNet.
const scatterPrefetchMinBytes = 256 << 10

// scatterMinWidth is the narrowest flat row the scattering kernel takes:
// a vector of 16 lanes then spans two flat rows at most.
const scatterMinWidth = 16

type convIndirectJob struct {
	wide                 bool
	chain                *rowChain // run on the output, or nil
	chOff                int       // chain row of the group's channel 0
	g                    conv2dGeom
	m, k                 int // og, kk
	mr, nr, mc           int
	mblocks, nchunks     int
	npanels, chunkPanels int
	// ppr, when not 0: panels go by output row, ppr a row, panel jp at
	// flat column (jp/ppr)*ws + (jp%ppr)*nr (panelAt); else every nr flat
	// columns.
	ppr      int
	ws, ntot int // flat row width, flat output columns
	a        []float32
	anp      int       // panels of a (packedA layout)
	xs       []float32 // B's rows: xs[offs[p]+f] for flat column f
	tail     []float32 // the last panel's rows at tail[offs[k+p]:], or nil
	offs     []int
	out      []float32 // og x oh*ow
	fn       func(lo, hi int)
	// kchain: the chain runs in the micro-kernel (asm.SgemmKernelIndirectChain)
	// on each tile of the last depth block, with the scalars of row tile t
	// at kchainT[t*ns*mr:] (laneBlocks' layout, mr rows a block); the output
	// copy is then plain. kcodes is the chain's codes (nil for none).
	kchain  bool
	kchainT []float32
	kcodes  *uint8
	kns     int
	// scatter: with kchain on the wide tile, one depth block and whole row
	// tiles, the kernel stores each tile straight into out through a table
	// of lane masks and offsets (asm.SgemmKernelIndirectChainScatterUnchecked,
	// see scatterTable), dropping the padding columns; no scratch, no copy.
	scatter bool
	// prefetch: with scatter, the kernel's prefetches: each row's next
	// panels where the output is larger than scatterPrefetchMinBytes, and
	// B's rows too where a pointwise layer's input is.
	prefetch asm.ScatterPrefetch

	// The phase copy's input and geometry. own: the input is copied into
	// stride-phase planes (every convolution but a pointwise one, which
	// reads its input in place, xs), each items call copying the rows its
	// panels read into a buffer of its own (ownCopy); xsLen is the copy's
	// length, hs its planes' rows, and reach the furthest a panel's reads
	// go past its first flat column within a plane (the deepest tap's
	// offset within its phase plane plus the panel's width).
	xg           []float32
	plane, chan_ int
	own          bool
	xsLen, hs    int
	reach        int
}

var convIndirectPool = freelist.List[*convIndirectJob]{New: func() *convIndirectJob {
	j := new(convIndirectJob)
	j.fn = j.items
	return j
}}

var convOffsPool = freelist.List[*[]int]{New: func() *[]int { s := make([]int, 0, 1024); return &s }}

// convIndirectF32 computes one image group: out (og x oh*ow) from xg (cg x h
// x w) and the weights wg (og x kk), packed in pa when pa is not nil.
//
// With a chain, each item then runs it on the output plane segments it
// wrote (chain row chOff+i for the group's channel i), as the chain kernel
// would on the whole planes.
func convIndirectF32(g *conv2dGeom, xg, wg, out []float32, og int, pa *packedA, wide bool, chain *rowChain, chOff int) {
	cg := g.c / g.g
	kk := cg * g.kh * g.kw
	mr, nr, _ := asm.SgemmIndirectTile(wide)
	hs, ws := g.phaseRows(), g.flatWidth()
	plane := hs * ws
	chan_ := g.sh * g.sw * plane

	j := convIndirectPool.Get()
	j.g, j.m, j.k, j.mr, j.nr, j.ws, j.out, j.wide = *g, og, kk, mr, nr, ws, out, wide
	j.chain, j.chOff = chain, chOff
	j.ntot = g.oh * ws
	threads := gemmThreads(og, j.ntot, kk)
	j.npanels = (j.ntot + nr - 1) / nr

	// The offsets table, in the weights' depth order (c, i, j): channel 0's
	// taps, then each channel's are those plus c*chan_.
	op := convOffsPool.Get()
	offs := (*op)[:0]
	for i := 0; i < g.kh; i++ {
		di := i * g.dh
		for jj := 0; jj < g.kw; jj++ {
			dj := jj * g.dw
			if g.sh == 1 && g.sw == 1 { // one phase: no divisions
				offs = append(offs, di*ws+dj)
				continue
			}
			offs = append(offs, ((di%g.sh)*g.sw+dj%g.sw)*plane+(di/g.sh)*ws+dj/g.sw)
		}
	}
	taps := len(offs)
	maxOff := (cg-1)*chan_ + slices.Max(offs)
	for c := 1; c < cg; c++ {
		for _, o := range offs[:taps] {
			offs = append(offs, c*chan_+o)
		}
	}

	var tb *[]float32
	if g.pointwise() {
		// Pointwise: B is the input itself (row p = channel p). Only a
		// partial last panel would read past its end; it reads a packed
		// copy instead, through offsets p*nr after the main table.
		j.xs = xg
		if f0 := (j.npanels - 1) * nr; f0+nr > j.ntot {
			tb = getScratch(kk * nr)
			tail := *tb
			clear(tail)
			for p := 0; p < kk; p++ {
				copy(tail[p*nr:p*nr+j.ntot-f0], xg[p*j.ntot+f0:(p+1)*j.ntot])
				offs = append(offs, p*nr)
			}
			j.tail = tail
		}
	} else {
		// The phase planes: each items call copies what it reads
		// (ownCopy), one call at one thread.
		j.own = true
		j.xg, j.plane, j.chan_, j.hs = xg, plane, chan_, hs
		j.xsLen = max(cg*chan_, maxOff+j.npanels*nr)
		j.reach = ownReach(offs[:taps], plane, nr)
	}
	j.offs = offs

	// Weights: packed once (a registered constant) or here.
	var ab *[]float32
	anp := (og + mr - 1) / mr
	// The chain in the kernel's epilogue (the wide tile's at AVX-512, the
	// main one's at AVX2: asm.SgemmIndirectChainTile), on the tile in
	// registers, instead of while the valid pixels are copied out (or in a
	// pass of its own where rows are too short for that); its scalar table
	// step-major per row tile (rows past og zero). BenchmarkConv2DChainLayers,
	// AVX-512: cnn_64x64's first layer 50.4 -> 47.6 us, SqueezeNet's 307 ->
	// 291, ResNet-18's 1092 -> 1077.
	//
	// A residual step (an add) runs in the scattering kernel too
	// (asm.ScatterResidual), which reads the residual at its stores'
	// offsets; elsewhere the items run the chain as they copy out.
	var kb *[]float32
	scatterOK := wide && ws >= scatterMinWidth && kk <= gemmKCMax && og%mr == 0
	if cmr, cnr, cwide, ok := asm.SgemmIndirectChainTile(); ok && cwide == wide && cmr == mr && cnr == nr &&
		chain != nil && (chain.inKernelPass(g.oh*g.ow) || scatterOK && chain.residualInKernel(g.oh*g.ow)) {
		ns := len(chain.codes)
		kb = getScratch(anp * ns * mr)
		j.kchain, j.kns = true, ns
		if chOff == 0 && og == g.o {
			j.kchainT = chain.laneTable(kb, mr)
		} else {
			j.kchainT = laneBlocks(*kb, chain.table[chOff*ns:(chOff+og)*ns], og, ns, mr)
		}
		if ns > 0 {
			j.kcodes = &chain.codes[0]
		}
	}
	// Rows of at least a vector (so a vector spans two flat rows at most),
	// one depth block (the tile is not read back) and whole row tiles.
	j.scatter = j.kchain && scatterOK
	// A pointwise layer's input rows are its planes, as many read streams
	// as channels: past scatterPrefetchMinBytes the kernel prefetches them
	// too (asm.ScatterPrefetchOutIn). In the model (`relaxgo profile --by
	// shape --threads 1`, six alternated runs, AVX-512 Intel Xeon, µs a
	// call): SqueezeNet's 128->16 on 55² 445-583 -> 279-581 (medians 545
	// -> 345), 64->16 on 55² 250-354 -> 160-243, 256->32 on 27² 298-383 ->
	// 234-324; MobileNetV2's 32->16 on 112² 351-589 -> 268-379, 96->24 on
	// 56² 279-399 -> 253-329, its expansions (16->96 on 112², 24->144 on
	// 56²) unchanged. Warm (BenchmarkConv2DChainLayers, six alternated)
	// 32->16 on 112² 375-435 -> 237-331, 24->144 on 56² 315-492 -> 323-524.
	// A window's B rows are its phase planes' rows, taps of a channel
	// sharing lines: not prefetched.
	//
	// The output counts by each thread's share of it: at 2 threads
	// cnn_64x64's 3->32 on 64² (512 KB) writes 256 KB a thread, which its
	// L2 holds, and its prefetches ran ahead into lines the other core
	// then wrote (BenchmarkConvPoolSequence at 2 threads, AMD EPYC (Zen 5)
	// VM, three alternated runs, µs: the layer 33.1-36.2 -> 31.0-31.7, the
	// pool and the next convolution after it 56-63 -> 50-51).
	if j.scatter {
		share := 4 * og * g.oh * g.ow / threads
		switch {
		case g.pointwise() && 4*cg*g.h*g.w > scatterPrefetchMinBytes:
			j.prefetch = asm.ScatterPrefetchOutIn
		case share > scatterPrefetchMinBytes:
			j.prefetch = asm.ScatterPrefetchOut
		}
	}
	// Panels by output row where a row's whole panels fit in its flat row
	// (ppr*nr <= ws: no more columns computed than the flat panels, and no
	// read past them): every panel then starts a row's run of pixels, all
	// but a row's last partial one go straight into out (items), and the
	// flat rows' padding columns are not computed. A chain outside the
	// kernel runs in the flat copy (chainRows), so it keeps flat panels.
	// BenchmarkConv2DChainLayers, AVX2 AMD EPYC (Zen 3), 1 thread, minimum
	// of six alternated: cnn_64x64's 3->32 on 64² 142 -> 114 µs and 32->64
	// 3x3/2 on 32² 128 -> 113, MobileNetV2's 3->32 3x3/2 on 224² 460 ->
	// 385 (with the caches flushed 993 -> 784); cnn_64x64 compiled
	// (relaxgo bench, three alternated pairs) 290-294 -> 251-257 µs, at 2
	// threads 180-191 -> 149-151.
	if ppr := (g.ow + nr - 1) / nr; !g.pointwise() && !j.scatter && ppr*nr <= ws && (chain == nil || j.kchain) {
		j.ppr, j.npanels = ppr, g.oh*ppr
	}
	if pa != nil && pa.mr == mr {
		j.a = pa.data
	} else {
		ab = getScratch(anp * mr * kk)
		packAInto(*ab, og, kk, wg, kk, mr)
		j.a = *ab
	}
	j.anp = anp

	maxmc := gemmMC / mr * mr // the most rows of a block
	j.mblocks = (og + maxmc - 1) / maxmc
	// Chunks of at most 512 columns, a multiple of the thread count when
	// there are enough panels to share.
	maxp := max(1, 512/nr)
	nch := (j.npanels + maxp - 1) / maxp
	if threads > 1 {
		nch = min(j.npanels, (nch+threads-1)/threads*threads)
		if j.mblocks*nch < threads {
			nch = min(j.npanels, threads)
		}
		// One row block and a chunk of panels a thread whose chunks are
		// unequal (5 panels: 3 and 2): the rows split instead, a block
		// a thread, where that leaves the busiest thread at least a
		// tenth fewer tiles. (Every thread then reads all of B, which
		// costs more than a few tiles: 192->32 on 28², 17 panels of 4
		// tiles, 34 tiles a thread against 36 ran 14% slower.)
		// ConvPaths, 2 threads, medians of six alternated runs: 480->80
		// on 14² 207 -> 180 µs, 672->112 338 -> 317, 384->64 133 -> 125.
		rt := (og + mr - 1) / mr                           // row tiles
		byCols := (j.npanels + nch - 1) / nch * rt         // the busiest thread's tiles, columns split
		byRows := (rt + threads - 1) / threads * j.npanels // rows split
		if j.mblocks == 1 && nch == threads && rt >= threads && 10*byRows <= 9*byCols {
			j.mblocks, nch = threads, 1
		}
	}
	// Row blocks of whole tiles, as even as the tiles allow.
	j.mc = ((og+j.mblocks-1)/j.mblocks + mr - 1) / mr * mr
	j.chunkPanels = (j.npanels + nch - 1) / nch
	j.nchunks = (j.npanels + j.chunkPanels - 1) / j.chunkPanels
	if threads == 1 {
		j.items(0, j.mblocks*j.nchunks)
	} else {
		ParallelFor(j.mblocks*j.nchunks, 1, j.fn)
	}

	if ab != nil {
		putScratch(ab)
	}
	if kb != nil {
		putScratch(kb)
	}
	if tb != nil {
		putScratch(tb)
	}
	*op = offs[:0]
	convOffsPool.Put(op)
	fn := j.fn
	*j = convIndirectJob{fn: fn}
	convIndirectPool.Put(j)
}

// ownCopy returns what items [lo, hi) read: a pointwise layer's input
// (j.xs), or a scratch buffer (returned too, for putScratch) holding the
// phase planes' rows that the items' panels read. At more than one thread
// each thread's reads are then all in its own cache: with one copy split
// by channels over the threads, every thread read half of its panels' rows
// from the other's cache, in the micro-kernel's scattered, latency-bound
// loads (cnn_64x64's 32->64 3x3/2 on 32², 2 threads, AMD EPYC (Zen 5) VM:
// a thread's half of the products took 40 µs against 28 once the rows were
// in its cache).
//
// A panel's reads past a plane's last row (that row's right padding,
// which is the next row's left, and the dropped columns) land in the next
// plane's first rows, or past the last plane: those rows are cleared where
// they are not the items' own, zeros as in the shared copy's padding. (The
// last panel's columns past the flat output, whose results are dropped,
// may read further on, rows the buffer holds from earlier uses.)
func (j *convIndirectJob) ownCopy(lo, hi int) ([]float32, *[]float32) {
	if !j.own {
		return j.xs, nil
	}
	// The items' panels: one chunk's, or every chunk's.
	jp0, jp1 := 0, j.npanels
	if c0, c1 := lo%j.nchunks, (hi-1)%j.nchunks; hi-lo < j.nchunks && c0 <= c1 {
		jp0, jp1 = c0*j.chunkPanels, min((c1+1)*j.chunkPanels, j.npanels)
	}
	q0, q1, spill := ownRows(j.panelAt(jp0), j.panelAt(jp1-1), j.reach, j.ws, j.hs)
	b := getScratch(j.xsLen)
	xs := *b
	g, cg := &j.g, j.g.c/j.g.g
	clear(xs[cg*j.chan_:]) // the last plane's reach
	if spill > 0 {
		// The spill of each plane's reach into the next one's first rows.
		for p := 0; p < cg*g.sh*g.sw; p++ {
			clear(xs[p*j.plane : p*j.plane+spill*j.ws])
		}
	}
	convPhaseCopyRows(g, j.xg, xs, j.ws, j.plane, j.chan_, 0, cg, q0, q1)
	return xs, b
}

// ownReach is how far past its first flat column a panel of nr columns
// reads within a phase plane of plane values, for taps at offs (channel
// 0's; each a tap's offset within its phase plane plus, for strides over
// 1, the plane's own offset).
func ownReach(offs []int, plane, nr int) int {
	m := 0
	for _, o := range offs {
		m = max(m, o%plane)
	}
	return m + nr
}

// ownRows is what ownCopy writes of each phase plane (hs rows of ws) for
// panels whose first flat columns run from f0 to fLast, reading up to
// reach past each: the rows [q0, q1) it copies, and the first spill rows
// it clears, where the reach of a plane's last rows runs into the next
// plane and those rows are not among the copied ones.
func ownRows(f0, fLast, reach, ws, hs int) (q0, q1, spill int) {
	q0 = f0 / ws
	qEnd := (fLast + reach + ws - 1) / ws // rows [q0, qEnd) are read, counting on past hs
	return q0, min(qEnd, hs), max(0, min(q0, qEnd-hs))
}

// convPhaseCopyRows writes rows [q0, q1) of the phase planes of channels
// [c0, c1) of the group's input xg into xs (those rows cleared first; the
// planes' other rows left alone), zero-padded and split by stride phase:
// plane (c, ph, pw) of hs x ws values at c*chan_ + (ph*sw+pw)*plane holds
// padded rows ≡ ph (mod sh) and columns ≡ pw (mod sw), its row q padded
// row q*sh+ph.
func convPhaseCopyRows(g *conv2dGeom, xg, xs []float32, ws, plane, chan_, c0, c1, q0, q1 int) {
	if q1 <= q0 {
		return
	}
	if hs := plane / ws; q0 == 0 && q1 == hs {
		clear(xs[c0*chan_ : c1*chan_])
	} else {
		for p := c0 * g.sh * g.sw; p < c1*g.sh*g.sw; p++ {
			clear(xs[p*plane+q0*ws : p*plane+q1*ws])
		}
	}
	// The input rows in padded rows [r0, r1).
	r0, r1 := q0*g.sh, q1*g.sh
	ih0, ih1 := max(0, r0-g.pt), min(g.h, r1-g.pt)
	if ih1 <= ih0 {
		return // padding only
	}
	hw := g.h * g.w
	if g.sw == 2 {
		// The window as an image of its own: rows ih0..ih1-1 padded by the
		// window's rows above them, its phase planes' rows from q0.
		phaseSplit2(xs[c0*chan_+q0*ws:c1*chan_], chan_, plane, ws, xg[c0*hw+ih0*g.w:c1*hw], hw, c1-c0, ih1-ih0, g.w, ih0+g.pt-r0, g.pl, g.sh)
		return
	}
	if g.sh == 1 && g.sw == 1 {
		// One plane: padded row ih+pt at (ih+pt)*ws, from column pl.
		copyBlocks(xs[c0*chan_+(ih0+g.pt)*ws+g.pl:], chan_, ws, xg[c0*hw+ih0*g.w:c1*hw], hw, g.w, c1-c0, ih1-ih0, g.w)
		return
	}
	for c := c0; c < c1; c++ {
		src := xg[c*hw : (c+1)*hw]
		// Padded row r = ih + pt is row rq of row phase ph (r = rq*sh +
		// ph), stepped without dividing.
		ph, rq := (ih0+g.pt)%g.sh, (ih0+g.pt)/g.sh
		for ih := ih0; ih < ih1; ih, ph = ih+1, ph+1 {
			if ph == g.sh {
				ph, rq = 0, rq+1
			}
			row := src[ih*g.w : (ih+1)*g.w]
			rowBase := c*chan_ + ph*g.sw*plane + rq*ws
			if g.sw == 1 {
				copy(xs[rowBase+g.pl:rowBase+g.pl+g.w], row)
				continue
			}
			for pw := 0; pw < g.sw; pw++ {
				// Padded columns q ≡ pw (mod sw): q = pw + sw*t, source
				// column q - pl.
				dst := xs[rowBase+pw*plane:]
				t0 := max(0, (g.pl-pw+g.sw-1)/g.sw)
				for t := t0; t < ws; t++ {
					iw := pw + g.sw*t - g.pl
					if iw >= g.w {
						break
					}
					dst[t] = row[iw]
				}
			}
		}
	}
}

// phaseSplit2 writes batch h x w planes (srcBatch apart in src), padded by
// pt rows above and pl columns left, into their stride phases for column
// stride 2 and row stride sh: plane b's phase plane (ph, pw) at
// dst[b*dstBatch+(ph*2+pw)*sub:], rows wq apart. Per row phase one call for
// all planes: input rows r0, r0+sh, ... are padded rows (r0+pt)/sh, +1, ...
// of that phase.
func phaseSplit2(dst []float32, dstBatch, sub, wq int, src []float32, srcBatch, batch, h, w, pt, pl, sh int) {
	for ph := 0; ph < sh; ph++ {
		r0 := ((ph-pt)%sh + sh) % sh
		if r0 >= h {
			continue
		}
		rows := (h - r0 + sh - 1) / sh
		base := ph*2*sub + (r0+pt)/sh*wq
		phaseRows2(dst[base:], dst[base+sub:], wq, dstBatch, src[r0*w:], sh*w, srcBatch, rows, batch, w, pl)
	}
}

// phaseRows2 splits batch sets of rows source rows of w values (srcStride
// apart, sets srcBatch apart), padded by pl columns on the left, into their
// column phases for stride 2: padded column q = pl + iw goes to p0 (q even)
// or p1 (q odd) at q/2, rows dstStride apart in each, sets dstBatch apart.
func phaseRows2(p0, p1 []float32, dstStride, dstBatch int, src []float32, srcStride, srcBatch, rows, batch, w, pl int) {
	// Source column 2k lands in the phase of pl at pl/2 + k, column 2k+1
	// in the other at (pl+1)/2 + k.
	ev, od := p0, p1
	if pl%2 == 1 {
		ev, od = p1, p0
	}
	e0, o0 := pl/2, (pl+1)/2
	np := w / 2
	asm.Deinterleave2RowsBatchF32(ev[e0:], od[o0:], dstStride, dstBatch, src, srcStride, srcBatch, rows, np, batch)
	if w%2 == 1 {
		for b := 0; b < batch; b++ {
			for r := 0; r < rows; r++ {
				ev[b*dstBatch+r*dstStride+e0+np] = src[b*srcBatch+r*srcStride+w-1]
			}
		}
	}
}

// rowRun is a run of rows output rows from flat column a on (row oy
// starting at oy*ws), n valid pixels each.
type rowRun struct{ oy, rows, a, n int }

// outRowRuns appends to runs the output rows' valid pixels [oy*ws,
// oy*ws+ow) within flat columns [f0, f1): whole rows in one run, a row cut
// by f0 or f1 in a run of its own.
func outRowRuns(runs []rowRun, f0, f1, ws, ow int) []rowRun {
	for oy := f0 / ws; oy*ws < f1; {
		a, b := max(f0, oy*ws), min(f1, oy*ws+ow)
		if b <= a {
			oy++
			continue
		}
		if a == oy*ws && b == oy*ws+ow {
			r := 1
			for (oy+r)*ws+ow <= f1 {
				r++
			}
			runs = append(runs, rowRun{oy, r, a, ow})
			oy += r
			continue
		}
		runs = append(runs, rowRun{oy, 1, a, b - a})
		oy++
	}
	return runs
}

// item decodes work item t: row block t/nchunks (rows [i0, i0+mcur), in
// tiles row tiles) against panel chunk t%nchunks (panels [jp0, jp1)).
func (j *convIndirectJob) item(t int) (i0, mcur, tiles, jp0, jp1 int) {
	i0 = t / j.nchunks * j.mc
	mcur = min(j.mc, j.m-i0)
	jp0 = t % j.nchunks * j.chunkPanels
	return i0, mcur, (mcur + j.mr - 1) / j.mr, jp0, min(jp0+j.chunkPanels, j.npanels)
}

// panel returns B and the offsets table of panel jp's depth block at pc:
// the planes in xs (j.xs, or an items call's own copy), or for a partial
// last pointwise panel its packed copy (the tail's offsets after the main
// table's k).
func (j *convIndirectJob) panel(xs []float32, jp, pc int) (unsafe.Pointer, *int) {
	if j.tail != nil && jp == j.npanels-1 {
		return unsafe.Pointer(&j.tail[0]), &j.offs[j.k+pc]
	}
	return unsafe.Pointer(&xs[j.panelAt(jp)]), &j.offs[pc]
}

// panelAt is panel jp's first flat column.
func (j *convIndirectJob) panelAt(jp int) int {
	if j.ppr == 0 {
		return jp * j.nr
	}
	y, x := j.rowPanel(jp)
	return y*j.ws + x
}

// rowPanel returns the output row and first column of panel jp, with
// panels by output row (ppr > 0).
func (j *convIndirectJob) rowPanel(jp int) (y, x int) {
	return jp / j.ppr, jp % j.ppr * j.nr
}

// chainScalars is the in-kernel chain's scalar table of row tile t (nil
// for a chain of no steps).
func (j *convIndirectJob) chainScalars(t int) *float32 {
	if j.kns == 0 {
		return nil
	}
	return &j.kchainT[t*j.kns*j.mr]
}

// scatterItems runs work items [lo, hi) on the scatter path: each tile
// computed, chained and stored into out in one kernel call (no scratch).
func (j *convIndirectJob) scatterItems(lo, hi int) {
	mr, nr, k := j.mr, j.nr, j.k
	pix := j.g.oh * j.g.ow
	var st [9]int64
	var rs asm.ScatterResidual
	if j.chain.res != nil {
		rs.At, rs.Rev = j.chain.resAt, j.chain.resRev
	}
	xs, ob := j.ownCopy(lo, hi)
	if ob != nil {
		defer putScratch(ob)
	}
	for t := lo; t < hi; t++ {
		i0, _, tiles, jp0, jp1 := j.item(t)
		ablk := j.a[(i0/mr)*k*mr:]
		if j.chain.res != nil {
			// The residual's planes of the item's rows (chain rows
			// chOff+i), read at the stores' offsets.
			rs.P = unsafe.Pointer(&j.chain.res[(j.chOff+i0)*pix])
		}
		for jp := jp0; jp < jp1; jp++ {
			bp, op := j.panel(xs, jp, 0)
			j.scatterTable(&st, jp*nr)
			// The item's row tiles in one call (the call and the table
			// once, not a tile's few depth steps each).
			if nw, ok := j.narrowPanel(jp); ok {
				asm.SgemmKernelIndirectChainScatterNarrowUnchecked(nw, k, unsafe.Pointer(&ablk[0]), bp, op,
					unsafe.Pointer(&j.out[i0*pix]), pix, 1, j.kcodes, j.chainScalars(i0/mr), j.kns, &st, rs, tiles)
				continue
			}
			asm.SgemmKernelIndirectChainScatterUnchecked(k, unsafe.Pointer(&ablk[0]), bp, op,
				unsafe.Pointer(&j.out[i0*pix]), pix, 1, j.kcodes, j.chainScalars(i0/mr), j.kns, &st, j.prefetch, rs, tiles)
		}
	}
}

// scatterTable fills st for the panel of flat columns starting at f0: for
// each 16-lane vector v (flat columns fv..fv+15, fv = f0+16v, in flat rows
// y0 = fv/ws and y0+1), the byte offsets in an output plane of its lane 0
// for the two rows (flat column f of row y is pixel f - y*(ws-ow)), and the
// masks of its lanes that are pixels (x < ow, inside the output) in each.
func (j *convIndirectJob) scatterTable(st *[9]int64, f0 int) {
	ws, ow := j.ws, j.g.ow
	pad := ws - ow
	for v := 0; v < 3; v++ {
		fv := f0 + 16*v
		end := min(16, j.ntot-fv) // lanes inside the flat output
		y0, x0 := fv/ws, fv%ws
		r0 := ws - x0 // row y0+1's first lane
		st[3*v] = int64(4 * (fv - y0*pad))
		st[3*v+1] = int64(4 * (fv - (y0+1)*pad))
		st[3*v+2] = int64(laneRange(0, min(end, ow-x0))) | int64(laneRange(r0, min(end, r0+ow)))<<16
	}
}

// laneRange is the 16-bit mask of lanes [lo, hi) (clipped to [0, 16)).
func laneRange(lo, hi int) uint16 {
	lo, hi = max(lo, 0), min(hi, 16)
	if hi <= lo {
		return 0
	}
	return uint16(1<<hi-1) &^ uint16(1<<lo-1)
}

// items runs work items [lo, hi): item t is row block t/nchunks against
// panel chunk t%nchunks.
func (j *convIndirectJob) items(lo, hi int) {
	if j.scatter {
		j.scatterItems(lo, hi)
		return
	}
	mr, nr, k, g := j.mr, j.nr, j.k, &j.g
	ldc := j.chunkPanels * nr
	sb := getScratch(j.mc * ldc)
	defer putScratch(sb)
	scratch := *sb
	ow, ws := g.ow, j.ws
	pix := g.oh * ow
	// Whole tiles whose columns are all pixels (panelDirect) are stored
	// into out, accumulated there over the depth blocks as the packed
	// driver accumulates in C; only the others go through the scratch and
	// are copied out: a pointwise convolution's last partial panel (its
	// flat columns are its pixels), or with panels by output row (ppr) a
	// row's partial last one. With a chain outside the kernel it runs in
	// the copy instead (chainRows), so those take the scratch for every
	// tile. BenchmarkConv2DChainLayers, AVX2 AMD EPYC (Zen 3), 1 thread,
	// minimum of ten alternated runs (scripts/ab_bench.sh): 16->64 on 55²
	// 157 -> 117 µs; 192->32 on 28², 384->48 on 13², 512->64 on 13²
	// unchanged (128 -> 124, 84 -> 84, 155 -> 157); 3->64 3x3/2 on 224²
	// (flat rows of 112, whole panels) 908 -> 828, with the caches flushed
	// (BenchmarkConvColdOutput) 1794 -> 1641. Storing the panels inside a
	// row where flat rows are not whole panels was slower: the panels that
	// cross a row's end leave two runs of a few values each to copy
	// (16->64 3x3 on 55² 724 -> 853 µs, 3->32 3x3/2 on 224² 489 -> 558,
	// minimum of 15).
	//
	// A residual's chain (which no kernel runs) goes over the item's
	// output after its tiles are stored into out, still in cache, where it
	// went over the copy from the scratch: ResNet-50's 64->256 on 56² with
	// its residual spent 13-20% of its time copying (CPU profiles of
	// BenchmarkConv2DChainResidual, AVX-512 Intel Xeon; the product's
	// share 44-46% -> 54%; the layer's time itself moved with the
	// machine, fastest of twelve runs 2259 -> 2013 µs).
	direct := (g.pointwise() || j.ppr > 0) && (j.chain == nil || j.kchain || j.chain.res != nil)
	xs, ob := j.ownCopy(lo, hi)
	if ob != nil {
		defer putScratch(ob)
	}
	for t := lo; t < hi; t++ {
		i0, mcur, tiles, jp0, jp1 := j.item(t)
		// A last row tile of fewer rows runs asm.SgemmKernelIndirectRows
		// where the level has it (AVX2's main tile): those rows only, and
		// into out like the whole tiles. BenchmarkConv2DChainLayers, AVX2
		// AMD EPYC, minimum of six alternated: 32->16 on 112² 243 -> 211 µs,
		// 3->32 3x3/2 on 224² 489 -> 472, 16->64 on 55² 117 -> 111.
		rest := mcur % mr
		rowsK := rest > 0 && !j.wide && asm.SgemmKernelRowsOK(rest)
		stored := 0 // rows whose tiles go to out on panelDirect's panels
		if direct {
			stored = mcur / mr * mr
			if rowsK {
				stored = mcur
			}
		}
		for pc, kc := 0, 0; pc < k; pc += kc {
			kc = gemmDepth(pc, k)
			var bet float32
			if pc > 0 {
				bet = 1
			}
			ablk := j.a[pc*j.anp*mr+(i0/mr)*kc*mr:]
			for jp := jp0; jp < jp1; jp++ {
				bp, op := j.panel(xs, jp, pc)
				cp := scratch[(jp-jp0)*nr:]
				d, inOut := j.panelDirect(jp)
				nw, narrow := j.narrowPanel(jp)
				for ip := 0; ip < tiles; ip++ {
					c, ld := unsafe.Pointer(&cp[ip*mr*ldc]), ldc
					if inOut && ip*mr < stored {
						c, ld = unsafe.Pointer(&j.out[(i0+ip*mr)*pix+d]), pix
					}
					if rowsK && ip == tiles-1 {
						chain := j.kchain && pc+kc >= k
						asm.SgemmKernelIndirectRowsUnchecked(rest, kc, unsafe.Pointer(&ablk[ip*kc*mr]), bp, op,
							c, ld, 1, bet, chain, j.kcodes, j.chainScalars(i0/mr+ip), j.kns)
						continue
					}
					if narrow && !(rowsK && ip == tiles-1) {
						// A panel of no more columns than the narrow tile's
						// (never one stored into out: those are whole).
						chain := j.kchain && pc+kc >= k
						asm.SgemmKernelIndirectNarrowUnchecked(j.wide, nw, kc, unsafe.Pointer(&ablk[ip*kc*mr]), bp, op,
							c, ld, 1, bet, chain, j.kcodes, j.chainScalars(i0/mr+ip), j.kns)
						continue
					}
					if j.kchain && pc+kc >= k {
						asm.SgemmKernelIndirectChainUnchecked(kc, unsafe.Pointer(&ablk[ip*kc*mr]), bp, op,
							c, ld, 1, bet, j.kcodes, j.chainScalars(i0/mr+ip), j.kns)
						continue
					}
					asm.SgemmKernelIndirectUnchecked(j.wide, kc, unsafe.Pointer(&ablk[ip*kc*mr]), bp, op, c, ld, 1, bet)
				}
			}
		}
		if j.ppr > 0 {
			// Each panel left in the scratch is a row's last run of
			// pixels; a partial row tile's rows (where it ran whole) take
			// every panel's.
			r := stored
			for jp := jp0; jp < jp1; jp++ {
				if _, ok := j.panelDirect(jp); !ok && r > 0 {
					j.copyPanel(i0, r, scratch[(jp-jp0)*nr:], ldc, jp)
				}
				if r < mcur {
					j.copyPanel(i0+r, mcur-r, scratch[r*ldc+(jp-jp0)*nr:], ldc, jp)
				}
			}
			continue
		}
		f0, f1 := jp0*nr, min(jp1*nr, j.ntot)
		if direct {
			// Pointwise: the pixels of the partial last panel, left in the
			// scratch, for the rows stored into out on the others; then
			// those of the rows left (a partial row tile's where it ran
			// whole), every panel.
			r := stored
			if last := j.npanels - 1; r > 0 && jp1 > last {
				if _, ok := j.panelDirect(last); !ok {
					j.copyOut(i0, r, scratch, ldc, f0, last*nr, j.ntot)
				}
			}
			if r < mcur {
				j.copyOut(i0+r, mcur-r, scratch[r*ldc:], ldc, f0, f0, f1)
			}
			if j.chain != nil && !j.kchain {
				j.chainPixels(i0, mcur, f0, f1) // pointwise: the flat columns are the pixels
			}
			continue
		}
		// The valid pixels of the chunk's flat columns [f0, f1), as runs
		// of output rows, go to out: through the chain in the same pass
		// where chainRows allows, else copied and then chained in place.
		fused := j.chain.chainRows(ow, pix) && !j.kchain
		if !fused {
			j.copyOut(i0, mcur, scratch, ldc, f0, f0, f1)
		} else {
			var segBuf [4]rowRun
			for _, sg := range outRowRuns(segBuf[:0], f0, f1, ws, ow) {
				d0 := sg.oy*ow + sg.a - sg.oy*ws
				for i := 0; i < mcur; i++ {
					j.chain.applyRows(j.out[(i0+i)*pix+d0:], ow, scratch[i*ldc+sg.a-f0:], ws, sg.rows, sg.n, j.chOff+i0+i)
				}
			}
		}
		if j.chain != nil && !fused && !j.kchain {
			// The valid pixels before flat column f: (f/ws)*ow + min(f%ws, ow).
			j.chainPixels(i0, mcur, f0/ws*ow+min(f0%ws, ow), f1/ws*ow+min(f1%ws, ow))
		}
	}
}

// chainPixels runs the chain (outside the kernel) on pixels [p0, p1) of
// output channels [i0, i0+rows) of the group, in out.
func (j *convIndirectJob) chainPixels(i0, rows, p0, p1 int) {
	pix := j.g.oh * j.g.ow
	for i := 0; i < rows; i++ {
		o := (i0 + i) * pix
		j.chain.applyAt(j.out[o+p0:o+p1], j.chOff+i0+i, p0, pix)
	}
}

// narrowPanel reports the narrow tile's width for panel jp where its
// columns that matter (flat columns up to the last, or with panels by
// output row the row's pixels) fit one narrower than the tile
// (asm.SgemmIndirectNarrow): the rest of the panel's columns would be
// computed for nothing. cnn_64x64's 32->64 3x3/2 on 32² (271 flat
// columns on panels of 48) computed a last panel of 48 columns for 31,
// SqueezeNet's 1x1 layers on 13² (169 pixels on panels of 48) one of 48
// for 25. BenchmarkConv2DChainLayers, 1 thread, AMD EPYC (Zen 5) VM,
// four alternated runs, µs: 32->64 3x3/2 on 32² 56.7-60.5 -> 53.0-56.0,
// 48->192 on 13² 22.3-22.6 -> 20.6-21.2, 512->64 on 13² 67.9-73.1 ->
// 63.9-65.6, 64->256 on 13² 36.0-38.4 -> 34.3-37.0; a 16-column tile
// runs at about 60% of the whole tile's rate in L1
// (BenchmarkSgemmKernelL1's half tiles), still fewer cycles than 48 or
// 32 columns.
func (j *convIndirectJob) narrowPanel(jp int) (int, bool) {
	cols := j.ntot - jp*j.nr
	if j.ppr > 0 {
		_, x := j.rowPanel(jp)
		cols = j.g.ow - x
	}
	if cols >= j.nr || (j.kchain && !j.wide) {
		return 0, false
	}
	return asm.SgemmIndirectNarrow(j.wide, cols)
}

// panelDirect reports whether panel jp's columns are all pixels, of one
// output row (panels by output row) or of a plane whose flat rows have no
// padding columns (a pointwise convolution's), and where its first one
// lies in an output plane.
func (j *convIndirectJob) panelDirect(jp int) (int, bool) {
	nr, ow := j.nr, j.g.ow
	if j.ppr > 0 {
		y, x := j.rowPanel(jp)
		return y*ow + x, x+nr <= ow
	}
	f := jp * nr
	return f, j.ws == ow && f+nr <= j.ntot
}

// copyOut copies the valid pixels of flat columns [a, b) of rows output
// channels from i0 on out of their tiles in sc (rows ldc apart, flat
// column f at sc[f-f0]), as runs of output rows, every channel's rows of
// a run in one call.
func (j *convIndirectJob) copyOut(i0, rows int, sc []float32, ldc, f0, a, b int) {
	ow, ws := j.g.ow, j.ws
	pix := j.g.oh * ow
	var segBuf [4]rowRun
	for _, sg := range outRowRuns(segBuf[:0], a, b, ws, ow) {
		d0 := sg.oy*ow + sg.a - sg.oy*ws
		copyBlocks(j.out[i0*pix+d0:], pix, ow, sc[sg.a-f0:], ldc, ws, rows, sg.rows, sg.n)
	}
}

// copyPanel copies the pixels of panel jp (panels by output row: a run of
// one output row) of rows output channels from i0 on out of its tiles in
// sc (rows ldc apart).
func (j *convIndirectJob) copyPanel(i0, rows int, sc []float32, ldc, jp int) {
	ow := j.g.ow
	pix := j.g.oh * ow
	y, x := j.rowPanel(jp)
	n := min(j.nr, ow-x)
	copyBlocks(j.out[i0*pix+y*ow+x:], pix, ow, sc, ldc, j.nr, rows, 1, n)
}
