package onnx

import (
	"fmt"
	"math"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// Shape manipulation, constants and shape arithmetic. Values computed from
// shapes stay known (Value.Const, or Value.ShapeVals when symbolic) so that
// Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains fold.

func init() {
	registerN("Size", 1, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		dims, ok := n.In[0].StaticDims()
		if !ok {
			return nil, n.unsupported("input shape is not static")
		}
		k := int64(1)
		for _, d := range dims {
			k *= d
		}
		return one(c.Scalar(float64(k), runtime.Int64))
	})
	registerN("Transpose", 1, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		r := n.In[0].Rank()
		if r < 0 {
			return nil, n.unsupported("input rank unknown")
		}
		perm := n.Ints("perm", nil)
		if perm == nil {
			for i := r - 1; i >= 0; i-- {
				perm = append(perm, int64(i))
			}
		}
		return one(c.Un("relax.permute_dims", n.In[0], Attr("axes", intsAny(perm))))
	})
	registerN("GatherElements", 11, 2, func(c *Ctx, n *Node) ([]*Value, error) {
		r := n.In[0].Rank()
		axis, err := normAxis(n, n.Int("axis", 0), r)
		if err != nil {
			return nil, err
		}
		idx, err := c.normIndices(n.In[1], n.In[0].Dims(), axis)
		if err != nil {
			return nil, err
		}
		return one(c.Emit("relax.gather_elements", []ir.Expr{n.In[0].Expr, idx.Expr}, Attr("axis", int64(axis))))
	})
	registerN("Tile", 1, 2, func(c *Ctx, n *Node) ([]*Value, error) {
		reps, ok := n.In[1].Ints()
		if !ok {
			return nil, n.unsupported("repeats must be known at import time")
		}
		return one(c.Un("relax.tile", n.In[0], Attr("repeats", intsAny(reps))))
	})
	registerN("Trilu", 14, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		k := int64(0)
		if kv := n.Input(1); kv != nil {
			ks, ok := kv.Ints()
			if !ok || len(ks) != 1 {
				return nil, n.unsupported("k must be a known scalar")
			}
			k = ks[0]
		}
		op := "relax.tril"
		if n.Int("upper", 1) != 0 {
			op = "relax.triu"
		}
		return one(c.Emit(op, []ir.Expr{n.In[0].Expr, primInt(k)}))
	})
	registerN("Dropout", 1, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		if t := n.Input(2); t != nil {
			b, ok := t.Ints()
			if !ok || len(b) != 1 {
				return nil, n.unsupported("training_mode must be known at import time")
			}
			if b[0] != 0 {
				// Training mode drops at random; only ratio 0 is deterministic.
				r, ok := n.Input(1).Floats()
				if n.Input(1) == nil || !ok || len(r) != 1 || r[0] != 0 {
					return nil, n.unsupported("training mode with a nonzero ratio (random)")
				}
			}
		}
		if n.Opset < 7 && n.Int("is_test", 0) == 0 {
			return nil, n.unsupported("is_test=0 (training)")
		}
		out := []*Value{n.In[0]}
		if n.NumOut > 1 {
			mask, err := c.Emit("relax.ones_like", []ir.Expr{n.In[0].Expr}, Attr("dtype", runtime.Bool))
			if err != nil {
				return nil, err
			}
			out = append(out, mask)
		}
		return out, nil
	})
	registerN("CumSum", 11, 2, func(c *Ctx, n *Node) ([]*Value, error) {
		ax, ok := n.In[1].Ints()
		if !ok || len(ax) != 1 {
			return nil, n.unsupported("axis must be a known scalar")
		}
		axis, err := normAxis(n, ax[0], n.In[0].Rank())
		if err != nil {
			return nil, err
		}
		x := n.In[0]
		rev := n.Int("reverse", 0) != 0
		if rev {
			if x, err = c.Un("relax.flip", x, Attr("axis", int64(axis))); err != nil {
				return nil, err
			}
		}
		y, err := c.Un("relax.cumsum", x, Attr("axis", int64(axis)), Attr("exclusive", n.Int("exclusive", 0) != 0))
		if err != nil {
			return nil, err
		}
		if rev {
			y, err = c.Un("relax.flip", y, Attr("axis", int64(axis)))
		}
		return one(y, err)
	})
}

