package kernels

import (
	"sync"
	"sync/atomic"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
)

// The channel-blocked depthwise path. A depthwise convolution of small
// planes spends its time per channel, not per output: each channel's plane
// is loaded into a padded scratch, summed, and copied out, three calls for
// 49 or 196 outputs. This path moves blocks of asm.DepthwiseNCLanes()
// channels instead: the block's planes are transposed so that a position's
// channels sit side by side (asm.PackAF32's 8x8 transposes), copied into a
// zero-bordered padded plane (one asm.CopyRowsF32 call), convolved with the
// chain fused (asm.DepthwiseNCF32, every position one whole vector whatever
// the plane's width) and transposed back. Every output is the same sum in
// the same order as the planar path's, so the bits do not change.

// dwNCMaxPlane bounds the input plane (elements) the channel-blocked path
// takes: larger planes spend little per channel in the planar path, and
// their blocked scratch (three planes of a block) would not stay in cache.
const dwNCMaxPlane = 1 << 30

// dwNCUse reports whether the depthwise convolution g (one input channel
// per group) takes the channel-blocked path.
func dwNCUse(g *conv2dGeom) bool {
	return g.o == g.c && g.sw <= 2 && g.h*g.w <= dwNCMaxPlane
}

// dwNCEntry is a constant depthwise weight in blocks (dwNCBlockWeights),
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
	lanes := asm.DepthwiseNCLanes()
	v, ok := constDWNC.Load(w)
	if !ok {
		v, _ = constDWNC.LoadOrStore(w, &dwNCEntry{})
	}
	e := v.(*dwNCEntry)
	if !e.done.Load() {
		e.once.Do(func() {
			e.o, e.k, e.lanes = o, k, lanes
			e.finite = allFinite(w.Float32s())
			e.w = dwNCBlockWeights(nil, w.Float32s(), o, k, lanes)
			e.done.Store(true)
		})
	}
	if e.o != o || e.k != k || e.lanes != lanes || !e.finite {
		return nil
	}
	return e.w
}

// dwNCBlockWeights returns (in dst when it is large enough) the o x k
// weights w in blocks of lanes channels: the weight of channel b*lanes+l,
// tap t at (b*k+t)*lanes+l, zero past channel o.
func dwNCBlockWeights(dst, w []float32, o, k, lanes int) []float32 {
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
	hp, wp int // the padded plane
	offs   []int
	w      []float32 // blocked weights (dwNCBlockWeights)
	wbuf   []float32 // w when built for this call
	sc     []float32 // the chain's operands in blocks: step k of channel b*lanes+l at (b*nsteps+k)*lanes+l
}

// planNC sets up j.nc for j.g with the blocked weights wnc (nil: built
// from j.w) and returns the number of blocks.
func (j *convDWJob) planNC(wnc []float32) int {
	g, nc := &j.g, &j.nc
	L := asm.DepthwiseNCLanes()
	nc.lanes, nc.nb = L, (g.c+L-1)/L
	nc.hp, nc.wp = g.h+g.pt+g.pb, g.w+g.pl+g.pr
	k := g.kh * g.kw
	nc.offs = nc.offs[:0]
	for i := 0; i < g.kh; i++ {
		for t := 0; t < g.kw; t++ {
			nc.offs = append(nc.offs, (i*g.dh*nc.wp+t*g.dw)*L)
		}
	}
	if wnc == nil {
		nc.wbuf = dwNCBlockWeights(nc.wbuf, j.w, g.o, k, L)
		wnc = nc.wbuf
	}
	nc.w = wnc
	nc.sc = nc.sc[:0]
	if c := j.chain; c != nil {
		ns := len(c.codes)
		n := nc.nb * ns * L
		if cap(nc.sc) < n {
			nc.sc = make([]float32, n)
		}
		nc.sc = nc.sc[:n]
		clear(nc.sc)
		for ch := 0; ch < g.o; ch++ {
			b, l := ch/L, ch%L
			for s, v := range c.table[ch*ns : (ch+1)*ns] {
				nc.sc[(b*ns+s)*L+l] = v
			}
		}
	}
	return g.n * nc.nb
}

// ncBlocks computes the channel blocks [lo, hi) (block b of image n is
// n*nb+b).
func (j *convDWJob) ncBlocks(lo, hi int) {
	g, nc := &j.g, &j.nc
	L := nc.lanes
	hw, ohw, k := g.h*g.w, g.oh*g.ow, g.kh*g.kw
	sc, _ := j.scratch.Get().(*dwScratch)
	if sc == nil {
		sc = new(dwScratch)
	}
	sc.q = growF32(sc.q, ohw*L)
	key := dwNCKey{g.h, g.w, g.pt, g.pl, nc.hp, nc.wp, L}
	if n := nc.hp * nc.wp * L; cap(sc.np) < n || sc.ncKey != key {
		// Only the interior is written per block: the border stays zero.
		sc.np = growF32(sc.np, n)
		clear(sc.np)
		sc.ncKey = key
	}
	var codes []uint8
	ns := 0
	if j.chain != nil {
		codes, ns = j.chain.codes, len(j.chain.codes)
	}
	for blk := lo; blk < hi; blk++ {
		n, b := blk/nc.nb, blk%nc.nb
		c0 := b * L
		cn := min(L, g.c-c0)
		xb := j.x[(n*g.c+c0)*hw : (n*g.c+c0+cn)*hw]
		// Row y of the block's planes to the padded plane's row y+pt.
		asm.TransposeBatchF32(sc.np[(g.pt*nc.wp+g.pl)*L:], L, nc.wp*L, xb, hw, g.w, g.h, cn, g.w)
		asm.DepthwiseNCF32(sc.q, g.ow*L, sc.np, g.sh*nc.wp*L, nc.offs, nc.w[b*k*L:(b+1)*k*L],
			g.oh, g.ow, g.sw, codes, nc.sc[b*ns*L:(b+1)*ns*L])
		fromBlock(j.out[(n*g.o+c0)*ohw:(n*g.o+c0+cn)*ohw], ohw, sc.q, L, cn)
	}
	j.scratch.Put(sc)
}

// dwNCKey is what decides the zero border of a blocked padded plane.
type dwNCKey struct{ h, w, pt, pl, hp, wp, lanes int }

// growF32 returns s resized to n, reallocated when too small.
func growF32(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// fromBlock moves cn channels of ohw positions out of the channel-minor
// block q: out[i*ohw+p] = q[p*lanes+i].
func fromBlock(out []float32, ohw int, q []float32, lanes, cn int) {
	asm.TransposeF32(out, ohw, q, lanes, ohw, cn)
}
