package kernels

import (
	"fmt"
	"slices"
	"sync"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/internal/freelist"
	"github.com/relaxgo/relaxgo/runtime"
)

func init() {
	runtime.MustRegister("kernels.matmul", packedMatmul)
	runtime.MustRegister("kernels.relaxgo.matmul_bias", packedMatmulBias)
}

// packedMatmulBias is "kernels.relaxgo.matmul_bias", the compiler's fusion of
// matmul, a bias add over the last axis, optionally a residual add and
// optionally relu. Arguments: (x1, x2 Tensor, out_dtype DataType|string|None,
// bias Tensor, or int64 0 for none (a product and its residual add only),
// relu int64|bool[, residual Tensor, residual_left int64|bool], out Tensor);
// returns (nil, nil).
func packedMatmulBias(args []runtime.Value) (runtime.Value, error) {
	const op = "kernels.relaxgo.matmul_bias"
	if len(args) != 8 {
		if err := laCount(op, args, 6); err != nil {
			return nil, err
		}
	}
	a, b, dt, err := matmulOperands(op, args)
	if err != nil {
		return nil, err
	}
	var bias *runtime.Tensor
	if none, ok := args[3].(int64); !ok || none != 0 {
		if bias, err = laTensor(op, args, 3); err != nil {
			return nil, err
		}
	} else if len(args) != 8 {
		return nil, fmt.Errorf("%s: no bias (0) needs a residual", op)
	}
	relu, err := laFlag(op, args, 4, "relu")
	if err != nil {
		return nil, err
	}
	var res *runtime.Tensor
	left := false
	if len(args) == 8 {
		if res, err = laTensor(op, args, 5); err != nil {
			return nil, err
		}
		if left, err = laFlag(op, args, 6, "residual_left"); err != nil {
			return nil, err
		}
	}
	out, err := laTensor(op, args, len(args)-1)
	if err != nil {
		return nil, err
	}
	return nil, matmulBias(out, a, b, bias, res, left, relu, dt)
}

// matmulOperands reads the (x1, x2, out_dtype) arguments both matmul kernels start with.
func matmulOperands(op string, args []runtime.Value) (a, b *runtime.Tensor, dt runtime.DataType, err error) {
	if a, err = laTensor(op, args, 0); err != nil {
		return
	}
	if b, err = laTensor(op, args, 1); err != nil {
		return
	}
	dt, err = laDType(op, args, 2)
	return
}

// MatmulBias computes out = matmul(a, b) + bias, then relu when asked: the
// result of Relax's matmul, add and nn.relu run one after the other (bias is
// a vector over the last axis), with the bias and relu applied by the GEMM's
// epilogue while each output tile is in cache. The float32 additions are the
// same as the separate ops', so results are identical.
func MatmulBias(out, a, b, bias *runtime.Tensor, relu bool, outDType runtime.DataType) error {
	return matmulBias(out, a, b, bias, nil, false, relu, outDType)
}

// MatmulBiasResidual computes out = matmul(a, b) + bias, then res added (res
// + that with left, that + res otherwise), then relu when asked: Relax's
// matmul, add, add (a residual connection, res of the output's shape) and
// nn.relu one after the other, with the bias, the residual and relu applied
// by the GEMM's epilogue while each output tile is in cache; the additions
// are the separate ops' (the binary kernel's on the same elements), so
// results are identical. A nil bias is none: the product and the residual
// add only (a linear layer without bias, then its residual connection).
func MatmulBiasResidual(out, a, b, bias, res *runtime.Tensor, left, relu bool, outDType runtime.DataType) error {
	if res == nil {
		return fmt.Errorf("matmul_bias: nil tensor")
	}
	return matmulBias(out, a, b, bias, res, left, relu, outDType)
}

