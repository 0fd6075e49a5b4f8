package onnx

import (
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// ReverseSequence (opset 10): the source index along the time axis is
// computed at run time, where(t < len[b], len[b]-1-t, t), and gathered with
// gather_elements.

func convReverseSequence(c *Ctx, n *Node) ([]*Value, error) {
	x, lens := n.In[0], n.In[1]
	xd, ok := x.StaticDims()
	if !ok || len(xd) < 2 {
		return nil, n.unsupported("input must have a static shape of rank >= 2")
	}
	bAxis, tAxis := n.Int("batch_axis", 1), n.Int("time_axis", 0)
	if !(bAxis == 0 && tAxis == 1 || bAxis == 1 && tAxis == 0) {
		return nil, n.unsupported("batch_axis=%d time_axis=%d", bAxis, tAxis)
	}
	if ld, ok := lens.StaticDims(); !ok || len(ld) != 1 || ld[0] != xd[bAxis] {
		return nil, n.unsupported("sequence_lens must have shape [%d]", xd[bAxis])
	}
	T := xd[tAxis]
	shapeAlong := func(axis int64, size int64) *ir.ShapeExpr {
		d := make([]ir.PrimExpr, len(xd))
		for i := range d {
			d[i] = ir.Int64(1)
		}
		d[axis] = ir.Int64(size)
		return shapeExpr(d)
	}
	tv := make([]int64, T)
	for i := range tv {
		tv[i] = int64(i)
	}
	f := &formula{c: c}
	t := f.reshape(c.ConstInts(tv), shapeAlong(tAxis, T))
	L, err := c.Cast(lens, runtime.Int64)
	if err != nil {
		return nil, err
	}
	// lengths outside [0, T] are clamped so that every gathered index is in range
	L = f.bin("relax.maximum", f.bin("relax.minimum", L, c.ConstInts([]int64{T})), c.ConstInts([]int64{0}))
	L = f.reshape(L, shapeAlong(bAxis, xd[bAxis]))
	one64 := c.ConstInts([]int64{1})
	rev := f.bin("relax.subtract", f.bin("relax.subtract", L, one64), t)
	idx := f.where(f.bin("relax.less", t, L), rev, t)
	if f.err != nil {
		return nil, f.err
	}
	idx, err = c.Emit("relax.broadcast_to", []ir.Expr{idx.Expr, staticShape(xd)})
	if err != nil {
		return nil, err
	}
	return one(c.Emit("relax.gather_elements", []ir.Expr{x.Expr, idx.Expr}, Attr("axis", tAxis)))
}
