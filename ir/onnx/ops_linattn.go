package onnx

import (
	"math"

	"github.com/relaxgo/relaxgo/runtime"
)

// LinearAttention (opset 27): the recurrent linear-attention family (linear,
// gated, delta, gated_delta update rules, grouped kv heads), expanded as its
// ONNX function body with the Scan over time unrolled (the sequence length
// is static). Per step, in float32:
//
//	S = S * exp(decay_t)                      (gated rules)
//	S = S + k_t^T (beta_t (v_t - S^T k_t))    (delta rules; else k_t^T v_t)
//	o_t = scale * q_t S                       (S of kv head h/group for q head h)

func convLinearAttention(c *Ctx, n *Node) ([]*Value, error) {
	q, k, v := n.In[0], n.In[1], n.In[2]
	past, decay, beta := n.Input(3), n.Input(4), n.Input(5)
	qd, ok1 := q.StaticDims()
	kd, ok2 := k.StaticDims()
	vd, ok3 := v.StaticDims()
	if !ok1 || !ok2 || !ok3 || len(qd) != 3 || len(kd) != 3 || len(vd) != 3 {
		return nil, n.unsupported("only 3-D query, key and value with static shapes are supported")
	}
	hq, hkv := n.Int("q_num_heads", 0), n.Int("kv_num_heads", 0)
	if hq <= 0 || hkv <= 0 || hq%hkv != 0 || qd[2]%hq != 0 || vd[2]%hkv != 0 || kd[2]%hkv != 0 {
		return nil, n.unsupported("q_num_heads=%d kv_num_heads=%d do not divide the hidden sizes", hq, hkv)
	}
	B, T := qd[0], qd[1]
	if kd[0] != B || vd[0] != B || kd[1] != T || vd[1] != T || T < 1 || T > 4096 {
		return nil, n.unsupported("query, key and value shapes %v %v %v do not match", qd, kd, vd)
	}
	dk, dv := qd[2]/hq, vd[2]/hkv
	if kd[2]/hkv != dk {
		return nil, n.unsupported("key head size %d differs from query head size %d", kd[2]/hkv, dk)
	}
	rule := n.Str("update_rule", "gated_delta")
	gated, delta := false, false
	switch rule {
	case "linear":
	case "gated":
		gated = true
	case "delta":
		delta = true
	case "gated_delta":
		gated, delta = true, true
	default:
		return nil, n.unsupported("update_rule=%q", rule)
	}
	if gated && decay == nil {
		return nil, n.unsupported("update_rule %q needs the decay input", rule)
	}
	if delta && beta == nil {
		return nil, n.unsupported("update_rule %q needs the beta input", rule)
	}
	b := newBody(c, n)
	ci := func(v ...int64) string { return b.in(c.ConstInts(v)) }
	heads := func(x *Value, h int64) string { // (B,T,h*d) -> (T,B,h,d)
		r := b.op("Reshape", []string{b.in(x), ci(B, T, h, -1)})
		return b.op("Transpose", []string{r}, aInts("perm", 1, 0, 2, 3))
	}
	Q4, K4, V4 := heads(q, hq), heads(k, hkv), heads(v, hkv)
	var D4, Beta4 string
	if gated {
		D4 = heads(decay, hkv)
	}
	if delta {
		r := b.op("Reshape", []string{b.in(beta), ci(B, T, -1, 1)})
		Beta4 = b.op("Transpose", []string{r}, aInts("perm", 1, 0, 2, 3))
	}
	var state string
	if past != nil {
		state = b.op("Cast", []string{b.in(past)}, aInt("to", 1))
	} else {
		state = b.op("ConstantOfShape", []string{ci(B, hkv, dk, dv)})
	}
	scale := n.Float("scale", 0)
	if scale == 0 {
		scale = float64(1 / float32(math.Sqrt(float64(dk))))
	}
	sc, err := c.Scalar(scale, runtime.Float32)
	if err != nil {
		return nil, err
	}
	scaleF := b.in(sc)
	negOne, negTwo := ci(-1), ci(-2)
	group := hq / hkv
	var outs []string
	for t := int64(0); t < T; t++ {
		ti := b.in(c.ConstInts([]int64{t}))
		step := func(x string) string {
			g := b.op("Gather", []string{x, ti}, aInt("axis", 0))
			sq := b.op("Squeeze", []string{g, ci(0)})
			return b.op("Cast", []string{sq}, aInt("to", 1))
		}
		qt, kt, vt := step(Q4), step(K4), step(V4)
		if gated {
			dt := b.op("Exp", []string{step(D4)})
			state = b.op("Mul", []string{state, b.op("Unsqueeze", []string{dt, negOne})})
		}
		ktCol := b.op("Unsqueeze", []string{kt, negOne})
		write := vt
		if delta {
			st := b.op("Transpose", []string{state}, aInts("perm", 0, 1, 3, 2))
			ret := b.op("Squeeze", []string{b.op("MatMul", []string{st, ktCol}), negOne})
			write = b.op("Mul", []string{step(Beta4), b.op("Sub", []string{vt, ret})})
		}
		outer := b.op("MatMul", []string{ktCol, b.op("Unsqueeze", []string{write, negTwo})})
		state = b.op("Add", []string{state, outer})
		read := state
		if group > 1 {
			u := b.op("Unsqueeze", []string{state, ci(2)})
			e := b.op("Expand", []string{u, ci(B, hkv, group, dk, dv)})
			read = b.op("Reshape", []string{e, ci(B, hq, dk, dv)})
		}
		ro := b.op("MatMul", []string{b.op("Unsqueeze", []string{qt, negTwo}), read})
		ot := b.op("Mul", []string{scaleF, b.op("Squeeze", []string{ro, negTwo})})
		ot = b.op("CastLike", []string{ot, b.in(q)})
		outs = append(outs, b.op("Unsqueeze", []string{ot, ci(0)}))
	}
	acc := outs[0]
	if len(outs) > 1 {
		acc = b.op("Concat", outs, aInt("axis", 0))
	}
	tr := b.op("Transpose", []string{acc}, aInts("perm", 1, 0, 2, 3))
	out := b.op("Reshape", []string{tr, ci(B, T, -1)})
	like := q
	if past != nil {
		like = past
	}
	present := b.op("CastLike", []string{state, b.in(like)})
	return b.run(out, present)
}
