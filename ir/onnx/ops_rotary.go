package onnx

import (
	"github.com/relaxgo/relaxgo/ir"
)

// RotaryEmbedding (opset 23), following ONNX's reference: rotate the first
// rotary_embedding_dim features of each head by the cached cos/sin values,
// split in halves or interleaved.

func convRotary(c *Ctx, n *Node) ([]*Value, error) {
	x, cosC, sinC := n.In[0], n.In[1], n.In[2]
	xd, ok := x.StaticDims()
	if !ok {
		return nil, n.unsupported("input shape must be static")
	}
	f := &formula{c: c}
	shape := func(v ...int64) *ir.ShapeExpr {
		return staticShape(v)
	}
	slice := func(v *Value, axis, b, e, st int64) *Value {
		if f.err != nil {
			return nil
		}
		r, err := c.Emit("relax.strided_slice", []ir.Expr{v.Expr, &ir.Tuple{Fields: []ir.Expr{primInt(axis)}},
			&ir.Tuple{Fields: []ir.Expr{primInt(b)}}, &ir.Tuple{Fields: []ir.Expr{primInt(e)}}, &ir.Tuple{Fields: []ir.Expr{primInt(st)}}})
		f.err = err
		return r
	}
	var B, S, H, D int64
	var y *Value
	switch len(xd) {
	case 4: // (B, H, S, D) -> (B, S, H, D)
		B, H, S, D = xd[0], xd[1], xd[2], xd[3]
		y = f.un("relax.permute_dims", x, Attr("axes", []any{int64(0), int64(2), int64(1), int64(3)}))
	case 3:
		H = n.Int("num_heads", 0)
		if H <= 0 || xd[2]%H != 0 {
			return nil, n.unsupported("3-D input needs num_heads")
		}
		B, S, D = xd[0], xd[1], xd[2]/H
		y = f.reshape(x, shape(B, S, H, D))
	default:
		return nil, n.unsupported("input of rank %d", len(xd))
	}
	rd := n.Int("rotary_embedding_dim", 0)
	if rd == 0 {
		rd = D
	}
	if rd > D || rd%2 != 0 {
		return nil, n.unsupported("rotary_embedding_dim=%d for head size %d", rd, D)
	}
	cos, sin := cosC, sinC
	if p := n.Input(3); p != nil {
		var err error
		if cos, err = c.Emit("relax.take", []ir.Expr{cosC.Expr, p.Expr}, Attr("axis", int64(0))); err != nil {
			return nil, err
		}
		if sin, err = c.Emit("relax.take", []ir.Expr{sinC.Expr, p.Expr}, Attr("axis", int64(0))); err != nil {
			return nil, err
		}
	}
	half := rd / 2
	cos = f.reshape(slice(cos, 2, 0, half, 1), shape(B, S, 1, half))
	sin = f.reshape(slice(sin, 2, 0, half, 1), shape(B, S, 1, half))
	rot := y
	if rd < D {
		rot = slice(y, 3, 0, rd, 1)
	}
	var x1, x2 *Value
	if n.Int("interleaved", 0) != 0 {
		x1, x2 = slice(rot, 3, 0, rd, 2), slice(rot, 3, 1, rd, 2)
	} else {
		x1, x2 = slice(rot, 3, 0, half, 1), slice(rot, 3, half, rd, 1)
	}
	real := f.bin("relax.subtract", f.bin("relax.multiply", cos, x1), f.bin("relax.multiply", sin, x2))
	imag := f.bin("relax.add", f.bin("relax.multiply", sin, x1), f.bin("relax.multiply", cos, x2))
	if f.err != nil {
		return nil, f.err
	}
	var out *Value
	if n.Int("interleaved", 0) != 0 {
		st, err := c.Emit("relax.stack", []ir.Expr{&ir.Tuple{Fields: []ir.Expr{real.Expr, imag.Expr}}}, Attr("axis", int64(4)))
		if err != nil {
			return nil, err
		}
		out = f.reshape(st, shape(B, S, H, rd))
	} else {
		out = f.concat(3, real, imag)
	}
	if rd < D {
		out = f.concat(3, out, slice(y, 3, rd, D, 1))
	}
	if f.err != nil {
		return nil, f.err
	}
	if len(xd) == 4 {
		return one(c.Un("relax.permute_dims", out, Attr("axes", []any{int64(0), int64(2), int64(1), int64(3)})))
	}
	return one(f.reshape(out, shape(B, S, H*D)), f.err)
}
