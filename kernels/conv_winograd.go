package kernels

import (
	"sync"
	"sync/atomic"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/internal/freelist"
	"github.com/relaxgo/relaxgo/runtime"
)

// Winograd convolution F(2x2, 3x3) and F(4x4, 3x3) (Lavin and Gray, 2015) for 3x3,
// stride-1 convolutions (padding up to 2) of many channels with constant weights
// (ResNet's and SqueezeNet's 3x3 layers): each 2x2 block of outputs of
// each channel pair comes from 16 products instead of 36. The input is
// split into its row and column parity planes (the stride-2 phase split of
// the indirect convolution), so that tile (ty, tx)'s 4x4 patch is four
// runs at fixed offsets of flat index k = ty*wq + tx; asm.WinogradInF32
// turns each channel's patches into 16 matrices V[ξ] (channels x tiles),
// sixteen GEMMs M[ξ] = U[ξ]·V[ξ] with the transformed weights U (packed
// once per registered constant) do the multiplications, and
// asm.WinogradOutF32 turns the 16 products into the tile's 2x2 outputs,
// which are then interleaved into the output rows. Flat index k runs over
// wq = tx count + 1 columns per tile row (the last is junk, computed and
// dropped, as the indirect convolution's flat rows are).
//
// F(4x4, 3x3) is the same with 4x4 output tiles from 6x6 patches: the
// input split into its sixteen stride-4 phase planes (two parity splits),
// 36 matrices and products (2.25 products an output instead of 4), 4x4
// outputs interleaved back from four phase rows. It takes planes with
// enough 4x4 tiles (winoTile).
//
// The results differ from the direct convolution's by rounding (the
// transforms add and subtract inputs and products before and after the
// multiplications); both execution modes and every SIMD level compute the
// same bits (the transforms are fixed float32 operations with Go twins, the
// GEMMs bit-identical across levels).

// winoMinIn is the fewest input channels taking F(2x2, 3x3) or F(4x4,
// 3x3), winoMinOut the fewest output channels: with fewer the transforms
// cost more than the products they save (ConvPaths, AVX-512 AMD EPYC,
// direct on its best tile against F(2x2) and F(4x4): 3x3 32->128 on 27²
// 245, 182 and 161 µs at 1 thread, 176, 170 and 163 at 2; 3->32 on 64² 41,
// 88 and 82). Between 16 and 31 input channels F(4x4) ran faster than the
// direct path warm and alone on that machine (16->64 on 55²: 245 against
// 189 µs) but not in a model on two others: SqueezeNet's 16->64 3x3 on 55²
// took the indirect path faster in the model on an AVX2-only AMD EPYC
// (relaxgo profile, its two calls, alternated: 3.05/2.21/2.33/1.88 ms on
// F(4x4), 2.18/2.12/2.03/1.82 indirect) and on an AVX-512 Intel Xeon
// (three alternated pairs, a call: 2.19/1.91/2.05 ms on F(4x4),
// 1.51/1.11/1.27 indirect; `relaxgo profile --by shape --threads 1`), whose
// memory past the L2 is slow: F(4x4)'s 36 planes of products for 64
// channels (1.8 MB) do not stay in cache.
//
// With few output channels the input transform, whose cost does not depend
// on them, outweighs the products it saves: DenseNet-121's 128->32 growth
// layers took F(4x4) on 56² and 28² and F(2x2) on 14², and ran faster on
// the direct paths (ConvPaths, 1 thread, AVX-512 Intel Xeon: 56² 4.9-5.6
// ms F(4x4), 3.6-3.8 positions; 14² 0.36-0.38 F(2x2), 0.23-0.32 indirect;
// in the model, three alternated runs of `relaxgo profile --by shape
// --threads 1`, a call: 56² 2.75-2.90 -> 2.36-2.61 ms, 28² 0.66-0.90 ->
// 0.69-0.80, 14² 207-243 -> 176-203 µs; at 2 threads the same or faster).
// So from 64 output channels.
const (
	winoMinIn  = 32
	winoMinOut = 64
)

// winoMinTiles is the fewest 2x2 output tiles per channel taking it: with
// fewer the GEMMs' columns are too few for the micro-kernel's panels
// (512->512 on 7², 16 tiles: 1215 µs direct, 1455 Winograd).
const winoMinTiles = 49

