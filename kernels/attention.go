package kernels

import (
	"fmt"
	"math"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
)

// AttentionAttrs are Relax nn.attention's attributes.
type AttentionAttrs struct {
	// Scale multiplies the scores; nil divides them by sqrt(head_dim).
	Scale *float64
	// CausalMask is "", "TopLeft" or "BottomRight".
	CausalMask string
}

// Attention computes Relax nn.attention (and nn.attention_bias when bias is
// not nil) as TVM legalizes it: for query (B, S, N, H), key (B, Skv, N, H)
// and value (B, Skv, N, Hv), per batch and head the scores Q·Kᵀ are scaled,
// bias (broadcast to (B, N, S, Skv)) is added, a softmax runs over the keys
// (with a causal mask: scores above the diagonal shifted by the mask offset
// are zeroed before the row maximum and their exponentials dropped), and the
// result multiplies V; out is (B, S, N, Hv). float32 only.
func Attention(out, q, k, v, bias *runtime.Tensor, a AttentionAttrs) error {
	const name = "nn.attention"
	for _, t := range []*runtime.Tensor{out, q, k, v} {
		if t == nil {
			return fmt.Errorf("%s: nil tensor", name)
		}
		if t.DType() != runtime.Float32 || t.NDim() != 4 {
			return fmt.Errorf("%s: want 4-D float32 tensors, got %s", name, t)
		}
	}
	qs, ks, vs := q.Shape(), k.Shape(), v.Shape()
	b, s, nh, hd := int(qs[0]), int(qs[1]), int(qs[2]), int(qs[3])
	skv, hv := int(ks[1]), int(vs[3])
	if ks[0] != qs[0] || vs[0] != qs[0] || ks[2] != qs[2] || vs[2] != qs[2] || ks[3] != qs[3] || vs[1] != ks[1] {
		return fmt.Errorf("%s: query %v, key %v and value %v do not match", name, qs, ks, vs)
	}
	if err := checkOut(name, out, []int64{qs[0], qs[1], qs[2], vs[3]}, runtime.Float32); err != nil {
		return err
	}
	offset := 0
	switch a.CausalMask {
	case "", "TopLeft":
	case "BottomRight":
		offset = s - skv
		if offset < 0 {
			offset = -offset
		}
	default:
		return fmt.Errorf("%s: unknown causal_mask %q", name, a.CausalMask)
	}
	// Bias broadcast to (B, N, S, Skv): strides with zeros on broadcast axes.
	var bst [4]int
	var bd []float32
	if bias != nil {
		if bias.DType() != runtime.Float32 || bias.NDim() > 4 {
			return fmt.Errorf("%s: bias must be float32 of rank <= 4, got %s", name, bias)
		}
		full := []int{b, nh, s, skv}
		bsh := bias.Shape()
		stride := 1
		for i := len(bsh) - 1; i >= 0; i-- {
			ax := 4 - len(bsh) + i
			switch int(bsh[i]) {
			case full[ax]:
				bst[ax] = stride
			case 1:
				bst[ax] = 0
			default:
				return fmt.Errorf("%s: bias of shape %v does not broadcast to (%d, %d, %d, %d)", name, bsh, b, nh, s, skv)
			}
			stride *= int(bsh[i])
		}
		bd = bias.Float32s()
	}
	var mul, div float32 = 1, 1
	if a.Scale != nil {
		mul = float32(*a.Scale)
	} else {
		div = float32(math.Sqrt(float64(float32(hd))))
	}
	qd, kd, vd, od := q.Float32s(), k.Float32s(), v.Float32s(), out.Float32s()
	causal := a.CausalMask != ""
	if !attentionScalar {
		co := -1
		if causal {
			co = offset
		}
		return attentionFused(od, qd, kd, vd, bias, b, s, skv, nh, hd, hv, a.Scale, div, co)
	}
	ParallelFor(b*nh, 1, func(lo, hi int) {
		p := make([]float32, skv)
		for bn := lo; bn < hi; bn++ {
			bi, ni := bn/nh, bn%nh
			for i := 0; i < s; i++ {
				qrow := qd[((bi*s+i)*nh+ni)*hd:][:hd]
				for j := 0; j < skv; j++ {
					krow := kd[((bi*skv+j)*nh+ni)*hd:][:hd]
					var acc float32
					for d := range qrow {
						acc += qrow[d] * krow[d]
					}
					if a.Scale != nil {
						acc *= mul
					} else {
						acc /= div
					}
					if bd != nil {
						acc += bd[bi*bst[0]+ni*bst[1]+i*bst[2]+j*bst[3]]
					}
					if causal && j > i+offset {
						acc = 0
					}
					p[j] = acc
				}
				mx := float32(math.Inf(-1))
				for _, x := range p {
					mx = max(mx, x)
				}
				var sum float32
				for j := range p {
					e := float32(math.Exp(float64(p[j] - mx)))
					if causal && j > i+offset {
						e = 0
					}
					p[j] = e
					sum += e
				}
				orow := od[((bi*s+i)*nh+ni)*hv:][:hv]
				clear(orow)
				for j, w := range p {
					w /= sum
					vrow := vd[((bi*skv+j)*nh+ni)*hv:][:hv]
					for d := range orow {
						orow[d] += w * vrow[d]
					}
				}
			}
		}
	})
	return nil
}

