package onnx

import (
	"math"
	"sort"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// Ops whose output shape depends on tensor values: Compress (condition known
// at import time), NonZero and Unique (input known at import time). relaxgo
// has no data-dependent-shape ops, so other cases are refused (and can be
// specialized with Options.BindInputs).

// knownLimit bounds the tensors these converters read at import time.
const knownLimit = 1 << 20

func flatten(c *Ctx, x *Value) (*Value, error) {
	return c.Emit("relax.reshape", []ir.Expr{x.Expr, shapeExpr([]ir.PrimExpr{ir.Int64(-1)})})
}

func convCompress(c *Ctx, n *Node) ([]*Value, error) {
	x, cond := n.In[0], n.In[1]
	cv, ok := cond.Ints()
	if !ok || cond.Const == nil || cond.Const.NumElements() > knownLimit {
		return nil, n.unsupported("the condition must be known at import time (the output shape depends on it)")
	}
	axis := int64(0)
	if n.Has("axis") {
		a, err := normAxis(n, n.Int("axis", 0), x.Rank())
		if err != nil {
			return nil, err
		}
		axis = int64(a)
	} else {
		var err error
		if x, err = flatten(c, x); err != nil {
			return nil, err
		}
	}
	dims := x.Dims()
	if int(axis) >= len(dims) {
		return nil, n.unsupported("input rank unknown")
	}
	size, ok := ir.AsInt(dims[axis])
	if !ok {
		return nil, n.unsupported("the compressed axis must have a static size")
	}
	if int64(len(cv)) > size {
		return nil, n.unsupported("condition has %d entries for an axis of size %d", len(cv), size)
	}
	idx := []int64{}
	for i, b := range cv {
		if b != 0 {
			idx = append(idx, int64(i))
		}
	}
	return one(c.Emit("relax.take", []ir.Expr{x.Expr, c.ConstInts(idx).Expr}, Attr("axis", axis)))
}

func knownValues(n *Node, x *Value) ([]float64, []int64, error) {
	if x.Const == nil {
		return nil, nil, n.unsupported("the input must be known at import time (the output shape depends on its values)")
	}
	if x.Const.NumElements() > knownLimit {
		return nil, nil, n.unsupported("input too large to evaluate at import time")
	}
	vals, ok := tensorFloats(x.Const)
	if !ok {
		return nil, nil, n.unsupported("dtype %s", x.DType())
	}
	shape := x.Const.Shape()
	if x.DType() == runtime.Int64 || x.DType() == runtime.UInt64 {
		for _, v := range vals {
			if math.Abs(v) > 1<<53 {
				return nil, nil, n.unsupported("integer values beyond 2^53")
			}
		}
	}
	return vals, shape, nil
}

func convNonZero(c *Ctx, n *Node) ([]*Value, error) {
	vals, shape, err := knownValues(n, n.In[0])
	if err != nil {
		return nil, err
	}
	r := len(shape)
	var hits []int
	for i, v := range vals {
		if v != 0 {
			hits = append(hits, i)
		}
	}
	nnz := int64(len(hits))
	t, err := runtime.NewTensor([]int64{int64(r), nnz}, runtime.Int64)
	if err != nil {
		return nil, err
	}
	out := t.Int64s()
	for j, flat := range hits {
		for d := r - 1; d >= 0; d-- {
			out[int64(d)*nnz+int64(j)] = int64(flat) % shape[d]
			flat /= int(shape[d])
		}
	}
	return []*Value{c.Const(t)}, nil
}

func convUnique(c *Ctx, n *Node) ([]*Value, error) {
	x := n.In[0]
	vals, shape, err := knownValues(n, x)
	if err != nil {
		return nil, err
	}
	sorted := n.Int("sorted", 1) != 0
	// Slices along axis (elements when there is no axis): outer x size x inner.
	axis := int64(-1)
	outer, size, inner := int64(1), int64(len(vals)), int64(1)
	if n.Has("axis") {
		a, err := normAxis(n, n.Int("axis", 0), len(shape))
		if err != nil {
			return nil, err
		}
		axis = int64(a)
		size = shape[a]
		for i, d := range shape {
			if i < a {
				outer *= d
			} else if i > a {
				inner *= d
			}
		}
	}
	slice := func(i int64) []float64 {
		s := make([]float64, 0, outer*inner)
		for o := int64(0); o < outer; o++ {
			base := (o*size + i) * inner
			s = append(s, vals[base:base+inner]...)
		}
		return s
	}
	cmp := func(a, b []float64) int {
		for k := range a {
			if a[k] < b[k] {
				return -1
			}
			if a[k] > b[k] {
				return 1
			}
		}
		return 0
	}
	var firsts []int64 // first occurrence of each distinct slice, in order of appearance
	var keys [][]float64
	inverse := make([]int64, size)
	for i := int64(0); i < size; i++ {
		s := slice(i)
		found := -1
		for j, k := range keys {
			if cmp(s, k) == 0 {
				found = j
				break
			}
		}
		if found < 0 {
			found = len(keys)
			keys = append(keys, s)
			firsts = append(firsts, i)
		}
		inverse[i] = int64(found)
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	if sorted {
		sort.SliceStable(order, func(a, b int) bool { return cmp(keys[order[a]], keys[order[b]]) < 0 })
	}
	rank := make([]int64, len(keys))
	for pos, j := range order {
		rank[j] = int64(pos)
	}
	idx := make([]int64, len(order))
	counts := make([]int64, len(order))
	for pos, j := range order {
		idx[pos] = firsts[j]
	}
	for i := range inverse {
		inverse[i] = rank[inverse[i]]
		counts[inverse[i]]++
	}
	src := x
	takeAxis := axis
	if axis < 0 {
		if src, err = flatten(c, x); err != nil {
			return nil, err
		}
		takeAxis = 0
	}
	y, err := c.Emit("relax.take", []ir.Expr{src.Expr, c.ConstInts(idx).Expr}, Attr("axis", takeAxis))
	if err != nil {
		return nil, err
	}
	return []*Value{y, c.ConstInts(idx), c.ConstInts(inverse), c.ConstInts(counts)}, nil
}
