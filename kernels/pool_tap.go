package kernels

import (
	"math"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/internal/freelist"
)

// maxPoolTapJob is a float32 NCHW max pooling as one asm.TapMaxF32 call per
// plane: each input plane is copied into a scratch plane padded with -Inf
// and split by stride phase (phasePlane, as the depthwise convolution does
// with zeros), so that every tap of the window is one constant offset from
// the output index. The taps run in the scalar loops' order from the same
// lowest value, and a -Inf tap changes no bit of a maximum at lowest or
// above (NaN included), so padded taps are no-ops and the bits are those of
// maxPlanesNCHW. Pooled, with fn bound once, so a call allocates nothing.
type maxPoolTapJob struct {
	g       pool2dGeom
	o, x    []float32
	lo      float32
	ph      phasePlane
	fn      func(lo, hi int)
	pairs   bool // a 2x2, stride-2 window without padding (pool2x2Pairs)
	threes  bool // a 3x3, stride-2 undilated window (pool3x3S2)
	inPlace bool // threes, read in place: no padding, every window inside
	blocks  bool // the general path on blocks of small planes (planesBlocks)
	split   bool // pairs on short rows, their rows split by parity first (planesSplitRows)
	s1      bool // a padded 3x3 window at stride 1, tried on asm.MaxPool3x3S1P1F32 first
	rowsFn  func(lo, hi int)
}

// rows pools output rows [lo, hi) of every plane of one image (g.n == 1)
// with the row kernels that read the window's rows in place (pairs,
// inPlace), as planes does whole planes, so the bits are the same.
func (j *maxPoolTapJob) rows(lo, hi int) {
	g := &j.g
	for c := 0; c < g.c; c++ {
		j.planeRows(c*g.xsC, c*g.osC, lo, hi)
	}
}

// planeRows pools output rows [lo, hi) of the plane whose input starts at
// x[xb] and output at o[ob], with asm.MaxPool2x2F32 (pairs) or
// asm.MaxPool3x3S2F32 (inPlace), which read each window's rows in place.
func (j *maxPoolTapJob) planeRows(xb, ob, lo, hi int) {
	g := &j.g
	xb, ob = xb+2*lo*g.w, ob+lo*g.ow
	o := j.o[ob : ob+(hi-lo)*g.ow]
	if j.pairs {
		asm.MaxPool2x2F32(o, g.ow, j.x[xb:xb+2*(hi-lo)*g.w], g.w, hi-lo, g.ow, j.lo)
		return
	}
	asm.MaxPool3x3S2F32(o, g.ow, j.x[xb:xb+2*(hi-lo)*g.w+2*g.ow+1], g.w, hi-lo, g.ow, j.lo)
}

// pool2x2Pairs reports whether g is a 2x2 window at stride 2 without
// padding or dilation whose every window lies inside the plane (a last odd
// row or column is never read), which asm.MaxPool2x2F32 pools in place.
func pool2x2Pairs(g *pool2dGeom) bool {
	return g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 && g.dh == 1 && g.dw == 1 &&
		!g.padded() && g.ow == g.w/2 && g.oh == g.h/2
}

// pool3x3S2 reports whether g is a 3x3 window at stride 2 without
// dilation, which asm.MaxPool3x3S2F32 pools (SqueezeNet's and ResNet's
// pools), and whether it reads the plane in place: no padding, and every
// window inside the plane (ceil mode's last windows may not be).
func pool3x3S2(g *pool2dGeom) (ok, inPlace bool) {
	ok = g.kh == 3 && g.kw == 3 && g.sh == 2 && g.sw == 2 && g.dh == 1 && g.dw == 1
	return ok, ok && !g.padded() && 2*g.oh+1 <= g.h && 2*g.ow+1 <= g.w
}

var maxPoolTapPool = freelist.List[*maxPoolTapJob]{New: func() *maxPoolTapJob {
	j := new(maxPoolTapJob)
	j.fn = j.planes
	j.rowsFn = j.rows
	return j
}}

