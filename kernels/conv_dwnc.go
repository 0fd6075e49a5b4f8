package kernels

import (
	"sync"
	"sync/atomic"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
)

// The channel-blocked depthwise path. A depthwise convolution of small
// planes spent its time per channel, not per output: each channel's plane
// was loaded into a padded scratch, summed, and copied out, three calls for
// 49 or 196 outputs. This path moves blocks of asm.BlockLanes()
// channels instead: the block's rows are transposed straight into a
// zero-bordered padded plane where a position's channels sit side by side
// (asm.TransposeBatchF32, one call), convolved with the chain fused
// (asm.DepthwiseNCF32, every position one whole vector whatever the plane's
// width; the 3x3 window unrolled) and transposed back (asm.TransposeF32).
// Every output is the same sum in the same order as the planar path's, so
// the bits do not change.

// dwNCUse reports whether the depthwise convolution g (one input channel
// per group) takes the channel-blocked path: one output channel per input
// channel and a column stride of 1 or 2 (the kernels'). It is faster at
// every MobileNetV2 layer size, 7x7 to 112x112 (BenchmarkConv2DChain).
func dwNCUse(g *conv2dGeom) bool {
	return g.o == g.c && g.sw <= 2
}

// dwNCEntry is a constant depthwise weight in blocks (laneBlocks),
// made on first use for the level's block size.
type dwNCEntry struct {
	once        sync.Once
	done        atomic.Bool
	o, k, lanes int
	finite      bool // every weight is finite (allFinite)
	w           []float32
}

// constDWNC maps a registered constant *runtime.Tensor to its *dwNCEntry.
var constDWNC sync.Map

// constDWNCWeights returns the registered constant w's blocked form for o
// channels of k taps at the current block size, or nil (not a constant,
// made at another level's block size, or with a weight that is not finite,
// which the row loops take).
func constDWNCWeights(w *runtime.Tensor, o, k int) []float32 {
	if _, ok := constPacked.Load(w); !ok {
		return nil
	}
	lanes := asm.BlockLanes()
	e := cacheEntry[dwNCEntry](&constDWNC, w)
	if !e.done.Load() {
		e.once.Do(func() {
			e.o, e.k, e.lanes = o, k, lanes
			e.finite = allFinite(w.Float32s())
			e.w = laneBlocks(nil, w.Float32s(), o, k, lanes)
			e.done.Store(true)
		})
	}
	if e.o != o || e.k != k || e.lanes != lanes || !e.finite {
		return nil
	}
	return e.w
}

