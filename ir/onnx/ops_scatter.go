package onnx

import (
	"fmt"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// Gather/scatter with indices known at import time (constants, or inputs
// bound with Options.BindInputs): there is no scatter or gather_nd kernel, so
// GatherND becomes a take on a flattened view, and ScatterElements/ScatterND
// become where(written, take(updates, writer), data), one level per duplicate
// index for the add/mul/max/min reductions.

func prod(v []int64) int64 {
	p := int64(1)
	for _, x := range v {
		p *= x
	}
	return p
}

func staticShape(dims []int64) *ir.ShapeExpr {
	d := make([]ir.PrimExpr, len(dims))
	for i, x := range dims {
		d[i] = ir.Int64(x)
	}
	return shapeExpr(d)
}

func knownIndices(n *Node, v *Value) ([]int64, []int64, error) {
	idx, ok := v.Ints()
	if !ok || v.Const == nil {
		return nil, nil, n.unsupported("indices must be known at import time (no scatter/gather_nd kernel)")
	}
	return idx, v.Const.Shape(), nil
}

func convGatherND(c *Ctx, n *Node) ([]*Value, error) {
	data := n.In[0]
	dd, ok := data.StaticDims()
	if !ok {
		return nil, n.unsupported("data shape must be static")
	}
	idx, is, err := knownIndices(n, n.In[1])
	if err != nil {
		return nil, err
	}
	b := int(n.Int("batch_dims", 0))
	if len(is) < 1 || b < 0 || b >= len(is) || b > len(dd) {
		return nil, fmt.Errorf("batch_dims %d for indices of rank %d", b, len(is))
	}
	k := int(is[len(is)-1])
	if k < 1 || b+k > len(dd) {
		return nil, fmt.Errorf("index depth %d for data of rank %d", k, len(dd))
	}
	B := prod(dd[:b])
	P := prod(dd[b : b+k])
	rest := dd[b+k:]
	N := prod(is[b : len(is)-1])
	flat := make([]int64, 0, B*N)
	for bi := int64(0); bi < B; bi++ {
		for j := int64(0); j < N; j++ {
			row := idx[(bi*N+j)*int64(k) : (bi*N+j+1)*int64(k)]
			lin := int64(0)
			for a, x := range row {
				d := dd[b+a]
				if x < 0 {
					x += d
				}
				if x < 0 || x >= d {
					return nil, fmt.Errorf("index %d out of range for dimension %d", row[a], d)
				}
				lin = lin*d + x
			}
			flat = append(flat, bi*P+lin)
		}
	}
	view, err := c.Emit("relax.reshape", []ir.Expr{data.Expr, staticShape(append([]int64{B * P}, rest...))})
	if err != nil {
		return nil, err
	}
	g, err := c.Emit("relax.take", []ir.Expr{view.Expr, c.ConstInts(flat).Expr}, Attr("axis", int64(0)))
	if err != nil {
		return nil, err
	}
	out := append(append(append([]int64{}, dd[:b]...), is[b:len(is)-1]...), rest...)
	return one(c.Emit("relax.reshape", []ir.Expr{g.Expr, staticShape(out)}))
}

// scatterRows scatters updates (viewed as (N, rest...)) into data (viewed as
// (P, rest...)) at rows target[j]. With reduction "none" the last write wins:
// where(written, take(updates, writer), data). Other reductions apply one
// level per duplicate: y = where(has_l, op(y, take(updates, writer_l)), y).
func (c *Ctx) scatterRows(n *Node, data, updates *Value, dd []int64, P, N int64, rest []int64, target []int64) (*Value, error) {
	red := n.Str("reduction", "none")
	op := map[string]string{"none": "", "add": "relax.add", "mul": "relax.multiply", "max": "relax.maximum", "min": "relax.minimum"}
	relaxOp, ok := op[red]
	if !ok {
		return nil, n.unsupported("reduction=%q", red)
	}
	writers := make([][]int64, P)
	for j, p := range target {
		writers[p] = append(writers[p], int64(j))
	}
	levels := 1
	if relaxOp != "" {
		levels = 0
		for _, w := range writers {
			levels = max(levels, len(w))
		}
	}
	dv, err := c.Emit("relax.reshape", []ir.Expr{data.Expr, staticShape(append([]int64{P}, rest...))})
	if err != nil {
		return nil, err
	}
	uv, err := c.Emit("relax.reshape", []ir.Expr{updates.Expr, staticShape(append([]int64{N}, rest...))})
	if err != nil {
		return nil, err
	}
	y := dv
	for l := 0; l < levels; l++ {
		writer := make([]int64, P)
		has, err := runtime.NewTensor(append([]int64{P}, onesN(len(rest))...), runtime.Bool)
		if err != nil {
			return nil, err
		}
		for p, w := range writers {
			switch {
			case relaxOp == "" && len(w) > 0:
				writer[p] = w[len(w)-1] // the last write wins
				has.Bytes()[p] = 1
			case relaxOp != "" && l < len(w):
				writer[p] = w[l]
				has.Bytes()[p] = 1
			}
		}
		g, err := c.Emit("relax.take", []ir.Expr{uv.Expr, c.ConstInts(writer).Expr}, Attr("axis", int64(0)))
		if err != nil {
			return nil, err
		}
		if relaxOp != "" {
			if g, err = c.Bin(relaxOp, y, g); err != nil {
				return nil, err
			}
		}
		if y, err = c.Emit("relax.where", []ir.Expr{c.Const(has).Expr, g.Expr, y.Expr}); err != nil {
			return nil, err
		}
	}
	return c.Emit("relax.reshape", []ir.Expr{y.Expr, staticShape(dd)})
}

func onesN(k int) []int64 {
	out := make([]int64, k)
	for i := range out {
		out[i] = 1
	}
	return out
}

func convScatterND(c *Ctx, n *Node) ([]*Value, error) {
	data, updates := n.In[0], n.In[2]
	dd, ok := data.StaticDims()
	if !ok {
		return nil, n.unsupported("data shape must be static")
	}
	idx, is, err := knownIndices(n, n.In[1])
	if err != nil {
		return nil, err
	}
	if len(is) < 1 {
		return nil, fmt.Errorf("indices must have rank >= 1")
	}
	k := int(is[len(is)-1])
	if k < 1 || k > len(dd) {
		return nil, fmt.Errorf("index depth %d for data of rank %d", k, len(dd))
	}
	P := prod(dd[:k])
	N := prod(is[:len(is)-1])
	if P > maxFoldElems || N > maxFoldElems {
		return nil, n.unsupported("too many index rows")
	}
	target := make([]int64, N)
	for j := int64(0); j < N; j++ {
		lin := int64(0)
		for a := 0; a < k; a++ {
			x, d := idx[j*int64(k)+int64(a)], dd[a]
			if x < 0 {
				x += d
			}
			if x < 0 || x >= d {
				return nil, fmt.Errorf("index %d out of range for dimension %d", idx[j*int64(k)+int64(a)], d)
			}
			lin = lin*d + x
		}
		target[j] = lin
	}
	return one(c.scatterRows(n, data, updates, dd, P, N, dd[k:], target))
}

func convScatterElements(c *Ctx, n *Node) ([]*Value, error) {
	data, updates := n.In[0], n.In[2]
	dd, ok := data.StaticDims()
	if !ok {
		return nil, n.unsupported("data shape must be static")
	}
	idx, is, err := knownIndices(n, n.In[1])
	if err != nil {
		return nil, err
	}
	if len(is) != len(dd) {
		return nil, fmt.Errorf("indices rank %d, data rank %d", len(is), len(dd))
	}
	axis, err := normAxis(n, n.Int("axis", 0), len(dd))
	if err != nil {
		return nil, err
	}
	T, N := prod(dd), prod(is)
	if T > maxFoldElems || N > maxFoldElems {
		return nil, n.unsupported("tensor too large")
	}
	target := make([]int64, N)
	coord := make([]int64, len(is))
	for j := int64(0); j < N; j++ {
		rem := j
		for a := len(is) - 1; a >= 0; a-- {
			coord[a] = rem % is[a]
			rem /= is[a]
		}
		x := idx[j]
		if x < 0 {
			x += dd[axis]
		}
		if x < 0 || x >= dd[axis] {
			return nil, fmt.Errorf("index %d out of range for dimension %d", idx[j], dd[axis])
		}
		lin := int64(0)
		for a := range dd {
			v := coord[a]
			if a == axis {
				v = x
			}
			if v >= dd[a] {
				return nil, fmt.Errorf("indices shape %v exceeds data shape %v", is, dd)
			}
			lin = lin*dd[a] + v
		}
		target[j] = lin
	}
	return one(c.scatterRows(n, data, updates, dd, T, N, nil, target))
}
