package ir

// Scatters, as in TVM's relax.op: scatter_elements(data, indices, updates,
// axis=0, reduction="update"), scatter_nd(data, indices, updates,
// reduction="update"), index_put(data, indices, values, accumulate=False) and
// slice_scatter(input, src, start, end, step, axis=0) (start, end and step
// are PrimValue arguments; axis is the only attribute). Each returns a tensor
// of data's shape and dtype.
func init() {
	duu := args(arg("data"), arg("indices"), arg("updates"))
	reg("relax.scatter_elements", true, inferScatterElements, duu, attrI("axis", 0), attrS("reduction", "update"))
	reg("relax.scatter_nd", true, inferScatterND, duu, attrS("reduction", "update"))
	reg("relax.index_put", true, inferIndexPut, args(arg("data"), argK("indices", ArgTuple), arg("values")), attrB("accumulate", false))
	reg("relax.slice_scatter", true, inferSliceScatter,
		args(arg("input"), arg("src"), argK("start", ArgPrim), argK("end", ArgPrim), argK("step", ArgPrim)), attrI("axis", 0))
}

// scatterResult is data's struct info (shape when known).
func scatterResult(x *TensorSInfo) StructInfo {
	return &TensorSInfo{Shape: x.Shape, NDim: x.NDim, DType: x.DType}
}

func checkIndexDType(c *Call, name string, t *TensorSInfo) error {
	if !t.DType.IsVoid() && !t.DType.IsInt() && !t.DType.IsUInt() {
		return opErr(c, "%s must have an integer dtype, got %s", name, t.DType)
	}
	return nil
}

func checkSameDType(c *Call, a, b *TensorSInfo, what string) error {
	if !a.DType.IsVoid() && !b.DType.IsVoid() && a.DType != b.DType {
		return opErr(c, "data and %s must have the same dtype, got %s and %s", what, a.DType, b.DType)
	}
	return nil
}

