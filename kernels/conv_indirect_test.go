package kernels

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/asm"
)

// convGeomFor builds the geometry of a one-image, one-group convolution.
func convGeomFor(c, o, h, w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr int) conv2dGeom {
	g := conv2dGeom{n: 1, c: c, h: h, w: w, o: o, kh: kh, kw: kw, sh: sh, sw: sw, dh: dh, dw: dw, pt: pt, pl: pl, pb: pb, pr: pr, g: 1}
	g.oh = (h+pt+pb-(dh*(kh-1)+1))/sh + 1
	g.ow = (w+pl+pr-(dw*(kw-1)+1))/sw + 1
	return g
}

// convPackedRef runs a group through the packed driver, as conv2dF32 did
// before the indirect path: a pointwise convolution as a GEMM on the
// input, others on their patch matrix.
func convPackedRef(g *conv2dGeom, x, w, out []float32, pa *packedA) {
	kk := g.c * g.kh * g.kw
	src := gemmB{b: x, conv: true, geom: *g}
	if g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 && g.pl == 0 && g.pb == 0 && g.pr == 0 {
		src = gemmB{b: x, ldb: g.oh * g.ow}
	}
	sgemm(false, g.o, g.oh*g.ow, kk, 1, w, kk, &src, 0, out, g.oh*g.ow, pa)
}

