package onnx

import (
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// MaxUnpool (opset 9): scatters X to the flat positions in I (MaxPool's
// Indices, which index the whole output tensor). Without a scatter kernel,
// each (n, c) plane compares its indices with every output position
// (a one-hot of size elements x plane) and sums the selected values; indices
// outside their own plane are dropped.

const unpoolLimit = 1 << 24

func convMaxUnpool(c *Ctx, n *Node) ([]*Value, error) {
	x, ind := n.In[0], n.In[1]
	xd, ok := x.StaticDims()
	if !ok || len(xd) < 3 {
		return nil, n.unsupported("input must have a static shape of rank >= 3")
	}
	if id, ok := ind.StaticDims(); !ok || len(id) != len(xd) {
		return nil, n.unsupported("indices must have the input's static shape")
	} else {
		for i := range id {
			if id[i] != xd[i] {
				return nil, n.unsupported("indices shape %v differs from the input's %v", id, xd)
			}
		}
	}
	sp := len(xd) - 2
	kernel := n.Ints("kernel_shape", nil)
	if len(kernel) != sp {
		return nil, n.unsupported("kernel_shape must have %d entries", sp)
	}
	strides := n.Ints("strides", onesN(sp))
	pads := n.Ints("pads", make([]int64, 2*sp))
	if len(strides) != sp || len(pads) != 2*sp {
		return nil, n.unsupported("strides or pads do not match %d spatial dimensions", sp)
	}
	for _, a := range []struct {
		name string
		v    []int64
		lo   int64
	}{{"kernel_shape", kernel, 1}, {"strides", strides, 1}, {"pads", pads, 0}} {
		if err := checkRange(n, a.name, a.v, a.lo); err != nil {
			return nil, err
		}
	}
	out := append([]int64{}, xd[:2]...)
	for i := 0; i < sp; i++ {
		out = append(out, (xd[2+i]-1)*strides[i]+kernel[i]-pads[i]-pads[sp+i])
	}
	inferred := out
	if os := n.Input(2); os != nil {
		v, ok := os.Ints()
		if !ok {
			return nil, n.unsupported("output_shape must be known at import time")
		}
		if len(v) != len(xd) || v[0] != xd[0] || v[1] != xd[1] {
			return nil, n.unsupported("output_shape %v", v)
		}
		out = v
	}
	NC := xd[0] * xd[1]
	E, HW, HWin := int64(1), int64(1), int64(1)
	for i := 0; i < sp; i++ {
		if out[2+i] < 1 || inferred[2+i] < 1 {
			return nil, n.unsupported("output shape %v", out)
		}
		E *= xd[2+i]
		HW *= out[2+i]
		HWin *= inferred[2+i]
	}
	if NC*E*HW > unpoolLimit {
		return nil, n.unsupported("output too large for the one-hot scatter (%d x %d x %d)", NC, E, HW)
	}
	sh := func(d ...int64) *ir.ShapeExpr {
		return staticShape(d)
	}
	f := &formula{c: c}
	// The indices address the inferred output shape; an explicit
	// output_shape keeps each element's coordinates (ONNX's reference).
	off := make([]int64, NC)
	for i := range off {
		off[i] = int64(i) * HWin
	}
	pos := make([]int64, HW)
	for p := range pos {
		rem, src, stride := int64(p), int64(0), int64(1)
		for d := sp - 1; d >= 0; d-- {
			co := rem % out[2+d]
			rem /= out[2+d]
			if co >= inferred[2+d] {
				src = -1
				break
			}
			src += co * stride
			stride *= inferred[2+d]
		}
		pos[p] = src
	}
	ii, err := c.Cast(ind, runtime.Int64)
	if err != nil {
		return nil, err
	}
	local := f.bin("relax.subtract", f.reshape(ii, sh(NC, E, 1)), f.reshape(c.ConstInts(off), sh(NC, 1, 1)))
	hit := f.bin("relax.equal", local, f.reshape(c.ConstInts(pos), sh(1, 1, HW)))
	xv := f.reshape(x, sh(NC, E, 1))
	sel := f.where(hit, xv, f.k(0, x))
	y := f.un("relax.sum", sel, Attr("axis", []any{int64(1)}), Attr("keepdims", false))
	outDims := make([]ir.PrimExpr, len(out))
	for i, d := range out {
		outDims[i] = ir.Int64(d)
	}
	return one(f.reshape(y, shapeExpr(outDims)), f.err)
}
