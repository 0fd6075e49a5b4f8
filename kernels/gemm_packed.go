package kernels

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
)

// PackedB is a GEMM B operand (k x n) packed once into the blocked driver's
// micro-panel layout, for constant weights: SgemmPacked then skips packing B
// on every call. For each depth block pc (kc = gemmDepth(pc, k) deep)
// and each nr-wide column panel jp, the panel holds kc rows of nr
// values, dst[p*nr+j] = op(B)[pc+p][jp*nr+j], zero beyond column n. The
// blocking and the micro-kernel are those of Sgemm, so results are
// bit-identical to Sgemm on the unpacked matrix.
type PackedB struct {
	k, n, nr int
	npanels  int       // column panels over all of n
	data     []float32 // block pc starts at pc*npanels*nr
	level    asm.Level // the SIMD level whose tile width nr is
}

// K and N report the packed operand's shape.
func (p *PackedB) K() int { return p.k }

// N reports the number of columns of the packed operand.
func (p *PackedB) N() int { return p.n }

// usable reports whether the packing matches the active micro-kernel tiles
// (the main and small tiles' width, or the wide tile's).
func (p *PackedB) usable() bool {
	if p == nil || asm.CurrentLevel() != p.level {
		return false
	}
	_, nr := asm.SgemmTile()
	_, snr := asm.SgemmTileSmall()
	_, wnr, wide := asm.SgemmTileWide()
	return (p.nr == nr && snr == nr) || (wide && p.nr == wnr)
}

