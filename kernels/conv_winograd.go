package kernels

import (
	"sync"
	"sync/atomic"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
)

// Winograd convolution F(2x2, 3x3) (Lavin and Gray, 2015) for 3x3,
// stride-1, padding-1 convolutions of many channels with constant weights
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
// The results differ from the direct convolution's by rounding (the
// transforms add and subtract inputs and products before and after the
// multiplications); both execution modes and every SIMD level compute the
// same bits (the transforms are fixed float32 operations with Go twins, the
// GEMMs bit-identical across levels).

// winoMinIn and winoMinOut are the fewest input and output channels taking
// the Winograd path: with fewer the transforms cost more than the products
// they save (ConvPaths, AVX-512, 1 thread: 3x3 32->128 on 27² 257 µs
// direct, 247 Winograd, and slower at 2 threads; 48->192 on 13² 163 →
// 128).
const (
	winoMinIn  = 48
	winoMinOut = 32
)

// winoMinTiles is the fewest 2x2 output tiles per channel taking it: with
// fewer the GEMMs' columns are too few for the micro-kernel's panels
// (512->512 on 7², 16 tiles: 1215 µs direct, 1455 Winograd).
const winoMinTiles = 49

// winoOK reports whether g takes the Winograd path.
func winoOK(g *conv2dGeom) bool {
	if g.g != 1 || g.kh != 3 || g.kw != 3 || g.sh != 1 || g.sw != 1 || g.dh != 1 || g.dw != 1 ||
		g.pt != 1 || g.pb != 1 || g.pl != 1 || g.pr != 1 || g.c < winoMinIn || g.o < winoMinOut {
		return false
	}
	return ((g.oh+1)/2)*((g.ow+1)/2) >= winoMinTiles
}

// winoEntry caches a registered constant 3x3 weight (o x c x 3 x 3)
// transformed for F(2x2, 3x3): U[ξ] (o x c, row-major) at u[ξ*o*c:], and
// U[ξ] packed for the GEMM tile of the level it was made at.
type winoEntry struct {
	once  sync.Once
	done  atomic.Bool
	o, c  int
	mr    int
	level asm.Level
	u     []float32
	pa    [16]*packedA
}

// constWino maps a registered constant *runtime.Tensor to its *winoEntry.
var constWino sync.Map

