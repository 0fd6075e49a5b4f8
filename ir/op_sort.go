package ir

import "github.com/relaxgo/relaxgo/runtime"

// sort(x, axis=-1, descending=False), argsort(data, axis=-1,
// descending=False, dtype="int32") and topk(data, k=1, axis=-1,
// ret_type="both", largest=True, dtype="int32"), as in TVM's Python API.
func init() {
	axis := AttrDef{Name: "axis", Kind: AttrInt, Default: int64(-1)}
	desc := attrB("descending", false)
	idxType := AttrDef{Name: "dtype", Kind: AttrDType, Default: "int32"}
	reg("relax.sort", true, inferSort, args(arg("x")), axis, desc)
	reg("relax.argsort", true, inferSort, args(arg("data")), axis, desc, idxType)
	reg("relax.topk", true, inferTopK, args(arg("data")),
		AttrDef{Name: "k", Kind: AttrInt, Default: int64(1)}, axis, attrS("ret_type", "both"), attrB("largest", true), idxType)
}

func sortAxis(c *Call, x *TensorSInfo) (int, error) {
	v, _ := c.Attrs.Get("axis")
	if x.NDim < 0 {
		return -1, nil
	}
	if x.NDim == 0 {
		return 0, opErr(c, "needs a tensor of rank >= 1")
	}
	return normAxis(c, x.NDim, v.(int64))
}

// indexDType is the dtype attribute of argsort/topk (int32 by default).
func indexDType(c *Call) DataType {
	if v, _ := c.Attrs.Get("dtype"); v != nil {
		if d, ok := v.(DataType); ok && !d.IsVoid() {
			return d
		}
	}
	return runtime.Int32
}

func inferSort(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	if _, err := sortAxis(c, x); err != nil {
		return nil, err
	}
	if c.OpName() == "relax.argsort" {
		return &TensorSInfo{Shape: x.Shape, NDim: x.NDim, DType: indexDType(c)}, nil
	}
	return x, nil
}

func inferTopK(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	ax, err := sortAxis(c, x)
	if err != nil {
		return nil, err
	}
	kv, _ := c.Attrs.Get("k")
	k := kv.(int64)
	shape := x.Shape
	if shape != nil && ax >= 0 {
		shape = append([]PrimExpr{}, shape...)
		if n, ok := AsInt(Simplify(shape[ax])); !ok || (k >= 1 && k <= n) {
			if k >= 1 {
				shape[ax] = Int64(k)
			}
		}
	}
	values := &TensorSInfo{Shape: shape, NDim: x.NDim, DType: x.DType}
	indices := &TensorSInfo{Shape: shape, NDim: x.NDim, DType: indexDType(c)}
	rv, _ := c.Attrs.Get("ret_type")
	switch rv {
	case "both":
		return &TupleSInfo{Fields: []StructInfo{values, indices}}, nil
	case "values":
		return values, nil
	case "indices":
		return indices, nil
	}
	return nil, opErr(c, "ret_type must be both, values or indices, got %v", rv)
}