// maxPoolTap pools planes [0, n*c) of g from x into o (NCHW, contiguous).
func maxPoolTap(g *pool2dGeom, o, x []float32, lowest float32) {
	j := maxPoolTapPool.Get()
	j.g, j.o, j.x, j.lo = *g, o, x, lowest
	j.pairs = pool2x2Pairs(g)
	j.threes, j.inPlace = pool3x3S2(g)
	blocksOK := maxPoolBlocksOK(g)
	j.s1 = blocksOK && g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 &&
		g.pt == 1 && g.pl == 1 && g.pb == 1 && g.pr == 1 // (so oh = h, ow = w)
	j.split = false
	if g.ow < maxPoolRowMin && j.pairs && blocksOK && g.h == 2*g.oh && g.w == 2*g.ow {
		// Short rows of whole windows: the planes' rows split by parity,
		// then one row kernel call a block (planesSplitRows).
		j.split = true
	} else if g.ow < maxPoolRowMin && blocksOK {
		// Rows shorter than the row kernels' vectors would run their Go
		// twins: the general path on blocks of planes (planesBlocks).
		j.pairs, j.threes, j.inPlace = false, false, false
	}
	if !j.pairs && !j.inPlace {
		// The padded extent covers every window, ceil mode's last ones too.
		hp := max(g.h+g.pt+g.pb, (g.oh-1)*g.sh+(g.kh-1)*g.dh+1)
		wp := max(g.w+g.pl+g.pr, (g.ow-1)*g.sw+(g.kw-1)*g.dw+1)
		if j.threes {
			// One -Inf padded plane, no split: asm.MaxPool3x3S2F32 reads
			// the window's columns in place.
			j.ph.plan(g.h, g.w, g.pt, g.pl, hp, wp, 1, 1, 1, 1, 1, 1, hp)
		} else {
			j.ph.plan(g.h, g.w, g.pt, g.pl, hp, wp, g.sh, g.sw, g.kh, g.kw, g.dh, g.dw, g.oh)
		}
	}
	j.blocks = blocksOK && !j.pairs && !j.inPlace && !j.threes && 2*j.ph.plen <= maxPoolBlockFloats
	planes := g.n * g.c
	switch {
	case NumThreads() <= 1 || planes*g.oh*g.ow*g.kh*g.kw < parThreshold:
		j.planes(0, planes)
	case g.n == 1 && (j.pairs && !j.split || j.inPlace) && g.oh > 1:
		// One image's planes by output rows, as the convolutions around
		// a pool split theirs (column chunks: output rows of every
		// channel): each thread pools the rows it wrote and writes the
		// rows the next layer's thread reads, so they stay in its core's
		// cache. Split by planes, half of them crossed between the cores:
		// cnn_64x64 at 2 threads on an AMD EPYC (Zen 5) VM, where a line
		// moved between the vCPUs costs a ~500 ns round trip (`relaxgo
		// bench --mode=compiled --threads 2`, four alternated pairs):
		// medians 119-132 -> 109-127 µs. (The next convolution's shared
		// phase copy split by rows as well, rather than by channels, was
		// slower then: 125-139 µs, its clears and calls a range of rows
		// each. Its threads now copy their own rows, ownCopy.)
		// One band of rows a thread: a chunk makes a call a plane, and
		// chunks of 16K taps (8 for cnn_64x64's pool, each 32 calls of 4
		// rows) cost more in calls than they balanced (BenchmarkOpMaxPool2D
		// at 2 threads, two alternated runs, µs: cnn_2x2_32x64x64 11.1-12.4
		// -> 9.6-10.0, squeezenet_64x111x111 69.7-69.8 -> 66.0-66.1,
		// resnet_64x112x112 79.9-83.4 -> 80.0-84.3).
		ParallelFor(g.oh, (g.oh+NumThreads()-1)/NumThreads(), j.rowsFn)
	default:
		ParallelFor(planes, max(1, parGrain/(g.oh*g.ow*g.kh*g.kw+1)), j.fn)
	}
	j.o, j.x = nil, nil
	maxPoolTapPool.Put(j)
}