// matmulBias is MatmulBias with an optional residual res (nil for none);
// with a residual, bias may be nil (none).
func matmulBias(out, a, b, bias, res *runtime.Tensor, left, relu bool, outDType runtime.DataType) error {
	if bias == nil && res == nil || out == nil {
		return fmt.Errorf("matmul_bias: nil tensor")
	}
	if out.DType() != runtime.Float32 {
		return fmt.Errorf("matmul_bias: the output must be float32, got %s", out.DType())
	}
	os := out.Shape()
	ep := GemmEpilogue{ResLeft: left, Relu: relu}
	if bias != nil {
		if bias.DType() != runtime.Float32 {
			return fmt.Errorf("matmul_bias: the bias must be float32, got %s", bias.DType())
		}
		if bias.NDim() != 1 || len(os) == 0 || bias.Shape()[0] != os[len(os)-1] {
			return fmt.Errorf("matmul_bias: bias of shape %v does not match the output's last axis %v", bias.Shape(), os)
		}
		ep.ColBias = bias.Float32s()
	}
	if res != nil {
		if res.DType() != runtime.Float32 || !slices.Equal(res.Shape(), os) {
			return fmt.Errorf("matmul_bias: residual %s, want float32 of the output's shape %v", res, os)
		}
		if ep.Res = res.Float32s(); asm.OverlapF32(ep.Res, out.Float32s()) {
			return fmt.Errorf("matmul_bias: the residual shares memory with the output")
		}
	}
	return matmul(out, a, b, false, false, outDType, ep)
}

// packedMatmul is "kernels.matmul". Arguments: (x1, x2 Tensor, out_dtype
// DataType|string|None, out Tensor); returns (nil, nil).
func packedMatmul(args []runtime.Value) (runtime.Value, error) {
	const op = "kernels.matmul"
	if err := laCount(op, args, 4); err != nil {
		return nil, err
	}
	a, b, dt, err := matmulOperands(op, args)
	if err != nil {
		return nil, err
	}
	out, err := laTensor(op, args, 3)
	if err != nil {
		return nil, err
	}
	return nil, MatmulOut(out, a, b, dt)
}

// MatmulShape returns the output shape of Relax matmul (NumPy semantics): a
// 1-D first operand is a row vector and a 1-D second operand a column vector
// (their unit dimension is dropped from the result); leading batch dimensions
// broadcast.
func MatmulShape(a, b []int64) ([]int64, error) {
	return matmulShape(nil, a, b, false, false)
}

// matmulShape appends the output shape to dst[:0] (reusing its storage).
func matmulShape(dst, a, b []int64, transA, transB bool) ([]int64, error) {
	if len(a) == 0 || len(b) == 0 {
		return nil, fmt.Errorf("matmul: operands must have rank >= 1, got shapes %v and %v", runtime.Shape(a), runtime.Shape(b))
	}
	am, ak := int64(1), a[len(a)-1]
	if len(a) >= 2 {
		am = a[len(a)-2]
		if transA {
			am, ak = ak, am
		}
	}
	bk, bn := b[0], int64(1)
	if len(b) >= 2 {
		bk, bn = b[len(b)-2], b[len(b)-1]
		if transB {
			bk, bn = bn, bk
		}
	}
	if ak != bk {
		return nil, fmt.Errorf("matmul: reduction dimensions differ: %v x %v (%d vs %d)", runtime.Shape(a), runtime.Shape(b), ak, bk)
	}
	ab, bb := laBatchDims(a), laBatchDims(b)
	nb := max(len(ab), len(bb))
	out := dst[:0]
	for i := 0; i < nb; i++ {
		da, db := int64(1), int64(1)
		if j := i - (nb - len(ab)); j >= 0 {
			da = ab[j]
		}
		if j := i - (nb - len(bb)); j >= 0 {
			db = bb[j]
		}
		switch {
		case da == db || db == 1:
			out = append(out, da)
		case da == 1:
			out = append(out, db)
		default:
			return nil, fmt.Errorf("matmul: batch dimensions of %v and %v do not broadcast", runtime.Shape(a), runtime.Shape(b))
		}
	}
	if len(a) >= 2 {
		out = append(out, am)
	}
	if len(b) >= 2 {
		out = append(out, bn)
	}
	return out, nil
}

func laBatchDims(s []int64) []int64 {
	if len(s) <= 2 {
		return nil
	}
	return s[:len(s)-2]
}

// Matmul computes out = a @ b with Relax/NumPy matmul semantics (1-D
// operands, broadcasting batch dimensions). a and b must have the same dtype
// (float32, float64, int32 or int64); out must have the result shape and
// a's dtype. float32 runs on the packed SGEMM; the others use plain loops.
func Matmul(out, a, b *runtime.Tensor) error { return MatmulOut(out, a, b, runtime.Void) }

