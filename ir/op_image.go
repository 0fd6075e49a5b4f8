package ir

// image.resize2d with TVM's Python signature: resize2d(data, size, roi=None,
// layout="NCHW", method="linear", coordinate_transformation_mode="half_pixel",
// rounding_method="round", cubic_alpha=-0.5, cubic_exclude=0,
// extrapolation_value=0.0, out_dtype=None).
func init() {
	reg("relax.image.resize2d", true, inferResize2D, args(arg("data"), argK("size", ArgShape)),
		AttrDef{Name: "roi", Kind: AttrFloatList, Default: []any{0.0, 0.0, 0.0, 0.0}},
		attrS("layout", "NCHW"), attrS("method", "linear"),
		attrS("coordinate_transformation_mode", "half_pixel"), attrS("rounding_method", "round"),
		AttrDef{Name: "cubic_alpha", Kind: AttrFloat, Default: -0.5},
		AttrDef{Name: "cubic_exclude", Kind: AttrInt, Default: int64(0)},
		AttrDef{Name: "extrapolation_value", Kind: AttrFloat, Default: 0.0},
		attrDT("out_dtype"))
}

// inferResize2D: the data's batch and channels with the requested spatial size.
func inferResize2D(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	if x.NDim >= 0 && x.NDim != 4 {
		return nil, opErr(c, "data must be 4-D, got rank %d", x.NDim)
	}
	var size []PrimExpr
	switch s := argSInfo(c, 1).(type) {
	case *ShapeSInfo:
		if s.NDim >= 0 && s.NDim != 2 {
			return nil, opErr(c, "size must have 2 values, got %d", s.NDim)
		}
		size = s.Values
	default:
		return nil, opErr(c, "size must be a shape, got %s", SInfoString(s))
	}
	dt := x.DType
	if v, _ := c.Attrs.Get("out_dtype"); v != nil {
		if d, ok := v.(DataType); ok && !d.IsVoid() {
			dt = d
		}
	}
	lv, _ := c.Attrs.Get("layout")
	layout, _ := lv.(string)
	if layout != "NCHW" && layout != "NHWC" {
		return nil, opErr(c, "layout %q is not supported (NCHW, NHWC)", layout)
	}
	if x.Shape == nil || size == nil {
		return unknownTensor(4, dt), nil
	}
	if layout == "NCHW" {
		return NewTensorSInfo([]PrimExpr{x.Shape[0], x.Shape[1], size[0], size[1]}, dt), nil
	}
	return NewTensorSInfo([]PrimExpr{x.Shape[0], size[0], size[1], x.Shape[3]}, dt), nil
}