func inferScatterElements(c *Call, _ *InferCtx) (StructInfo, error) {
	var ts [3]*TensorSInfo
	for i := range ts {
		t, err := tensorArg(c, i, false)
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	data, ind, upd := ts[0], ts[1], ts[2]
	if data.NDim >= 0 {
		if ind.NDim >= 0 && ind.NDim != data.NDim {
			return nil, opErr(c, "indices must have the rank of data (%d), got %d", data.NDim, ind.NDim)
		}
		axis, _ := c.AttrInt64("axis")
		if _, err := normAxis(c, data.NDim, axis); err != nil {
			return nil, err
		}
	}
	if ind.NDim >= 0 && upd.NDim >= 0 && ind.NDim != upd.NDim {
		return nil, opErr(c, "updates must have the rank of indices (%d), got %d", ind.NDim, upd.NDim)
	}
	if err := checkSameDType(c, data, upd, "updates"); err != nil {
		return nil, err
	}
	if err := checkIndexDType(c, "indices", ind); err != nil {
		return nil, err
	}
	if ind.Shape != nil && upd.Shape != nil {
		for i := range ind.Shape {
			if provablyDifferent(ind.Shape[i], upd.Shape[i]) {
				return nil, opErr(c, "indices %s and updates %s must have the same shape", dimsString(ind.Shape), dimsString(upd.Shape))
			}
		}
	}
	switch r := attrStr(c, "reduction"); r {
	case "update", "add", "mul", "mean", "min", "max":
	default:
		return nil, opErr(c, "reduction must be update, add, mul, mean, min or max, got %q", r)
	}
	return scatterResult(data), nil
}

func inferScatterND(c *Call, _ *InferCtx) (StructInfo, error) {
	var ts [3]*TensorSInfo
	for i := range ts {
		t, err := tensorArg(c, i, false)
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	data, ind, upd := ts[0], ts[1], ts[2]
	if data.DType.IsVoid() || upd.DType.IsVoid() {
		return nil, opErr(c, "data and updates must have known dtypes")
	}
	if err := checkSameDType(c, data, upd, "updates"); err != nil {
		return nil, err
	}
	if err := checkIndexDType(c, "indices", ind); err != nil {
		return nil, err
	}
	switch r := attrStr(c, "reduction"); r {
	case "update", "add", "mul", "min", "max":
	default:
		return nil, opErr(c, "reduction must be update, add, mul, min or max, got %q", r)
	}
	if data.Shape != nil && ind.Shape != nil && upd.Shape != nil {
		if len(ind.Shape) == 0 {
			return nil, opErr(c, "indices must have rank >= 1")
		}
		k, ok := AsInt(Simplify(ind.Shape[len(ind.Shape)-1]))
		if !ok {
			return nil, opErr(c, "needs a static last axis of indices, got %s", dimsString(ind.Shape))
		}
		if k > int64(len(data.Shape)) {
			return nil, opErr(c, "the last axis of indices (%d) exceeds the rank of data %s", k, dimsString(data.Shape))
		}
		want := append(append([]PrimExpr{}, ind.Shape[:len(ind.Shape)-1]...), data.Shape[k:]...)
		bad := len(want) != len(upd.Shape)
		for i := 0; !bad && i < len(want); i++ {
			bad = !ProveEqual(want[i], upd.Shape[i])
		}
		if bad {
			return nil, opErr(c, "updates shape %s must be indices.shape[:-1] + data.shape[%d:] = %s", dimsString(upd.Shape), k, dimsString(want))
		}
	}
	return scatterResult(data), nil
}

func inferIndexPut(c *Call, _ *InferCtx) (StructInfo, error) {
	data, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	vals, err := tensorArg(c, 2, false)
	if err != nil {
		return nil, err
	}
	var inds []*TensorSInfo
	switch s := argSInfo(c, 1).(type) {
	case *TupleSInfo:
		for j, f := range s.Fields {
			t, ok := f.(*TensorSInfo)
			if !ok {
				return nil, opErr(c, "index %d must be a tensor, got %s", j, SInfoString(f))
			}
			inds = append(inds, t)
		}
	case *TensorSInfo:
		inds = []*TensorSInfo{s}
	default:
		return nil, opErr(c, "indices must be a tensor or a tuple of tensors, got %s", SInfoString(s))
	}
	if data.NDim < 0 {
		return scatterResult(data), nil
	}
	for j, t := range inds {
		if t.NDim == 0 {
			return nil, opErr(c, "index tensor %d must have at least 1 dimension", j)
		}
		if err := checkIndexDType(c, "index tensors", t); err != nil {
			return nil, err
		}
	}
	if len(inds) != data.NDim {
		return nil, opErr(c, "the number of index tensors (%d) must match the rank of data (%d)", len(inds), data.NDim)
	}
	if err := checkSameDType(c, data, vals, "values"); err != nil {
		return nil, err
	}
	return scatterResult(data), nil
}

func inferSliceScatter(c *Call, _ *InferCtx) (StructInfo, error) {
	data, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	src, err := tensorArg(c, 1, false)
	if err != nil {
		return nil, err
	}
	if data.NDim < 0 {
		return scatterResult(data), nil
	}
	axis, _ := c.AttrInt64("axis")
	ax, err := normAxis(c, data.NDim, axis)
	if err != nil {
		return nil, err
	}
	if src.NDim >= 0 && src.NDim != data.NDim {
		return nil, opErr(c, "src must have the rank of data (%d), got %d", data.NDim, src.NDim)
	}
	if err := checkSameDType(c, data, src, "src"); err != nil {
		return nil, err
	}
	var se [3]PrimExpr
	for i, name := range []string{"start", "end", "step"} {
		p, ok := primArg(c, 2+i)
		if !ok {
			return nil, opErr(c, "%s must be a PrimValue", name)
		}
		if dt := p.DType(); !dt.IsInt() && !dt.IsUInt() {
			return nil, opErr(c, "%s must be an integer, got %s", name, dt)
		}
		se[i] = p
	}
	if st, ok := AsInt(Simplify(se[2])); ok && st < 1 {
		return nil, opErr(c, "step (%d) must be >= 1", st)
	}
	if d, ok := AsInt(Sub(se[1], se[0])); ok && d < 0 {
		return nil, opErr(c, "start must be <= end")
	}
	if data.Shape != nil && src.Shape != nil {
		for i := range data.Shape {
			if i != ax && provablyDifferent(data.Shape[i], src.Shape[i]) {
				return nil, opErr(c, "src %s must match data %s except at axis %d", dimsString(src.Shape), dimsString(data.Shape), ax)
			}
		}
		n := FloorDiv(Add(Sub(se[1], se[0]), Sub(se[2], Int64(1))), se[2])
		if provablyDifferent(src.Shape[ax], n) {
			return nil, opErr(c, "src has %s elements at axis %d, but the slice has %s", dimsString(src.Shape[ax:ax+1]), ax, dimsString([]PrimExpr{n}))
		}
	}
	return scatterResult(data), nil
}
