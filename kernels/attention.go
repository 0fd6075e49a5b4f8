package kernels

import (
	"fmt"
	"math"

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
