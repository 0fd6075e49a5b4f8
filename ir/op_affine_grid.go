package ir

// image.affine_grid(data, size, align_corners=True), as in TVM: data is
// (batch, k, k+1) affine matrices and size the (H, W) or (D, H, W) target;
// the result is the (batch, k, *size) sampling grid (channel first).
func init() {
	reg("relax.image.affine_grid", true, inferAffineGrid, args(arg("data"), argK("size", ArgShape)), attrB("align_corners", true))
}

func inferAffineGrid(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	size, n, err := shapeArg(c, 1)
	if err != nil {
		return nil, err
	}
	if n != 2 && n != 3 {
		return nil, opErr(c, "size must have 2 or 3 dims, got %d", n)
	}
	if x.NDim >= 0 && x.NDim != 3 {
		return nil, opErr(c, "data must be 3-D (batch, %d, %d), got rank %d", n, n+1, x.NDim)
	}
	if x.Shape != nil {
		if v, ok := AsInt(Simplify(x.Shape[1])); ok && v != int64(n) {
			return nil, opErr(c, "the second dimension of data must be %d, got %d", n, v)
		}
		if v, ok := AsInt(Simplify(x.Shape[2])); ok && v != int64(n+1) {
			return nil, opErr(c, "the third dimension of data must be %d, got %d", n+1, v)
		}
	}
	if x.Shape == nil || size == nil {
		return unknownTensor(n+2, x.DType), nil
	}
	out := append([]PrimExpr{x.Shape[0], Int64(int64(n))}, size...)
	return &TensorSInfo{Shape: out, NDim: len(out), DType: x.DType}, nil
}