// planes pools planes [lo, hi).
func (j *maxPoolTapJob) planes(lo, hi int) {
	if j.split {
		j.planesSplitRows(lo, hi)
		return
	}
	if j.pairs {
		j.planesPairs(lo, hi)
		return
	}
	if j.inPlace {
		// The window's rows read in place, as planesPairs does.
		j.planesInPlace(lo, hi)
		return
	}
	g, ph := &j.g, &j.ph
	if j.s1 {
		// GoogLeNet's and Inception's branch pools read in place, one
		// VRANGEPS (AVX-512) or VMAXPS (AVX2) a tap, unless a NaN (at
		// AVX2 a negative zero too) makes the taps' order matter: then
		// these planes go by the paths below, in TapMaxF32's order.
		hw := g.h * g.w
		if asm.MaxPool3x3S1P1F32(j.o[lo*hw:hi*hw], j.x[lo*hw:hi*hw], hi-lo, g.h, g.w, j.lo) {
			return
		}
	}
	if j.blocks && hi-lo > 1 {
		j.planesBlocks(lo, hi)
		return
	}
	sc := dwScratches.Get()
	if j.threes && ph.plen > maxPoolBandMinFloats {
		j.planesThreeBands(sc, lo, hi)
		dwScratches.Put(sc)
		return
	}
	if cap(sc.p) < ph.plen {
		sc.p = make([]float32, ph.plen)
		sc.geom = phaseGeom{} // a new plane: no padding yet
	}
	var f []float32 // the tap-max's flat output (the 3x3/2 kernel writes the planes itself)
	if !j.threes {
		if cap(sc.f) < ph.n {
			sc.f = make([]float32, ph.n)
		}
		f = sc.f[:ph.n]
	}
	p := sc.p[:ph.plen]
	inf := float32(math.Inf(-1))
	for pl := lo; pl < hi; pl++ {
		n, c := pl/g.c, pl%g.c
		xb := n*g.xsN + c*g.xsC
		ph.loadReuse(sc, p, j.x[xb:xb+g.h*g.w], inf)
		ob := n*g.osN + c*g.osC
		if j.threes {
			asm.MaxPool3x3S2F32(j.o[ob:ob+g.oh*g.ow], g.ow, p, ph.wq, g.oh, g.ow, j.lo)
			continue
		}
		asm.TapMaxF32(f, p, ph.offs, j.lo)
		copyRows(j.o[ob:], g.osH, f, ph.wq, g.oh, g.ow) // one asm call, not a memmove a row
	}
	dwScratches.Put(sc)
}

// maxPoolBandMinFloats is the smallest padded plane (floats) that
// planesThreeBands pools by bands: a smaller one (32 KB) stays in the L1
// whole, and is loaded with one call.
const maxPoolBandMinFloats = 8 << 10

// maxPoolBandRows is the output rows planesThreeBands pools from one band
// of the padded plane (2*maxPoolBandRows+1 rows of it).
const maxPoolBandRows = 8

// planesThreeBands pools planes [lo, hi) of a 3x3, stride-2 geometry that
// the row kernel cannot read in place (padding, or ceil mode's last
// windows past the plane): each plane's padded rows (ph's geometry: one
// phase, -Inf around the data) are made a band at a time in sc.p, the
// 2*maxPoolBandRows+1 rows that maxPoolBandRows output rows read, and
// asm.MaxPool3x3S2F32 pools the band. A whole padded plane of 112x112 is
// 52 KB, past the L1 it was written to, and read back from the L2; a band
// stays in the L1. The padding columns are written once (the band's
// geometry kept in sc.geom, as loadReuse keeps a plane's); rows above or
// below the plane are written -Inf where the band holds them. Every output
// reads the same padded values as from the whole plane, so the bits are
// the same. ResNet-18's pool (64x112², padding 1) in the model, 1 thread
// (`relaxgo profile --by shape`, three alternated runs, AMD EPYC Zen 5
// VM): 231-242 -> 158-172 µs; alone (BenchmarkOpMaxPool2D, two alternated)
// 148-157 -> 131-143, GoogLeNet's first (ceil mode) 142-175 -> 125-132.
// Planes of 28² lost by bands (480 of them, 87-100 -> 86-125 µs): below
// maxPoolBandMinFloats the whole plane is loaded.
func (j *maxPoolTapJob) planesThreeBands(sc *dwScratch, lo, hi int) {
	g, ph := &j.g, &j.ph
	wq, hp := ph.wq, ph.sub/ph.wq
	brows := 2*maxPoolBandRows + 1
	if cap(sc.p) < brows*wq {
		sc.p = make([]float32, brows*wq)
		sc.geom = phaseGeom{}
	}
	band := sc.p[:brows*wq]
	inf := float32(math.Inf(-1))
	if bg := (phaseGeom{w: g.w, pl: g.pl, wq: wq, plen: -brows}); sc.geom != bg || sc.fill != math.Float32bits(inf) {
		fillF32(band, inf)
		sc.geom, sc.fill = bg, math.Float32bits(inf)
	}
	for pl := lo; pl < hi; pl++ {
		n, c := pl/g.c, pl%g.c
		xc := j.x[n*g.xsN+c*g.xsC : n*g.xsN+c*g.xsC+g.h*g.w]
		ob := n*g.osN + c*g.osC
		for r0 := 0; r0 < g.oh; r0 += maxPoolBandRows {
			r1 := min(g.oh, r0+maxPoolBandRows)
			// Padded rows [2*r0, 2*r1+1), input rows [y0, y1) of them.
			p0, p1 := 2*r0, min(2*r1+1, hp)
			y0, y1 := max(p0-g.pt, 0), min(p1-g.pt, g.h)
			for pr := p0; pr < p1; pr++ {
				if y := pr - g.pt; y < 0 || y >= g.h {
					fillF32(band[(pr-p0)*wq+g.pl:(pr-p0)*wq+g.pl+g.w], inf)
				}
			}
			if y1 > y0 {
				copyRows(band[(y0+g.pt-p0)*wq+g.pl:], wq, xc[y0*g.w:], g.w, y1-y0, g.w)
			}
			asm.MaxPool3x3S2F32(j.o[ob+r0*g.ow:ob+r1*g.ow], g.ow, band[:(p1-p0)*wq], wq, r1-r0, g.ow, j.lo)
		}
	}
}