var convIndirectCases = []struct {
	name                                               string
	c, o, h, w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr int
}{
	{"3x3s1p1", 3, 32, 17, 19, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
	{"8rows", 3, 8, 16, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
	{"6rows", 5, 6, 9, 11, 3, 3, 2, 1, 1, 1, 1, 0, 1, 2},
	{"3x3s2p1", 8, 20, 15, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
	{"7x7s2p3", 3, 16, 23, 21, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3},
	{"1x1s2", 16, 24, 14, 13, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0},
	{"3x3d2", 5, 15, 12, 14, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},
	{"asym", 6, 29, 11, 9, 2, 3, 1, 2, 1, 1, 0, 2, 1, 0},
	{"s3_5x5", 4, 10, 20, 22, 5, 5, 3, 3, 1, 1, 2, 1, 0, 2},
	{"deep_k300", 36, 47, 9, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
	{"rect_s12", 7, 33, 13, 26, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1},
	{"1x1_tail", 21, 18, 7, 9, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
	{"1x1_full", 300, 30, 8, 8, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
	{"1x1s2", 9, 12, 9, 7, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0},
	// Rows of more than a panel (panels stored straight into the output):
	// over two depth blocks, at stride 2, pointwise with a partial last
	// panel and a partial row tile.
	{"wide_k270", 30, 13, 6, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
	{"wide_s2", 3, 20, 12, 70, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0},
	{"1x1_wide", 40, 14, 5, 37, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
	{"1x1_wide_k300", 300, 8, 3, 41, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
	// Flat rows of whole panels (all but each row's last stored into the
	// output) at strides 2 and 1, and over two depth blocks.
	{"flat32_s2", 3, 13, 9, 64, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0},
	{"flat32_s1", 20, 14, 5, 30, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
	{"flat16_k306", 34, 7, 4, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
	// Enough work for two threads (gemmThreads), each copying the phase
	// planes' rows its panels read (ownCopy): strides 1, 2 and 3, the last
	// over two depth blocks.
	{"own_s1", 8, 40, 30, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
	{"own_s2", 16, 24, 29, 31, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
	{"own_s3_k300", 12, 20, 40, 37, 5, 5, 3, 3, 1, 1, 2, 1, 0, 2},
	// Items calls of several column chunks (more chunks than ParallelFor
	// makes).
	{"own_chunks", 3, 16, 72, 72, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
	// A window narrower than its padding: rows not shared (sharedPad).
	{"1x1_pad1", 4, 16, 8, 70, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
	{"1x2_pad2", 3, 8, 5, 30, 1, 2, 1, 1, 1, 1, 0, 2, 0, 2},
	// Rows padded to whole lines (alignedRows): 64 and 80 wide, padding on
	// both sides and on one.
	{"aligned64", 3, 16, 9, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
	{"aligned80_l2", 8, 24, 7, 80, 3, 3, 1, 1, 1, 1, 1, 2, 1, 0},
	// Panels by output row (whole panels per row fit in the flat row):
	// rows of 64 and, at stride 2, of 16; over two depth blocks; a row's
	// last panel partial.
	{"rows64", 3, 20, 6, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
	{"rows16_s2", 9, 13, 32, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
	{"rows32_k306", 34, 7, 3, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
	{"rows_partial", 5, 11, 4, 45, 3, 3, 1, 1, 1, 1, 2, 2, 2, 2},
	// At 2 threads, panels that split unequally (5 or 7): the rows split
	// instead, pointwise and over two depth blocks.
	{"1x1_rows_split", 96, 80, 14, 14, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
	{"3x3_rows_split", 40, 64, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
	// Flat rows sharing their padding columns (sharedPad), without bottom
	// padding so that the last row's right padding lies in the next
	// plane: Inception-v3's 1x7 shape, asymmetric columns, row stride 2;
	// then a row that sharing would take below 16, which does not share.
	{"shared_1x7", 12, 20, 17, 17, 1, 7, 1, 1, 1, 1, 0, 3, 0, 3},
	{"shared_asym", 5, 17, 9, 18, 3, 4, 1, 1, 1, 1, 0, 1, 0, 2},
	{"shared_s21", 4, 9, 11, 17, 3, 5, 2, 1, 1, 1, 0, 2, 0, 1},
	{"unshared_15", 6, 14, 7, 14, 3, 3, 1, 1, 1, 1, 0, 1, 0, 1},
}

// TestConvIndirectMatchesPacked requires the indirect convolution to give
// the packed driver's bits (same depth blocks, same kernel arithmetic, same
// accumulation order) on odd geometries (strides, dilations, asymmetric
// padding, depths over one block, rows not a multiple of the tile), with
// and without pre-packed weights, at every level and at 1 and 2 threads,
// and to write nothing outside the output.
func TestConvIndirectMatchesPacked(t *testing.T) {
	defer func(lean bool) { alignRowsLean = lean }(alignRowsLean)
	alignRowsLean = false // the aligned rows' cases on every processor
	defer SetNumThreads(0)
	r := rand.New(rand.NewSource(11))
	forEachLevel(t, func(l asm.Level) {
		for _, c := range convIndirectCases {
			g := convGeomFor(c.c, c.o, c.h, c.w, c.kh, c.kw, c.sh, c.sw, c.dh, c.dw, c.pt, c.pl, c.pb, c.pr)
			kk := c.c * c.kh * c.kw
			x := make([]float32, c.c*c.h*c.w)
			w := make([]float32, c.o*kk)
			for i := range x {
				x[i] = r.Float32()*2 - 1
			}
			for i := range w {
				w[i] = r.Float32()*2 - 1
			}
			pix := g.oh * g.ow
			for _, th := range []int{1, 2} {
				SetNumThreads(th)
				for _, tile := range []struct{ wide, packed bool }{{false, false}, {false, true}, {true, false}, {true, true}} {
					wide, packed := tile.wide, tile.packed
					mr, _, ok := asm.SgemmIndirectTile(wide)
					if !ok {
						continue
					}
					var pa *packedA
					if packed {
						pa = packA(c.o, kk, w, kk, mr)
					}
					want := make([]float32, pix*c.o)
					convPackedRef(&g, x, w, want, pa)
					const guard = 19
					buf := make([]float32, pix*c.o+2*guard)
					for i := range buf {
						buf[i] = -7
					}
					got := buf[guard : guard+pix*c.o]
					poisonPhaseScratch(&g)
					convIndirectF32(&g, x, w, got, c.o, pa, wide, nil, 0)
					what := fmt.Sprintf("%s %s threads=%d wide=%v packed=%v", l, c.name, th, wide, packed)
					for i := range want {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s: out[%d] = %v, packed driver %v", what, i, got[i], want[i])
						}
					}
					for i := 0; i < guard; i++ {
						if buf[i] != -7 || buf[len(buf)-1-i] != -7 {
							t.Fatalf("%s: wrote outside the output", what)
						}
					}
				}
			}
		}
	})
}

// BenchmarkConvPaths times one group through the packed driver and the
// indirect one, weights packed once (a constant), at 1 and 2 threads.
func BenchmarkConvPaths(b *testing.B) {
	defer SetNumThreads(0)
	for _, c := range []struct {
		name              string
		c, o, hw, k, s, p int
	}{
		{"3x8_16x16_3x3", 3, 8, 16, 3, 1, 1},
		{"32x128_27x27_3x3", 32, 128, 27, 3, 1, 1},
		{"16x64_55x55_3x3", 16, 64, 55, 3, 1, 1},
		{"1x1_512x1000_13x13", 512, 1000, 13, 1, 1, 0},
		{"64x256_13x13_3x3", 64, 256, 13, 3, 1, 1},
		{"48x192_13x13_3x3", 48, 192, 13, 3, 1, 1},
		{"8x16_8x8_3x3s2", 8, 16, 8, 3, 2, 1},
		{"16x32_16x16_3x3s2", 16, 32, 16, 3, 2, 1},
		{"3x32_64x64_3x3", 3, 32, 64, 3, 1, 1},
		{"32x32_149x149_3x3p0", 32, 32, 149, 3, 1, 0}, // Inception-v3's valid (unpadded) layers
		{"80x192_73x73_3x3p0", 80, 192, 73, 3, 1, 0},
		{"1x1_768x192_17x17", 768, 192, 17, 1, 1, 0}, // Inception-v3's 17² blocks
		{"288x384_35x35_3x3s2", 288, 384, 35, 3, 2, 0},
		{"32x64_32x32_3x3s2", 32, 64, 32, 3, 2, 1},
		{"64x64_56x56_3x3", 64, 64, 56, 3, 1, 1},
		{"128x128_28x28_3x3", 128, 128, 28, 3, 1, 1},
		{"256x256_14x14_3x3", 256, 256, 14, 3, 1, 1},
		{"512x512_7x7_3x3", 512, 512, 7, 3, 1, 1},
		{"256x256_4x4_3x3", 256, 256, 4, 3, 1, 1},
		{"1x1_32x16_112x112", 32, 16, 112, 1, 1, 0},
		{"1x1_16x96_112x112", 16, 96, 112, 1, 1, 0}, // MobileNetV2's largest expansion
		{"1x1_16x16_112x112", 16, 16, 112, 1, 1, 0}, // MobileNetV3-large's first block
		{"1x1_16x64_112x112", 16, 64, 112, 1, 1, 0},
		{"1x1_8x24_112x112", 8, 24, 112, 1, 1, 0}, // MNASNet-0.5's
		{"1x1_16x8_112x112", 16, 8, 112, 1, 1, 0},
		{"1x1_24x144_56x56", 24, 144, 56, 1, 1, 0},
		{"1x1_144x24_56x56", 144, 24, 56, 1, 1, 0},
		{"1x1_64x384_14x14", 64, 384, 14, 1, 1, 0},
		{"1x1_192x32_28x28", 192, 32, 28, 1, 1, 0},
		{"1x1_384x64_14x14", 384, 64, 14, 1, 1, 0},
		{"1x1_480x80_14x14", 480, 80, 14, 1, 1, 0}, // EfficientNet-B0's projections
		{"1x1_672x112_14x14", 672, 112, 14, 1, 1, 0},
		{"1x1_512x64_13x13", 512, 64, 13, 1, 1, 0}, // SqueezeNet's last squeeze
		{"1x1_384x48_13x13", 384, 48, 13, 1, 1, 0},
		{"1x1_960x160_7x7", 960, 160, 7, 1, 1, 0},
		{"1x1_320x1280_7x7", 320, 1280, 7, 1, 1, 0},
		{"64x128_56x56_3x3s2", 64, 128, 56, 3, 2, 1},
		{"3x64_224x224_7x7s2", 3, 64, 224, 7, 2, 3},
		{"3x64_224x224_3x3s2", 3, 64, 224, 3, 2, 0},    // SqueezeNet's first
		{"128x256_28x28_3x3s2", 128, 256, 28, 3, 2, 1}, // ResNet-18's strided layers
		{"256x512_14x14_3x3s2", 256, 512, 14, 3, 2, 1},
		{"1x1s2_128x256_28x28", 128, 256, 28, 1, 2, 0},
		{"1x1s2_256x512_14x14", 256, 512, 14, 1, 2, 0},
		{"3x32_224x224_3x3s2", 3, 32, 224, 3, 2, 1}, // MobileNetV2's first
		{"128x32_56x56_3x3", 128, 32, 56, 3, 1, 1},  // DenseNet-121's growth layers
		{"128x32_28x28_3x3", 128, 32, 28, 3, 1, 1},
		{"128x32_14x14_3x3", 128, 32, 14, 3, 1, 1},
	} {
		g := convGeomFor(c.c, c.o, c.hw, c.hw, c.k, c.k, c.s, c.s, 1, 1, c.p, c.p, c.p, c.p)
		kk := c.c * c.k * c.k
		r := rand.New(rand.NewSource(1))
		x := make([]float32, c.c*c.hw*c.hw)
		w := make([]float32, c.o*kk)
		for i := range x {
			x[i] = r.Float32()
		}
		for i := range w {
			w[i] = r.Float32()
		}
		mr, _ := asm.SgemmTile()
		pa := packA(c.o, kk, w, kk, mr)
		var paWide *packedA
		if wmr, _, ok := asm.SgemmIndirectTile(true); ok {
			paWide = packA(c.o, kk, w, kk, wmr)
		}
		out := make([]float32, c.o*g.oh*g.ow)
		flop := 2 * float64(c.o*kk*g.oh*g.ow)
		var pos *PackedB // positions as the GEMM's rows (convPosF32)
		if _, snr, ok := asm.SgemmTileStrided(); ok && convPosFits(&g, nil) {
			pos = packBFor(true, kk, c.o, w, kk, snr)
		}
		var wino, wino4 *winoEntry
		if winoShape(&g) { // whatever the channel and tile thresholds
			wino = &winoEntry{t: 2, o: c.o, c: c.c, mr: mr, level: asm.CurrentLevel(), u: winoWeights(2, c.o, c.c, w)}
			wino4 = &winoEntry{t: 4, o: c.o, c: c.c, mr: mr, level: asm.CurrentLevel(), u: winoWeights(4, c.o, c.c, w)}
			for xi := range 16 {
				wino.pa[xi] = packA(c.o, c.c, wino.u[xi*c.o*c.c:(xi+1)*c.o*c.c], c.c, mr)
			}
			for xi := range 36 {
				wino4.pa[xi] = packA(c.o, c.c, wino4.u[xi*c.o*c.c:(xi+1)*c.o*c.c], c.c, mr)
			}
		}
		for _, th := range []int{1, 2} {
			for _, path := range []string{"packed", "indirect", "indirect-wide", "winograd", "winograd4", "positions"} {
				if path == "indirect-wide" && paWide == nil || (path == "winograd" || path == "winograd4") && wino == nil || path == "positions" && pos == nil {
					continue
				}
				b.Run(fmt.Sprintf("%s/%s/threads=%d", c.name, path, th), func(b *testing.B) {
					SetNumThreads(th)
					b.ReportAllocs()
					for i := 0; i < b.N; i++ {
						if path == "winograd" {
							convWinograd(&g, out, x, wino, nil)
						} else if path == "winograd4" {
							convWinograd(&g, out, x, wino4, nil)
						} else if path == "positions" {
							convPosF32(&g, out, x, pos, nil)
						} else if path == "packed" {
							convPackedRef(&g, x, w, out, pa)
						} else if path == "indirect" {
							convIndirectF32(&g, x, w, out, c.o, pa, false, nil, 0)
						} else {
							convIndirectF32(&g, x, w, out, c.o, paWide, true, nil, 0)
						}
					}
					b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}

// poisonPhaseScratch fills the pooled scratch buffers an indirect
// convolution of g takes for its phase planes with NaNs (as many as two
// threads take), so that a row an items call reads without copying it
// shows in the output, at one thread as at two.
func poisonPhaseScratch(g *conv2dGeom) {
	n := g.c / g.g * g.sh * g.sw * g.phaseRows() * g.flatWidth()
	for c := bits.Len(uint(n - 1)); c <= bits.Len(uint(2*n-1)); c++ {
		var held []*[]float32
		for p := scratchPools[c].Get(); p != nil; p = scratchPools[c].Get() {
			held = append(held, p)
		}
		for len(held) < 4 {
			s := make([]float32, 1<<c)
			held = append(held, &s)
		}
		for _, p := range held {
			s := (*p)[:cap(*p)]
			for i := range s {
				s[i] = float32(math.NaN())
			}
			scratchPools[c].Put(p)
		}
	}
}

// TestOwnRows checks ownRows against the reads themselves: for random
// geometries (oh output rows of ws flat columns in planes of hs >= oh rows,
// the deepest tap at most hs-oh rows and ws-1 columns on), panel widths,
// both panel layouts and ranges of panels, every index a panel reads for a
// column inside the flat output (a tap's offset within its plane plus the
// column; the last panel's columns past the output are dropped) lies in a
// row ownCopy copies, or past the plane in a row it copies or clears of the
// next one, or, where it copies every row of every plane, anywhere; and
// that it copies no row before the first read or after the last. The taps'
// offsets carry a phase plane's offset (ownReach drops it).
func TestOwnRows(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for it := 0; it < 50000; it++ {
		ws, oh := 1+r.Intn(40), 1+r.Intn(30)
		rowOff := r.Intn(4)
		hs := oh + rowOff + r.Intn(3)
		nr := 1 + r.Intn(64)
		ntot := oh * ws
		maxIn := rowOff*ws + r.Intn(ws) // the deepest tap's offset within its plane
		// Panels every nr flat columns, or by output row (ppr a row)
		// where a row's panels fit its flat row (convIndirectF32).
		npanels, at := (ntot+nr-1)/nr, func(jp int) int { return jp * nr }
		if ppr := (ws + nr - 1) / nr; r.Intn(2) == 0 && ppr*nr <= ws {
			npanels, at = oh*ppr, func(jp int) int { return jp/ppr*ws + jp%ppr*nr }
		}
		jp0 := r.Intn(npanels)
		jp1 := jp0 + 1 + r.Intn(npanels-jp0)
		f0, fLast := at(jp0), at(jp1-1)
		phase := r.Intn(4) * ws * hs // a stride's phase plane, which ownReach drops
		q0, q1, spill := ownRows(f0, fLast, ownReach([]int{phase, phase + maxIn}, ws*hs, nr), ws, hs)
		all := q0 == 0 && q1 == hs
		if last := (fLast + nr - 1 + maxIn) / ws; q0 != f0/ws || q1 != min(hs, last+1) {
			t.Fatalf("ws=%d oh=%d hs=%d nr=%d f0=%d fLast=%d: rows [%d,%d), the panels read rows %d to %d", ws, oh, hs, nr, f0, fLast, q0, q1, f0/ws, last)
		}
		for _, o := range []int{0, maxIn} {
			for f := f0; f <= min(fLast+nr, ntot)-1; f++ {
				row := (o + f) / ws
				ok := row >= q0 && row < q1
				if next := row - hs; next >= 0 {
					ok = next < spill || next >= q0 && next < q1 || all
				}
				if !ok {
					t.Fatalf("ws=%d oh=%d hs=%d nr=%d reach=%d f0=%d fLast=%d: index %d (row %d) outside rows [%d,%d) and spill %d",
						ws, oh, hs, nr, maxIn+nr, f0, fLast, o+f, row, q0, q1, spill)
				}
			}
		}
	}
}

// TestAlignedRowsLean checks alignedRows' choices: the rule of every level
// and processor, and at AVX-512 with alignRowsLean (AMD) only shallow
// windows with few extra columns.
func TestAlignedRowsLean(t *testing.T) {
	defer func(lean bool) { alignRowsLean = lean }(alignRowsLean)
	start := asm.CurrentLevel()
	defer func() { _ = asm.SetLevel(start) }()
	for _, c := range []struct {
		name             string
		c, w             int
		pl, pr           int
		wantAll, wantAMD bool
	}{
		{"3x3_c3_w224", 3, 224, 1, 1, true, true},     // 27 deep, 15 extra of 225
		{"3x3_c3_w64", 3, 64, 1, 1, true, false},      // 27 deep, 15 extra of 65
		{"3x3_c8_w256", 8, 256, 1, 1, true, false},    // 72 deep
		{"3x3_c1_w128", 1, 128, 1, 1, true, true},     // 9 deep: 135 <= 258
		{"3x3_c2_w128", 2, 128, 1, 1, true, false},    // 18 deep: 270 > 258
		{"3x3_c16_w224", 16, 224, 1, 1, false, false}, // 144 deep: past alignRowsMaxDepth
		{"3x3_c3_w48", 3, 48, 1, 1, false, false},     // 64 columns against 49: past a quarter more
		{"3x3_c3_w65", 3, 65, 1, 1, false, false},     // not a multiple of 16
	} {
		g := convGeomFor(c.c, 8, 8, c.w, 3, 3, 1, 1, 1, 1, 1, c.pl, 1, c.pr)
		for _, lean := range []bool{false, true} {
			alignRowsLean = lean
			for l := asm.LevelGo; l <= asm.MaxLevel(); l++ {
				if err := asm.SetLevel(l); err != nil {
					t.Fatal(err)
				}
				want := c.wantAll
				if lean && l == asm.LevelAVX512 {
					want = c.wantAMD
				}
				if got := g.alignedRows(); got != want {
					t.Errorf("%s lean=%v %s: alignedRows() = %v, want %v", c.name, lean, l, got, want)
				}
			}
		}
	}
}

// TestPlanPointwiseNarrowPanel checks the plan of pointwise convolutions
// with more output channels than convPointwiseIndirectWideMax: the
// indirect path where the wide tile suits the product and its narrow last
// panel computes fewer columns than the packed driver's panels
// (SqueezeNet's classifier on 13²), the packed driver elsewhere, and
// never at a level without narrow tiles.
func TestPlanPointwiseNarrowPanel(t *testing.T) {
	forEachLevel(t, func(l asm.Level) {
		_, _, wideOK := asm.SgemmIndirectTile(true)
		_, narrowOK := asm.SgemmIndirectNarrow(true, 1)
		for _, c := range []struct {
			c, o, h, w int
			want       bool // at a level with the wide tile and narrow panels
		}{
			{512, 1000, 13, 13, true},  // 169: 176 columns against 192
			{512, 1000, 12, 12, true},  // 144: 144 against 160
			{512, 1000, 8, 12, false},  // 96: 96 either way
			{512, 1000, 14, 14, false}, // 196: the wide tile's 240 columns against 224
			{512, 1000, 28, 28, false}, // 784: no padding either way
			{512, 300, 9, 9, false},    // 81: 96 either way
			{128, 512, 28, 28, false},
		} {
			g := convGeomFor(c.c, c.o, c.h, c.w, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0)
			p := planConvIndirect(&g, c.o)
			want := c.want && wideOK && narrowOK
			if p.indirect != want || p.indirect && !p.wide {
				t.Errorf("%s: %d->%d on %dx%d: plan %+v, want indirect=%v on the wide tile", l, c.c, c.o, c.h, c.w, p, want)
			}
		}
	})
}
