package kernels

import (
	"fmt"
	"math"
	"slices"

	"github.com/klauspost/cpuid/v2"
	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/internal/freelist"
	"github.com/relaxgo/relaxgo/runtime"
)

// SoftmaxAttentionKernel is the kernel the compiler fuses a decomposed
// attention into (lower.FuseAttention): matmul, an optional scale, a softmax
// over the last axis and a second matmul.
const SoftmaxAttentionKernel = "kernels.relaxgo.softmax_attention"

// Score scalings of SoftmaxAttention.
const (
	AttentionNoScale  = 0 // the scores as they are
	AttentionMultiply = 1 // scores * scale
	AttentionDivide   = 2 // scores / scale
)

// Score masks of SoftmaxAttention, applied after the scaling.
const (
	AttentionNoMask    = 0 // no mask
	AttentionAddMask   = 1 // scores + mask
	AttentionMaskAdd   = 2 // mask + scores
	AttentionWhereFill = 3 // where(mask, fill, scores)
	AttentionWhereKeep = 4 // where(mask, scores, fill)
)

// Operand layouts of SoftmaxAttentionLayout, bits of its layout argument:
// with a bit set, that operand is token-major, (B, tokens, H, features) for
// rank-4 operands (B, H, ...) and (tokens, G, features) for rank-3 ones (G,
// ...), the head split as a reshape leaves it before the permute_dims that
// frontends follow it with, which the kernel then reads (or writes) through
// row strides instead. (b, the keys transposed, has no such layout: packing
// the product's B from the keys' rows, a transposition, cost the fused
// call more than the permute's 8x8 transposes: compare.sh's transformer's
// attention 357-387 -> 416-427 µs against a permute of 10-13.)
const (
	AttentionTokenMajorA   = 1 // a as (B, M, H, K), not (B, H, M, K)
	AttentionTokenMajorV   = 2 // v as (B, N, H, D), not (B, H, N, D)
	AttentionTokenMajorOut = 4 // out as (B, M, H, D), not (B, H, M, D)
)

// AttentionMask is SoftmaxAttention's optional mask step: Op one of the
// AttentionNoMask... constants, Mask a tensor that broadcasts to the scores
// (float32 for the adds, bool for the wheres), Fill the one float32 value
// of the wheres.
type AttentionMask struct {
	Op   int
	Mask *runtime.Tensor
	Fill float32
}

func init() {
	runtime.MustRegister(SoftmaxAttentionKernel, packedSoftmaxAttention)
}

