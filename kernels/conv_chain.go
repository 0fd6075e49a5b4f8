package kernels

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/internal/freelist"
	"github.com/relaxgo/relaxgo/runtime"
)

// Conv2DChainKernel is the compiler's fusion of a depthwise 2-D convolution
// with the elementwise chain on its output (lower.FuseConvChain): (x, w,
// strides, padding, dilation, groups, data_layout, kernel_layout,
// out_layout, out_dtype, codes Shape, operand..., out), the convolution's
// arguments as kernels.nn.conv2d takes them, then an EwChainKernel chain
// whose operands each hold one value per output channel or one for all,
// except that one may have the output's shape (a residual connection's
// add, subtract, multiply or divide), which is taken element by element. A
// float32 convolution runs the chain on output planes just computed, still
// in cache, instead of in a pass of its own over the output: a depthwise
// one per plane, the indirect path (conv_indirect.go) per block of planes
// and columns, the packed GEMM path after each group. The bits are those
// of the convolution followed by the chain kernel.
const Conv2DChainKernel = Prefix + "relaxgo.conv2d_chain"

func init() {
	runtime.MustRegister(Conv2DChainKernel, packedConv2DChain)
}

// chainStepSpec is one step of a rowChain.
type chainStepSpec struct {
	code uint8 // asm.ScalarChainF32 code (none for a unary step)
	op   bop
	rev  bool
	relu bool
	// unary: a unary operation other than relu (sigmoid, silu, gelu, ...),
	// run by f32Unary as the unfused kernel runs it: no kernel's chain
	// codes hold it, so a chain with one goes after the product
	// (inKernelPass).
	unary bool
	un    uop
}

// rowChain is an elementwise chain with one operand value per row (per
// output channel of a convolution), applied to rows of a result in place.
// Its arrays are fixed and its table reused, so a pooled one serves every
// call without allocating.
type rowChain struct {
	steps    []chainStepSpec // in stepsBuf
	codes    []uint8         // in codesBuf
	stepsBuf [ewMaxRun]chainStepSpec
	codesBuf [ewMaxRun]uint8
	// table holds row i's scalars at [i*len(codes), (i+1)*len(codes)):
	// own, or, when every operand is a registered constant, shared's
	// (read-only).
	table  []float32
	own    []float32
	shared *chainTable
	// res is an operand laid out as the output (a residual connection's),
	// or nil: its step follows the first resAt of codes, floatRow(resOp)
	// with the chain value on the left (the right when resRev), on row i's
	// elements at res[i*rowLen:] (row i the output's plane i: one image).
	res    []float32
	resAt  int
	resOp  bop
	resRev bool
	// unary is set when a step is a unary operation other than relu.
	unary bool
}

var rowChainPool = freelist.List[*rowChain]{New: func() *rowChain { return new(rowChain) }}

// release returns c to the pool.
func (c *rowChain) release() {
	c.steps, c.codes, c.res, c.table, c.shared, c.unary = nil, nil, nil, nil, nil, false
	rowChainPool.Put(c)
}

// newRowChain builds (in a pooled rowChain; release it after use) the chain
// of EwChainKernel codes with operands ops for an NCHW output of shape out:
// every operand must be float32 and broadcast to out with at most the
// channel axis (1) not 1.
func newRowChain(name string, codes []int64, ops []*runtime.Tensor, out []int64) (*rowChain, error) {
	if len(codes) > ewMaxRun {
		return nil, fmt.Errorf("%s: %d chain steps, at most %d", name, len(codes), ewMaxRun)
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("%s: output of rank %d has no channel axis", name, len(out))
	}
	c := rowChainPool.Get()
	c.steps, c.codes, c.res, c.unary = c.stepsBuf[:0], c.codesBuf[:0], nil, false
	if err := c.fill(name, codes, ops, out); err != nil {
		c.release()
		return nil, err
	}
	return c, nil
}