// MatmulOut is Matmul with Relax's out_dtype attribute: the result is
// computed in float64 (float outputs) or int64 (integer outputs) and
// converted when outDType differs from the inputs' dtype; runtime.Void means
// "the inputs' dtype".
func MatmulOut(out, a, b *runtime.Tensor, outDType runtime.DataType) error {
	return matmul(out, a, b, false, false, outDType, GemmEpilogue{})
}

// MatmulTransposed is Matmul with the last two dimensions of a (transA)
// and/or b (transB) read transposed, so matmul(x, permute_dims(w)) needs no
// copy: with transB, b[..., n, k] is used as its k x n transpose. A 1-D
// operand is never transposed.
func MatmulTransposed(out, a, b *runtime.Tensor, transA, transB bool) error {
	return matmul(out, a, b, transA, transB, runtime.Void, GemmEpilogue{})
}

func matmul(out, a, b *runtime.Tensor, transA, transB bool, outDType runtime.DataType, epv GemmEpilogue) error {
	if a == nil || b == nil || out == nil {
		return fmt.Errorf("matmul: nil tensor")
	}
	if a.DType() != b.DType() {
		return fmt.Errorf("matmul: operand dtypes differ: %s and %s", a.DType(), b.DType())
	}
	if !laSupported(a.DType()) {
		return fmt.Errorf("matmul: unsupported dtype %s", a.DType())
	}
	if outDType.IsVoid() {
		outDType = a.DType()
	}
	if !laSupported(outDType) {
		return fmt.Errorf("matmul: unsupported out_dtype %s", outDType)
	}
	as, bs := a.Shape(), b.Shape()
	if len(as) < 2 {
		transA = false
	}
	if len(bs) < 2 {
		transB = false
	}
	j := matmulJobPool.Get()
	defer j.release()
	// The epilogue lives in the pooled job, so passing it on allocates nothing.
	var ep *GemmEpilogue
	if epv.ColBias != nil || epv.RowBias != nil || epv.Res != nil || epv.Relu {
		j.epv = epv
		ep = &j.epv
	}
	shape, err := matmulShape(j.shape[:0], as, bs, transA, transB)
	if err != nil {
		return err
	}
	if err := checkOut("matmul", out, shape, outDType); err != nil {
		return err
	}
	// Matrix geometry of each batch item.
	m, k := 1, int(as[len(as)-1])
	if len(as) >= 2 {
		m = int(as[len(as)-2])
		if transA {
			m, k = k, m
		}
	}
	n := 1
	if len(bs) >= 2 {
		n = int(bs[len(bs)-1])
		if transB {
			n = int(bs[len(bs)-2])
		}
	}
	nbOut := len(shape) - laBoolInt(len(as) >= 2) - laBoolInt(len(bs) >= 2)
	batch := shape[:nbOut]
	nbatch := 1
	for _, d := range batch {
		nbatch *= int(d)
	}
	if nbatch == 0 || m == 0 || n == 0 {
		return nil
	}
	j.aoff = laBatchOffsets(j.aoff, batch, laBatchDims(as), m*k)
	j.boff = laBatchOffsets(j.boff, batch, laBatchDims(bs), k*n)
	aoff, boff := j.aoff, j.boff
	// Strides are at least 1: Sgemm rejects a zero stride even for an empty
	// operand (k == 0, where the product is all zeros).
	lda, ldb := max(1, k), max(1, n)
	if transA {
		lda = max(1, m)
	}
	if transB {
		ldb = max(1, k)
	}
	if outDType == runtime.Float32 && a.DType() == runtime.Float32 {
		af, bf, cf := a.Float32s(), b.Float32s(), out.Float32s()
		// A constant 2-D weight registered with RegisterConstant is used in
		// its cached packed form (bit-identical, no packing per call).
		// A batch of row-major, untransposed A against one shared B is a
		// single tall GEMM.
		tall := !transA && len(bs) <= 2 && nbatch > 1 && laContiguousBatches(aoff, m*k)
		var pb *PackedB
		rows := m
		if tall {
			rows = nbatch * m
		}
		// (A product small enough for the narrow path reads B in place.)
		if len(bs) == 2 && !gemmNarrowOK(transA, transB, rows, n, k, 1, bf) {
			pb = constPackedB(b, transB, gemmUseWide(rows, n))
		}
		if ep != nil && ep.Res != nil {
			// The residual is laid out as the output: one product covers
			// it (one item, or a tall batch) with the output's stride;
			// batch items one by one add it after, then relu.
			ep.ResLd = n
			if !tall && nbatch > 1 {
				post := *ep
				ep.Res, ep.Relu = nil, false
				if err := matmulItems(j, transA, transB, m, n, k, lda, ldb, af, bf, cf, ep, pb, nbatch); err != nil {
					return err
				}
				// The residual and relu on every item's rows at once.
				post.ColBias, post.RowBias = nil, nil
				gemmEpilogueRows(&post, cf, n, 0, nbatch*m, 0, n)
				return nil
			}
		}
		if tall {
			return sgemmEx(false, transB, nbatch*m, n, k, 1, af, lda, bf, ldb, 0, cf, n, ep, pb)
		}
		return matmulItems(j, transA, transB, m, n, k, lda, ldb, af, bf, cf, ep, pb, nbatch)
	}
	if ep != nil {
		return fmt.Errorf("matmul: a fused epilogue needs float32 operands, got %s", a.DType())
	}
	if outDType.IsFloat() {
		return matmulPlain[float64](out, a, b, transA, transB, m, n, k, aoff, boff)
	}
	return matmulPlain[int64](out, a, b, transA, transB, m, n, k, aoff, boff)
}