// winoMinTiles4 is the fewest 4x4 output tiles per channel taking
// F(4x4, 3x3) instead of F(2x2, 3x3): with fewer the products' columns are
// too few (ConvPaths, AVX-512, 1 thread, F(2x2) against F(4x4): 64->64 on
// 56², 196 tiles, 720 and 545 µs; 128->128 on 28², 49 tiles, 599 and 453;
// 256->256 on 14², 16 tiles, 611 and 796; 64->256 on 13², 177 and 255).
const winoMinTiles4 = 49

// winoTile returns the output tile size of g's Winograd convolution
// (winoOK): 4 when the plane has winoMinTiles4 tiles of 4x4 (and g
// winoMinIn input channels), else 2.
func winoTile(g *conv2dGeom) int {
	if g.c >= winoMinIn && winoTiles(g, 4) >= winoMinTiles4 {
		return 4
	}
	return 2
}

// winoFewIn and winoFewTiles4: a convolution of fewer than winoFewIn input
// channels takes the Winograd path on planes of at least winoFewTiles4 4x4
// output tiles (a 56x56 plane) only. Its products are shallow, so the
// transforms weigh more, and in a model its 36 planes of products come
// from beyond the L2. In the model (`relaxgo profile --by shape --threads
// 1`, AVX-512 Intel Xeon, alternated, a layer's calls): SqueezeNet's two
// 32->128 on 27² (49 tiles) 1.56-1.84 ms F(4x4), 1.09-1.35 direct (one run
// 1.73); GoogLeNet's 32->128 on 14² 231-377 µs F(2x2), 197-297 direct,
// 32->64 on 14² 120-208 and 102-168, 32->96 on 28² 678-954 and 633-926
// (six runs each); but Inception-v3's 32->64 on 147² (1369 tiles) 9.9-11.6
// ms F(4x4), 10.6-14.8 direct (four runs). Between 49 and 1369 tiles the
// cut is not measured.
const (
	winoFewIn     = 48
	winoFewTiles4 = 196
)

// winoOK reports whether g takes the Winograd path.
func winoOK(g *conv2dGeom) bool {
	if !winoShape(g) || g.o < winoMinOut {
		return false
	}
	if g.c < winoFewIn && winoTiles(g, 4) < winoFewTiles4 {
		return false
	}
	if winoTile(g) == 4 {
		return true
	}
	return g.c >= winoMinIn && winoTiles(g, 2) >= winoMinTiles
}

// winoTiles is the number of t x t output tiles of g's plane.
func winoTiles(g *conv2dGeom, t int) int {
	return ((g.oh + t - 1) / t) * ((g.ow + t - 1) / t)
}

// winoShape reports whether g is a convolution the Winograd path computes:
// one group, 3x3, stride 1, undilated, padding of at most 2 on every side.
// Padded row (column) r of the input is output row r's first tap at any
// padding: the split places the input pt rows and pl columns into its
// cleared phase planes, and the tiles past the output read zeros there.
// Padding 0 (Inception-v3's 80->192 on 73², a valid convolution) ran on the
// direct path at 177 GFLOP/s, where ONNX Runtime's ran at 211 (its 32->32
// on 149² stays direct, below winoMinOut); more than 2 would make tiles of
// padding only.
func winoShape(g *conv2dGeom) bool {
	return g.g == 1 && g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 &&
		g.pt <= 2 && g.pb <= 2 && g.pl <= 2 && g.pr <= 2
}

// winoEntry caches a registered constant 3x3 weight (o x c x 3 x 3)
// transformed for F(t x t, 3x3): U[ξ] (o x c, row-major) at u[ξ*o*c:], ξ <
// (t+2)², and U[ξ] packed for the GEMM tile of the level it was made at.
type winoEntry struct {
	once  sync.Once
	done  atomic.Bool
	t     int
	o, c  int
	mr    int
	level asm.Level
	u     []float32
	pa    [36]*packedA
}

// constWino and constWino4 map a registered constant *runtime.Tensor to its
// *winoEntry for F(2x2, 3x3) and F(4x4, 3x3).
var constWino, constWino4 sync.Map

// constWinoWeights returns w's form for F(t x t, 3x3), made on first use,
// or nil when w is not a registered constant.
func constWinoWeights(w *runtime.Tensor, t, o, c int) *winoEntry {
	if _, ok := constPacked.Load(w); !ok {
		return nil
	}
	mr, _ := asm.SgemmTile()
	m := &constWino
	if t == 4 {
		m = &constWino4
	}
	e := cacheEntry[winoEntry](m, w)
	if !e.done.Load() {
		e.once.Do(func() {
			e.t, e.o, e.c, e.mr, e.level = t, o, c, mr, asm.CurrentLevel()
			e.u = winoWeights(t, o, c, w.Float32s())
			for xi := range (t + 2) * (t + 2) {
				e.pa[xi] = packA(o, c, e.u[xi*o*c:(xi+1)*o*c], c, mr)
			}
			e.done.Store(true)
		})
	}
	if e.o != o || e.c != c {
		return nil
	}
	return e
}

