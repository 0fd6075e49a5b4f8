package asm

import "fmt"

// DWPlanar is the geometry of a 3x3 depthwise convolution of NCHW planes
// read in place (DepthwisePlanar3x3F32): the padding's rows as a table of
// row offsets, its columns as masks on a row's first and last vector, for
// the current level's vector width.
type DWPlanar struct {
	h, w, oh, ow   int
	sh, sw, pt, pl int
	lanes, nv, col int
	roffs          []int     // per output row, its three input rows' byte offsets, or -1 (padding)
	m16            []uint16  // AVX-512: per edge vector, the load masks then the store mask
	m32            []int32   // AVX2: the same as vectors of lanes
	zrow           []float32 // a zero row for padding rows
	// The blocked kernel (stride 1 or 2 both ways): rowsM output vectors a
	// row (0: none), rowsR output rows a block, at AVX-512 the masks of the
	// input rows' last three vectors (at stride 1 only the last is
	// partial: lm[2]) and of the output rows' last (AVX2 takes m32's). A
	// last partial block runs as a whole one ending at the last row;
	// planes of fewer rows than a block take the per-row kernel.
	rowsM, rowsR int
	lm           [3]uint16
	smask        uint16
	rowsWhole    bool // AVX2: the rows' last vectors whole (the kernel masks their right taps only)
}

// dwPlanarRowsMaxVecs is the widest row, in vectors, of the blocked
// kernels (asm/gen's dwPlanarRowsMaxVecs).
const dwPlanarRowsMaxVecs = 8

// dwPlanarRowsR is the blocked kernel's output rows a block for rows of m
// vectors (asm/gen's dwPlanarRowsR).
func dwPlanarRowsR(m int) int { return max(1, 8/m) }

// NewDWPlanar plans a 3x3 depthwise convolution of h x w planes into oh x
// ow ones at stride (sh, sw), sw 1 or 2, with pt rows and pl columns of zero
// padding before the data (undilated). It reports false when the level has
// no such kernel or the geometry does not suit it: every vector of a row
// other than the first and the last must read inside the row.
func NewDWPlanar(h, w, oh, ow, sh, sw, pt, pl int) (*DWPlanar, bool) {
	if level == LevelGo || sw < 1 || sw > 2 || sh < 1 || h < 1 || w < 1 || oh < 1 || ow < 1 || pt < 0 || pl < 0 || pl > 2 {
		return nil, false
	}
	lanes := BlockLanes()
	p := &DWPlanar{h: h, w: w, oh: oh, ow: ow, sh: sh, sw: sw, pt: pt, pl: pl, lanes: lanes, nv: (ow + lanes - 1) / lanes, col: -pl}
	span := p.span()
	for v := 1; v < p.nv-1; v++ {
		if c := v*lanes*sw - pl; c < 0 || c+span > w {
			return nil, false
		}
	}
	for y := 0; y < oh; y++ {
		for i := 0; i < 3; i++ {
			iy := y*sh - pt + i
			if iy < 0 || iy >= h {
				p.roffs = append(p.roffs, -1)
				continue
			}
			p.roffs = append(p.roffs, 4*iy*w)
		}
	}
	// The loads' first columns relative to a vector's: stride 1, the three
	// taps; stride 2, the pairs at 0 and 2 (two vectors each).
	loads := []int{0, 1, 2}
	if sw == 2 {
		loads = []int{0, lanes, 2, lanes + 2}
	}
	edges := []int{0, p.nv - 1}
	for _, v := range edges {
		for _, ld := range loads {
			var m uint16
			for l := 0; l < lanes; l++ {
				c := v*lanes*sw - pl + ld + l
				if c >= 0 && c < w && (sw == 2 || v*lanes+l < ow) {
					m |= 1 << l
				}
			}
			p.addMask(m)
		}
		var st uint16
		for l := 0; l < lanes; l++ {
			if v*lanes+l < ow {
				st |= 1 << l
			}
		}
		p.addMask(st)
	}
	// The zero row, with room for the edge vectors' masked reads around it
	// and for the blocked kernel's whole input rows.
	p.zrow = make([]float32, max(w+8*lanes, 4*lanes+lanes*(2*p.nv+1)))
	p.planBlocked()
	return p, true
}

// span is the columns an output vector reads, from its first input
// column (v*lanes*sw - pl for vector v): at stride 1 three taps of lanes
// columns, at stride 2 the pairs of vectors at 0 and 2.
func (p *DWPlanar) span() int {
	if p.sw == 2 {
		return 2*p.lanes + 2
	}
	return p.lanes + 2
}

// Blocked reports whether p runs on the blocked kernel (AVX-512, stride 1
// or 2 both ways, left padding 0 or 1, rows of up to 128 outputs; AVX2,
// the same at any width), which loads each input row once for a block of
// output rows.
func (p *DWPlanar) Blocked() bool { return p.rowsM > 0 }

