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

// winoMaxBytes bounds the transformed input and the products (16 matrices
// each) of one image: past a few MiB the transforms wait on memory, and
// the direct convolution wins at 2 threads (64->64 on 56², 6.6 MiB: 571
// µs direct, 604 Winograd; 1 thread 965 → 895).
const winoMaxBytes = 4 << 20

// winoOK reports whether g takes the Winograd path.
func winoOK(g *conv2dGeom) bool {
	if g.g != 1 || g.kh != 3 || g.kw != 3 || g.sh != 1 || g.sw != 1 || g.dh != 1 || g.dw != 1 ||
		g.pt != 1 || g.pb != 1 || g.pl != 1 || g.pr != 1 || g.c < winoMinIn || g.o < winoMinOut {
		return false
	}
	ty, tx := (g.oh+1)/2, (g.ow+1)/2
	np := (ty*(tx+1) + 15) &^ 15
	return ty*tx >= winoMinTiles && 16*4*(g.c+g.o)*np <= winoMaxBytes
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
	v, ok := constWino.Load(w)
	if !ok {
		v, _ = constWino.LoadOrStore(w, &winoEntry{})
	}
	e := v.(*winoEntry)
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

// winoJob is one Winograd convolution's image, its three phases run over
// the workers: the input transform by channel, the 16 products by ξ (each
// on one goroutine), the output transform and interleave by output
// channel. Pooled, with the phase functions bound once.
type winoJob struct {
	g                  conv2dGeom
	e                  *winoEntry
	chain              *rowChain
	xn, on             []float32 // one image's input and output
	p, v, m, y         []float32
	wq, sub, ty, np    int
	inFn, mulFn, outFn func(lo, hi int)
}

var winoPool = sync.Pool{New: func() any {
	j := new(winoJob)
	j.inFn, j.mulFn, j.outFn = j.in, j.mul, j.out
	return j
}}

// in transforms input channels [lo, hi).
func (j *winoJob) in(lo, hi int) {
	g, sub, wq, np := &j.g, j.sub, j.wq, j.np
	for ch := lo; ch < hi; ch++ {
		pc := j.p[ch*4*sub : (ch+1)*4*sub]
		clear(pc)
		phaseSplit2(pc, sub, wq, j.xn[ch*g.h*g.w:(ch+1)*g.h*g.w], g.h, g.w, 1, 1, 2)
		asm.WinogradInF32(j.v[ch*np:], g.c*np, j.p[ch*4*sub:], sub, wq, np)
	}
}

// mul runs the products ξ in [lo, hi).
func (j *winoJob) mul(lo, hi int) {
	o, c, np, e := j.g.o, j.g.c, j.np, j.e
	for xi := lo; xi < hi; xi++ {
		src := gemmB{b: j.v[xi*c*np : (xi+1)*c*np], ldb: np}
		sgemmOn(true, false, o, np, c, 1, e.u[xi*o*c:(xi+1)*o*c], c, &src, 0, j.m[xi*o*np:(xi+1)*o*np], np, e.packed(xi))
	}
}

// out transforms the products of output channels [lo, hi) into their
// planes, then runs the chain on them.
func (j *winoJob) out(lo, hi int) {
	g, np, wq, o := &j.g, j.np, j.wq, j.g.o
	asm.WinogradOutF32(j.y[lo*np:], o*np, j.m[lo*np:], o*np, (hi-lo)*np)
	for oc := lo; oc < hi; oc++ {
		plane := j.on[oc*g.oh*g.ow : (oc+1)*g.oh*g.ow]
		for r := 0; r < j.ty; r++ {
			for a := 0; a < 2 && 2*r+a < g.oh; a++ {
				row := plane[(2*r+a)*g.ow : (2*r+a+1)*g.ow]
				ev := j.y[(2*a)*o*np+oc*np+r*wq:]
				od := j.y[(2*a+1)*o*np+oc*np+r*wq:]
				asm.Interleave2F32(row, ev[:g.ow/2], od)
				if g.ow%2 == 1 {
					row[g.ow-1] = ev[g.ow/2]
				}
			}
		}
		j.chain.apply(plane, oc)
	}
}

// convWinograd computes the convolution g (winoOK) of x into out with the
// transformed weights e, then the chain on each output plane.
func convWinograd(g *conv2dGeom, out, x []float32, e *winoEntry, chain *rowChain) {
	j := winoPool.Get().(*winoJob)
	j.g, j.e, j.chain = *g, e, chain
	j.ty = (g.oh + 1) / 2
	j.wq = (g.ow+1)/2 + 1
	j.sub = (j.ty + 1) * j.wq // one parity plane: rows 0..ty of wq
	n := j.ty * j.wq          // flat tiles, the last column of each row junk
	j.np = (n + 15) &^ 15     // rounded to whole vectors
	c, o, np := g.c, g.o, j.np
	// The input transform reads up to np+wq+1 past a channel's last plane.
	pb := getScratch(4*c*j.sub + np + j.wq + 16)
	vb := getScratch(16 * c * np)
	mb := getScratch(16 * o * np)
	yb := getScratch(4 * o * np)
	j.p, j.v, j.m, j.y = *pb, *vb, *mb, *yb
	clear(j.p[4*c*j.sub:])
	par := NumThreads() > 1
	for img := 0; img < g.n; img++ {
		j.xn = x[img*c*g.h*g.w : (img+1)*c*g.h*g.w]
		j.on = out[img*o*g.oh*g.ow : (img+1)*o*g.oh*g.ow]
		if par {
			ParallelFor(c, 1, j.inFn)
			ParallelFor(16, 1, j.mulFn)
			ParallelFor(o, 1, j.outFn)
		} else {
			j.in(0, c)
			j.mul(0, 16)
			j.out(0, o)
		}
	}
	putScratch(pb)
	putScratch(vb)
	putScratch(mb)
	putScratch(yb)
	inFn, mulFn, outFn := j.inFn, j.mulFn, j.outFn
	*j = winoJob{inFn: inFn, mulFn: mulFn, outFn: outFn}
	winoPool.Put(j)
}