// matmulItems runs the float32 product of nbatch batch items (j's offsets)
// through j.run, in parallel when they are many small ones.
func matmulItems(j *matmulJob, transA, transB bool, m, n, k, lda, ldb int, af, bf, cf []float32, ep *GemmEpilogue, pb *PackedB, nbatch int) error {
	j.pb = pb
	flops := m * n * k
	j.transA, j.transB, j.m, j.n, j.k, j.lda, j.ldb = transA, transB, m, n, k, lda, ldb
	j.af, j.bf, j.cf, j.ep = af, bf, cf, ep
	j.err.reset()
	if nbatch > 1 && flops < 1<<21 {
		grain := max(1, (1<<20)/max(1, flops))
		// Chunks enough for every thread: each item's product on its
		// own thread (sgemmExOn).
		j.serial = parallelChunks(nbatch, grain, NumThreads()) >= NumThreads()
		ParallelFor(nbatch, grain, j.fn)
	} else {
		j.serial = false
		j.run(0, nbatch)
	}
	if err := j.err.get(); err != nil {
		return fmt.Errorf("matmul: %w", err)
	}
	return nil
}

// matmulJob holds one matmul call's scratch (output shape, batch offsets)
// and the float32 batch loop. Jobs are pooled and fn is bound once, so a
// call allocates nothing.
type matmulJob struct {
	shape          [8]int64
	aoff, boff     []int
	transA, transB bool
	m, n, k        int
	lda, ldb       int
	af, bf, cf     []float32
	ep             *GemmEpilogue
	epv            GemmEpilogue
	pb             *PackedB // B's cached packing (a registered constant), or nil
	serial         bool     // the items' products on their own threads alone
	fn             func(lo, hi int)
	err            firstErr // the first error of a batch item (run's chunks may run concurrently)
}

var matmulJobPool = freelist.List[*matmulJob]{New: func() *matmulJob {
	j := new(matmulJob)
	j.fn = j.run
	return j
}}

// run multiplies batch items [lo, hi). It records the first error in j.err
// (sizes were validated, so an error means operand data shorter than its
// shape) and stops its chunk there.
func (j *matmulJob) run(lo, hi int) {
	m, n, k := j.m, j.n, j.k
	for i := lo; i < hi; i++ {
		ao, bo, co := j.aoff[i], j.boff[i], i*m*n
		var err error
		if ao > len(j.af) || bo > len(j.bf) || co > len(j.cf) {
			err = fmt.Errorf("batch item %d: operand data shorter than its shape", i)
		} else {
			err = sgemmExOn(j.serial, j.transA, j.transB, m, n, k, 1, j.af[ao:], j.lda, j.bf[bo:], j.ldb, 0, j.cf[co:], n, j.ep, j.pb)
		}
		if err != nil {
			j.err.set(err)
			return
		}
	}
}

