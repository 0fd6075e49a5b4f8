package ir

import "github.com/relaxgo/relaxgo/runtime"

// Assorted ops TVM's frontends print, with TVM's Python signatures:
// ewise_fma(x1, x2, x3); grad.start_checkpoint(x) and grad.end_checkpoint(x)
// (identity at inference); bucketize(input_tensor, boundaries,
// out_int32=False, right=False); hamming_window(window_size, periodic, alpha,
// beta, dtype) (PrimValue arguments, dtype attribute); reverse_sequence(data,
// seq_lengths, seq_axis=1, batch_axis=0); shape_to_tensor(expr);
// multinomial_from_uniform(prob, uniform_sample, sample_indices, dtype="int64").
func init() {
	reg("relax.ewise_fma", true, inferEwiseFMA, args(arg("x1"), arg("x2"), arg("x3")))
	reg("relax.grad.start_checkpoint", true, inferFirstArg, args(arg("x")))
	reg("relax.grad.end_checkpoint", true, inferFirstArg, args(arg("x")))
	reg("relax.bucketize", true, inferBucketize, args(arg("input_tensor"), arg("boundaries")),
		attrB("out_int32", false), attrB("right", false))
	reg("relax.hamming_window", true, inferHammingWindow,
		args(argK("window_size", ArgPrim), argK("periodic", ArgPrim), argK("alpha", ArgPrim), argK("beta", ArgPrim)),
		attrDT("dtype"))
	reg("relax.reverse_sequence", true, inferReverseSequence, args(arg("data"), arg("seq_lengths")),
		attrI("seq_axis", 1), attrI("batch_axis", 0))
	reg("relax.shape_to_tensor", true, inferShapeToTensor, args(arg("expr")))
	reg("relax.multinomial_from_uniform", true, inferMultinomial,
		args(arg("prob"), arg("uniform_sample"), arg("sample_indices")),
		AttrDef{Name: "dtype", Kind: AttrDType, Default: "int64"})
}

func inferEwiseFMA(c *Call, _ *InferCtx) (StructInfo, error) {
	var ts [3]*TensorSInfo
	for i := range ts {
		t, err := tensorArg(c, i, false)
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	out := ts[0]
	for _, t := range ts[1:] {
		if out.NDim >= 0 && t.NDim >= 0 && out.NDim != t.NDim {
			return nil, opErr(c, "the three arguments must have the same rank, got %d and %d", out.NDim, t.NDim)
		}
		if !out.DType.IsVoid() && !t.DType.IsVoid() && out.DType != t.DType {
			return nil, opErr(c, "the three arguments must have the same dtype, got %s and %s", out.DType, t.DType)
		}
		if out.Shape != nil && t.Shape != nil {
			for i := range out.Shape {
				if provablyDifferent(out.Shape[i], t.Shape[i]) {
					return nil, opErr(c, "the three arguments must have the same shape, got %s and %s", dimsString(out.Shape), dimsString(t.Shape))
				}
			}
		}
	}
	return &TensorSInfo{Shape: out.Shape, NDim: out.NDim, DType: out.DType}, nil
}

func inferBucketize(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	b, err := tensorArg(c, 1, false)
	if err != nil {
		return nil, err
	}
	if b.NDim >= 0 && b.NDim != 1 {
		return nil, opErr(c, "boundaries must be a 1-D tensor, got rank %d", b.NDim)
	}
	dt := runtime.Int64
	if v, _ := c.Attrs.Get("out_int32"); v == true {
		dt = runtime.Int32
	}
	return &TensorSInfo{Shape: x.Shape, NDim: x.NDim, DType: dt}, nil
}

func inferHammingWindow(c *Call, _ *InferCtx) (StructInfo, error) {
	dt := dtypeAttr(c, "dtype")
	if dt.IsVoid() {
		dt = runtime.Float32
	}
	if !dt.IsFloat() {
		return nil, opErr(c, "dtype must be a float type, got %s", dt)
	}
	n, ok := primArg(c, 0)
	if !ok {
		return nil, opErr(c, "window_size must be a PrimValue")
	}
	if v, ok := AsInt(Simplify(n)); ok && v < 1 {
		return nil, opErr(c, "window_size must be greater than zero, got %d", v)
	}
	if n.DType() != runtime.Int64 {
		n = &Cast{Type: runtime.Int64, Value: n}
	}
	return &TensorSInfo{Shape: []PrimExpr{Simplify(n)}, NDim: 1, DType: dt}, nil
}

func inferReverseSequence(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	l, err := tensorArg(c, 1, false)
	if err != nil {
		return nil, err
	}
	if l.NDim >= 0 && l.NDim != 1 {
		return nil, opErr(c, "seq_lengths must be 1-D, got rank %d", l.NDim)
	}
	if !l.DType.IsVoid() && l.DType != runtime.Int32 && l.DType != runtime.Int64 {
		return nil, opErr(c, "seq_lengths must be int32 or int64, got %s", l.DType)
	}
	if x.NDim >= 0 {
		sa, _ := c.AttrInt64("seq_axis")
		ba, _ := c.AttrInt64("batch_axis")
		if _, err := normAxis(c, x.NDim, sa); err != nil {
			return nil, err
		}
		b, err := normAxis(c, x.NDim, ba)
		if err != nil {
			return nil, err
		}
		if x.Shape != nil && l.Shape != nil && provablyDifferent(x.Shape[b], l.Shape[0]) {
			return nil, opErr(c, "seq_lengths has %s elements, but the batch axis has %s", dimsString(l.Shape), dimsString(x.Shape[b:b+1]))
		}
	}
	return &TensorSInfo{Shape: x.Shape, NDim: x.NDim, DType: x.DType}, nil
}

func inferShapeToTensor(c *Call, _ *InferCtx) (StructInfo, error) {
	_, n, err := shapeArg(c, 0)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return unknownTensor(1, runtime.Int64), nil
	}
	return &TensorSInfo{Shape: []PrimExpr{Int64(int64(n))}, NDim: 1, DType: runtime.Int64}, nil
}

func inferMultinomial(c *Call, _ *InferCtx) (StructInfo, error) {
	var ts [3]*TensorSInfo
	for i := range ts {
		t, err := tensorArg(c, i, false)
		if err != nil {
			return nil, err
		}
		if t.NDim >= 0 && t.NDim != 2 {
			return nil, opErr(c, "%s must be 2-D, got rank %d", argName(c, i), t.NDim)
		}
		ts[i] = t
	}
	if !ts[0].DType.IsVoid() && !ts[0].DType.IsFloat() {
		return nil, opErr(c, "prob must be a float tensor, got %s", ts[0].DType)
	}
	if !ts[1].DType.IsVoid() && !ts[1].DType.IsFloat() {
		return nil, opErr(c, "uniform_sample must be a float tensor, got %s", ts[1].DType)
	}
	if err := checkIndexDType(c, "sample_indices", ts[2]); err != nil {
		return nil, err
	}
	dt := dtypeAttr(c, "dtype")
	if dt.IsVoid() {
		dt = runtime.Int64
	}
	if !dt.IsInt() && !dt.IsUInt() {
		return nil, opErr(c, "dtype must be an integer type, got %s", dt)
	}
	u := ts[1]
	if u.Shape != nil {
		if provablyDifferent(u.Shape[1], Int64(1)) {
			return nil, opErr(c, "uniform_sample must have shape (n, 1), got %s", dimsString(u.Shape))
		}
		return &TensorSInfo{Shape: []PrimExpr{u.Shape[0], Int64(1)}, NDim: 2, DType: dt}, nil
	}
	return unknownTensor(2, dt), nil
}