func (c *rowChain) fill(name string, codes []int64, ops []*runtime.Tensor, out []int64) error {
	var src [ewMaxRun]*runtime.Tensor // each step's operand (nil: ReLU)
	err := forEachChainStep(name, codes, ops, func(s ewStep, o *runtime.Tensor, k int) error {
		if s.relu {
			c.steps = append(c.steps, chainStepSpec{code: asm.ChainRelu, relu: true})
			return nil
		}
		if s.unary {
			// The chain codes' unary operations, which f32Unary runs (as
			// relaxgo.ew_chain runs them).
			c.steps = append(c.steps, chainStepSpec{unary: true, un: s.un})
			c.unary = true
			return nil
		}
		os := o.Shape()
		if c.res == nil && s.op <= bDiv && slices.Equal(os, out) {
			// The residual: added (or the like) element by element.
			c.res, c.resAt, c.resOp, c.resRev = elems[float32](o), len(c.steps), s.op, s.rev
			return nil
		}
		perChannel := len(os) <= len(out)
		for d, e := range os {
			if ax := d + len(out) - len(os); e != 1 && (ax != 1 || e != out[1]) {
				perChannel = false
			}
		}
		if !perChannel {
			return fmt.Errorf("%s: operand %d of shape %s does not broadcast per channel to %s", name, k, shapeStr(os), shapeStr(out))
		}
		ac, _ := ewChainCode(&s)
		src[len(c.steps)] = o
		c.steps = append(c.steps, chainStepSpec{code: ac, op: s.op, rev: s.rev})
		return nil
	})
	if err != nil {
		return err
	}
	for t, s := range c.steps {
		c.codes = append(c.codes, maxZeroCode(s.code, src[t]))
	}
	ns, rows := len(c.codes), int(out[1])
	if ns == 0 {
		return nil
	}
	// A chain of constants (a layer's bias, batch-norm factors, clip bounds)
	// has its table made once: per call it cost as much as a small
	// depthwise layer's arithmetic (MobileNetV2's 960 channels on 7x7).
	var first *runtime.Tensor // the first operand, which keys the cache
	allConst := true
	for _, o := range src[:ns] {
		if o != nil {
			first = cmp.Or(first, o)
			allConst = allConst && IsConstant(o)
		}
	}
	if allConst && first != nil {
		e := constChainTable(first, chainKey{src, ns, rows})
		c.table, c.shared = e.table, e
		return nil
	}
	c.own = chainScalars(c.own, src[:ns], rows)
	c.table = c.own
	return nil
}

// maxZeroCode is code, or asm.ChainMaxZero for a max (asm.ChainMax) whose
// operand o is +0 in every element (a clip's lower bound, ReLU6's): the
// same bits in two instructions instead of four, so that a bias and a
// ReLU6 cost a vector six operations instead of eight.
func maxZeroCode(code uint8, o *runtime.Tensor) uint8 {
	if code != asm.ChainMax || o == nil {
		return code
	}
	for _, v := range elems[float32](o) {
		if maxZeroScalar(code, v) == code {
			return code
		}
	}
	return asm.ChainMaxZero
}

// maxZeroScalar is maxZeroCode for a step of one scalar s.
func maxZeroScalar(code uint8, s float32) uint8 {
	if code == asm.ChainMax && math.Float32bits(s) == 0 {
		return asm.ChainMaxZero
	}
	return code
}

// chainScalars returns (in dst when large enough) the scalar table of the
// chain steps with operands src (nil for ReLU, whose column is zero) for
// rows rows: row i's operand values at [i*len(src), (i+1)*len(src)).
func chainScalars(dst []float32, src []*runtime.Tensor, rows int) []float32 {
	ns := len(src)
	if cap(dst) < ns*rows {
		dst = make([]float32, ns*rows)
	}
	dst = dst[:ns*rows]
	for t, o := range src {
		var v []float32
		if o != nil {
			v = elems[float32](o)
		}
		for i := 0; i < rows; i++ {
			switch len(v) {
			case 0:
				dst[i*ns+t] = 0
			case 1:
				dst[i*ns+t] = v[0]
			default:
				dst[i*ns+t] = v[i]
			}
		}
	}
	return dst
}