// release drops the references to operands and pools the job.
func (j *matmulJob) release() {
	j.af, j.bf, j.cf, j.ep, j.epv, j.pb, j.serial = nil, nil, nil, nil, GemmEpilogue{}, nil, false
	j.err.reset()
	matmulJobPool.Put(j)
}

func laBoolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// laContiguousBatches reports whether off[i] == i*size.
func laContiguousBatches(off []int, size int) bool {
	for i, o := range off {
		if o != i*size {
			return false
		}
	}
	return true
}

// laBatchOffsets returns, for every index of the broadcast batch shape, the
// element offset of the corresponding matrix in an operand with batch
// dimensions dims (right-aligned, size-1 dimensions broadcast) and matrices
// of size elements. It reuses dst's storage when large enough.
func laBatchOffsets(dst []int, batch, dims []int64, size int) []int {
	nb := 1
	for _, d := range batch {
		nb *= int(d)
	}
	offs := dst[:0]
	if cap(offs) < nb {
		offs = make([]int, nb)
	}
	offs = offs[:nb]
	var sbuf, ibuf [8]int
	strides, idx := sbuf[:0], ibuf[:0]
	if len(batch) > len(sbuf) {
		strides, idx = make([]int, len(batch)), make([]int, len(batch))
	}
	strides, idx = strides[:len(batch)], idx[:len(batch)]
	st := size
	for i := len(dims) - 1; i >= 0; i-- {
		j := i + len(batch) - len(dims)
		if dims[i] != 1 {
			strides[j] = st
		}
		st *= int(dims[i])
	}
	for b := 0; b < nb; b++ {
		o := 0
		for j, x := range idx {
			o += x * strides[j]
		}
		offs[b] = o
		for j := len(idx) - 1; j >= 0; j-- {
			idx[j]++
			if idx[j] < int(batch[j]) {
				break
			}
			idx[j] = 0
		}
	}
	return offs
}

// matmulPlain is the reference triple loop, accumulating in T (float64 for
// float outputs, int64 for integer outputs; integer products wrap as in C).
func matmulPlain[T int64 | float64](out, a, b *runtime.Tensor, transA, transB bool, m, n, k int, aoff, boff []int) error {
	ra, err := laReader[T](a)
	if err != nil {
		return fmt.Errorf("matmul: %w", err)
	}
	rb, err := laReader[T](b)
	if err != nil {
		return fmt.Errorf("matmul: %w", err)
	}
	w, err := laWriter[T](out)
	if err != nil {
		return fmt.Errorf("matmul: %w", err)
	}
	// Same-dtype float64 fast-ish path avoids the closures.
	if a.DType() == runtime.Float64 && out.DType() == runtime.Float64 && !transA && !transB {
		af, bf, cf := a.Float64s(), b.Float64s(), out.Float64s()
		ParallelFor(len(aoff)*m, max(1, 65536/max(1, n*k)), func(lo, hi int) {
			for r := lo; r < hi; r++ {
				bi, i := r/m, r%m
				row := cf[r*n : r*n+n]
				clear(row)
				arow := af[aoff[bi]+i*k : aoff[bi]+i*k+k]
				for p, av := range arow {
					brow := bf[boff[bi]+p*n : boff[bi]+p*n+n]
					for j, bv := range brow {
						row[j] += av * bv
					}
				}
			}
		})
		return nil
	}
	ParallelFor(len(aoff)*m, max(1, 65536/max(1, n*k)), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			bi, i := r/m, r%m
			for j := 0; j < n; j++ {
				var s T
				for p := 0; p < k; p++ {
					ai := aoff[bi] + i*k + p
					if transA {
						ai = aoff[bi] + p*m + i
					}
					bj := boff[bi] + p*n + j
					if transB {
						bj = boff[bi] + j*k + p
					}
					s += ra(ai) * rb(bj)
				}
				w(r*n+j, s)
			}
		}
	})
	return nil
}

// firstErr keeps the first error reported by concurrent chunks of a job.
type firstErr struct {
	mu  sync.Mutex
	err error
}

func (f *firstErr) set(err error) {
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
}

func (f *firstErr) get() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *firstErr) reset() { f.err = nil }