// constWinoWeights returns w's Winograd form, made on first use, or nil
// when w is not a registered constant.
func constWinoWeights(w *runtime.Tensor, o, c int) *winoEntry {
	if _, ok := constPacked.Load(w); !ok {
		return nil
	}
	mr, _ := asm.SgemmTile()
	e := cacheEntry[winoEntry](&constWino, w)
	if !e.done.Load() {
		e.once.Do(func() {
			e.o, e.c, e.mr, e.level = o, c, mr, asm.CurrentLevel()
			e.u = winoWeights(o, c, w.Float32s())
			for xi := range e.pa {
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

// winoWeights returns U[ξ][o][c] = (G g G^T)[r][s] (ξ = 4r+s) of each 3x3
// filter g = w[o][c], G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1],
// computed in float64 and rounded once.
func winoWeights(o, c int, w []float32) []float32 {
	gm := [4][3]float64{{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}}
	u := make([]float32, 16*o*c)
	for oc := 0; oc < o*c; oc++ {
		g := w[oc*9 : oc*9+9]
		var t [4][3]float64 // G g
		for r := 0; r < 4; r++ {
			for b := 0; b < 3; b++ {
				for a := 0; a < 3; a++ {
					t[r][b] += gm[r][a] * float64(g[a*3+b])
				}
			}
		}
		for r := 0; r < 4; r++ {
			for s := 0; s < 4; s++ {
				var x float64
				for b := 0; b < 3; b++ {
					x += t[r][b] * gm[s][b]
				}
				u[(4*r+s)*o*c+oc] = float32(x)
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
	chain                                *rowChain
	xn, on                               []float32 // one image's input and output
	p                                    []float32 // the parity planes, sub floats each, four per channel
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
	v, m, y        []float32
}

var winoPool = sync.Pool{New: func() any {
	j := new(winoJob)
	j.splitFn, j.inFn, j.mulFn, j.outFn, j.blockFn = j.split, j.in, j.mul, j.out, j.blocks
	return j
}}

// split writes input channels [lo, hi) into their parity planes.
func (j *winoJob) split(lo, hi int) {
	g, sub := &j.g, j.sub
	hw := g.h * g.w
	clear(j.p[lo*4*sub : hi*4*sub])
	phaseSplit2(j.p[lo*4*sub:hi*4*sub], 4*sub, sub, j.wq, j.xn[lo*hw:hi*hw], hw, hi-lo, g.h, g.w, 1, 1, 2)
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
	vsz := c * np // one ξ's packed matrix
	for ch := lo; ch < hi; ch++ {
		pc := ch / gemmKC * gemmKC
		kc := min(gemmKC, c-pc)
		src := j.p[ch*4*j.sub+b.k0:]
		for p := 0; p < npan; p++ {
			off := pc*np + p*kc*nr + (ch-pc)*nr
			asm.WinogradInF32(b.v[off:], vsz, src[p*nr:], j.sub, j.wq, nr)
		}
	}
}

// mul runs the products ξ in [lo, hi) of the current block.
func (j *winoJob) mul(lo, hi int) { j.mulBlock(&j.cur, lo, hi) }

func (j *winoJob) mulBlock(b *winoBlock, lo, hi int) {
	o, c, np, e := j.g.o, j.g.c, b.np, j.e
	for xi := lo; xi < hi; xi++ {
		pb := PackedB{k: c, n: np, nr: j.nr, npanels: np / j.nr, data: b.v[xi*c*np : (xi+1)*c*np], level: asm.CurrentLevel()}
		sgemmOn(true, false, o, np, c, 1, e.u[xi*o*c:(xi+1)*o*c], c, nil, &pb, 0, b.m[xi*o*np:(xi+1)*o*np], np, e.packed(xi))
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
	g, np, wq, o := &j.g, b.np, j.wq, j.g.o
	asm.WinogradOutF32(b.y[lo*np:], o*np, b.m[lo*np:], o*np, (hi-lo)*np)
	y0, y1 := 2*b.r0, min(2*b.r1, g.oh) // the block's output rows
	tb := getScratch(2 * (b.r1 - b.r0) * wq)
	defer putScratch(tb)
	t := *tb
	for oc := lo; oc < hi; oc++ {
		plane := j.on[oc*g.oh*g.ow : (oc+1)*g.oh*g.ow]
		for a := 0; a < 2; a++ {
			rows := min(b.r1, (g.oh-a+1)/2) - b.r0 // tile rows with an output row 2r+a
			if rows <= 0 {
				continue
			}
			ev := b.y[(2*a)*o*np+oc*np:]
			od := b.y[(2*a+1)*o*np+oc*np:]
			asm.Interleave2F32(t[:2*rows*wq], ev[:rows*wq], od)
			copyRows(plane[(2*b.r0+a)*g.ow:], 2*g.ow, t, 2*wq, rows, g.ow)
		}
		j.chain.applyAt(plane[y0*g.ow:y1*g.ow], oc, y0*g.ow, g.oh*g.ow)
	}
}

// block returns block bi's geometry (matrices not set).
func (j *winoJob) block(bi int) winoBlock {
	r0 := bi * j.rows
	r1 := min(r0+j.rows, j.ty)
	return winoBlock{r0: r0, r1: r1, k0: r0 * j.wq, np: ((r1-r0)*j.wq + j.nr - 1) / j.nr * j.nr}
}

// blocks runs blocks [lo, hi) whole, on this goroutine, each with
// matrices of its own.
func (j *winoJob) blocks(lo, hi int) {
	c, o := j.g.c, j.g.o
	for bi := lo; bi < hi; bi++ {
		b := j.block(bi)
		vb, mb, yb := getScratch(16*c*b.np), getScratch(16*o*b.np), getScratch(4*o*b.np)
		b.v, b.m, b.y = *vb, *mb, *yb
		j.inBlock(&b, 0, c)
		j.mulBlock(&b, 0, 16)
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
	j := winoPool.Get().(*winoJob)
	j.g, j.e, j.chain = *g, e, chain
	_, j.nr = asm.SgemmTile()
	j.ty = (g.oh + 1) / 2
	j.wq = (g.ow+1)/2 + 1
	j.sub = (j.ty + 1) * j.wq // one parity plane: rows 0..ty of wq
	c, o := g.c, g.o
	rowBytes := 4 * j.wq * (16*c + 20*o)
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
	pb := getScratch(4*c*j.sub + j.rows*j.wq + j.nr + j.wq + 32)
	j.p = *pb
	clear(j.p[4*c*j.sub:])
	var vb, mb, yb *[]float32
	if !byBlock {
		j.cur = j.block(0)
		vb, mb, yb = getScratch(16*c*j.cur.np), getScratch(16*o*j.cur.np), getScratch(4*o*j.cur.np)
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
			ParallelFor(16, 1, j.mulFn)
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