// packedSoftmaxAttention is "kernels.relaxgo.softmax_attention". Arguments:
// (a, b, v Tensor, scale Tensor|unused, scale_op int64, mask Tensor|unused,
// fill Tensor|unused, mask_op int64, [layout int64,] out Tensor); returns
// (nil, nil). Without layout (nine arguments) every operand is head-major.
func packedSoftmaxAttention(args []runtime.Value) (runtime.Value, error) {
	const op = SoftmaxAttentionKernel
	ca := runtime.Args{Func: op, Values: args}
	if ca.Count(9, 10); ca.Err() != nil {
		return nil, ca.Err()
	}
	var layout int64
	outAt := 8
	if len(args) == 10 {
		l, err := laInt(op, args, 8)
		if err != nil {
			return nil, err
		}
		layout, outAt = l, 9
	}
	var ts [3]*runtime.Tensor
	for i := range ts {
		t, err := laTensor(op, args, i)
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	one := func(i int) (float32, error) {
		t, err := laTensor(op, args, i)
		if err != nil {
			return 0, err
		}
		if t.DType() != runtime.Float32 || t.NumElements() != 1 {
			return 0, fmt.Errorf("%s: argument %d must be one float32, got %s", op, i, t)
		}
		return t.Float32s()[0], nil
	}
	sop, err := laInt(op, args, 4)
	if err != nil {
		return nil, err
	}
	var scale float32
	if sop != AttentionNoScale {
		if scale, err = one(3); err != nil {
			return nil, err
		}
	}
	mop, err := laInt(op, args, 7)
	if err != nil {
		return nil, err
	}
	mask := AttentionMask{Op: int(mop)}
	if mop != AttentionNoMask {
		if mask.Mask, err = laTensor(op, args, 5); err != nil {
			return nil, err
		}
	}
	if mop == AttentionWhereFill || mop == AttentionWhereKeep {
		if mask.Fill, err = one(6); err != nil {
			return nil, err
		}
	}
	out, err := laTensor(op, args, outAt)
	if err != nil {
		return nil, err
	}
	return nil, SoftmaxAttentionLayout(out, ts[0], ts[1], ts[2], scale, int(sop), mask, int(layout))
}

// SoftmaxAttention computes matmul(softmax(s), v) with s = matmul(a, b)
// scaled by scale (scaleOp: AttentionNoScale, AttentionMultiply or
// AttentionDivide), then masked (mask), the softmax over the last axis: a
// (..., M, K), b (..., K, N), v (..., N, D) and out (..., M, D), float32,
// the same batch dimensions. It runs a block of rows of s at a time through
// the same kernels, in the same order, as the ops (Matmul, Multiply or
// Divide by a one-element tensor, Add or Where, Softmax, Matmul) one after
// another, so the bits are theirs; the scores never exist as a whole tensor.
func SoftmaxAttention(out, a, b, v *runtime.Tensor, scale float32, scaleOp int, mask AttentionMask) error {
	return SoftmaxAttentionLayout(out, a, b, v, scale, scaleOp, mask, 0)
}

// SoftmaxAttentionLayout is SoftmaxAttention with a, v or out token-major
// (layout: AttentionTokenMajor... bits): each such operand is read, or out
// written, through row strides in place of the permute_dims that would make
// it head-major, which it then needs no more. The products read the same
// values (their operands packed from the strided rows) and write the same
// sums, so the bits are those of the permutes followed by SoftmaxAttention.
func SoftmaxAttentionLayout(out, a, b, v *runtime.Tensor, scale float32, scaleOp int, mask AttentionMask, layout int) error {
	const name = "softmax_attention"
	for _, t := range []*runtime.Tensor{out, a, b, v} {
		if t == nil {
			return fmt.Errorf("%s: nil tensor", name)
		}
		if t.DType() != runtime.Float32 {
			return fmt.Errorf("%s: want float32 tensors, got %s", name, t)
		}
	}
	if scaleOp < AttentionNoScale || scaleOp > AttentionDivide {
		return fmt.Errorf("%s: unknown scale op %d", name, scaleOp)
	}
	if layout < 0 || layout > 7 {
		return fmt.Errorf("%s: unknown layout %d", name, layout)
	}
	// The operands' head-major shapes. A token-major operand of rank 4 is
	// (B, T, H, F), of rank 3 (T, G, F) (G heads of one image, as PyTorch's
	// multi-head attention batches them): its axes T and H (or G) swap to
	// make it head-major. (out is checked against the result below.)
	var abuf, vbuf [maxRank]int64
	as := append(abuf[:0], a.Shape()...)
	bs := b.Shape()
	vs := append(vbuf[:0], v.Shape()...)
	heads := 1
	for _, o := range [...]struct {
		bit   int
		shape []int64
	}{{AttentionTokenMajorA, as}, {AttentionTokenMajorV, vs}, {AttentionTokenMajorOut, out.Shape()}} {
		sh := o.shape
		if layout&o.bit == 0 {
			continue
		}
		if len(sh) != 3 && len(sh) != 4 {
			return fmt.Errorf("%s: a token-major operand must have rank 3 or 4, got rank %d", name, len(sh))
		}
		t := len(sh) - 3
		heads = int(sh[t+1])
		if o.bit != AttentionTokenMajorOut {
			sh[t], sh[t+1] = sh[t+1], sh[t]
		}
	}
	r := len(as)
	if r < 2 || len(bs) != r || len(vs) != r || r > maxRank {
		return fmt.Errorf("%s: a %v, b %v and v %v must have one rank >= 2", name, a.Shape(), b.Shape(), v.Shape())
	}
	m, k, n, d := int(as[r-2]), int(as[r-1]), int(bs[r-1]), int(vs[r-1])
	if int(bs[r-2]) != k || int(vs[r-2]) != n || !slices.Equal(as[:r-2], bs[:r-2]) || !slices.Equal(as[:r-2], vs[:r-2]) {
		return fmt.Errorf("%s: a %v, b %v and v %v do not chain", name, a.Shape(), b.Shape(), v.Shape())
	}
	if layout != 0 && (r != 3 && r != 4 || int(as[r-3]) != heads) {
		return fmt.Errorf("%s: token-major operands need rank 3 or 4 and one head count, got a %v, b %v, v %v, out %v",
			name, a.Shape(), b.Shape(), v.Shape(), out.Shape())
	}
	var obuf [maxRank]int64
	oshape := append(append(obuf[:0], as[:r-1]...), int64(d))
	if layout&AttentionTokenMajorOut != 0 {
		oshape[r-3], oshape[r-2] = oshape[r-2], oshape[r-3]
	}
	if err := checkOut(name, out, oshape, runtime.Float32); err != nil {
		return err
	}
	return softmaxAttentionRun(out.Float32s(), a.Float32s(), b.Float32s(), v.Float32s(), as[:r-2], m, k, n, d, scale, scaleOp, mask, layout, heads, -1)
}

// attentionScores is the most scores a row block of softmaxAttentionRun
// holds: the scores and their softmax (8 bytes a score) in half the L2
// (cpuid's size; 256 KiB where it is not known, the 16K scores of the
// block size before). Each block is two products whose B operands (the
// keys, the values) the driver packs anew, and rows of few scores' blocks
// are short products: on a 1 MiB L2 (AMD EPYC (Zen 5) VM), 64K instead of
// 16K scores took BenchmarkSoftmaxAttention's ViT-B/16 shape (12 heads of
// 197 tokens, one block a head instead of three) from 1.20-1.22 to
// 1.03-1.07 ms and 4 heads of 384 tokens from 1.44-1.47 to 1.30-1.33 (1
// thread, two runs each); 4 heads of 128 (one block either way) the same.
var attentionScores = func() int {
	l2 := cpuid.CPU.Cache.L2
	if l2 <= 0 {
		l2 = 256 << 10
	}
	return max(1<<14, l2/16)
}()

// softmaxAttentionRun is SoftmaxAttentionLayout on checked operands: the
// head-major batch axes, the products' sizes (a m x k, b k x n, v n x d
// per batch item), and heads, the H of token-major operands. With causal
// >= 0 the scores of row i's columns past i+causal are -Inf after the mask
// step (their exponentials 0: nn.attention's causal mask).
func softmaxAttentionRun(out, a, b, v []float32, batch []int64, m, k, n, d int, scale float32, scaleOp int, mask AttentionMask, layout, heads, causal int) error {
	const name = "softmax_attention"
	nb := 1
	for _, x := range batch {
		nb *= int(x)
	}
	if nb == 0 || m == 0 || d == 0 {
		return nil
	}
	j := attentionJobPool.Get()
	defer j.release()
	if err := j.setMask(mask, batch, int64(m), int64(n)); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	j.a, j.b, j.v, j.out = a, b, v, out
	j.m, j.k, j.n, j.d, j.scale, j.scaleOp, j.causal = m, k, n, d, scale, scaleOp, causal
	j.layout, j.heads = layout, heads
	// Row blocks of attentionScores scores (twice: the scores and their
	// softmax), so that both stay in L2 between the two products.
	j.rows = max(1, min(m, attentionScores/max(1, n)))
	j.blocks = (m + j.rows - 1) / j.rows
	j.err.reset()
	items := nb * j.blocks
	if flops := nb * m * n * (k + d); items > 1 && flops >= 1<<20 {
		// Items enough for every thread: each item's products run on
		// its own thread (sgemmExOn).
		j.serial = items >= NumThreads()
		ParallelFor(items, 1, j.fn)
	} else {
		j.run(0, items)
	}
	if err := j.err.get(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// attentionJob is one SoftmaxAttention call: item t is row block t%blocks
// of batch item t/blocks. Pooled, fn bound once.
type attentionJob struct {
	a, b, v, out []float32
	m, k, n, d   int
	scale        float32
	scaleOp      int
	rows, blocks int
	// layout: AttentionTokenMajor... bits; heads: H (or G) of a call
	// with any of them (batch item bi is (bi/heads, bi%heads)).
	layout, heads int
	serial        bool // the items' products on their own threads alone
	// The mask step: op, the mask's elements (float32 bits or bools), the
	// element offset of each batch item's mask and its row and column
	// strides (0 where the mask broadcasts), the where's fill.
	maskOp  int
	maskF   []float32
	maskB   []bool
	maskOff []int
	causal  int // -1, or the offset of a causal mask (softmaxAttentionRun)
	maskRow int
	maskCol int
	fill    float32
	fn      func(lo, hi int)
	err     firstErr
}

var attentionJobPool = freelist.List[*attentionJob]{New: func() *attentionJob {
	j := new(attentionJob)
	j.fn = j.run
	return j
}}

func (j *attentionJob) release() {
	j.a, j.b, j.v, j.out, j.maskF, j.maskB = nil, nil, nil, nil, nil, nil
	j.serial = false
	j.err.reset()
	attentionJobPool.Put(j)
}

// setMask checks that mask broadcasts to the scores (batch..., m, n) and
// records its strides, or no mask.
func (j *attentionJob) setMask(mask AttentionMask, batch []int64, m, n int64) error {
	j.maskOp, j.maskF, j.maskB, j.fill = mask.Op, nil, nil, mask.Fill
	switch mask.Op {
	case AttentionNoMask:
		return nil
	case AttentionAddMask, AttentionMaskAdd:
		if mask.Mask == nil || mask.Mask.DType() != runtime.Float32 {
			return fmt.Errorf("the mask of an add must be float32, got %s", mask.Mask)
		}
		j.maskF = mask.Mask.Float32s()
	case AttentionWhereFill, AttentionWhereKeep:
		if mask.Mask == nil || mask.Mask.DType() != runtime.Bool {
			return fmt.Errorf("the condition of a where must be bool, got %s", mask.Mask)
		}
		j.maskB = elems[bool](mask.Mask)
	default:
		return fmt.Errorf("unknown mask op %d", mask.Op)
	}
	// The mask's shape against the scores' (batch..., m, n), ones in
	// front: each axis the scores' own or 1 (broadcast).
	ms, nd := mask.Mask.Shape(), len(batch)+2
	if len(ms) > nd {
		return fmt.Errorf("mask %v has more axes than the scores (%d)", ms, nd)
	}
	var pbuf [maxRank]int64
	padded := pbuf[:nd]
	for i := range padded {
		padded[i] = 1
		if k := i - (nd - len(ms)); k >= 0 {
			padded[i] = ms[k]
		}
		want := m
		switch {
		case i < len(batch):
			want = batch[i]
		case i == nd-1:
			want = n
		}
		if padded[i] != want && padded[i] != 1 {
			return fmt.Errorf("mask %v does not broadcast to the scores' axis %d of %d", ms, i, want)
		}
	}
	mrows, mcols := padded[nd-2], padded[nd-1]
	j.maskRow, j.maskCol = 0, 0
	if mrows != 1 {
		j.maskRow = int(mcols)
	}
	if mcols != 1 {
		j.maskCol = 1
	}
	// Each batch item's mask matrix, as matmul finds its operands'.
	j.maskOff = laBatchOffsets(j.maskOff, batch, padded[:len(batch)], int(mrows*mcols))
	return nil
}

// applyMask runs the mask step on the scores s of rows [r0, r0+len(s)/n)
// of batch item bi, row by row as the Add and Where kernels compute it.
func (j *attentionJob) applyMask(s []float32, bi, r0 int) {
	n := j.n
	for i := 0; i*n < len(s); i++ {
		row := s[i*n : (i+1)*n]
		off := j.maskOff[bi] + (r0+i)*j.maskRow
		switch j.maskOp {
		case AttentionAddMask, AttentionMaskAdd:
			switch {
			case j.maskCol == 0 && n > 1:
				// A mask row of one element: the scalar kernel, scores
				// first, which Add's rows use for either operand order.
				asm.AddScalarF32(row, row, j.maskF[off])
			case j.maskOp == AttentionAddMask:
				asm.AddF32(row, row, j.maskF[off:off+n])
			default:
				asm.AddF32(row, j.maskF[off:off+n], row)
			}
		case AttentionWhereFill, AttentionWhereKeep:
			keep := j.maskOp == AttentionWhereKeep
			for c := range row {
				if j.maskB[off+c*j.maskCol] != keep {
					row[c] = j.fill
				}
			}
		}
	}
}

func (j *attentionJob) run(lo, hi int) {
	m, k, n, d := j.m, j.k, j.n, j.d
	sb := getScratch(2 * j.rows * n)
	defer putScratch(sb)
	for t := lo; t < hi; t++ {
		bi, r0 := t/j.blocks, (t%j.blocks)*j.rows
		rr := min(j.rows, m-r0)
		s, p := (*sb)[:rr*n], (*sb)[rr*n:2*rr*n]
		// The operands' offsets and row strides for batch item bi (head h
		// of image bb where token-major).
		bb, h, hs := bi, 0, 1
		if j.layout != 0 {
			bb, h, hs = bi/j.heads, bi%j.heads, j.heads
		}
		aOff, lda := (bi*m+r0)*k, k
		if j.layout&AttentionTokenMajorA != 0 {
			aOff, lda = ((bb*m+r0)*hs+h)*k, hs*k
		}
		vOff, ldv := bi*n*d, d
		if j.layout&AttentionTokenMajorV != 0 {
			vOff, ldv = (bb*n*hs+h)*d, hs*d
		}
		oOff, ldo := (bi*m+r0)*d, d
		if j.layout&AttentionTokenMajorOut != 0 {
			oOff, ldo = ((bb*m+r0)*hs+h)*d, hs*d
		}
		// The scores of rows [r0, r0+rr): what Matmul computes for them.
		err := sgemmExOn(j.serial, false, false, rr, n, k, 1, j.a[aOff:], lda, j.b[bi*k*n:], n, 0, s, n, nil, nil)
		if err == nil {
			switch j.scaleOp {
			case AttentionMultiply:
				asm.MulScalarF32(s, s, j.scale)
			case AttentionDivide:
				asm.DivScalarF32(s, s, j.scale)
			}
			if j.maskOp != AttentionNoMask {
				j.applyMask(s, bi, r0)
			}
			if j.causal >= 0 {
				inf := float32(math.Inf(-1))
				for i := 0; i < rr; i++ {
					for c := r0 + i + j.causal + 1; c < n; c++ {
						s[i*n+c] = inf
					}
				}
			}
			softmaxBlock(false, p, s, n, 1, 0, rr)
			err = sgemmExOn(j.serial, false, false, rr, d, n, 1, p, n, j.v[vOff:], ldv, 0, j.out[oOff:], ldo, nil, nil)
		}
		if err != nil {
			j.err.set(err)
			return
		}
	}
}
