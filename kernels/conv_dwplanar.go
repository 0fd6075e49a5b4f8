package kernels

import (
	"sync"

	"github.com/relaxgo/relaxgo/asm"
)

// The planar depthwise path: a 3x3 depthwise convolution computed plane by
// plane straight from the NCHW input into the NCHW output
// (asm.DepthwisePlanar3x3F32), its padding rows read from a zero row and
// its padding columns masked off, the chain applied before the store. The
// channel-blocked path (conv_dwnc.go) spends two thirds of its time in the
// transposes into and out of its layout; this one has none. Every output
// is the same sum in the same order, so the bits do not change.

// dwPlanarForced, when not 0, makes dwPlanarPick take the planar path (1)
// or not (-1) whatever the shape: tests compare the paths.
var dwPlanarForced int

// dwPlanarPick returns the planar path's plan for the depthwise
// convolution g (dwNCUse's), or nil where it does not take that path: a
// 3x3 undilated window at column stride 1 or 2, on planes whose rows fill
// most of a vector (below 14 outputs a row most of a vector's lanes would
// be padding, and the channel-blocked path, whose vectors are all
// channels, is faster), or where the blocked planar kernel (AVX-512 and
// AVX2) takes the plane and its output rows are at least
// dwPlanarBlockedMinWidth wide. BenchmarkConv2DChain, fused, 1 thread,
// three alternated runs (min / median µs), channel-blocked -> planar with
// the blocked kernel: 144 channels on 56² 153 / 154 -> 117 / 122, at stride
// 2 76 / 77 -> 53 / 54, 192 on 28² 54 / 56 -> 48 / 50; 384 on 14² (25-28
// against 41-43 planar) and 960 on 7² (24-25 against 90-99) keep the
// channel-blocked path: a plane's few rows cost less than its call and
// chain pass. At AVX2 (`RELAXGO_ISA=avx2`, the same runs' form): 144 on 56²
// 220 / 222 -> 167 / 168, 192 on 28² 76 / 76 -> 71 / 75, and on 112² the
// blocked kernel against the per-row one, 32 channels 179 / 179 -> 142 /
// 143; at stride 2 144 on 56² 109 / 124 -> 90 / 95 (channel-blocked ->
// planar), 96 on 112² 209 / 213 -> 190 / 196 (per-row -> blocked).
func dwPlanarPick(g *conv2dGeom) *asm.DWPlanar {
	if g.kh != 3 || g.kw != 3 || g.dh != 1 || g.dw != 1 {
		return nil
	}
	if dwPlanarForced != 0 {
		if dwPlanarForced < 0 {
			return nil
		}
		return dwPlanarPlan(g)
	}
	if g.w < 112 && g.ow < dwPlanarBlockedMinWidth {
		return nil
	}
	p := dwPlanarPlan(g)
	if p == nil || g.w < 112 && !p.Blocked() {
		return nil
	}
	return p
}

// dwPlanarBlockedMinWidth is the narrowest output row the planar path
// takes below 112-wide input rows (dwPlanarPick).
const dwPlanarBlockedMinWidth = 28

// dwPlanarKey is the geometry a planar plan depends on, with the level's
// vector width.
type dwPlanarKey struct{ h, w, oh, ow, sh, sw, pt, pl, lanes int }

// dwPlanarPlans caches the plans (read-only once made) by geometry, so a
// call allocates nothing.
var dwPlanarPlans sync.Map

// dwPlanarPlan returns the plan of g at the current level, or nil when the
// kernels cannot do g.
func dwPlanarPlan(g *conv2dGeom) *asm.DWPlanar {
	k := dwPlanarKey{g.h, g.w, g.oh, g.ow, g.sh, g.sw, g.pt, g.pl, asm.BlockLanes()}
	if p, ok := dwPlanarPlans.Load(k); ok {
		return p.(*asm.DWPlanar)
	}
	p, ok := asm.NewDWPlanar(g.h, g.w, g.oh, g.ow, g.sh, g.sw, g.pt, g.pl)
	if !ok {
		return nil
	}
	got, _ := dwPlanarPlans.LoadOrStore(k, p)
	return got.(*asm.DWPlanar)
}

// planarPlanes computes output planes [lo, hi) on the planar path.
func (j *convDWJob) planarPlanes(lo, hi int) {
	g := &j.g
	og := g.o / g.g
	hw, ohw := g.h*g.w, g.oh*g.ow
	for plane := lo; plane < hi; plane++ {
		n, o := plane/g.o, plane%g.o
		src := (n*g.c + o/og) * hw
		codes, sc := j.chain.scalars(o)
		asm.DepthwisePlanar3x3F32(j.planar, j.out[plane*ohw:(plane+1)*ohw], j.x[src:src+hw], j.w[o*9:o*9+9], codes, sc)
	}
}