// packed returns U[ξ] packed for the current level's tile, or nil when the
// packing was made at another level (the GEMM then packs U[ξ] itself, to
// the same bits).
func (e *winoEntry) packed(xi int) *packedA {
	if mr, _ := asm.SgemmTile(); e.mr != mr || e.level != asm.CurrentLevel() {
		return nil
	}
	return e.pa[xi]
}

// winoG2 and winoG4 are G of F(2x2, 3x3) and F(4x4, 3x3).
var (
	winoG2 = [][3]float64{{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}}
	winoG4 = [][3]float64{{0.25, 0, 0}, {-1.0 / 6, -1.0 / 6, -1.0 / 6}, {-1.0 / 6, 1.0 / 6, -1.0 / 6},
		{1.0 / 24, 1.0 / 12, 1.0 / 6}, {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}}
)

// winoWeights returns U[ξ][o][c] = (G g G^T)[r][s] (ξ = (t+2)r+s) of each
// 3x3 filter g = w[o][c] for F(t x t, 3x3), computed in float64 and
// rounded once.
func winoWeights(t, o, c int, w []float32) []float32 {
	gm := winoG2
	if t == 4 {
		gm = winoG4
	}
	np := len(gm)
	u := make([]float32, np*np*o*c)
	for oc := 0; oc < o*c; oc++ {
		g := w[oc*9 : oc*9+9]
		var tg [6][3]float64 // G g
		for r := 0; r < np; r++ {
			for b := 0; b < 3; b++ {
				for a := 0; a < 3; a++ {
					tg[r][b] += gm[r][a] * float64(g[a*3+b])
				}
			}
		}
		for r := 0; r < np; r++ {
			for s := 0; s < np; s++ {
				var x float64
				for b := 0; b < 3; b++ {
					x += tg[r][b] * gm[s][b]
				}
				u[(np*r+s)*o*c+oc] = float32(x)
			}
		}
	}
	return u
}

// winoJob is one Winograd convolution, one image at a time: the input is
// split into its parity planes (over the workers by channel), then the
// tiles are transformed, multiplied and transformed back by blocks of tile
// rows. Large planes make many blocks of a few rows each, whose matrices
// stay in cache, run whole by each worker (the 16 products on its
// goroutine); few blocks (one, for most planes) run their three phases
// each over the workers: the input transform by channel, the products by
// ξ, the output transform by output channel. Pooled, with the functions
// bound once.
type winoJob struct {
	g                                    conv2dGeom
	e                                    *winoEntry
	t, nxi, nph                          int // output tile size, products (t+2)², phase planes a channel (t²)
	chain                                *rowChain
	xn, on                               []float32 // one image's input and output
	p                                    []float32 // the phase planes, sub floats each, nph per channel
	wq, sub                              int
	ty, rows                             int       // tile rows, and per block
	nr                                   int       // the GEMM tile's columns: a block's tiles are whole panels of nr
	cur                                  winoBlock // the block the phase functions work on
	splitFn, inFn, mulFn, outFn, blockFn func(lo, hi int)
}

// winoBlock is a block of tile rows [r0, r1): flat tiles k0 = r0*wq on,
// np of them (whole GEMM panels, the last ones junk), and its matrices.
type winoBlock struct {
	r0, r1, k0, np int
	vs, ms         int // the distances between ξ's matrices in v, and in m and y (winoStride)
	v, m, y        []float32
}

var winoPool = freelist.List[*winoJob]{New: func() *winoJob {
	j := new(winoJob)
	j.splitFn, j.inFn, j.mulFn, j.outFn, j.blockFn = j.split, j.in, j.mul, j.out, j.blocks
	return j
}}

// split writes input channels [lo, hi) into their phase planes.
func (j *winoJob) split(lo, hi int) {
	g, sub, nph := &j.g, j.sub, j.nph
	hw := g.h * g.w
	clear(j.p[lo*nph*sub : hi*nph*sub])
	if j.t == 4 {
		phaseSplit4(j.p[lo*nph*sub:hi*nph*sub], nph*sub, sub, j.wq, j.xn[lo*hw:hi*hw], hw, hi-lo, g.h, g.w, g.pt, g.pl)
		return
	}
	phaseSplit2(j.p[lo*nph*sub:hi*nph*sub], nph*sub, sub, j.wq, j.xn[lo*hw:hi*hw], hw, hi-lo, g.h, g.w, g.pt, g.pl, 2)
}

