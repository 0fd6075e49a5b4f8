package kernels

import (
	"fmt"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/internal/freelist"
	"github.com/relaxgo/relaxgo/runtime"
)

// EwChainKernel is the compiler's fusion of a chain of float32 elementwise
// operations (lower.FuseElementwiseChains): out = op_k(... op_1(x, c_1) ..., c_k)
// in one pass over x, a row at a time while the row is in cache, instead
// of one pass and one intermediate tensor per operation.
const EwChainKernel = Prefix + "relaxgo.ew_chain"

// Chain operation codes (the Shape argument of EwChainKernel): the binary
// operation's code (0 add, 1 subtract, 2 multiply, 3 divide, 4 maximum,
// 5 minimum) times 2, plus 1 when the chain value is the right operand
// (c op v); EwChainRelu is relu (no operand), EwChainExp... the float32
// transcendental operations (no operand; not in a convolution's chain).
const (
	ewAdd, ewSub, ewMul, ewDiv, ewMax, ewMin = 0, 1, 2, 3, 4, 5
	// EwChainRelu is the code of relu in an EwChainKernel chain.
	EwChainRelu = 100
	// Codes of unary steps of an EwChainKernel chain: exp, tanh, erf,
	// sigmoid, nn.gelu, nn.gelu_tanh and nn.silu, each as its unfused
	// float32 kernel computes it.
	EwChainExp      = 101
	EwChainTanh     = 102
	EwChainErf      = 103
	EwChainSigmoid  = 104
	EwChainGelu     = 105
	EwChainGeluTanh = 106
	EwChainSilu     = 107
	// EwChainXSigmoid is x * sigmoid(x), x the product's first operand:
	// the compiler's code for a chain's sigmoid step followed by a
	// product with the sigmoid's own input on the left (an exported
	// SiLU, Mul(x, Sigmoid(x))), as SigmoidF32 and MulF32 compute those.
	EwChainXSigmoid = 108
)

// ewUnary maps the unary step codes to their operations.
var ewUnary = map[int64]uop{
	EwChainExp: uExp, EwChainTanh: uTanh, EwChainErf: uErf, EwChainSigmoid: uSigmoid,
	EwChainGelu: uGelu, EwChainGeluTanh: uGeluTanh, EwChainSilu: uSilu,
	EwChainXSigmoid: uXSigmoid,
}

// ewChunk is how many elements of a row go through all the steps at once.
const ewChunk = 2048

var ewBops = [...]bop{ewAdd: bAdd, ewSub: bSub, ewMul: bMul, ewDiv: bDiv, ewMax: bMax, ewMin: bMin}

func init() {
	runtime.MustRegister(EwChainKernel, packedEwChain)
}

// packedEwChain is EwChainKernel: (x, codes Shape, operand..., out), the
// operands flat (a tuple would be built on every call). Each step runs the
// same row function as the unfused kernel (floatRow, f32Unary), so results
// are bit-identical to the unfused chain.
func packedEwChain(args []runtime.Value) (runtime.Value, error) {
	p := newArgs(EwChainKernel, args)
	p.atLeast(3)
	x, codes, out := p.tensor(0), p.ints(1), p.tensor(len(args)-1)
	var buf [ewMaxRun]*runtime.Tensor // a chain's operands, up to ewMaxRun without allocating
	ops := buf[:0]
	for i := 2; i < len(args)-1; i++ {
		ops = append(ops, p.tensor(i))
	}
	if p.err != nil {
		return nil, p.err
	}
	return nil, ewChain(out, x, codes, ops)
}

// ewStep is one operation of a chain: the operand's data and its element
// strides against the output's dims (0 where it broadcasts).
type ewStep struct {
	op   bop
	relu bool
	rev  bool
	// unary, set for a step without an operand (relu too): its
	// operation, which f32Unary runs on the chain value.
	unary bool
	un    uop
	data  []float32
	st    [maxRank]int
	// contig: the operand runs along the row (else one value per row).
	contig bool
	// chain, when chainOK, is the step's asm.ScalarChainF32 code (a relu or
	// one value per row), set once per call.
	chain   uint8
	chainOK bool
}

// ewJob is one chain call; pooled, with fn bound once, so a call allocates
// nothing.
type ewJob struct {
	shape  []int64
	sq     [maxRank]int64 // the shape without its dims of size 1
	steps  []ewStep
	buf    [ewMaxRun]ewStep // the steps of chains up to ewMaxRun long, without allocating
	xs, os []float32
	inner  int
	// blocks: rows this short go in blocks of ewBlockRows (runShort).
	blocks bool
	// cpr, when not 0: the work splits over the threads by chunks of
	// ewChunk, cpr to a row (rows and run take chunk indices): fewer rows
	// than can feed the threads (one, for a chain whose operands are all
	// whole runs or single values) split by their chunks.
	cpr int
	fn  func(lo, hi int)
}

