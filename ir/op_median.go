package ir

import "github.com/relaxgo/relaxgo/runtime"

// median(data, axis=None, keepdims=False), as in TVM: with exactly one axis
// it returns (values, indices) like torch.median(dim); otherwise only the
// values (the lower median of all reduced elements).
func init() {
	reg("relax.median", true, inferMedian, args(arg("x")), attrOptInts("axis"), attrB("keepdims", false))
}

func inferMedian(c *Call, ctx *InferCtx) (StructInfo, error) {
	vals, err := inferReduce(c, ctx)
	if err != nil {
		return nil, err
	}
	v, _ := c.Attrs.Get("axis")
	if v == nil || len(c.AttrInts("axis")) != 1 {
		return vals, nil
	}
	t := vals.(*TensorSInfo)
	if t.NDim == 0 && t.Shape == nil {
		// TVM: an unknown input shape reduced to rank 0 gives the values only.
		return NewTensorSInfo([]PrimExpr{}, t.DType), nil
	}
	idx := &TensorSInfo{Shape: t.Shape, NDim: t.NDim, DType: runtime.Int64}
	return &TupleSInfo{Fields: []StructInfo{t, idx}}, nil
}