func primInt(v int64) *ir.PrimValue {
	p := &ir.PrimValue{Value: ir.Int64(v)}
	p.SetSInfo(&ir.PrimSInfo{DType: runtime.Int64, Value: p.Value})
	return p
}

// primInts is a tuple of int64 PrimValues, as strided_slice takes its axes,
// begins, ends and strides.
func primInts(v ...int64) *ir.Tuple {
	t := &ir.Tuple{}
	for _, x := range v {
		t.Fields = append(t.Fields, primInt(x))
	}
	return t
}

func intsAny(v []int64) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = x
	}
	return out
}

func shapeExpr(dims []ir.PrimExpr) *ir.ShapeExpr {
	s := &ir.ShapeExpr{Values: dims}
	s.SetSInfo(&ir.ShapeSInfo{Values: dims, NDim: len(dims)})
	return s
}

func normAxis(n *Node, a int64, rank int) (int, error) {
	if rank < 0 {
		return 0, n.unsupported("input rank unknown")
	}
	if a < -int64(rank) || a >= int64(rank) {
		return 0, fmt.Errorf("axis %d out of range for rank %d", a, rank)
	}
	if a < 0 {
		a += int64(rank)
	}
	return int(a), nil
}

func convConstant(c *Ctx, n *Node) ([]*Value, error) {
	switch {
	case n.Has("value"):
		t, err := n.Tensor(c, "value")
		if err != nil {
			return nil, err
		}
		return []*Value{c.Const(t)}, nil
	case n.Has("value_float"):
		return one(c.Scalar(n.Float("value_float", 0), runtime.Float32))
	case n.Has("value_int"):
		return one(c.Scalar(float64(n.Int("value_int", 0)), runtime.Int64))
	case n.Has("value_floats"):
		fs := n.Floats("value_floats", nil)
		f32 := make([]float32, len(fs))
		for i, f := range fs {
			f32[i] = float32(f)
		}
		t, err := runtime.FromSlice(f32, int64(len(f32)))
		if err != nil {
			return nil, err
		}
		return []*Value{c.Const(t)}, nil
	case n.Has("value_ints"):
		return []*Value{c.ConstInts(n.Ints("value_ints", nil))}, nil
	}
	for k := range n.attrs {
		return nil, n.unsupported("attribute %s", k)
	}
	return nil, n.unsupported("no value")
}

func convConstantOfShape(c *Ctx, n *Node) ([]*Value, error) {
	if len(n.In) < 1 || n.In[0] == nil {
		return nil, n.unsupported("missing shape input")
	}
	dims, ok := n.In[0].shapeVals()
	if !ok {
		return nil, n.unsupported("the shape must be known at import time")
	}
	dt := runtime.Float32
	fill := 0.0
	if n.Has("value") {
		t, err := n.Tensor(c, "value")
		if err != nil {
			return nil, err
		}
		if t.NumElements() != 1 {
			return nil, n.unsupported("value must have one element")
		}
		dt = t.DType()
		fs, ok := tensorFloats(t)
		if !ok {
			return nil, n.unsupported("value dtype %s", dt)
		}
		fill = fs[0]
		if dt == runtime.Int64 || dt == runtime.UInt64 {
			is, _ := tensorInts(t)
			if is[0] != int64(float64(is[0])) {
				return nil, n.unsupported("int64 fill value %d is not exact as a float", is[0])
			}
		}
	}
	k, err := c.Scalar(fill, dt)
	if err != nil {
		return nil, n.unsupported("%v", err)
	}
	return one(c.Emit("relax.full", []ir.Expr{shapeExpr(dims), k.Expr}, Attr("dtype", dt)))
}

func convShape(c *Ctx, n *Node) ([]*Value, error) {
	dims := n.In[0].Dims()
	if dims == nil {
		return nil, n.unsupported("input rank unknown")
	}
	r := int64(len(dims))
	start, end := int64(0), r
	if n.Opset >= 15 {
		start, end = n.Int("start", 0), n.Int("end", r)
	}
	clamp := func(v int64) int64 {
		if v < 0 {
			v += r
		}
		return max(0, min(v, r))
	}
	start, end = clamp(start), clamp(end)
	if end < start {
		end = start
	}
	return []*Value{c.shapeValue(dims[start:end])}, nil
}

// shapeValue makes a 1-D int64 value holding dims: a constant when they are
// all integers, else a symbolic shape value.
func (c *Ctx) shapeValue(dims []ir.PrimExpr) *Value {
	ints := make([]int64, len(dims))
	for i, d := range dims {
		v, ok := ir.AsInt(d)
		if !ok {
			return c.symShape(dims, 1)
		}
		ints[i] = v
	}
	return c.ConstInts(ints)
}