// PackB packs op(B) (k x n; B is k x n with row stride ldb, or n x k if
// transB) for the active SIMD level's micro-kernel.
func PackB(transB bool, k, n int, b []float32, ldb int) (*PackedB, error) {
	if k < 0 || n < 0 {
		return nil, fmt.Errorf("kernels: PackB: negative size k=%d n=%d", k, n)
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	if err := gemmCheckMat("B", br, bc, len(b), ldb); err != nil {
		return nil, err
	}
	_, nr := asm.SgemmTile()
	return packBFor(transB, k, n, b, ldb, nr), nil
}

// packBFor is PackB for panels nr wide (a tile width of the active level).
func packBFor(transB bool, k, n int, b []float32, ldb, nr int) *PackedB {
	np := (n + nr - 1) / nr
	p := &PackedB{k: k, n: n, nr: nr, npanels: np, data: make([]float32, k*np*nr), level: asm.CurrentLevel()}
	for pc, kc := 0, 0; pc < k; pc += kc {
		kc = gemmDepth(pc, k)
		blk := p.data[pc*np*nr:]
		for jp := 0; jp < np; jp++ {
			gemmPackB(transB, b, ldb, pc, kc, jp*nr, min(nr, n-jp*nr), nr, blk[jp*kc*nr:(jp+1)*kc*nr])
		}
	}
	return p
}

// SgemmPacked is SgemmEx with B given packed: C = alpha*op(A)*B + beta*C,
// then the epilogue (nil for none). op(A) is m x pb.K(), C is m x pb.N().
// When pb was packed for another SIMD level it unpacks nothing and fails.
func SgemmPacked(transA bool, m int, alpha float32, a []float32, lda int, pb *PackedB, beta float32, c []float32, ldc int, ep *GemmEpilogue) error {
	if pb == nil {
		return fmt.Errorf("kernels: SgemmPacked: nil PackedB")
	}
	if !pb.usable() {
		return fmt.Errorf("kernels: SgemmPacked: B was packed for SIMD level %s (tile width %d), active level is %s", pb.level, pb.nr, asm.CurrentLevel())
	}
	return sgemmEx(transA, false, m, pb.n, pb.k, alpha, a, lda, nil, max(1, pb.n), beta, c, ldc, ep, pb)
}

// Constant weights. A tensor registered with RegisterConstant is promised
// never to change; the matmul kernels then use its packed form (made on
// first use, cached per *runtime.Tensor) when it is the B operand. Model
// loaders call RegisterConstant for their parameters.
var constPacked sync.Map // *runtime.Tensor -> *constEntry

type constEntry struct {
	once  sync.Once // sets tr, k, n, valid on first use
	tr    bool      // the packings are of the transpose (matmul with transB)
	k, n  int
	valid bool // a float32 matrix that packs
	// The packings for the main tile and for the wide tile
	// (asm.SgemmTileWide), each made on first use by a product that runs
	// on it.
	onceMain, onceWide sync.Once
	pb, pbWide         *PackedB
}

// RegisterConstant marks t, a float32 tensor, as an immutable weight whose
// derived forms may be cached on first use: a matrix's (a matmul's B)
// packed GEMM form (a copy as large as t, padded to whole micro-panels), a
// 4-D convolution weight's packed or transformed forms, and the scalar
// tables of convolution chains whose operands (biases, scales, clip
// bounds, of any rank) are all constants. Registering a tensor that is
// later written gives stale results; UnregisterConstant drops the cache
// entries.
func RegisterConstant(t *runtime.Tensor) {
	if t != nil && t.DType() == runtime.Float32 {
		constPacked.LoadOrStore(t, &constEntry{})
	}
}

// IsConstant reports whether t is registered with RegisterConstant (and
// not since unregistered).
func IsConstant(t *runtime.Tensor) bool {
	_, ok := constPacked.Load(t)
	return ok
}

// UnregisterConstant forgets t's packed forms.
func UnregisterConstant(t *runtime.Tensor) {
	if v, ok := constViews.LoadAndDelete(t); ok {
		UnregisterConstant(v.(*runtime.Tensor))
	}
	constPacked.Delete(t)
	constConvA.Delete(t)
	constConvAWide.Delete(t)
	constWino.Delete(t)
	constWino4.Delete(t)
	constDWNC.Delete(t)
	constPos.Delete(t)
	constVec.Delete(t)
	forgetChains(t)
}

// cacheEntry returns m's entry for key, storing a new zero E on first use:
// the per-constant caches of packed and transformed weights. Load comes
// before LoadOrStore, whose argument would otherwise be allocated on every
// call.
func cacheEntry[E any](m *sync.Map, key any) *E {
	v, ok := m.Load(key)
	if !ok {
		v, _ = m.LoadOrStore(key, new(E))
	}
	return v.(*E)
}

// constPackedB returns the cached packing of the registered constant b for
// op(B) = b (or its transpose), or nil; with wide, the packing for the wide
// tile (see gemmUseWide).
func constPackedB(b *runtime.Tensor, transB, wide bool) *PackedB {
	v, ok := constPacked.Load(b)
	if !ok {
		return nil
	}
	e := v.(*constEntry)
	e.once.Do(func() {
		s := b.Shape()
		e.tr = transB
		if len(s) != 2 {
			return
		}
		e.k, e.n = int(s[0]), int(s[1])
		if transB {
			e.k, e.n = e.n, e.k
		}
		// An invalid operand is left unpacked: the matmul then runs
		// unpacked, and its own checks report the problem.
		br, bc := e.k, e.n
		if transB {
			br, bc = bc, br
		}
		e.valid = gemmCheckMat("B", br, bc, len(b.Float32s()), int(s[1])) == nil
	})
	if e.tr != transB || !e.valid {
		return nil
	}
	pack := func(nr int) *PackedB {
		return packBFor(transB, e.k, e.n, b.Float32s(), int(b.Shape()[1]), nr)
	}
	var pb *PackedB
	if _, wnr, ok := asm.SgemmTileWide(); wide && ok {
		e.onceWide.Do(func() { e.pbWide = pack(wnr) })
		pb = e.pbWide
	} else {
		_, nr := asm.SgemmTile()
		e.onceMain.Do(func() { e.pb = pack(nr) })
		pb = e.pb
	}
	if !pb.usable() {
		return nil
	}
	return pb
}

// RegisterConstants registers every float32 tensor in exec's constant pool
// (the model's bound weights) with RegisterConstant, so matmuls and
// convolutions use forms of them made once. Call it once after loading a model.
func RegisterConstants(exec *runtime.Executable) {
	if exec == nil {
		return
	}
	for _, v := range exec.Constants() {
		if t, ok := v.(*runtime.Tensor); ok {
			RegisterConstant(t)
		}
	}
}

// UnregisterConstants forgets the packed forms of exec's constants (the
// inverse of RegisterConstants, for a model that is no longer used).
func UnregisterConstants(exec *runtime.Executable) {
	if exec == nil {
		return
	}
	for _, v := range exec.Constants() {
		if t, ok := v.(*runtime.Tensor); ok {
			UnregisterConstant(t)
		}
	}
}

// packedA is a GEMM A operand (m x k, row-major) packed once into the
// micro-kernel's mr-row panels for every depth block: block pc (kc =
// gemmDepth(pc, k)) starts at pc*npanels*mr, its panel ip holds rows
// [ip*mr, ip*mr+mr) as dst[p*mr+i] (zero past m), as gemmPackA writes them.
// Any row block of the blocked driver (a multiple of mr rows, starting at
// one) is then a run of consecutive panels, whatever the thread count.
type packedA struct {
	m, k, mr int
	npanels  int
	level    asm.Level
	data     []float32
}

// packA packs a (m x k, row stride lda) for tiles of mr rows.
func packA(m, k int, a []float32, lda, mr int) *packedA {
	np := (m + mr - 1) / mr
	p := &packedA{m: m, k: k, mr: mr, npanels: np, level: asm.CurrentLevel(), data: make([]float32, k*np*mr)}
	packAInto(p.data, m, k, a, lda, mr)
	return p
}

// packAInto packs a (m x k, row stride lda) for tiles of mr rows into dst in
// packedA's layout (depth blocks of gemmDepth, then panels).
func packAInto(dst []float32, m, k int, a []float32, lda, mr int) {
	np := (m + mr - 1) / mr
	for pc, kc := 0, 0; pc < k; pc += kc {
		kc = gemmDepth(pc, k)
		blk := dst[pc*np*mr:]
		for ip := 0; ip < np; ip++ {
			gemmPackA(false, a, lda, ip*mr, min(mr, m-ip*mr), pc, kc, mr, blk[ip*kc*mr:(ip+1)*kc*mr])
		}
	}
}

// convAEntry caches the packed weights of a registered constant used as a
// convolution's weight: one packedA per group.
type convAEntry struct {
	once   sync.Once
	packed atomic.Bool // set once once.Do has run
	groups int
	mr     int
	level  asm.Level
	packs  []*packedA
}

// pack packs w's groups once.
func (e *convAEntry) pack(w *runtime.Tensor, groups, og, kk, mr int) {
	e.once.Do(func() {
		e.groups, e.mr, e.level = groups, mr, asm.CurrentLevel()
		wf := w.Float32s()
		for g := 0; g < groups; g++ {
			e.packs = append(e.packs, packA(og, kk, wf[g*og*kk:(g+1)*og*kk], kk, mr))
		}
		e.packed.Store(true)
	})
}

// constConvA and constConvAWide map *runtime.Tensor -> *convAEntry, the
// packings for the main tiles and for the indirect kernel's wide tile.
var constConvA, constConvAWide sync.Map

// constConvPacked returns the per-group packed form of w, a registered
// constant convolution weight (og x kk per group), made on first use for
// the tile the convolution runs on (wide: asm.SgemmIndirectTile(true)), or
// nil when w is not registered or was packed for another tile or level.
func constConvPacked(w *runtime.Tensor, groups, og, kk int, wide bool) []*packedA {
	if _, ok := constPacked.Load(w); !ok {
		return nil
	}
	mr, _ := asm.SgemmTile()
	if og <= gemmSmallRows {
		mr, _ = asm.SgemmTileSmall()
	}
	cache := &constConvA
	if wide {
		mr, _, _ = asm.SgemmIndirectTile(true)
		cache = &constConvAWide
	}
	e := cacheEntry[convAEntry](cache, w)
	if !e.packed.Load() {
		e.pack(w, groups, og, kk, mr)
	}
	if e.groups != groups || e.mr != mr || e.level != asm.CurrentLevel() || len(e.packs) != groups {
		return nil
	}
	return e.packs
}
