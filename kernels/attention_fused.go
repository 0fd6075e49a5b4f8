package kernels

import (
	"fmt"
	"sync"

	"github.com/relaxgo/relaxgo/asm"
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

func init() {
	runtime.MustRegister(SoftmaxAttentionKernel, packedSoftmaxAttention)
}

// packedSoftmaxAttention is "kernels.relaxgo.softmax_attention". Arguments:
// (a, b, v Tensor, scale Tensor|None, scale_op int64, out Tensor); returns
// (nil, nil).
func packedSoftmaxAttention(args []runtime.Value) (runtime.Value, error) {
	const op = SoftmaxAttentionKernel
	if err := laCount(op, args, 6); err != nil {
		return nil, err
	}
	var ts [3]*runtime.Tensor
	for i := range ts {
		t, err := laTensor(op, args, i)
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	sop, err := laInt(op, args, 4)
	if err != nil {
		return nil, err
	}
	var scale float32
	if sop != AttentionNoScale {
		st, err := laTensor(op, args, 3)
		if err != nil {
			return nil, err
		}
		if st.DType() != runtime.Float32 || st.NumElements() != 1 {
			return nil, fmt.Errorf("%s: the scale must be one float32, got %s", op, st)
		}
		scale = st.Float32s()[0]
	}
	out, err := laTensor(op, args, 5)
	if err != nil {
		return nil, err
	}
	return nil, SoftmaxAttention(out, ts[0], ts[1], ts[2], scale, int(sop))
}

// SoftmaxAttention computes matmul(softmax(s), v) with s = matmul(a, b)
// scaled by scale (scaleOp: AttentionNoScale, AttentionMultiply or
// AttentionDivide), the softmax over the last axis: a (..., M, K), b (...,
// K, N), v (..., N, D) and out (..., M, D), float32, the same batch
// dimensions. It runs a block of rows of s at a time through the same
// kernels, in the same order, as the four ops (Matmul, Multiply or Divide
// by a one-element tensor, Softmax, Matmul) one after another, so the bits
// are theirs; the scores never exist as a whole tensor.
func SoftmaxAttention(out, a, b, v *runtime.Tensor, scale float32, scaleOp int) error {
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
	as, bs, vs := a.Shape(), b.Shape(), v.Shape()
	r := len(as)
	if r < 2 || len(bs) != r || len(vs) != r || r > maxRank {
		return fmt.Errorf("%s: a %v, b %v and v %v must have one rank >= 2", name, as, bs, vs)
	}
	m, k, n, d := int(as[r-2]), int(as[r-1]), int(bs[r-1]), int(vs[r-1])
	if int(bs[r-2]) != k || int(vs[r-2]) != n || !shapeEq(as[:r-2], bs[:r-2]) || !shapeEq(as[:r-2], vs[:r-2]) {
		return fmt.Errorf("%s: a %v, b %v and v %v do not chain", name, as, bs, vs)
	}
	var obuf [maxRank]int64
	oshape := append(append(obuf[:0], as[:r-1]...), int64(d))
	if err := checkOut(name, out, oshape, runtime.Float32); err != nil {
		return err
	}
	nb := 1
	for _, x := range as[:r-2] {
		nb *= int(x)
	}
	if nb == 0 || m == 0 || d == 0 {
		return nil
	}
	j := attentionJobPool.Get().(*attentionJob)
	defer j.release()
	j.a, j.b, j.v, j.out = a.Float32s(), b.Float32s(), v.Float32s(), out.Float32s()
	j.m, j.k, j.n, j.d, j.scale, j.scaleOp = m, k, n, d, scale, scaleOp
	// Row blocks of about 16K scores (64 KB, twice: the scores and their
	// softmax), so that both stay in L2 between the two products.
	j.rows = max(1, min(m, (1<<14)/max(1, n)))
	j.blocks = (m + j.rows - 1) / j.rows
	j.err = nil
	items := nb * j.blocks
	if flops := nb * m * n * (k + d); items > 1 && flops >= 1<<20 {
		ParallelFor(items, 1, j.fn)
	} else {
		j.run(0, items)
	}
	if j.err != nil {
		return fmt.Errorf("%s: %w", name, j.err)
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
	fn           func(lo, hi int)
	errMu        sync.Mutex
	err          error
}

var attentionJobPool = sync.Pool{New: func() any {
	j := new(attentionJob)
	j.fn = j.run
	return j
}}

func (j *attentionJob) release() {
	j.a, j.b, j.v, j.out, j.err = nil, nil, nil, nil, nil
	attentionJobPool.Put(j)
}

func (j *attentionJob) run(lo, hi int) {
	m, k, n, d := j.m, j.k, j.n, j.d
	sb := getScratch(2 * j.rows * n)
	defer putScratch(sb)
	for t := lo; t < hi; t++ {
		bi, r0 := t/j.blocks, (t%j.blocks)*j.rows
		rr := min(j.rows, m-r0)
		s, p := (*sb)[:rr*n], (*sb)[rr*n:2*rr*n]
		// The scores of rows [r0, r0+rr): what Matmul computes for them.
		err := sgemmEx(false, false, rr, n, k, 1, j.a[(bi*m+r0)*k:], k, j.b[bi*k*n:], n, 0, s, n, nil, nil)
		if err == nil {
			switch j.scaleOp {
			case AttentionMultiply:
				asm.MulScalarF32(s, s, j.scale)
			case AttentionDivide:
				asm.DivScalarF32(s, s, j.scale)
			}
			softmaxBlock(false, p, s, n, 1, 0, rr)
			err = sgemmEx(false, false, rr, d, n, 1, p, n, j.v[bi*n*d:], d, 0, j.out[(bi*m+r0)*d:], d, nil, nil)
		}
		if err != nil {
			j.errMu.Lock()
			if j.err == nil {
				j.err = err
			}
			j.errMu.Unlock()
			return
		}
	}
}