// phaseSplit4 writes batch h x w planes (srcBatch apart), padded by pt rows
// above and pl columns left, into their sixteen stride-4 phase planes:
// padded row 4R+a, column 4C+b of plane p goes to dst[p*dstBatch +
// (4a+b)*sub + R*wq + C]. Each row phase's rows are split by column parity
// into scratch, and each half again (asm.Deinterleave2RowsBatchF32, twice).
func phaseSplit4(dst []float32, dstBatch, sub, wq int, src []float32, srcBatch, batch, h, w, pt, pl int) {
	ne, no := (w+1)/2, w/2 // even and odd source columns
	for a := 0; a < 4; a++ {
		r0 := ((a-pt)%4 + 4) % 4 // the first source row of padded row phase a
		if r0 >= h {
			continue
		}
		rows := (h - r0 + 3) / 4
		R0 := (r0 + pt) / 4
		// Both halves in rows of ne, sets of rows*ne.
		eb, ob := getScratch(batch*rows*ne), getScratch(batch*rows*ne)
		ev, od := (*eb)[:batch*rows*ne], (*ob)[:batch*rows*ne]
		deint2Rows(ev, od, ne, rows*ne, src[r0*w:], 4*w, srcBatch, rows, batch, w)
		// Source column 4m+s is padded column 4m+s+pl: phase (s+pl)%4 at
		// m + (s+pl)/4. The even half holds s = 0, 2; the odd one s = 1, 3.
		plane := func(s int) []float32 {
			q := s + pl
			return dst[(4*a+q%4)*sub+R0*wq+q/4:]
		}
		deint2Rows(plane(0), plane(2), wq, dstBatch, ev, ne, rows*ne, rows, batch, ne)
		if no > 0 {
			deint2Rows(plane(1), plane(3), wq, dstBatch, od, ne, rows*ne, rows, batch, no)
		}
		putScratch(eb)
		putScratch(ob)
	}
}

// deint2Rows splits batch sets of rows rows of w values (srcStride apart,
// sets srcBatch apart) into their even columns (ev) and odd ones (od),
// rows dstStride apart and sets dstBatch apart in each.
func deint2Rows(ev, od []float32, dstStride, dstBatch int, src []float32, srcStride, srcBatch, rows, batch, w int) {
	if np := w / 2; np > 0 {
		asm.Deinterleave2RowsBatchF32(ev, od, dstStride, dstBatch, src, srcStride, srcBatch, rows, np, batch)
	}
	if w%2 == 1 {
		for b := 0; b < batch; b++ {
			for r := 0; r < rows; r++ {
				ev[b*dstBatch+r*dstStride+w/2] = src[b*srcBatch+r*srcStride+w-1]
			}
		}
	}
}

// in transforms input channels [lo, hi) of the current block.
func (j *winoJob) in(lo, hi int) { j.inBlock(&j.cur, lo, hi) }

// V[ξ] is written straight in the GEMM's packed-B layout (depth blocks of
// gemmKC channels, each a run of column panels of nr tiles, channel-major
// inside a panel), one transform call per channel and panel, so the
// products read it without packing it again.
func (j *winoJob) inBlock(b *winoBlock, lo, hi int) {
	c, np, nr := j.g.c, b.np, j.nr
	npan := np / nr
	vsz := b.vs // one ξ's packed matrix and the padding after it
	for ch := lo; ch < hi; ch++ {
		pc := ch / gemmKC * gemmKC
		kc := min(gemmKC, c-pc)
		src := j.p[ch*j.nph*j.sub+b.k0:]
		for p := 0; p < npan; p++ {
			off := pc*np + p*kc*nr + (ch-pc)*nr
			if j.t == 4 {
				asm.WinogradIn6F32(b.v[off:], vsz, src[p*nr:], j.sub, j.wq, nr)
			} else {
				asm.WinogradInF32(b.v[off:], vsz, src[p*nr:], j.sub, j.wq, nr)
			}
		}
	}
}

// mul runs the products ξ in [lo, hi) of the current block.
func (j *winoJob) mul(lo, hi int) { j.mulBlock(&j.cur, lo, hi) }