// laneBlocks returns (in dst when it is large enough) the o x k matrix w
// (a channel's k weights, or its k chain operands, per row) in blocks of
// lanes channels, the layout of asm.DepthwiseNCF32's weights and of its and
// asm.ChainColsF32's operands: row c = b*lanes+l, column t at
// (b*k+t)*lanes+l, zero past row o.
func laneBlocks(dst, w []float32, o, k, lanes int) []float32 {
	nb := (o + lanes - 1) / lanes
	n := nb * k * lanes
	if cap(dst) < n {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	clear(dst)
	for c := 0; c < o; c++ {
		b, l := c/lanes, c%lanes
		for t, v := range w[c*k : (c+1)*k] {
			dst[(b*k+t)*lanes+l] = v
		}
	}
	return dst
}

// dwNCPlan is the blocked geometry and operands of one call.
type dwNCPlan struct {
	lanes  int
	nb     int // blocks per image
	band   int // output rows per work item
	nbands int
	wp     int // the padded row
	offs   []int
	w      []float32 // blocked weights (laneBlocks)
	wbuf   []float32 // w when built for this call
	sc     []float32 // the chain's operands in blocks: step k of channel b*lanes+l at (b*nsteps+k)*lanes+l
	scbuf  []float32 // sc when built for this call
}

// planNC sets up j.nc for j.g with the blocked weights wnc (nil: built
// from j.w) and returns the number of work items (ncBlocks).
func (j *convDWJob) planNC(wnc []float32) int {
	g, nc := &j.g, &j.nc
	L := asm.BlockLanes()
	nc.lanes, nc.nb = L, (g.c+L-1)/L
	nc.wp = g.w + g.pl + g.pr
	// Bands of about 256 KiB of output bound a worker's scratch (a whole
	// 112x112 block would be 1.6 MiB) and give two workers items to share
	// when a layer has few blocks (32 channels: 2 blocks, 8 items). At 1
	// thread they change little (BenchmarkConv2DChain 32x112²: whole planes
	// 115 µs, 256 KiB bands 112, 32 KiB bands 134: the overlapping input
	// rows are transposed again); planes up to 56 rows at 16 lanes are one
	// band.
	nc.band = min(g.oh, max(1, 256<<10/(4*g.ow*L)))
	nc.nbands = (g.oh + nc.band - 1) / nc.band
	k := g.kh * g.kw
	nc.offs = nc.offs[:0]
	for i := 0; i < g.kh; i++ {
		for t := 0; t < g.kw; t++ {
			nc.offs = append(nc.offs, (i*g.dh*nc.wp+t*g.dw)*L)
		}
	}
	if wnc == nil {
		nc.wbuf = laneBlocks(nc.wbuf, j.w, g.o, k, L)
		wnc = nc.wbuf
	}
	nc.w = wnc
	nc.sc = nil
	if c := j.chain; c != nil && len(c.codes) > 0 {
		nc.sc = c.laneTable(&nc.scbuf, L)
	}
	return g.n * nc.nb * nc.nbands
}

// ncBlocks computes the work items [lo, hi): band t of block b of image n
// is item (n*nb+b)*nbands+t, output rows [t*band, (t+1)*band).
func (j *convDWJob) ncBlocks(lo, hi int) {
	g, nc := &j.g, &j.nc
	L := nc.lanes
	hw, ohw, k := g.h*g.w, g.oh*g.ow, g.kh*g.kw
	eh := (g.kh-1)*g.dh + 1
	hb := (nc.band-1)*g.sh + eh // padded rows a band reads
	sc := dwScratches.Get()
	sc.q = growF32(sc.q, nc.band*g.ow*L)
	key := dwNCKey{g.w, g.pl, nc.wp, hb, L}
	if n := hb * nc.wp * L; cap(sc.np) < n || sc.ncKey != key {
		// Bands write the data columns of their rows: the side borders
		// stay zero.
		sc.np = growF32(sc.np, n)
		clear(sc.np)
		sc.ncKey = key
	}
	var codes []uint8
	ns := 0
	if j.chain != nil {
		codes, ns = j.chain.codes, len(j.chain.codes)
	}
	row := nc.wp * L // a padded row
	for it := lo; it < hi; it++ {
		nb, t := it/nc.nbands, it%nc.nbands
		n, b := nb/nc.nb, nb%nc.nb
		c0 := b * L
		cn := min(L, g.c-c0)
		oy0 := t * nc.band
		rows := min(nc.band, g.oh-oy0)
		// The band reads padded rows [p0, p0+h): input rows [y0, y1) in
		// them, the rest zero (the top and bottom padding).
		p0, h := oy0*g.sh, (rows-1)*g.sh+eh
		y0, y1 := max(0, p0-g.pt), min(g.h, p0+h-g.pt)
		top := y0 + g.pt - p0 // rows of padding above the data
		clear(sc.np[:top*row])
		if y1 > y0 {
			xb := j.x[(n*g.c+c0)*hw : (n*g.c+c0+cn)*hw]
			asm.TransposeBatchF32(sc.np[top*row+g.pl*L:], L, row, xb[y0*g.w:], hw, g.w, y1-y0, cn, g.w)
		}
		clear(sc.np[(top+max(0, y1-y0))*row : h*row])
		asm.DepthwiseNCF32(sc.q, g.ow*L, sc.np, g.sh*row, nc.offs, nc.w[b*k*L:(b+1)*k*L],
			rows, g.ow, g.sw, codes, nc.sc[b*ns*L:(b+1)*ns*L])
		asm.TransposeF32(j.out[(n*g.o+c0)*ohw+oy0*g.ow:], ohw, sc.q, L, rows*g.ow, cn)
	}
	dwScratches.Put(sc)
}

// dwNCKey is what decides the zero border of a blocked padded plane.
type dwNCKey struct{ w, pl, wp, rows, lanes int }

// growF32 returns s resized to n, reallocated when too small.
func growF32(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}
