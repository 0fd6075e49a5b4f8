package onnx

import (
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// Quantized integer operators computed in float32 (exact while the integer
// accumulations stay below 2^24): MatMulInteger, ConvInteger, QLinearMatMul,
// QLinearConv.

func init() {
	registerN("MatMulInteger", 10, 2, func(c *Ctx, n *Node) ([]*Value, error) {
		f := &formula{c: c}
		y := f.bin("relax.matmul", centered(f, n.In[0], n.Input(2)), centered(f, n.In[1], n.Input(3)))
		return one(f.un("relax.astype", y, Attr("dtype", runtime.Int32)), f.err)
	})
	registerN("ConvInteger", 10, 2, func(c *Ctx, n *Node) ([]*Value, error) {
		f := &formula{c: c}
		// Padding applies to the centered input: padded values equal the zero point.
		xf := n.In[0]
		wzp := n.Input(3)
		if wzp != nil && wzp.Rank() == 1 {
			// per-output-channel zero points: broadcast over (M, C/group, k...)
			shape := []ir.PrimExpr{wzp.Dims()[0]}
			for i := 1; i < n.In[1].Rank(); i++ {
				shape = append(shape, ir.Int64(1))
			}
			r, err := c.Emit("relax.reshape", []ir.Expr{wzp.Expr, shapeExpr(shape)})
			if err != nil {
				return nil, err
			}
			wzp = r
		}
		x, w := centered(f, xf, n.Input(2)), centered(f, n.In[1], wzp)
		if f.err != nil {
			return nil, f.err
		}
		y, err := convFloat(c, n, x, w)
		if err != nil {
			return nil, err
		}
		return one(c.Cast(y, runtime.Int32))
	})
	registerN("QLinearMatMul", 10, 8, func(c *Ctx, n *Node) ([]*Value, error) {
		f := &formula{c: c}
		acc := f.bin("relax.matmul", centered(f, n.In[0], n.In[2]), centered(f, n.In[3], n.In[5]))
		return one(requantize(f, acc, nil, n.In[1], n.In[4], n.In[6], n.In[7]), f.err)
	})
	registerN("QLinearConv", 10, 8, func(c *Ctx, n *Node) ([]*Value, error) {
		f := &formula{c: c}
		x, w := centered(f, n.In[0], n.In[2]), centered(f, n.In[3], n.In[5])
		if f.err != nil {
			return nil, f.err
		}
		// Per-output-channel weight scales broadcast over (N, C, spatial...).
		ws := n.In[4]
		if ws.Rank() == 1 {
			if d, ok := ws.StaticDims(); ok && d[0] > 1 {
				var err error
				if ws, err = c.channelShape(ws, n.In[0].Rank()); err != nil {
					return nil, err
				}
			}
		}
		acc, err := convFloat(c, n, x, w)
		if err != nil {
			return nil, err
		}
		var bias *Value
		if b := n.Input(8); b != nil {
			bf := f.un("relax.astype", b, Attr("dtype", runtime.Float32))
			if f.err != nil {
				return nil, f.err
			}
			if bias, err = c.channelShape(bf, n.In[0].Rank()); err != nil {
				return nil, err
			}
		}
		return one(requantize(f, acc, bias, n.In[1], ws, n.In[6], n.In[7]), f.err)
	})
}

// centered is float32(v) - float32(zero point).
func centered(f *formula, v, zp *Value) *Value {
	x := f.un("relax.astype", v, Attr("dtype", runtime.Float32))
	if zp != nil {
		x = f.bin("relax.subtract", x, f.un("relax.astype", zp, Attr("dtype", runtime.Float32)))
	}
	return x
}

// requantize is saturate(round((acc + bias) * as * bs / ys) + yzp) in yzp's type.
func requantize(f *formula, acc, bias, as, bs, ys, yzp *Value) *Value {
	if f.err != nil {
		return nil
	}
	f32 := func(v *Value) *Value { return f.un("relax.astype", v, Attr("dtype", runtime.Float32)) }
	if bias != nil {
		acc = f.bin("relax.add", acc, bias)
	}
	scale := f.bin("relax.divide", f.bin("relax.multiply", f32(as), f32(bs)), f32(ys))
	q := f.bin("relax.add", f.un("relax.round", f.bin("relax.multiply", acc, scale)), f32(yzp))
	if f.err != nil {
		return nil
	}
	lo, hi, ok := intRange(yzp.DType())
	if !ok {
		f.err = &UnsupportedError{Reason: "output type " + yzp.DType().String()}
		return nil
	}
	q = f.bin("relax.minimum", f.bin("relax.maximum", q, f.k(lo, q)), f.k(hi, q))
	return f.un("relax.astype", q, Attr("dtype", yzp.DType()))
}

// convFloat runs Conv's attribute handling on float inputs x and w.
func convFloat(c *Ctx, n *Node, x, w *Value) (*Value, error) {
	sub := &Node{Op: n.Op, Name: n.Name, Domain: n.Domain, Opset: n.Opset, In: []*Value{x, w}, NumOut: 1, attrs: n.attrs, proto: n.proto}
	outs, err := convConv(c, sub)
	if err != nil {
		return nil, err
	}
	if sub.err != nil {
		return nil, sub.err
	}
	return outs[0], nil
}
