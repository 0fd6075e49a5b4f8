package ir

// Scans (cumsum, cumprod), gather_elements and one_hot, with TVM's Python
// signatures: cumsum(data, axis=None, dtype=None, exclusive=False),
// gather_elements(data, indices, axis=0), and
// one_hot(indices, on_value, off_value, depth, axis=-1).
func init() {
	scan := []AttrDef{attrOptI("axis"), attrDT("dtype"), attrB("exclusive", false)}
	reg("relax.cumsum", true, inferScan, args(arg("data")), scan...)
	reg("relax.cumprod", true, inferScan, args(arg("data")), scan...)
	reg("relax.gather_elements", true, inferGatherElements, args(arg("data"), arg("indices")), AttrDef{Name: "axis", Kind: AttrInt, Default: int64(0)})
	reg("relax.one_hot", true, inferOneHot, args(arg("indices"), argK("on_value", ArgPrim), argK("off_value", ArgPrim)),
		attrReq("depth", AttrInt), AttrDef{Name: "axis", Kind: AttrInt, Default: int64(-1)})
}

// inferScan: the data's shape (flattened when axis is None), in dtype or the data's.
func inferScan(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	dt := x.DType
	if v, _ := c.Attrs.Get("dtype"); v != nil {
		if d, ok := v.(DataType); ok && !d.IsVoid() {
			dt = d
		}
	}
	if v, _ := c.Attrs.Get("axis"); v != nil {
		if x.NDim >= 0 {
			if _, err := normAxis(c, x.NDim, v.(int64)); err != nil {
				return nil, err
			}
		}
		return &TensorSInfo{Shape: x.Shape, NDim: x.NDim, DType: dt}, nil
	}
	if x.Shape == nil {
		return unknownTensor(1, dt), nil
	}
	var n PrimExpr = Int64(1)
	for _, d := range x.Shape {
		n = Mul(n, d)
	}
	return NewTensorSInfo([]PrimExpr{n}, dt), nil
}

// inferGatherElements: the indices' shape in the data's dtype; ranks must agree.
func inferGatherElements(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	idx, err := tensorArg(c, 1, false)
	if err != nil {
		return nil, err
	}
	if !idx.DType.IsVoid() && !idx.DType.IsInt() && !idx.DType.IsUInt() {
		return nil, opErr(c, "indices must be integers, got %s", idx.DType)
	}
	if x.NDim >= 0 && idx.NDim >= 0 && x.NDim != idx.NDim {
		return nil, opErr(c, "data and indices must have the same rank, got %d and %d", x.NDim, idx.NDim)
	}
	if v, _ := c.Attrs.Get("axis"); v != nil && x.NDim >= 0 {
		if _, err := normAxis(c, x.NDim, v.(int64)); err != nil {
			return nil, err
		}
	}
	return &TensorSInfo{Shape: idx.Shape, NDim: idx.NDim, DType: x.DType}, nil
}

// inferOneHot: the indices' shape with depth inserted at axis, in the on
// value's dtype.
func inferOneHot(c *Call, _ *InferCtx) (StructInfo, error) {
	idx, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	if !idx.DType.IsVoid() && !idx.DType.IsInt() && !idx.DType.IsUInt() {
		return nil, opErr(c, "indices must be integers, got %s", idx.DType)
	}
	on, ok1 := argSInfo(c, 1).(*PrimSInfo)
	off, ok2 := argSInfo(c, 2).(*PrimSInfo)
	if !ok1 || !ok2 {
		return nil, opErr(c, "on_value and off_value must be scalars")
	}
	if on.DType != off.DType {
		return nil, opErr(c, "on_value and off_value dtypes differ: %s and %s", on.DType, off.DType)
	}
	dv, _ := c.Attrs.Get("depth")
	depth, _ := dv.(int64)
	if depth <= 0 {
		return nil, opErr(c, "depth must be positive, got %d", depth)
	}
	if idx.Shape == nil {
		nd := -1
		if idx.NDim >= 0 {
			nd = idx.NDim + 1
		}
		return unknownTensor(nd, on.DType), nil
	}
	av, _ := c.Attrs.Get("axis")
	axis := av.(int64)
	nd := int64(len(idx.Shape) + 1)
	if axis < 0 {
		axis += nd
	}
	if axis < 0 || axis >= nd {
		return nil, opErr(c, "axis %d out of range for rank %d", av, nd)
	}
	shape := append(append(append([]PrimExpr{}, idx.Shape[:axis]...), Int64(depth)), idx.Shape[axis:]...)
	return NewTensorSInfo(shape, on.DType), nil
}
