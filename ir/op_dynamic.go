package ir

import "github.com/relaxgo/relaxgo/runtime"

// Ops whose output shape depends on input values, as in TVM:
// nonzero(x) -> (ndim, count) int64 indices; dynamic_strided_slice(x, begin,
// end, strides) with 1-D int64 tensors holding one entry per axis;
// tensor_to_shape(expr) of a 1-D integer tensor. Their results carry rank and
// dtype only; lower legalizes them to allocating packed calls.
func init() {
	reg("relax.nonzero", true, inferNonzero, args(arg("x")))
	reg("relax.dynamic_strided_slice", true, inferDynStridedSlice,
		args(arg("x"), arg("begin"), arg("end"), arg("strides")))
	reg("relax.tensor_to_shape", true, inferTensorToShape, args(arg("expr")))
}

func inferNonzero(c *Call, _ *InferCtx) (StructInfo, error) {
	if _, err := tensorArg(c, 0, false); err != nil {
		return nil, err
	}
	return unknownTensor(2, runtime.Int64), nil
}

func inferDynStridedSlice(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	for i, name := range []string{"begin", "end", "strides"} {
		t, err := tensorArg(c, 1+i, false)
		if err != nil {
			return nil, err
		}
		if t.NDim >= 0 && t.NDim != 1 {
			return nil, opErr(c, "%s must be a 1-D tensor, got rank %d", name, t.NDim)
		}
		if err := checkIndexDType(c, name, t); err != nil {
			return nil, err
		}
		if x.NDim >= 0 && t.Shape != nil {
			if n, ok := AsInt(Simplify(t.Shape[0])); ok && n != int64(x.NDim) {
				return nil, opErr(c, "%s has %d entries, want one per axis (%d)", name, n, x.NDim)
			}
		}
	}
	return unknownTensor(x.NDim, x.DType), nil
}

func inferTensorToShape(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	if x.NDim != 1 {
		return nil, opErr(c, "expects a 1-D tensor, got rank %d", x.NDim)
	}
	if err := checkIndexDType(c, "expr", x); err != nil {
		return nil, err
	}
	if x.Shape != nil {
		if n, ok := AsInt(Simplify(x.Shape[0])); ok {
			return &ShapeSInfo{NDim: int(n)}, nil
		}
	}
	return nil, opErr(c, "expects a tensor of static length, got %s", SInfoString(x))
}