var ewJobPool = freelist.List[*ewJob]{New: func() *ewJob {
	j := new(ewJob)
	j.fn = j.rows
	return j
}}

// rows computes rows [lo, hi), in blocks when the rows are short.
func (j *ewJob) rows(lo, hi int) {
	if j.blocks {
		j.runShort(lo, hi)
		return
	}
	j.run(lo, hi)
}

func ewChain(out, x *runtime.Tensor, codes []int64, ops []*runtime.Tensor) error {
	const name = "relaxgo.ew_chain"
	if x.DType() != runtime.Float32 {
		return fmt.Errorf("%s: float32 only, got %s", name, x.DType())
	}
	if err := checkOut(name, out, x.Shape(), runtime.Float32); err != nil {
		return err
	}
	shape := x.Shape()
	nd := len(shape)
	if nd == 0 || nd > maxRank {
		return fmt.Errorf("%s: rank %d outside 1..%d", name, nd, maxRank)
	}
	j := ewJobPool.Get()
	defer func() {
		clear(j.buf[:])
		j.steps, j.xs, j.os, j.shape, j.cpr = nil, nil, nil, nil, 0
		ewJobPool.Put(j)
	}()
	steps := j.buf[:0]
	err := forEachChainStep(name, codes, ops, func(s ewStep, o *runtime.Tensor, k int) error {
		if s.unary {
			steps = append(steps, s)
			return nil
		}
		s.data = elems[float32](o)
		os := o.Shape()
		if len(os) > nd {
			return fmt.Errorf("%s: operand %d of shape %s does not broadcast to %s", name, k, shapeStr(os), shapeStr(shape))
		}
		stride := 1
		for d := nd - 1; d >= 0; d-- {
			od := d - (nd - len(os))
			switch {
			case od < 0 || os[od] == 1:
				s.st[d] = 0
			case os[od] == shape[d]:
				s.st[d] = stride
				stride *= int(os[od])
			default:
				return fmt.Errorf("%s: operand %d of shape %s does not broadcast to %s", name, k, shapeStr(os), shapeStr(shape))
			}
		}
		steps = append(steps, s)
		return nil
	})
	if err != nil {
		return err
	}
	// When every operand has the output's elements (nothing broadcasts),
	// dims of size 1 index nothing: they are dropped from the shape and
	// from the operands' strides (where they counted as broadcast), so the
	// operands stay one run with the output. A (1, C, 1, 1) chain — a
	// squeeze-and-excitation block's, with the channels' bias — was C rows
	// of one element, each step's kernel called on each (EfficientNet-B0:
	// 115 µs a call on 1152 channels). Every binary step still sees two
	// vectors, as on one-element rows, so the bits are the same; with an
	// operand that broadcasts they could differ (a NaN's payload follows
	// the vector-scalar kernels' operand order), and the rows stay.
	full, total := true, len(elems[float32](x))
	for i := range steps {
		if !steps[i].unary && len(steps[i].data) != total {
			full = false
			break
		}
	}
	k := 0
	for d := 0; d < nd; d++ {
		if shape[d] == 1 && full {
			continue
		}
		j.sq[k] = shape[d]
		for i := range steps {
			steps[i].st[k] = steps[i].st[d]
		}
		k++
	}
	if k == 0 {
		j.sq[0], k = 1, 1 // one element (every stride is 0 already)
	}
	shape, nd = j.sq[:k], k
	// Rows: the longest run of trailing dims over which every operand is
	// either constant (broadcast) or contiguous, so that per-channel
	// operands of an NCHW tensor give rows of H*W.
	cut := nd - 1
	for cut > 0 {
		d := cut - 1
		ok := true
		span := 1
		for _, e := range shape[d+1:] {
			span *= int(e)
		}
		for i := range steps {
			st := &steps[i]
			if st.unary {
				continue
			}
			zero := st.st[d] == 0 && st.st[cut] == 0
			contiguous := st.st[d] == span && st.st[cut] != 0
			if !zero && !contiguous {
				ok = false
				break
			}
		}
		if !ok {
			break
		}
		cut--
	}
	inner := 1
	for _, d := range shape[cut:] {
		inner *= int(d)
	}
	rows := 1
	for _, d := range shape[:cut] {
		rows *= int(d)
	}
	if rows*inner == 0 {
		return nil
	}
	j.shape, j.steps, j.inner = shape[:cut], steps, inner
	for i := range steps {
		if !steps[i].unary {
			steps[i].contig = steps[i].st[nd-1] != 0
		}
		steps[i].chain, steps[i].chainOK = ewChainCode(&steps[i])
	}
	j.xs, j.os = elems[float32](x), elems[float32](out)
	// (An output over its own input stays on run: the rows kernel reads
	// a row's source again for its last vector.)
	j.blocks = ewBlocksOn && !asm.OverlapF32(j.xs, j.os) && ewBlocksOK(j.shape, steps, inner)
	heavy := false
	for i := range steps {
		heavy = heavy || steps[i].unary && steps[i].un.floatOnly()
	}
	threshold, grain := parLimits(heavy)
	if rows*inner < threshold || NumThreads() <= 1 {
		j.rows(0, rows)
		return nil
	}
	if threads := NumThreads(); rows < 2*threads && inner > ewChunk && !j.blocks {
		// The rows' chunks are the serial loop's, so the bits are too.
		j.cpr = (inner + ewChunk - 1) / ewChunk
		parFor(rows*j.cpr, grainRows(grain, ewChunk), j.fn)
		return nil
	}
	parFor(rows, grainRows(grain, inner), j.fn)
	return nil
}

