package onnx

import (
	"fmt"
	"math"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// Quantization: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear
// (integer types; the 8-bit float and 4-bit types are out of scope).

// perAxis reshapes a 1-D scale or zero point to broadcast along axis of a rank-r tensor.
func (c *Ctx) perAxis(n *Node, v *Value, axis int64, r int) (*Value, error) {
	if v.Rank() == 0 || v.Rank() == 1 && r <= 1 {
		return v, nil
	}
	if v.Rank() != 1 {
		return nil, n.unsupported("blocked quantization (scale of rank %d)", v.Rank())
	}
	a, err := normAxis(n, axis, r)
	if err != nil {
		return nil, err
	}
	shape := make([]ir.PrimExpr, r)
	for i := range shape {
		shape[i] = ir.Int64(1)
	}
	shape[a] = v.Dims()[0]
	return c.Emit("relax.reshape", []ir.Expr{v.Expr, shapeExpr(shape)})
}

func intRange(dt runtime.DataType) (float64, float64, bool) {
	switch dt {
	case runtime.Int8:
		return -128, 127, true
	case runtime.UInt8:
		return 0, 255, true
	case runtime.Int16:
		return -32768, 32767, true
	case runtime.UInt16:
		return 0, 65535, true
	case runtime.Int32:
		return math.MinInt32, math.MaxInt32, true
	}
	return 0, 0, false
}

func convQuantize(c *Ctx, n *Node) ([]*Value, error) {
	x, scale, zp := n.In[0], n.In[1], n.Input(2)
	out := runtime.UInt8
	if zp != nil {
		out = zp.DType()
	}
	if n.Has("output_dtype") && n.Int("output_dtype", 0) != 0 {
		dt, err := DType(int32(n.Int("output_dtype", 0)))
		if err != nil {
			return nil, n.unsupported("%v", err)
		}
		out = dt
	}
	lo, hi, ok := intRange(out)
	if !ok {
		return nil, n.unsupported("output type %s", out)
	}
	r := x.Rank()
	axis := n.Int("axis", 1)
	f := &formula{c: c}
	s, err := c.quantParam(n, scale, x, axis, r)
	if err != nil {
		return nil, err
	}
	if s.DType() != x.DType() {
		s = f.un("relax.astype", s, Attr("dtype", x.DType()))
	}
	q := f.un("relax.round", f.bin("relax.divide", x, s))
	if zp != nil {
		z, err := c.quantParam(n, zp, x, axis, r)
		if err != nil {
			return nil, err
		}
		q = f.bin("relax.add", q, f.un("relax.astype", z, Attr("dtype", x.DType())))
	}
	if f.err != nil {
		return nil, f.err
	}
	q = f.bin("relax.minimum", f.bin("relax.maximum", q, f.k(lo, q)), f.k(hi, q))
	return one(f.un("relax.astype", q, Attr("dtype", out)), f.err)
}

func convDequantize(c *Ctx, n *Node) ([]*Value, error) {
	x, scale, zp := n.In[0], n.In[1], n.Input(2)
	if _, _, ok := intRange(x.DType()); !ok {
		return nil, n.unsupported("input type %s", x.DType())
	}
	r := x.Rank()
	axis := n.Int("axis", 1)
	f := &formula{c: c}
	ft := scale.DType()
	if n.Has("output_dtype") && n.Int("output_dtype", 0) != 0 {
		dt, err := DType(int32(n.Int("output_dtype", 0)))
		if err != nil {
			return nil, n.unsupported("%v", err)
		}
		ft = dt
	}
	// Integer arithmetic first (x - zp exactly), then scale in float.
	xi := f.un("relax.astype", x, Attr("dtype", runtime.Int64))
	if zp != nil {
		z, err := c.quantParam(n, zp, x, axis, r)
		if err != nil {
			return nil, err
		}
		xi = f.bin("relax.subtract", xi, f.un("relax.astype", z, Attr("dtype", runtime.Int64)))
	}
	s, err := c.quantParam(n, scale, x, axis, r)
	if err != nil {
		return nil, err
	}
	y := f.bin("relax.multiply", f.un("relax.astype", xi, Attr("dtype", runtime.Float32)), f.un("relax.astype", s, Attr("dtype", runtime.Float32)))
	if ft != runtime.Float32 {
		y = f.un("relax.astype", y, Attr("dtype", ft))
	}
	return one(y, f.err)
}

func convDynamicQuantize(c *Ctx, n *Node) ([]*Value, error) {
	x := n.In[0]
	f := &formula{c: c}
	zero := f.k(0, x)
	mx := f.bin("relax.maximum", f.un("relax.max", x), zero)
	mn := f.bin("relax.minimum", f.un("relax.min", x), zero)
	scale := f.bin("relax.divide", f.bin("relax.subtract", mx, mn), f.k(255, x))
	zpf := f.bin("relax.minimum", f.bin("relax.maximum", f.un("relax.round", f.bin("relax.subtract", zero, f.bin("relax.divide", mn, scale))), zero), f.k(255, x))
	q := f.bin("relax.add", f.un("relax.round", f.bin("relax.divide", x, scale)), zpf)
	q = f.bin("relax.minimum", f.bin("relax.maximum", q, zero), f.k(255, x))
	y := f.un("relax.astype", q, Attr("dtype", runtime.UInt8))
	zp := f.un("relax.astype", zpf, Attr("dtype", runtime.UInt8))
	if f.err != nil {
		return nil, f.err
	}
	return []*Value{y, scale, zp}, nil
}

// quantParam shapes a scale or zero point for x: per tensor or per axis, or
// with block_size, repeated block_size times along axis (and cut to x's size).
func (c *Ctx) quantParam(n *Node, v, x *Value, axis int64, r int) (*Value, error) {
	bs := n.Int("block_size", 0)
	if bs == 0 {
		return c.perAxis(n, v, axis, r)
	}
	if bs < 0 {
		return nil, fmt.Errorf("block_size %d", bs)
	}
	a, err := normAxis(n, axis, r)
	if err != nil {
		return nil, err
	}
	xd, ok1 := x.StaticDims()
	vd, ok2 := v.StaticDims()
	if !ok1 || !ok2 || len(vd) != len(xd) {
		return nil, n.unsupported("blocked quantization needs static shapes of the input's rank")
	}
	for i := range xd {
		if i != a && vd[i] != xd[i] || i == a && vd[i] != (xd[i]+bs-1)/bs {
			return nil, n.unsupported("block scale shape %v for input %v and block_size %d", vd, xd, bs)
		}
	}
	y, err := c.Emit("relax.repeat", []ir.Expr{v.Expr}, Attr("repeats", bs), Attr("axis", int64(a)))
	if err != nil {
		return nil, err
	}
	if vd[a]*bs == xd[a] {
		return y, nil
	}
	return c.Emit("relax.strided_slice", []ir.Expr{y.Expr, &ir.Tuple{Fields: []ir.Expr{primInt(int64(a))}},
		&ir.Tuple{Fields: []ir.Expr{primInt(0)}}, &ir.Tuple{Fields: []ir.Expr{primInt(xd[a])}}, &ir.Tuple{Fields: []ir.Expr{primInt(1)}}})
}