// attentionScalar makes Attention take its scalar loops (tests compare
// them with the fused kernel).
var attentionScalar bool

// attentionFused is Attention on the fused kernel (softmaxAttentionRun):
// the query, the value and the output are read and written token-major in
// place, the keys (B, Skv, N, H) transposed per batch item and head into
// (B, N, H, Skv) scratch (asm.TransposeBatchF32), the bias the scores'
// additive mask, and a causal mask (causal >= 0, its offset) the masked
// scores set to -Inf. It computes what the scalar loops do (the scores
// scaled, biased, softmaxed over the unmasked keys, times V) with the fused
// kernel's float32 products and exponentials, so the bits differ from the
// loops' (which take exp in float64, and the maximum with the masked
// scores as 0, the same softmax up to rounding) by rounding. The loops took
// 26-39 ms for BERT-base's 12 heads of 128 tokens, the fused kernel
// 1.7 (BenchmarkAttention).
func attentionFused(out, q, k, v []float32, bias *runtime.Tensor, b, s, skv, nh, hd, hv int, scale *float64, div float32, causal int) error {
	kt := getScratch(b * nh * hd * skv)
	defer putScratch(kt)
	for bi := 0; bi < b; bi++ {
		// Head ni: k[bi, :, ni, :] (skv x hd, rows nh*hd apart) to kt[bi, ni].
		asm.TransposeBatchF32((*kt)[bi*nh*hd*skv:], skv, hd*skv, k[bi*skv*nh*hd:], nh*hd, hd, nh, skv, hd)
	}
	scaleOp, sc := AttentionDivide, div
	if scale != nil {
		scaleOp, sc = AttentionMultiply, float32(*scale)
	}
	mask := AttentionMask{}
	if bias != nil {
		mask = AttentionMask{Op: AttentionAddMask, Mask: bias}
	}
	batch := [2]int64{int64(b), int64(nh)}
	layout := AttentionTokenMajorA | AttentionTokenMajorV | AttentionTokenMajorOut
	if err := softmaxAttentionRun(out, q, *kt, v, batch[:], s, hd, skv, hv, sc, scaleOp, mask, layout, nh, causal); err != nil {
		return fmt.Errorf("nn.attention: %w", err)
	}
	return nil
}

func attentionPacked(op string, withBias bool) runtime.PackedFunc {
	return func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs(Prefix+op, args)
		n := 7
		if withBias {
			n = 8
		}
		p.count(n)
		q, k, v := p.tensor(0), p.tensor(1), p.tensor(2)
		i := 3
		var bias *runtime.Tensor
		if withBias {
			bias = p.tensor(3)
			i = 4
		}
		var a AttentionAttrs
		if p.err == nil && args[i] != nil {
			f := p.float(i)
			a.Scale = &f
		}
		if p.err == nil && args[i+1] != nil {
			a.CausalMask = p.string(i + 1)
		}
		if p.err == nil && args[i+2] != nil {
			p.fail("window_size (sliding-window attention) is not supported")
		}
		out := p.tensor(n - 1)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(Attention(out, q, k, v, bias, a))
	}
}

func init() {
	register("nn.attention", "query, key, value, scale (float64 or nil), causal_mask (string or nil), window_size (nil), out", attentionPacked("nn.attention", false))
	register("nn.attention_bias", "query, key, value, bias, scale (float64 or nil), causal_mask (string or nil), window_size (nil), out", attentionPacked("nn.attention_bias", true))
}