// forEachChainStep decodes EwChainKernel codes against their operands,
// checking the codes, the operand count and the operands' dtype (float32),
// and calls f with each step's operation (relu, a unary operation, or a
// binary operation and the chain value's side) and, for a binary one, its
// operand and index.
func forEachChainStep(name string, codes []int64, ops []*runtime.Tensor, f func(s ewStep, o *runtime.Tensor, k int) error) error {
	k := 0
	for _, c := range codes {
		if c == EwChainRelu {
			if err := f(ewStep{relu: true, unary: true, un: uRelu}, nil, -1); err != nil {
				return err
			}
			continue
		}
		if u, ok := ewUnary[c]; ok {
			if err := f(ewStep{unary: true, un: u}, nil, -1); err != nil {
				return err
			}
			continue
		}
		if c < 0 || int(c/2) >= len(ewBops) {
			return fmt.Errorf("%s: unknown operation code %d", name, c)
		}
		if k >= len(ops) {
			return fmt.Errorf("%s: %d operands for the codes %v", name, len(ops), codes)
		}
		o := ops[k]
		if o.DType() != runtime.Float32 {
			return fmt.Errorf("%s: operand %d is %s, not float32", name, k, o.DType())
		}
		if err := f(ewStep{op: ewBops[c/2], rev: c%2 == 1}, o, k); err != nil {
			return err
		}
		k++
	}
	if k != len(ops) {
		return fmt.Errorf("%s: %d operands for %d operations", name, len(ops), k)
	}
	return nil
}

// ewMaxRun is how many steps one asm.ScalarChainF32 call takes.
const ewMaxRun = 16

// ewChainCodes are the asm.ScalarChainF32 codes of the binary steps: with
// the chain value on the left, and on the right (rev); ok is false for the
// operations the chain kernel lacks.
var ewChainCodes = [...]struct {
	l, r uint8
	ok   bool
}{
	bAdd: {asm.ChainAdd, asm.ChainAdd, true},
	bSub: {asm.ChainSub, asm.ChainRSub, true},
	bMul: {asm.ChainMul, asm.ChainMul, true},
	bDiv: {asm.ChainDiv, asm.ChainRDiv, true},
	bMax: {asm.ChainMax, asm.ChainMax, true},
	bMin: {asm.ChainMin, asm.ChainMin, true},
}

// ewChainCode is the asm.ScalarChainF32 code of a step with one operand
// value per row (or relu), the kernel f32Row, maxRow, minRow or f32Unary
// would run for it.
func ewChainCode(s *ewStep) (uint8, bool) {
	switch {
	case s.relu:
		return asm.ChainRelu, true
	case s.unary || s.contig || int(s.op) >= len(ewChainCodes) || !ewChainCodes[s.op].ok:
		return 0, false
	case s.rev:
		return ewChainCodes[s.op].r, true
	}
	return ewChainCodes[s.op].l, true
}

