package onnx

import (
	"math"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// Attention (opset 23): scaled dot-product attention over 3-D (B, S, H*D) or
// 4-D (B, H, S, D) inputs, with optional mask, causal masking, past key/value,
// grouped-query heads and softcap, built from matmul/softmax.

func convAttention(c *Ctx, n *Node) ([]*Value, error) {
	q, k, v := n.In[0], n.In[1], n.In[2]
	f := &formula{c: c}
	threeD := q.Rank() == 3
	qh, kvh := n.Int("q_num_heads", 0), n.Int("kv_num_heads", 0)
	toHeads := func(x *Value, heads int64) *Value {
		if f.err != nil || x.Rank() == 4 {
			return x
		}
		d, ok := x.StaticDims()
		if !ok || len(d) != 3 || heads <= 0 || d[2]%heads != 0 {
			f.err = n.unsupported("3-D inputs need static shapes and q_num_heads/kv_num_heads")
			return nil
		}
		r, err := c.Emit("relax.reshape", []ir.Expr{x.Expr, shapeExpr([]ir.PrimExpr{ir.Int64(d[0]), ir.Int64(d[1]), ir.Int64(heads), ir.Int64(d[2] / heads)})})
		if err != nil {
			f.err = err
			return nil
		}
		return f.un("relax.permute_dims", r, Attr("axes", []any{int64(0), int64(2), int64(1), int64(3)}))
	}
	q, k, v = toHeads(q, qh), toHeads(k, kvh), toHeads(v, kvh)
	if f.err != nil {
		return nil, f.err
	}
	if q.Rank() != 4 || k.Rank() != 4 || v.Rank() != 4 {
		return nil, n.unsupported("inputs must be 3-D or 4-D")
	}
	pastLen := int64(0)
	if pk := n.Input(4); pk != nil {
		if d, ok := pk.StaticDims(); ok && len(d) == 4 {
			pastLen = d[2]
		}
		k = f.concat(2, pk, k)
	}
	if pv := n.Input(5); pv != nil {
		v = f.concat(2, pv, v)
	}
	if f.err != nil {
		return nil, f.err
	}
	presentK, presentV := k, v
	qd, ok1 := q.StaticDims()
	kd, ok2 := k.StaticDims()
	if !ok1 || !ok2 {
		return nil, n.unsupported("inputs must have static shapes")
	}
	if qd[1] != kd[1] {
		if kd[1] == 0 || qd[1]%kd[1] != 0 {
			return nil, n.unsupported("%d query heads for %d key/value heads", qd[1], kd[1])
		}
		rep := qd[1] / kd[1]
		k = f.un("relax.repeat", k, Attr("repeats", rep), Attr("axis", int64(1)))
		v = f.un("relax.repeat", v, Attr("repeats", rep), Attr("axis", int64(1)))
	}
	scale := n.Float("scale", 1/math.Sqrt(float64(qd[3])))
	kt := f.un("relax.permute_dims", k, Attr("axes", []any{int64(0), int64(1), int64(3), int64(2)}))
	qk := f.bin("relax.multiply", f.bin("relax.matmul", q, kt), f.k(scale, q))
	if f.err != nil {
		return nil, f.err
	}
	// As ONNX's function body (onnx 1.22): softmax(softcap(qk) + mask bias
	// (attn_mask, causal)); qk_matmul_output mode 1 is softcap(qk) before the
	// mask, 2 after the mask, 3 the softmax.
	mode := n.Int("qk_matmul_output_mode", 0)
	qkOut := qk
	scores := qk
	if sc := n.Float("softcap", 0); sc > 0 {
		scores = f.bin("relax.multiply", f.un("relax.tanh", f.bin("relax.divide", scores, f.k(sc, q))), f.k(sc, q))
	}
	if mode == 1 {
		qkOut = scores
	}
	qs, ts := qd[2], kd[2]
	if m := n.Input(3); m != nil {
		if md, ok := m.StaticDims(); ok && len(md) > 0 && md[len(md)-1] < ts {
			// A mask shorter than the keys is padded with -inf (false).
			pd := append([]int64{}, md...)
			pd[len(pd)-1] = ts - md[len(md)-1]
			fill := math.Inf(-1)
			if m.DType() == runtime.Bool {
				fill = 0
			}
			k, err := c.Scalar(fill, m.DType())
			if err != nil {
				return nil, err
			}
			padv, err := c.Emit("relax.full", []ir.Expr{shapeExpr(staticPrims(pd)), k.Expr}, Attr("dtype", m.DType()))
			if err != nil {
				return nil, err
			}
			if m, err = c.Emit("relax.concat", []ir.Expr{&ir.Tuple{Fields: []ir.Expr{m.Expr, padv.Expr}}}, Attr("axis", int64(-1))); err != nil {
				return nil, err
			}
		}
		if m.DType() == runtime.Bool {
			scores = f.where(m, scores, f.k(math.Inf(-1), q))
		} else {
			scores = f.bin("relax.add", scores, m)
		}
	}
	if np := n.Input(6); np != nil {
		// nonpad_kv_seqlen: key positions at or after each batch entry's length are masked.
		nd, ok := np.StaticDims()
		if !ok || len(nd) != 1 || nd[0] != qd[0] {
			return nil, n.unsupported("nonpad_kv_seqlen must have shape [%d]", qd[0])
		}
		pos := make([]int64, ts)
		for i := range pos {
			pos[i] = int64(i)
		}
		npi, err := c.Cast(np, runtime.Int64)
		if err != nil {
			return nil, err
		}
		npr, err := c.Emit("relax.reshape", []ir.Expr{npi.Expr, shapeExpr([]ir.PrimExpr{ir.Int64(qd[0]), ir.Int64(1), ir.Int64(1), ir.Int64(1)})})
		if err != nil {
			return nil, err
		}
		keep := f.bin("relax.less", c.ConstInts(pos), npr)
		scores = f.where(keep, scores, f.k(math.Inf(-1), q))
	}
	if n.Int("is_causal", 0) != 0 {
		if qs*ts > maxFoldElems {
			return nil, n.unsupported("causal mask of %dx%d is too large", qs, ts)
		}
		mask, err := runtime.NewTensor([]int64{qs, ts}, runtime.Bool)
		if err != nil {
			return nil, err
		}
		for i := int64(0); i < qs; i++ {
			for j := int64(0); j < ts; j++ {
				if j <= i+pastLen {
					mask.Bytes()[i*ts+j] = 1
				}
			}
		}
		scores = f.where(c.Const(mask), scores, f.k(math.Inf(-1), q))
	}
	if mode == 2 {
		qkOut = scores
	}
	probs := f.un("relax.nn.softmax", scores, Attr("axis", int64(-1)))
	if mode == 3 {
		qkOut = probs
	}
	y := f.bin("relax.matmul", probs, v)
	if f.err != nil {
		return nil, f.err
	}
	if threeD {
		yd, ok := y.StaticDims()
		if !ok || len(yd) != 4 {
			return nil, n.unsupported("output shape is not static")
		}
		y = f.un("relax.permute_dims", y, Attr("axes", []any{int64(0), int64(2), int64(1), int64(3)}))
		if f.err != nil {
			return nil, f.err
		}
		var err error
		y, err = c.Emit("relax.reshape", []ir.Expr{y.Expr, shapeExpr([]ir.PrimExpr{ir.Int64(yd[0]), ir.Int64(yd[2]), ir.Int64(yd[1] * yd[3])})})
		if err != nil {
			return nil, err
		}
	}
	return []*Value{y, presentK, presentV, qkOut}, f.err
}

func (f *formula) concat(axis int64, a, b *Value) *Value {
	if f.err != nil {
		return nil
	}
	v, err := f.c.Emit("relax.concat", []ir.Expr{&ir.Tuple{Fields: []ir.Expr{a.Expr, b.Expr}}}, Attr("axis", axis))
	f.err = err
	return v
}