// symShape makes a value known only symbolically (rank 1, or 0 for a scalar).
// Its expression is a placeholder: using it as tensor data is refused.
func (c *Ctx) symShape(dims []ir.PrimExpr, rank int) *Value {
	v := &ir.Var{Name: c.varName("shape_value"), Dataflow: true}
	if rank == 0 {
		v.SetSInfo(ir.NewTensorSInfo(nil, runtime.Int64))
	} else {
		v.SetSInfo(ir.StaticTensorSInfo([]int64{int64(len(dims))}, runtime.Int64))
	}
	c.virtual[v] = true
	return &Value{Expr: v, ShapeVals: append([]ir.PrimExpr{}, dims...)}
}

func convReshape(c *Ctx, n *Node) ([]*Value, error) {
	x := n.In[0]
	var target []ir.PrimExpr
	if n.Opset < 5 {
		for _, d := range n.Ints("shape", nil) {
			target = append(target, ir.Int64(d))
		}
	} else {
		if len(n.In) < 2 || n.In[1] == nil {
			return nil, n.unsupported("missing shape input")
		}
		var ok bool
		if target, ok = n.In[1].shapeVals(); !ok {
			return nil, n.unsupported("the target shape must be known at import time (dynamic reshape)")
		}
	}
	dims := x.Dims()
	allowZero := n.Int("allowzero", 0) != 0
	out := make([]ir.PrimExpr, len(target))
	neg := -1
	for i, d := range target {
		v, isInt := ir.AsInt(d)
		switch {
		case isInt && v == 0 && !allowZero:
			if dims == nil || i >= len(dims) {
				return nil, fmt.Errorf("shape entry %d is 0 (copy) but the input has rank %d", i, len(dims))
			}
			out[i] = dims[i]
		case isInt && v == -1:
			if neg >= 0 {
				return nil, fmt.Errorf("more than one -1 in the target shape")
			}
			neg = i
			out[i] = d
		case isInt && v < -1:
			return nil, fmt.Errorf("invalid target dimension %d", v)
		default:
			out[i] = d
		}
	}
	if neg >= 0 && dims != nil {
		total := ir.PrimExpr(ir.Int64(1))
		for _, d := range dims {
			total = ir.Mul(total, d)
		}
		known := ir.PrimExpr(ir.Int64(1))
		for i, d := range out {
			if i != neg {
				known = ir.Mul(known, d)
			}
		}
		if k, ok := ir.AsInt(known); ok && k == 0 {
			out[neg] = ir.Int64(0)
		} else {
			out[neg] = ir.FloorDiv(total, known)
		}
	}
	if x.ShapeVals != nil && len(out) <= 1 {
		// reshaping a shape value between 0-d and 1-d keeps it known
		if _, isVirtual := c.virtual[x.Expr.(*ir.Var)]; isVirtual {
			return []*Value{c.symShape(x.ShapeVals, len(out))}, nil
		}
	}
	return one(c.Emit("relax.reshape", []ir.Expr{x.Expr, shapeExpr(out)}))
}

func convFlatten(c *Ctx, n *Node) ([]*Value, error) {
	dims := n.In[0].Dims()
	if dims == nil {
		return nil, n.unsupported("input rank unknown")
	}
	axis := n.Int("axis", 1)
	if axis < 0 {
		axis += int64(len(dims))
	}
	if axis < 0 || axis > int64(len(dims)) {
		return nil, fmt.Errorf("axis %d out of range", n.Int("axis", 1))
	}
	a, b := ir.PrimExpr(ir.Int64(1)), ir.PrimExpr(ir.Int64(1))
	for i, d := range dims {
		if int64(i) < axis {
			a = ir.Mul(a, d)
		} else {
			b = ir.Mul(b, d)
		}
	}
	return one(c.Emit("relax.reshape", []ir.Expr{n.In[0].Expr, shapeExpr([]ir.PrimExpr{a, b})}))
}

