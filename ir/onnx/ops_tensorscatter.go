package onnx

import (
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// TensorScatter (opset 24): writes update into past_cache along axis at
// each batch entry's write index (linear or circular). The source position of
// every cache slot, s - write_indices[b] (mod the cache length when
// circular), is computed at run time; slots it maps into the update take
// gather_elements(update, ...), the others keep the cache.

func convTensorScatter(c *Ctx, n *Node) ([]*Value, error) {
	past, upd := n.In[0], n.In[1]
	pd, ok1 := past.StaticDims()
	ud, ok2 := upd.StaticDims()
	if !ok1 || !ok2 || len(pd) < 2 || len(ud) != len(pd) {
		return nil, n.unsupported("past_cache and update must have static shapes of the same rank >= 2")
	}
	a, err := normAxis(n, n.Int("axis", -2), len(pd))
	if err != nil {
		return nil, err
	}
	if a == 0 {
		return nil, n.unsupported("axis 0 is the batch axis")
	}
	for i := range pd {
		if i != a && pd[i] != ud[i] {
			return nil, n.unsupported("update shape %v does not match past_cache %v", ud, pd)
		}
	}
	mode := n.Str("mode", "linear")
	if mode != "linear" && mode != "circular" {
		return nil, n.unsupported("mode=%q", mode)
	}
	S, U := pd[a], ud[a]
	if U > S || U < 1 {
		return nil, n.unsupported("update length %d for a cache of %d", U, S)
	}
	along := func(axis int, size int64) *ir.ShapeExpr {
		d := make([]ir.PrimExpr, len(pd))
		for i := range d {
			d[i] = ir.Int64(1)
		}
		d[axis] = ir.Int64(size)
		return shapeExpr(d)
	}
	f := &formula{c: c}
	sv := make([]int64, S)
	for i := range sv {
		sv[i] = int64(i)
	}
	s := f.reshape(c.ConstInts(sv), along(a, S))
	src := s
	if w := n.Input(2); w != nil {
		wi, err := c.Cast(w, runtime.Int64)
		if err != nil {
			return nil, err
		}
		src = f.bin("relax.subtract", s, f.reshape(wi, along(0, pd[0])))
	}
	kS := c.ConstInts([]int64{S})
	if mode == "circular" {
		// floor modulo: ((src % S) + S) % S
		src = f.bin("relax.floor_mod", src, kS)
	}
	zero := c.ConstInts([]int64{0})
	valid := f.bin("relax.logical_and", f.bin("relax.greater_equal", src, zero), f.bin("relax.less", src, c.ConstInts([]int64{U})))
	idx := f.bin("relax.maximum", f.bin("relax.minimum", src, c.ConstInts([]int64{U - 1})), zero)
	if f.err != nil {
		return nil, f.err
	}
	idx, err = c.Emit("relax.broadcast_to", []ir.Expr{idx.Expr, staticShape(pd)})
	if err != nil {
		return nil, err
	}
	g, err := c.Emit("relax.gather_elements", []ir.Expr{upd.Expr, idx.Expr}, Attr("axis", int64(a)))
	if err != nil {
		return nil, err
	}
	return one(f.where(valid, g, past), f.err)
}