// maxPoolRowMin is the shortest output row the row kernels
// (asm.MaxPool2x2F32, asm.MaxPool3x3S2F32) pool in asm: below it they run
// their Go twins, a NaN-aware max a tap.
const maxPoolRowMin = 8

// maxPoolBlockFloats bounds the padded planes planesBlocks pools at a time
// (64 KB).
const maxPoolBlockFloats = 1 << 14

// maxPoolBlocksOK reports whether planesBlocks can take g's planes: one
// stride phase or a column stride of 2 (the loads that take many planes in
// one call), and planes that follow one another in the input and the
// output.
func maxPoolBlocksOK(g *pool2dGeom) bool {
	return (g.sh == 1 && g.sw == 1 || g.sw == 2) && g.xsC == g.h*g.w && g.xsN == g.c*g.xsC &&
		g.osC == g.oh*g.ow && g.osN == g.c*g.osC
}

// planesBlocks pools planes [lo, hi) (maxPoolBlocksOK) in blocks: a block's
// padded planes one after another, ph.plen apart, written by one call
// (asm.CopyBlocksF32 for one phase, phaseSplit2 for a column stride of
// 2), pooled by one TapMaxF32 call over all of them (the taps' offsets are
// the same from each plane's start; the values between one plane's outputs
// and the next plane's are computed and dropped), and copied out by one
// asm.CopyBlocksF32. Plane by plane, a small plane cost three calls and a
// memmove a row more than its taps. BenchmarkOpMaxPool2D, 1 thread, µs,
// medians of three alternated runs on an AVX-512 Intel Xeon: GoogLeNet's
// 3x3/1 pool on 832 planes of 7x7 164 -> 108, on 512 of 14x14 180 -> 155,
// its 2x2/2 on 832 of 14x14 (rows of 7, below the row kernels' vectors,
// which ran their Go twins) 320 -> 244; 192 planes of 28x28 unchanged
// (ONNX Runtime takes 30, 45 and 39 µs on the first three in the model).
// Each output is the same running maximum over the same taps from lo, so
// the bits are the plane-by-plane path's.
func (j *maxPoolTapJob) planesBlocks(lo, hi int) {
	g, ph := &j.g, &j.ph
	hw, ohw := g.h*g.w, g.oh*g.ow
	bmax := max(1, maxPoolBlockFloats/ph.plen)
	need := min(bmax, hi-lo) * ph.plen
	sc := dwScratches.Get()
	if cap(sc.p) < need {
		sc.p = make([]float32, need)
	}
	if cap(sc.f) < need {
		sc.f = make([]float32, need)
	}
	// The blocks' padding is written for the first block of planes and
	// stays (the loads write only the data positions); the one-plane
	// path's reuse check then sees another geometry.
	sc.geom = phaseGeom{}
	inf := float32(math.Inf(-1))
	padded := 0 // planes whose padding is in place
	for p0 := lo; p0 < hi; p0 += bmax {
		b := min(bmax, hi-p0)
		p := sc.p[:b*ph.plen]
		if padded < b {
			fillF32(p[padded*ph.plen:], inf)
			padded = b
		}
		src := j.x[p0*hw : (p0+b)*hw]
		if g.sw == 2 {
			phaseSplit2(p, ph.plen, ph.sub, ph.wq, src, hw, b, g.h, g.w, g.pt, g.pl, g.sh)
		} else {
			asm.CopyBlocksF32(p[g.pt*ph.wq+g.pl:], ph.plen, ph.wq, src, hw, g.w, b, g.h, g.w)
		}
		f := sc.f[:(b-1)*ph.plen+ph.n]
		asm.TapMaxF32(f, p, ph.offs, j.lo)
		asm.CopyBlocksF32(j.o[p0*ohw:(p0+b)*ohw], ohw, g.ow, f, ph.plen, ph.wq, b, g.oh, g.ow)
	}
	dwScratches.Put(sc)
}