// Short rows (a batch norm and a residual add after a convolution of 7x7
// or 14x14 planes: rows of 49 or 196) spent their time in the calls, three
// a row. runShort takes blocks of rows at once instead: a run of steps with
// one value per row is one asm.ScalarChainRowsEachF32 call over the block
// (each row its scalars), a step whose operand is laid out as the output
// (the residual) one row function call over the block's contiguous
// elements, a run of steps whose values are the same for every row (relu,
// a clip) one asm.ScalarChainF32 call, a unary step (sigmoid, SiLU, ...)
// one f32Unary call over the block. Every element gets the same operations
// in the same order, so the bits are run's.

// ewBlocksOn lets short rows take runShort (tests compare it with run).
var ewBlocksOn = true

// ewRowsKernelMax is the longest row the rows kernel chains (longer ones
// go through ScalarChainF32 a row: -bench EwChainBatchNormRelu6 192x28x28,
// rows of 784, 15 µs that way against 21 through the rows kernel).
const ewRowsKernelMax = 256

// ewShortRow is the longest row runShort takes.
const ewShortRow = 1024

// ewBlockMinRow is the shortest row runShort takes.
const ewBlockMinRow = 8

// ewBlockElems bounds a block's elements (its input, output and operand
// blocks stay in L1).
const ewBlockElems = 4096

// ewBlocksOK reports whether rows of inner elements with the steps go
// through runShort: short rows, and every step a relu, a unary operation,
// one value per row the chain kernel has, or an operand with the output's
// layout over the outer dims (so a block of rows is one contiguous run of
// it).
func ewBlocksOK(outer []int64, steps []ewStep, inner int) bool {
	if inner < ewBlockMinRow || inner > ewShortRow || len(steps) == 0 || len(steps) > ewMaxRun {
		return false
	}
	for i := range steps {
		s := &steps[i]
		if s.chainOK || s.unary {
			continue
		}
		if !s.contig {
			return false
		}
		st := inner
		for d := len(outer) - 1; d >= 0; d-- {
			if s.st[d] != st && outer[d] != 1 { // (a dimension of 1 has stride 0)
				return false
			}
			st *= int(outer[d])
		}
	}
	return true
}

// rowIndex is row r's index over the outer dims.
func rowIndex(outer []int64, r int) [maxRank]int {
	var idx [maxRank]int
	for d := len(outer) - 1; d >= 0; d-- {
		idx[d] = r % int(outer[d])
		r /= int(outer[d])
	}
	return idx
}

// nextRow advances idx to the next row's index over the outer dims.
func nextRow(idx *[maxRank]int, outer []int64) {
	for d := len(outer) - 1; d >= 0; d-- {
		idx[d]++
		if idx[d] < int(outer[d]) {
			return
		}
		idx[d] = 0
	}
}

// runShort computes rows [lo, hi) of a chain that ewBlocksOK accepts.
func (j *ewJob) runShort(lo, hi int) {
	outer, steps, inner := j.shape, j.steps, j.inner
	no := len(outer)
	idx := rowIndex(outer, lo)
	bmax := max(1, ewBlockElems/inner)
	tb := getScratch(bmax * len(steps)) // per row, a run's scalars
	defer putScratch(tb)
	tbl := *tb
	var codes [ewMaxRun]uint8
	for b0 := lo; b0 < hi; {
		b1 := min(hi, b0+bmax)
		nb := b1 - b0
		blk := j.os[b0*inner : b1*inner]
		src := j.xs[b0*inner : b1*inner]
		written := false
		// The run of one-value-per-row steps [s0, s1): its scalars per row
		// (the row's offset from idx, advanced row by row), then one call.
		flush := func(s0, s1 int) {
			n := s1 - s0
			if n == 0 {
				return
			}
			same := true // the same values on every row
			for i := s0; i < s1; i++ {
				codes[i-s0] = steps[i].chain
				if !steps[i].relu {
					for d := 0; d < no; d++ {
						same = same && steps[i].st[d] == 0
					}
				}
			}
			ri := idx
			for k := 0; k < nb; k++ {
				for i := s0; i < s1; i++ {
					v := float32(0)
					if !steps[i].relu {
						off := 0
						for d := 0; d < no; d++ {
							off += ri[d] * steps[i].st[d]
						}
						v = steps[i].data[off]
					}
					tbl[k*n+i-s0] = v
				}
				nextRow(&ri, outer)
				if same {
					break // one row's values serve all
				}
			}
			switch {
			case same:
				for i := range codes[:n] {
					codes[i] = maxZeroScalar(codes[i], tbl[i])
				}
				asm.ScalarChainF32(blk, src, codes[:n], tbl[:n])
			case !written && inner <= ewRowsKernelMax:
				asm.ScalarChainRowsEachF32(blk, inner, src, inner, nb, inner, codes[:n], tbl[:nb*n], n)
			default:
				// Row by row: in place (the rows kernel recomputes a row's
				// tail from its source), or rows long enough that
				// ScalarChainF32's larger blocks beat the rows kernel's.
				for k := 0; k < nb; k++ {
					asm.ScalarChainF32(blk[k*inner:(k+1)*inner], src[k*inner:(k+1)*inner], codes[:n], tbl[k*n:(k+1)*n])
				}
			}
			src, written = blk, true
		}
		s0 := 0
		for i := range steps {
			s := &steps[i]
			if s.chainOK {
				continue
			}
			flush(s0, i)
			s0 = i + 1
			if s.unary {
				// One call over the block: EfficientNet-B0's bias and
				// SiLU on 672x14² took 94 µs a row at a time (each
				// 196-element call a few vectors deep in the exp's
				// dependent steps), against 37 for the SiLU alone;
				// over blocks 51.5.
				f32Unary(s.un, blk, src)
				src, written = blk, true
				continue
			}
			opnd := s.data[b0*inner : b1*inner]
			if s.rev {
				floatRow(s.op, blk, opnd, src)
			} else {
				floatRow(s.op, blk, src, opnd)
			}
			src, written = blk, true
		}
		flush(s0, len(steps))
		idx = rowIndex(outer, b1)
		b0 = b1
	}
}