func (j *winoJob) mulBlock(b *winoBlock, lo, hi int) {
	o, c, np, e := j.g.o, j.g.c, b.np, j.e
	for xi := lo; xi < hi; xi++ {
		pb := PackedB{k: c, n: np, nr: j.nr, npanels: np / j.nr, data: b.v[xi*b.vs : xi*b.vs+c*np], level: asm.CurrentLevel()}
		sgemmOn(true, false, o, np, c, 1, e.u[xi*o*c:(xi+1)*o*c], c, nil, &pb, 0, b.m[xi*b.ms:xi*b.ms+o*np], np, e.packed(xi))
	}
}

// out transforms the current block's products of output channels [lo,
// hi) into their output rows, then runs the chain on those rows.
func (j *winoJob) out(lo, hi int) { j.outBlock(&j.cur, lo, hi) }

// outBlock transforms the block's products of output channels [lo, hi)
// into their output rows: for each channel and row parity a, the tile rows'
// even and odd columns (wq pairs a tile row) interleave in one call into
// scratch rows of 2*wq values, whose first ow values are output rows 2r+a
// (an odd width's last column is the even half's next element, which the
// run holds), copied out in one call; then the chain runs on the rows.
// An interleave per output row cost more: rows of 7 or 14 outputs (3 or 7
// pairs) went to its Go tail (BenchmarkConvPaths winograd, 1 thread:
// 48x192 on 13² 134 → 113 µs, 256x256 on 14² 687 → 645, 64x64 on 56² 889 →
// 848).
func (j *winoJob) outBlock(b *winoBlock, lo, hi int) {
	g, np, wq, T := &j.g, b.np, j.wq, j.t
	if T == 4 {
		asm.WinogradOut6F32(b.y[lo*np:], b.ms, b.m[lo*np:], b.ms, (hi-lo)*np)
	} else {
		asm.WinogradOutF32(b.y[lo*np:], b.ms, b.m[lo*np:], b.ms, (hi-lo)*np)
	}
	y0, y1 := T*b.r0, min(T*b.r1, g.oh) // the block's output rows
	n := (b.r1 - b.r0) * wq             // a phase row's values
	// The interleaved rows (T*n), and for F(4x4) the two interleaved pairs
	// after them (2n each).
	scratch := T * n
	if T == 4 {
		scratch += 4 * n
	}
	tb := getScratch(scratch)
	defer putScratch(tb)
	t := *tb
	for oc := lo; oc < hi; oc++ {
		plane := j.on[oc*g.oh*g.ow : (oc+1)*g.oh*g.ow]
		for a := 0; a < T; a++ {
			rows := min(b.r1, (g.oh-a+T-1)/T) - b.r0 // tile rows with an output row T*r+a
			if rows <= 0 {
				continue
			}
			ph := func(bb int) []float32 { return b.y[(T*a+bb)*b.ms+oc*np:][:rows*wq] }
			if T == 2 {
				asm.Interleave2F32(t[:2*rows*wq], ph(0), ph(1))
			} else {
				// Columns 4k+b from phase b: (0,2) and (1,3) pairs, then
				// the pairs interleaved.
				p02, p13 := t[4*n:4*n+2*rows*wq], t[6*n:6*n+2*rows*wq]
				asm.Interleave2F32(p02, ph(0), ph(2))
				asm.Interleave2F32(p13, ph(1), ph(3))
				asm.Interleave2F32(t[:4*rows*wq], p02, p13)
			}
			copyRows(plane[(T*b.r0+a)*g.ow:], T*g.ow, t, T*wq, rows, g.ow)
		}
		j.chain.applyAt(plane[y0*g.ow:y1*g.ow], oc, y0*g.ow, g.oh*g.ow)
	}
}

// block returns block bi's geometry (matrices not set).
func (j *winoJob) block(bi int) winoBlock {
	r0 := bi * j.rows
	r1 := min(r0+j.rows, j.ty)
	np := ((r1-r0)*j.wq + j.nr - 1) / j.nr * j.nr
	return winoBlock{r0: r0, r1: r1, k0: r0 * j.wq, np: np, vs: winoStride(j.g.c * np), ms: winoStride(j.g.o * np)}
}

// winoStride is the distance between a block's matrices of n floats: past
// n to 64 bytes beyond a multiple of 4 KiB. The transforms write and read
// 16 or 36 matrices at once, one vector in each; at distances that are
// multiples of 4 KiB (64 channels of 48 tiles: 12 KiB) those vectors fall
// in one set of the L1 cache and evict each other.
func winoStride(n int) int { return (n+1023)/1024*1024 + 16 }