// axesArg reads the axes of Squeeze/Unsqueeze/Reduce*: an attribute before
// opset `inputSince`, an optional input after.
func axesArg(n *Node, inputSince int, idx int) ([]int64, bool, error) {
	if n.Opset < inputSince {
		a := n.Ints("axes", nil)
		return a, a != nil, nil
	}
	v := n.Input(idx)
	if v == nil {
		return nil, false, nil
	}
	a, ok := v.Ints()
	if !ok {
		return nil, false, n.unsupported("axes must be known at import time")
	}
	return a, true, nil
}

func convSqueeze(c *Ctx, n *Node) ([]*Value, error) {
	axes, has, err := axesArg(n, 13, 1)
	if err != nil {
		return nil, err
	}
	x := n.In[0]
	if x.ShapeVals != nil && x.Rank() == 1 && c.isVirtual(x) {
		return []*Value{c.symShape(x.ShapeVals, 0)}, nil
	}
	if !has {
		return one(c.Un("relax.squeeze", x))
	}
	r := x.Rank()
	norm := make([]int64, len(axes))
	for i, a := range axes {
		k, err := normAxis(n, a, r)
		if err != nil {
			return nil, err
		}
		norm[i] = int64(k)
	}
	return one(c.Un("relax.squeeze", x, Attr("axis", intsAny(norm))))
}

func (c *Ctx) isVirtual(v *Value) bool {
	vv, ok := v.Expr.(*ir.Var)
	return ok && c.virtual[vv]
}

func convUnsqueeze(c *Ctx, n *Node) ([]*Value, error) {
	axes, has, err := axesArg(n, 13, 1)
	if err != nil {
		return nil, err
	}
	if !has {
		return nil, n.unsupported("axes are required")
	}
	x := n.In[0]
	r := x.Rank()
	if r < 0 {
		return nil, n.unsupported("input rank unknown")
	}
	if c.isVirtual(x) && r == 0 && len(axes) == 1 {
		return []*Value{c.symShape(x.ShapeVals, 1)}, nil
	}
	outRank := r + len(axes)
	norm := make([]int64, len(axes))
	seen := map[int64]bool{}
	for i, a := range axes {
		if a < 0 {
			a += int64(outRank)
		}
		if a < 0 || a >= int64(outRank) || seen[a] {
			return nil, fmt.Errorf("invalid axes %v for rank %d", axes, r)
		}
		seen[a] = true
		norm[i] = a
	}
	// Build the output shape directly: a reshape is exact for any axes order.
	if dims := x.Dims(); dims != nil {
		out := make([]ir.PrimExpr, 0, outRank)
		j := 0
		for i := 0; i < outRank; i++ {
			if seen[int64(i)] {
				out = append(out, ir.Int64(1))
			} else {
				out = append(out, dims[j])
				j++
			}
		}
		return one(c.Emit("relax.reshape", []ir.Expr{x.Expr, shapeExpr(out)}))
	}
	return one(c.Un("relax.expand_dims", x, Attr("axis", intsAny(norm))))
}

func convConcat(c *Ctx, n *Node) ([]*Value, error) {
	var ins []*Value
	for _, v := range n.In {
		if v != nil {
			ins = append(ins, v)
		}
	}
	if len(ins) == 0 {
		return nil, n.unsupported("no inputs")
	}
	r := ins[0].Rank()
	axis, err := normAxis(n, n.Int("axis", 0), r)
	if err != nil {
		return nil, err
	}
	// Shape values concatenate symbolically.
	anyVirtual := false
	for _, v := range ins {
		anyVirtual = anyVirtual || c.isVirtual(v)
	}
	if anyVirtual && r == 1 {
		var all []ir.PrimExpr
		for _, v := range ins {
			s, ok := v.shapeVals()
			if !ok {
				return nil, n.unsupported("concatenating a symbolic shape with data")
			}
			all = append(all, s...)
		}
		return []*Value{c.shapeValue(all)}, nil
	}
	if len(ins) == 1 {
		return []*Value{ins[0]}, nil
	}
	t := &ir.Tuple{}
	for _, v := range ins {
		t.Fields = append(t.Fields, v.Expr)
	}
	return one(c.Emit("relax.concat", []ir.Expr{t}, Attr("axis", int64(axis))))
}