// planesPairs pools planes [lo, hi) of a pool2x2Pairs geometry with
// asm.MaxPool2x2F32, which reads each window's two rows in place: the
// window's taps in the scalar loops' order, from the same lowest value, so
// the bits are the general path's. Planes that follow one another in x and
// o (an even height: no row left over) are one call.
func (j *maxPoolTapJob) planesPairs(lo, hi int) {
	g := &j.g
	sub := g.oh * g.ow
	if pairsStacked(g) {
		asm.MaxPool2x2F32(j.o[lo*sub:hi*sub], g.ow, j.x[lo*g.xsC:hi*g.xsC], g.w, (hi-lo)*g.oh, g.ow, j.lo)
		return
	}
	j.planesInPlace(lo, hi)
}

// pairsStacked reports whether a pool2x2Pairs geometry's planes stack into
// one image of rows whose pairs are the windows' rows: planes that follow
// one another in the input and the output, with no input row left over
// (an even height), so the 2x2 row kernels pool a range of planes in one
// call.
func pairsStacked(g *pool2dGeom) bool {
	ohw := g.oh * g.ow
	return g.h == 2*g.oh && g.xsC == g.h*g.xsH && g.xsN == g.c*g.xsC && g.osH == g.ow && g.osC == ohw && g.osN == g.c*ohw
}

// planesSplitRows pools planes [lo, hi) of a pool2x2Pairs geometry of whole
// windows (h = 2*oh, w = 2*ow) on output rows shorter than maxPoolRowMin,
// whose rows would run asm.MaxPool2x2F32's Go twin. Stacked, the planes are
// rows of w values whose pairs (2r, 2r+1) are the windows' rows, and the
// column pairs of a row never straddle two rows (w is even); so with a
// block's even rows copied one after another into top and its odd rows
// into bottom, output k of the block is the window top[2k], top[2k+1],
// bottom[2k], bottom[2k+1], and one MaxPool2x2F32 call of a single row
// (down = top + the block's half) pools the block with its vectors whole.
// The taps and their order are those of the row kernels, so are the bits.
// GoogLeNet's 2x2/2 pool on 832 planes of 14x14 went by the padded planes
// of planesBlocks (phase split, TapMaxF32, copy out).
func (j *maxPoolTapJob) planesSplitRows(lo, hi int) {
	g := &j.g
	hw, ohw := g.h*g.w, g.oh*g.ow
	bmax := max(1, maxPoolBlockFloats/hw)
	sc := dwScratches.Get()
	if need := min(bmax, hi-lo) * hw; cap(sc.p) < need {
		sc.p = make([]float32, need)
	}
	sc.geom = phaseGeom{} // the one-plane path's padding is gone
	for p0 := lo; p0 < hi; p0 += bmax {
		b := min(bmax, hi-p0)
		rows, half := b*g.oh, b*hw/2
		buf := sc.p[:2*half]
		src := j.x[p0*hw : (p0+b)*hw]
		asm.CopyRowsF32(buf[:half], g.w, src, 2*g.w, rows, g.w)
		asm.CopyRowsF32(buf[half:], g.w, src[g.w:], 2*g.w, rows, g.w)
		asm.MaxPool2x2F32(j.o[p0*ohw:(p0+b)*ohw], b*ohw, buf, half, 1, b*ohw, j.lo)
	}
	dwScratches.Put(sc)
}

// planesInPlace pools planes [lo, hi) whole, one planeRows call each.
func (j *maxPoolTapJob) planesInPlace(lo, hi int) {
	g := &j.g
	for pl := lo; pl < hi; pl++ {
		n, c := pl/g.c, pl%g.c
		j.planeRows(n*g.xsN+c*g.xsC, n*g.osN+c*g.osC, 0, g.oh)
	}
}