// blocks runs blocks [lo, hi) whole, on this goroutine, each with
// matrices of its own.
func (j *winoJob) blocks(lo, hi int) {
	c, o := j.g.c, j.g.o
	for bi := lo; bi < hi; bi++ {
		b := j.block(bi)
		vb, mb, yb := getScratch(j.nxi*b.vs), getScratch(j.nxi*b.ms), getScratch(j.t*j.t*b.ms)
		b.v, b.m, b.y = *vb, *mb, *yb
		j.inBlock(&b, 0, c)
		j.mulBlock(&b, 0, j.nxi)
		j.outBlock(&b, 0, o)
		putScratch(vb)
		putScratch(mb)
		putScratch(yb)
	}
}

// winoWholeBytes is the size of an image's matrices up to which its tiles
// make one block: the products' columns are then as many as can be
// (ConvPaths, 1 thread: 3x3 128->128 on 28², 3.9 MiB, 723 µs whole, 792 in
// two blocks); past it, blocks of rows keep within winoBlockBytes, about
// the L2 cache (64->64 on 56², 6.6 MiB whole: 895 µs → 868).
const (
	winoWholeBytes = 4 << 20
	winoBlockBytes = 1 << 20
)

// winoBlockCols is the fewest tiles a block of several rows gets: the
// products' columns, enough for the micro-kernel's panels.
const winoBlockCols = 96

// convWinograd computes the convolution g (winoOK) of x into out with the
// transformed weights e, then the chain on each output plane.
func convWinograd(g *conv2dGeom, out, x []float32, e *winoEntry, chain *rowChain) {
	j := winoPool.Get()
	j.g, j.e, j.chain = *g, e, chain
	_, j.nr = asm.SgemmTile()
	T := e.t
	j.t, j.nxi, j.nph = T, (T+2)*(T+2), T*T
	j.ty = (g.oh + T - 1) / T
	j.wq = (g.ow+T-1)/T + 1
	j.sub = (j.ty + 1) * j.wq // one phase plane: rows 0..ty of wq
	c, o := g.c, g.o
	rowBytes := 4 * j.wq * (j.nxi*c + (j.nxi+T*T)*o)
	j.rows = j.ty
	if j.ty*rowBytes > winoWholeBytes {
		j.rows = min(j.ty, max(winoBlockBytes/rowBytes, (winoBlockCols+j.wq-1)/j.wq))
	}
	nblk := (j.ty + j.rows - 1) / j.rows
	threads := NumThreads()
	byBlock := nblk >= 2*threads || threads == 1
	if !byBlock {
		j.rows, nblk = j.ty, 1
	}
	// The input transform reads up to np+wq+1 past a channel's last plane
	// (np at most a block's tiles plus nr-1).
	pb := getScratch(j.nph*c*j.sub + j.rows*j.wq + j.nr + j.wq + 32)
	j.p = *pb
	clear(j.p[j.nph*c*j.sub:])
	var vb, mb, yb *[]float32
	if !byBlock {
		j.cur = j.block(0)
		vb, mb, yb = getScratch(j.nxi*j.cur.vs), getScratch(j.nxi*j.cur.ms), getScratch(T*T*j.cur.ms)
		j.cur.v, j.cur.m, j.cur.y = *vb, *mb, *yb
	}
	for img := 0; img < g.n; img++ {
		j.xn = x[img*c*g.h*g.w : (img+1)*c*g.h*g.w]
		j.on = out[img*o*g.oh*g.ow : (img+1)*o*g.oh*g.ow]
		switch {
		case threads == 1:
			j.split(0, c)
			j.blocks(0, nblk)
		case byBlock:
			ParallelFor(c, 1, j.splitFn)
			ParallelFor(nblk, 1, j.blockFn)
		default:
			ParallelFor(c, 1, j.splitFn)
			ParallelFor(c, 1, j.inFn)
			ParallelFor(j.nxi, 1, j.mulFn)
			ParallelFor(o, 1, j.outFn)
		}
	}
	putScratch(pb)
	if vb != nil {
		putScratch(vb)
		putScratch(mb)
		putScratch(yb)
	}
	splitFn, inFn, mulFn, outFn, blockFn := j.splitFn, j.inFn, j.mulFn, j.outFn, j.blockFn
	*j = winoJob{splitFn: splitFn, inFn: inFn, mulFn: mulFn, outFn: outFn, blockFn: blockFn}
	winoPool.Put(j)
}