func convSplit(c *Ctx, n *Node) ([]*Value, error) {
	x := n.In[0]
	axis, err := normAxis(n, n.Int("axis", 0), x.Rank())
	if err != nil {
		return nil, err
	}
	var sizes []int64
	if n.Opset < 13 {
		sizes = n.Ints("split", nil)
		if sizes == nil && n.Opset < 2 {
			if v := n.Input(1); v != nil {
				sizes, _ = v.Ints()
			}
		}
	} else if v := n.Input(1); v != nil {
		var ok bool
		if sizes, ok = v.Ints(); !ok {
			return nil, n.unsupported("split sizes must be known at import time")
		}
	}
	nout := n.NumOut
	if n.Opset >= 18 && n.Has("num_outputs") {
		nout = int(n.Int("num_outputs", 0))
	}
	if nout != n.NumOut || nout < 1 {
		return nil, fmt.Errorf("num_outputs=%d but the node has %d outputs", nout, n.NumOut)
	}
	var ios any
	if sizes != nil {
		var idx []int64
		acc := int64(0)
		for _, s := range sizes[:max(len(sizes)-1, 0)] {
			acc += s
			idx = append(idx, acc)
		}
		ios = intsAny(idx)
	} else {
		dims, ok := x.StaticDims()
		if !ok {
			ios = int64(nout)
		} else {
			d := dims[axis]
			if nout <= 0 {
				return nil, n.unsupported("no outputs")
			}
			if d%int64(nout) == 0 {
				ios = int64(nout)
			} else {
				chunk := (d + int64(nout) - 1) / int64(nout)
				var idx []int64
				for i := int64(1); i < int64(nout); i++ {
					idx = append(idx, min(i*chunk, d))
				}
				ios = intsAny(idx)
			}
		}
	}
	t, err := c.Un("relax.split", x, Attr("indices_or_sections", ios), Attr("axis", int64(axis)))
	if err != nil {
		return nil, err
	}
	ts, ok := t.Expr.SInfo().(*ir.TupleSInfo)
	if !ok {
		return nil, fmt.Errorf("split did not give a tuple")
	}
	out := make([]*Value, len(ts.Fields))
	if x.Const != nil && !x.DType().IsFloat() || x.ShapeVals != nil && axis == 0 {
		// Known input (a shape, sizes): slice each piece so it stays known.
		begin := int64(0)
		for i, fsi := range ts.Fields {
			fts, ok := fsi.(*ir.TensorSInfo)
			if !ok || axis >= len(fts.Shape) {
				return nil, fmt.Errorf("split piece %d has no shape", i)
			}
			size, ok := ir.AsInt(fts.Shape[axis])
			if !ok {
				out = nil
				break
			}
			if x.Const == nil {
				out[i] = &Value{Expr: c.Item(t, i).Expr, ShapeVals: x.ShapeVals[begin : begin+size]}
			} else {
				v, err := c.Emit("relax.strided_slice", []ir.Expr{x.Expr, &ir.Tuple{Fields: []ir.Expr{primInt(int64(axis))}},
					&ir.Tuple{Fields: []ir.Expr{primInt(begin)}}, &ir.Tuple{Fields: []ir.Expr{primInt(begin + size)}}, &ir.Tuple{Fields: []ir.Expr{primInt(1)}}})
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			begin += size
		}
		if out != nil {
			return out, nil
		}
		out = make([]*Value, len(ts.Fields))
	}
	for i := range out {
		out[i] = c.Item(t, i)
	}
	return out, nil
}

func convSlice(c *Ctx, n *Node) ([]*Value, error) {
	x := n.In[0]
	var starts, ends, axes, steps []int64
	if n.Opset < 10 {
		starts, ends, axes = n.Ints("starts", nil), n.Ints("ends", nil), n.Ints("axes", nil)
	} else {
		get := func(i int) ([]int64, error) {
			v := n.Input(i)
			if v == nil {
				return nil, nil
			}
			s, ok := v.Ints()
			if !ok {
				return nil, n.unsupported("input %d must be known at import time (dynamic slice)", i)
			}
			return s, nil
		}
		var err error
		if starts, err = get(1); err != nil {
			return nil, err
		}
		if ends, err = get(2); err != nil {
			return nil, err
		}
		if axes, err = get(3); err != nil {
			return nil, err
		}
		if steps, err = get(4); err != nil {
			return nil, err
		}
	}
	if len(starts) != len(ends) {
		return nil, fmt.Errorf("starts and ends have different lengths")
	}
	r := x.Rank()
	if axes == nil {
		for i := range starts {
			axes = append(axes, int64(i))
		}
	}
	if steps == nil {
		steps = make([]int64, len(starts))
		for i := range steps {
			steps[i] = 1
		}
	}
	if len(axes) != len(starts) || len(steps) != len(starts) {
		return nil, fmt.Errorf("starts, ends, axes and steps have different lengths")
	}
	for i, a := range axes {
		k, err := normAxis(n, a, r)
		if err != nil {
			return nil, err
		}
		axes[i] = int64(k)
		if steps[i] == 0 {
			return nil, fmt.Errorf("step 0")
		}
		// keep the values inside int64 arithmetic range
		starts[i] = max(min(starts[i], math.MaxInt32*4), -math.MaxInt32*4)
		ends[i] = max(min(ends[i], math.MaxInt32*4), -math.MaxInt32*4)
	}
	// Symbolic shape values slice symbolically.
	if c.isVirtual(x) && len(axes) == 1 {
		vals := x.ShapeVals
		l := int64(len(vals))
		s, e, st := starts[0], ends[0], steps[0]
		norm := func(v int64, lo, hi int64) int64 {
			if v < 0 {
				v += l
			}
			return max(lo, min(v, hi))
		}
		var out []ir.PrimExpr
		if st > 0 {
			for i := norm(s, 0, l); i < norm(e, 0, l); i += st {
				out = append(out, vals[i])
			}
		} else {
			for i := norm(s, -1, l-1); i > norm(e, -1, l-1); i += st {
				out = append(out, vals[i])
			}
		}
		return []*Value{c.shapeValue(out)}, nil
	}
	tup := func(v []int64) *ir.Tuple {
		t := &ir.Tuple{}
		for _, x := range v {
			t.Fields = append(t.Fields, primInt(x))
		}
		return t
	}
	return one(c.Emit("relax.strided_slice", []ir.Expr{x.Expr, tup(axes), tup(starts), tup(ends), tup(steps)}))
}

// normIndices makes negative indices along axis of data (dims) non-negative.
func (c *Ctx) normIndices(idx *Value, dims []ir.PrimExpr, axis int) (*Value, error) {
	if is, ok := idx.Ints(); ok && idx.Const != nil {
		neg := false
		for _, i := range is {
			neg = neg || i < 0
		}
		if !neg {
			return idx, nil
		}
		if dims == nil {
			return nil, fmt.Errorf("negative indices with an unknown input shape")
		}
		d, ok := ir.AsInt(dims[axis])
		if !ok {
			return nil, fmt.Errorf("negative indices along a symbolic dimension")
		}
		t := idx.Const.Clone()
		for i, v := range is {
			if v < 0 {
				v += d
			}
			setElem(t, i, float64(v))
		}
		return c.Const(t), nil
	}
	if dims == nil || axis >= len(dims) {
		return nil, fmt.Errorf("indices with an unknown input shape")
	}
	d, ok := ir.AsInt(dims[axis])
	if !ok {
		return nil, fmt.Errorf("dynamic indices along a symbolic dimension")
	}
	f := &formula{c: c}
	y := f.where(f.bin("relax.less", idx, f.k(0, idx)), f.bin("relax.add", idx, f.k(float64(d), idx)), idx)
	return y, f.err
}

func convGather(c *Ctx, n *Node) ([]*Value, error) {
	x, idx := n.In[0], n.In[1]
	axis, err := normAxis(n, n.Int("axis", 0), x.Rank())
	if err != nil {
		return nil, err
	}
	if c.isVirtual(x) {
		is, ok := idx.Ints()
		if !ok {
			return nil, n.unsupported("gathering from a symbolic shape with unknown indices")
		}
		l := int64(len(x.ShapeVals))
		var out []ir.PrimExpr
		for _, i := range is {
			if i < 0 {
				i += l
			}
			if i < 0 || i >= l {
				return nil, fmt.Errorf("index %d out of range", i)
			}
			out = append(out, x.ShapeVals[i])
		}
		if idx.Rank() == 0 {
			v := c.shapeValue(out)
			if v.Const != nil {
				return one(c.Scalar(float64(v.Const.Int64s()[0]), runtime.Int64))
			}
			return []*Value{c.symShape(out, 0)}, nil
		}
		return []*Value{c.shapeValue(out)}, nil
	}
	if idx, err = c.normIndices(idx, x.Dims(), axis); err != nil {
		return nil, err
	}
	return one(c.Emit("relax.take", []ir.Expr{x.Expr, idx.Expr}, Attr("axis", int64(axis)), Attr("mode", "fast")))
}

func convExpand(c *Ctx, n *Node) ([]*Value, error) {
	x := n.In[0]
	target, ok := n.In[1].shapeVals()
	if !ok {
		return nil, n.unsupported("the target shape must be known at import time")
	}
	dims := x.Dims()
	if dims == nil {
		return nil, n.unsupported("input rank unknown")
	}
	r := max(len(dims), len(target))
	out := make([]ir.PrimExpr, r)
	for i := 0; i < r; i++ {
		var a, b ir.PrimExpr = ir.Int64(1), ir.Int64(1)
		if j := i - (r - len(dims)); j >= 0 {
			a = dims[j]
		}
		if j := i - (r - len(target)); j >= 0 {
			b = target[j]
		}
		av, aok := ir.AsInt(a)
		bv, bok := ir.AsInt(b)
		switch {
		case aok && av == 1:
			out[i] = b
		case bok && bv == 1:
			out[i] = a
		case aok && bok && av != bv:
			return nil, fmt.Errorf("cannot expand dimension %d to %d", av, bv)
		default:
			out[i] = a
		}
	}
	return one(c.Emit("relax.broadcast_to", []ir.Expr{x.Expr, shapeExpr(out)}))
}

func convRange(c *Ctx, n *Node) ([]*Value, error) {
	dt := n.In[0].DType()
	get := func(i int) (float64, error) {
		f, ok := n.In[i].Floats()
		if !ok || len(f) != 1 {
			return 0, n.unsupported("start, limit and delta must be known at import time")
		}
		return f[0], nil
	}
	start, err := get(0)
	if err != nil {
		return nil, err
	}
	limit, err := get(1)
	if err != nil {
		return nil, err
	}
	delta, err := get(2)
	if err != nil {
		return nil, err
	}
	if delta == 0 {
		return nil, fmt.Errorf("delta is 0")
	}
	k := int64(max(math.Ceil((limit-start)/delta), 0))
	if dt.IsInt() || dt.IsUInt() {
		is0, _ := n.In[0].Ints()
		is1, _ := n.In[1].Ints()
		is2, _ := n.In[2].Ints()
		k = max(0, (is1[0]-is0[0]+is2[0]-sign(is2[0]))/is2[0])
	}
	if k > maxFoldElems {
		return nil, n.unsupported("range of %d elements", k)
	}
	t, err := runtime.NewTensor([]int64{k}, dt)
	if err != nil {
		return nil, err
	}
	for i := int64(0); i < k; i++ {
		if dt.IsInt() || dt.IsUInt() {
			is0, _ := n.In[0].Ints()
			is2, _ := n.In[2].Ints()
			setElem(t, int(i), float64(is0[0]+i*is2[0]))
		} else {
			// as ONNX's reference: start + i*delta in the input dtype
			setElem(t, int(i), start+float64(i)*delta)
		}
	}
	return []*Value{c.Const(t)}, nil
}

func sign(v int64) int64 {
	if v < 0 {
		return -1
	}
	return 1
}

func convOneHot(c *Ctx, n *Node) ([]*Value, error) {
	depthF, ok := n.In[1].Floats()
	if !ok || len(depthF) != 1 {
		return nil, n.unsupported("depth must be a known scalar")
	}
	depth := int64(depthF[0])
	vals, ok := n.In[2].Floats()
	if !ok || len(vals) != 2 {
		return nil, n.unsupported("values must be known")
	}
	dt := n.In[2].DType()
	idx, err := c.Cast(n.In[0], runtime.Int64)
	if err != nil {
		return nil, err
	}
	f := &formula{c: c}
	idx = f.where(f.bin("relax.less", idx, f.k(0, idx)), f.bin("relax.add", idx, f.k(float64(depth), idx)), idx)
	if f.err != nil {
		return nil, f.err
	}
	prim := func(v float64) *ir.PrimValue {
		var e ir.PrimExpr
		if dt.IsFloat() {
			e = &ir.FloatImm{Value: v, Type: dt}
		} else {
			e = &ir.IntImm{Value: int64(v), Type: dt}
		}
		p := &ir.PrimValue{Value: e}
		p.SetSInfo(&ir.PrimSInfo{DType: dt, Value: e})
		return p
	}
	return one(c.Emit("relax.one_hot", []ir.Expr{idx.Expr, prim(vals[1]), prim(vals[0])},
		Attr("depth", depth), Attr("axis", n.Int("axis", -1))))
}