// run computes rows [lo, hi) of the chain, or with cpr its chunks [lo,
// hi).
func (j *ewJob) run(lo, hi int) {
	if j.cpr > 0 {
		for t := lo; t < hi; {
			r, c := t/j.cpr, t%j.cpr
			n := min(hi-t, j.cpr-c) // this row's chunks in [t, hi)
			idx := rowIndex(j.shape, r)
			j.runRow(r, &idx, c*ewChunk, min((c+n)*ewChunk, j.inner))
			t += n
		}
		return
	}
	idx := rowIndex(j.shape, lo)
	for r := lo; r < hi; r++ {
		j.runRow(r, &idx, 0, j.inner)
		nextRow(&idx, j.shape)
	}
}

// runRow computes elements [from, to) of row r (at index idx over the
// outer dims), in chunks of ewChunk from from.
func (j *ewJob) runRow(r int, idx *[maxRank]int, from, to int) {
	outer, steps, inner := j.shape, j.steps, j.inner
	no := len(outer)
	var offs [8]int
	for i := range steps {
		if i < len(offs) {
			for d := 0; d < no; d++ {
				offs[i] += idx[d] * steps[i].st[d]
			}
		}
	}
	// Chunks of a row small enough to stay in L1 through every step.
	for c0 := from; c0 < to; c0 += ewChunk {
		c1 := min(c0+ewChunk, to)
		row := j.os[r*inner+c0 : r*inner+c1]
		src := j.xs[r*inner+c0 : r*inner+c1]
		// Runs of steps with one value per row (or relu) go through
		// asm.ScalarChainF32 in one pass: the bits of the step kernels
		// one after another. (A one-element row keeps the step kernels:
		// there the binary kernels see both operands as vectors.)
		var codes [ewMaxRun]uint8
		var scal [ewMaxRun]float32
		nrun := 0
		flush := func() {
			if nrun > 0 {
				asm.ScalarChainF32(row, src, codes[:nrun], scal[:nrun])
				src = row
				nrun = 0
			}
		}
		for i := range steps {
			s := &steps[i]
			off := 0 // the operand's offset for this row
			if i < len(offs) {
				off = offs[i]
			} else if !s.unary {
				for d := 0; d < no; d++ {
					off += idx[d] * s.st[d]
				}
			}
			if s.chainOK && len(row) > 1 {
				if nrun == len(codes) {
					flush()
				}
				if !s.relu {
					scal[nrun] = s.data[off]
				}
				codes[nrun] = maxZeroScalar(s.chain, scal[nrun]) // (relu's code is never a max)
				nrun++
				continue
			}
			flush()
			if s.unary {
				f32Unary(s.un, row, src)
				src = row
				continue
			}
			var opnd []float32
			if s.contig {
				opnd = s.data[off+c0 : off+c1]
			} else {
				opnd = s.data[off : off+1]
			}
			if s.rev {
				floatRow(s.op, row, opnd, src)
			} else {
				floatRow(s.op, row, src, opnd)
			}
			src = row
		}
		flush()
	}
}