// chainKey is a chain of constants: its steps' operands and the rows of
// its table.
type chainKey struct {
	src      [ewMaxRun]*runtime.Tensor
	ns, rows int
}

// chainTable is a constant chain's table, made once, and its lane-blocked
// forms (laneBlocks) for the kernels that read it so, each made once.
type chainTable struct {
	key    chainKey
	table  []float32
	blocks cowList[laneTable]
}

type laneTable struct {
	lanes int
	v     []float32
}

// cowList is a short list that is appended to under a lock and read
// without one: entries is replaced, never changed in place, so a reader
// walks a snapshot.
type cowList[T any] struct {
	mu      sync.Mutex
	entries atomic.Pointer[[]T]
}

// find returns the first entry match accepts.
func (l *cowList[T]) find(match func(T) bool) (T, bool) {
	if p := l.entries.Load(); p != nil {
		for _, e := range *p {
			if match(e) {
				return e, true
			}
		}
	}
	var zero T
	return zero, false
}

// findOrAdd returns the first entry match accepts, appending newEntry()'s when
// there is none.
func (l *cowList[T]) findOrAdd(match func(T) bool, newEntry func() T) T {
	if e, ok := l.find(match); ok {
		return e
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.find(match); ok {
		return e
	}
	var old []T
	if p := l.entries.Load(); p != nil {
		old = *p
	}
	e := newEntry()
	next := append(slices.Clip(old), e)
	l.entries.Store(&next)
	return e
}

// drop removes the entries gone accepts and reports whether any are left.
func (l *cowList[T]) drop(gone func(T) bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.entries.Load()
	if p == nil {
		return false
	}
	keep := slices.DeleteFunc(slices.Clone(*p), gone)
	l.entries.Store(&keep)
	return len(keep) > 0
}

// constChains maps the first operand of constant chains to their tables
// (a *chainList): keyed by a pointer, the lookup allocates nothing.
var constChains sync.Map

// chainList is the constant chains with one first operand.
type chainList = cowList[*chainTable]

// constChainTable returns the table of the constant chain k whose first
// operand is first, made on first use.
func constChainTable(first *runtime.Tensor, k chainKey) *chainTable {
	return cacheEntry[chainList](&constChains, first).findOrAdd(
		func(e *chainTable) bool { return e.key == k },
		func() *chainTable { return &chainTable{key: k, table: chainScalars(nil, k.src[:k.ns], k.rows)} })
}

// forgetChains drops the cached chain tables with operand t.
func forgetChains(t *runtime.Tensor) {
	constChains.Range(func(first, v any) bool {
		if !v.(*chainList).drop(func(e *chainTable) bool { return slices.Contains(e.key.src[:], t) }) {
			constChains.Delete(first)
		}
		return true
	})
}

// laneTable returns the chain's whole table in blocks of lanes rows
// (laneBlocks): a constant chain's made once and shared (read-only),
// otherwise built in *buf.
func (c *rowChain) laneTable(buf *[]float32, lanes int) []float32 {
	ns, rows := len(c.codes), len(c.table)/max(1, len(c.codes))
	if c.shared == nil {
		*buf = laneBlocks(*buf, c.table, rows, ns, lanes)
		return *buf
	}
	return c.shared.blocks.findOrAdd(func(b laneTable) bool { return b.lanes == lanes },
		func() laneTable { return laneTable{lanes, laneBlocks(nil, c.table, rows, ns, lanes)} }).v
}

// apply runs the chain in place on row, row i of the result, as the chain
// kernel does on a row: in chunks of ewChunk, each through
// asm.ScalarChainF32, except that a chunk of one element runs each step's
// kernel (there the binary kernels see two one-element vectors). A nil
// chain does nothing.
func (c *rowChain) apply(row []float32, i int) {
	c.applyAt(row, i, 0, len(row))
}

// applyAt runs the chain on seg, the elements [pos, pos+len(seg)) of row i
// of length rowLen, with the bits apply gives them on the whole row: the
// chain is elementwise, so only which elements sit in a one-element chunk
// matters, and that follows from pos and rowLen.
func (c *rowChain) applyAt(seg []float32, i, pos, rowLen int) {
	if c == nil {
		return
	}
	ns := len(c.codes)
	sc := c.table[i*ns : (i+1)*ns]
	var res []float32 // the residual's elements of seg
	if c.res != nil {
		res = c.res[i*rowLen+pos : i*rowLen+pos+len(seg)]
	}
	for len(seg) > 0 {
		c0 := pos / ewChunk * ewChunk
		c1 := min(c0+ewChunk, rowLen)
		part := seg[:min(len(seg), c1-pos)]
		seg, pos = seg[len(part):], pos+len(part)
		var rpart []float32
		if c.res != nil {
			rpart, res = res[:len(part)], res[len(part):]
		}
		if c1-c0 > 1 {
			if c.res == nil && !c.unary {
				asm.ScalarChainF32(part, part, c.codes, sc)
				continue
			}
			c.runs(part, rpart, sc)
			continue
		}
		c.stepwise(part, rpart, func(t int) []float32 { return sc[t : t+1] })
	}
}

// runs runs the chain on part (a chunk of more than one element, rpart
// its residual elements) as relaxgo.ew_chain does: each run of steps
// with one value per row (or relu) through asm.ScalarChainF32, the
// residual's step by its row function, a unary step by f32Unary.
func (c *rowChain) runs(part, rpart, sc []float32) {
	start := 0 // the first step of the current run
	flush := func(end int) {
		if end > start {
			asm.ScalarChainF32(part, part, c.codes[start:end], sc[start:end])
		}
		start = end
	}
	for t := range c.steps {
		if c.res != nil && t == c.resAt {
			flush(t)
			c.resStep(part, rpart)
		}
		if s := &c.steps[t]; s.unary {
			flush(t)
			f32Unary(s.un, part, part)
			start = t + 1
		}
	}
	flush(len(c.steps))
	if c.res != nil && c.resAt == len(c.steps) {
		c.resStep(part, rpart)
	}
}

// stepwise runs the chain on v one step at a time, each step's kernel over
// all of v: step t's operand is opnd(t) (one value, or one per element of
// v), the residual's step takes r (v's elements' own) at its place.
func (c *rowChain) stepwise(v, r []float32, opnd func(t int) []float32) {
	for t := range c.steps {
		if c.res != nil && t == c.resAt {
			c.resStep(v, r)
		}
		s := &c.steps[t]
		if s.relu {
			f32Unary(uRelu, v, v)
			continue
		}
		if s.unary {
			f32Unary(s.un, v, v)
			continue
		}
		o := opnd(t)
		if s.rev {
			floatRow(s.op, v, o, v)
		} else {
			floatRow(s.op, v, v, o)
		}
	}
	if c.res != nil && c.resAt == len(c.steps) {
		c.resStep(v, r)
	}
}

// resStep runs the residual step on part with the residual's elements r.
func (c *rowChain) resStep(part, r []float32) {
	if c.resRev {
		floatRow(c.resOp, part, r, part)
	} else {
		floatRow(c.resOp, part, part, r)
	}
}

// scalars returns the chain's step codes and row i's scalars, as
// asm.ScalarChainF32 takes them; none for a nil chain.
func (c *rowChain) scalars(i int) ([]uint8, []float32) {
	if c == nil {
		return nil, nil
	}
	ns := len(c.codes)
	return c.codes, c.table[i*ns : (i+1)*ns]
}

// applyRows writes rows rows of n elements of row i (output channel i) to
// dst (dstStride apart), read from src (srcStride apart) and put through
// the chain: the bits of applyAt where chainRows allows it. dst must not
// overlap src.
func (c *rowChain) applyRows(dst []float32, dstStride int, src []float32, srcStride, rows, n, i int) {
	codes, sc := c.scalars(i)
	asm.ScalarChainRowsF32(dst, dstStride, src, srcStride, rows, n, codes, sc)
}

// chainRowsPerStep sets the shortest row that goes through the chain while
// it is copied (asm.ScalarChainRowsF32): chainRowsPerStep elements per step
// of the chain. The row kernel dispatches on every step's code once per
// block of a row, so short rows and long chains pay a dispatch per few
// elements; copying the rows and then chaining the whole plane dispatches
// once per block of the plane. BenchmarkConv2DChain, 1 thread, MobileNetV2's
// five-step chain: depthwise 576x14² 145 µs in one pass vs 93 copied then
// chained, 32x112² 166 vs 160; cnn_64x64's first convolution (rows of 64,
// two steps) 126 → 117 µs for the whole model in one pass.
const chainRowsPerStep = 32

// chainRows reports whether rows of n elements of an output row (plane) of
// rowLen go through c while copied: rows long enough for the chain, and no
// element in a one-element chunk, where applyAt's bits differ (rowLen %
// ewChunk == 1).
func (c *rowChain) chainRows(n, rowLen int) bool {
	return c != nil && n >= chainRowsPerStep*len(c.codes) && c.inKernelPass(rowLen)
}

// inKernelPass reports whether a kernel may run the chain (nil: none) in
// its own pass over an output row (plane) of rowLen elements and give
// apply's bits: not when the row ends in a one-element chunk (rowLen %
// ewChunk == 1), which apply runs step by step through the scalar kernels,
// nor with a residual or a unary step (no kernel's chain codes hold them).
func (c *rowChain) inKernelPass(rowLen int) bool {
	return c == nil || c.res == nil && !c.unary && rowLen%ewChunk != 1
}

// colsResidual reports whether the chain (not nil) with its residual step
// may run on a product laid out with the channels as columns (the position
// path's T: asm.ChainColsF32 for the steps before and after the
// residual's, which runs on the residual transposed alike) on output rows
// of rowLen elements and give apply's bits: no unary step, and no
// one-element chunk (as inKernelPass).
func (c *rowChain) colsResidual(rowLen int) bool {
	return c != nil && c.res != nil && !c.unary && rowLen%ewChunk != 1
}

// residualInKernel reports whether the scattering indirect kernel may run
// the chain (not nil) with its residual step (asm.ScatterResidual) on
// output rows of rowLen elements and give apply's bits: the residual
// added, no unary step, and no one-element chunk (as inKernelPass).
func (c *rowChain) residualInKernel(rowLen int) bool {
	return c.colsResidual(rowLen) && c.resOp == bAdd
}

// copyRows copies rows rows of n elements from src (srcStride apart) to dst
// (dstStride apart): one asm.CopyRowsF32 call from a vector's width on, a
// copy per row below it (where the asm wrapper's checks would cost more).
func copyRows(dst []float32, dstStride int, src []float32, srcStride, rows, n int) {
	if n >= 8 {
		asm.CopyRowsF32(dst, dstStride, src, srcStride, rows, n)
		return
	}
	// Element loops: a memmove call a row of a few elements costs more
	// than the row.
	d, s := 0, 0
	for range rows {
		dr, sr := dst[d:d+n:d+n], src[s:s+n:s+n]
		for i := range dr {
			dr[i] = sr[i]
		}
		d += dstStride
		s += srcStride
	}
}

// copyBlocks is copyRows on blocks blocks of rows (block b at
// dst[b*dstBlock:] and src[b*srcBlock:]): one asm.CopyBlocksF32 call from
// a vector's width on, whose checks cover every block at once.
func copyBlocks(dst []float32, dstBlock, dstStride int, src []float32, srcBlock, srcStride, blocks, rows, n int) {
	if n >= 8 {
		asm.CopyBlocksF32(dst, dstBlock, dstStride, src, srcBlock, srcStride, blocks, rows, n)
		return
	}
	for b := 0; b < blocks; b++ {
		copyRows(dst[b*dstBlock:], dstStride, src[b*srcBlock:], srcStride, rows, n)
	}
}

// planeFrom writes the plane dst (rows rows of n, contiguous) from src,
// whose rows are srcStride apart, and runs the chain of channel i on it
// (apply's bits): in one pass when c.chainRows allows, else copied and then
// chained over the whole plane. A nil chain only copies. dst must
// not overlap src.
func (c *rowChain) planeFrom(dst, src []float32, srcStride, rows, n, i int) {
	if c.chainRows(n, rows*n) {
		c.applyRows(dst, n, src, srcStride, rows, n, i)
		return
	}
	copyRows(dst, n, src, srcStride, rows, n)
	c.apply(dst[:rows*n], i)
}

// packedConv2DChain is Conv2DChainKernel.
func packedConv2DChain(args []runtime.Value) (runtime.Value, error) {
	const name = "relaxgo.conv2d_chain"
	if len(args) < 12 {
		return nil, fmt.Errorf("%s: %d arguments, want at least 12", name, len(args))
	}
	// The convolution's arguments are kernels.nn.conv2d's: x, w, then the
	// attributes at 2..9; out is last.
	x, err := laTensor(name, args, 0)
	if err != nil {
		return nil, err
	}
	w, err := laTensor(name, args, 1)
	if err != nil {
		return nil, err
	}
	out, err := laTensor(name, args, len(args)-1)
	if err != nil {
		return nil, err
	}
	s, p, _, d, g, dl, kl, ol, dt, err := convPackedAttrs(name, args, false)
	if err != nil {
		return nil, err
	}
	codes, ok := args[10].(runtime.Shape)
	if !ok {
		return nil, fmt.Errorf("%s: argument 10 (codes) is %s, want a shape", name, runtime.TypeName(args[10]))
	}
	var buf [ewMaxRun]*runtime.Tensor
	ops := buf[:0]
	for i := 11; i < len(args)-1; i++ {
		t, ok := args[i].(*runtime.Tensor)
		if !ok || t == nil {
			return nil, fmt.Errorf("%s: argument %d is %s, want a tensor", name, i, runtime.TypeName(args[i]))
		}
		if len(ops) == cap(ops) {
			return nil, fmt.Errorf("%s: more than %d chain operands", name, ewMaxRun)
		}
		ops = append(ops, t)
	}
	if out.DType() != runtime.Float32 {
		return nil, fmt.Errorf("%s: output is %s, the chain needs float32", name, out.DType())
	}
	attrs := Conv2DAttrs{s, p, d, g, dl, kl, ol, dt}
	os := out.Shape()
	chain, err := newRowChain(name, codes, ops, os)
	if err != nil {
		return nil, err
	}
	defer chain.release()
	// The chain kernel's rows are the output planes when an operand varies
	// along the channels; then a float32 convolution applies the chain to
	// its planes as it computes them (conv2dF32). Otherwise the chain
	// kernel runs on the output.
	if x.DType() == runtime.Float32 && len(os) == 4 && w.NDim() == 4 && rowsArePlanes(ops, os) {
		return nil, conv2dChain(out, x, w, attrs, chain)
	}
	if err := Conv2D(out, x, w, attrs); err != nil {
		return nil, err
	}
	return nil, ewChain(out, out, codes, ops)
}

// rowsArePlanes reports whether an operand of the chain on an NCHW output
// of shape out varies along the channels (more than one), which makes the
// chain kernel's rows the output planes.
func rowsArePlanes(ops []*runtime.Tensor, out []int64) bool {
	for _, o := range ops {
		os := o.Shape()
		if ax := 1 - (len(out) - len(os)); ax >= 0 && ax < len(os) && os[ax] == out[1] && out[1] > 1 {
			return true
		}
	}
	return false
}