// planBlocked sets up the blocked kernel where it applies (at AVX2,
// planBlockedAVX2's): AVX-512, stride 1 or 2 in both directions, left
// padding 0 or 1, at most dwPlanarRowsMaxVecs output vectors a row; at
// stride 1 input rows of as many vectors as the output's, at stride 2 the
// input row in the kernel's slots (2m+1-pl vectors, all but the last three
// whole).
func (p *DWPlanar) planBlocked() {
	m, lanes := p.nv, p.lanes
	if level == LevelAVX2 {
		p.planBlockedAVX2()
		return
	}
	if level != LevelAVX512 || p.sh != p.sw || p.pl > 1 || m > dwPlanarRowsMaxVecs {
		return
	}
	// lanesOf is the mask of input vector t's columns inside the row.
	lanesOf := func(t int) uint16 {
		n := min(max(p.w-lanes*t, 0), lanes)
		if t < 0 {
			n = 0
		}
		return uint16(1<<n - 1)
	}
	switch p.sw {
	case 1:
		if (p.w+lanes-1)/lanes != m {
			return
		}
		p.lm[2] = lanesOf(m - 1)
	case 2:
		slots := 2*m + 1 - p.pl
		if p.w < lanes*(slots-3) {
			return
		}
		for i := range p.lm {
			p.lm[i] = lanesOf(slots - 3 + i)
		}
	default:
		return
	}
	p.rowsM, p.rowsR = m, dwPlanarRowsR(m)
	p.smask = uint16(1<<(p.ow-lanes*(m-1)) - 1)
}

// dwPlanarRowsAVX2R is the AVX2 blocked kernel's output rows a block
// (asm/gen's dwPlanarRowsAVX2R).
const dwPlanarRowsAVX2R = 4

// planBlockedAVX2 sets up the AVX2 blocked kernel (stride 1 or 2 both
// ways, left padding 0 or 1, any width), which goes down a column strip of
// one vector at a time and loads unmasked all but the first vector's first
// load (at left padding 1) and the last vector's loads: those must read
// inside the row.
func (p *DWPlanar) planBlockedAVX2() {
	if p.sh != p.sw || p.pl > 1 {
		return
	}
	// NewDWPlanar has the vectors between the first and the last read
	// inside the row. The first one's loads (but for its first at left
	// padding 1, under the mask) start at column 0 or later and end at
	// column span-1-pl.
	if p.nv > 1 && p.span()-p.pl > p.w {
		return
	}
	p.rowsM, p.rowsR = p.nv, dwPlanarRowsAVX2R
	if p.sw == 2 {
		return
	}
	// Whole last vectors: the outputs fill it, and its left and middle
	// taps read inside the row.
	last := (p.nv - 1) * p.lanes
	p.rowsWhole = p.ow == p.nv*p.lanes && last+1-p.pl+p.lanes <= p.w && (p.nv > 1 || p.pl == 0)
}

func (p *DWPlanar) addMask(m uint16) {
	if p.lanes == 16 {
		p.m16 = append(p.m16, m)
		return
	}
	for l := 0; l < p.lanes; l++ {
		p.m32 = append(p.m32, -int32(m>>l&1))
	}
}

// DepthwisePlanar3x3F32 computes one plane of the 3x3 depthwise
// convolution planned by p: dst (oh x ow) from src (h x w) with the nine
// weights w in row-major order, each output the sum over the taps in that
// order of float32(x*w) from +0 (TapSumF32's, with the padding's taps
// zero), put through ScalarChainF32's steps codes with scalars s, the same
// bits as the other depthwise paths. The weights must be finite (a zero
// padding tap times an infinite weight is NaN, which those paths do not
// compute). It panics on short slices or a non-finite weight.
func DepthwisePlanar3x3F32(p *DWPlanar, dst, src, w []float32, codes []uint8, s []float32) {
	const fn = "DepthwisePlanar3x3"
	if len(dst) < p.oh*p.ow || len(src) < p.h*p.w || len(w) < 9 {
		panic(fmt.Sprintf("asm: %sF32: dst %d, src %d, w %d elements for %dx%d from %dx%d", fn, len(dst), len(src), len(w), p.oh, p.ow, p.h, p.w))
	}
	for _, v := range w[:9] {
		if v-v != 0 {
			panic(fmt.Sprintf("asm: %sF32: weight %v is not finite", fn, v))
		}
	}
	checkChain(fn, codes, s)
	if overlap(dst[:p.oh*p.ow], src[:p.h*p.w]) {
		panic("asm: " + fn + "F32: dst overlaps src")
	}
	if level == LevelGo || p.lanes != BlockLanes() { // a plan of another level
		dwPlanarGo(dst, src, w, p.h, p.w, p.oh, p.ow, p.sh, p.sw, p.pt, p.pl, codes, s)
		return
	}
	asmDWPlanar(p, &dst[0], &src[0], &w[0])
	if len(codes) > 0 {
		ScalarChainF32(dst[:p.oh*p.ow], dst[:p.oh*p.ow], codes, s)
	}
}
