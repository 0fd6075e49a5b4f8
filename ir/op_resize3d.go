package ir

import "strings"

// image.resize3d with TVM's Python signature: resize3d(data, size, roi=None,
// layout="NCDHW", method="linear", coordinate_transformation_mode="half_pixel",
// rounding_method="", cubic_alpha=-0.75, cubic_exclude=0,
// extrapolation_value=0.0, out_dtype=None).
func init() {
	reg("relax.image.resize3d", true, inferResize3D, args(arg("data"), argK("size", ArgShape)),
		AttrDef{Name: "roi", Kind: AttrFloatList, Default: []any{0.0, 0.0, 0.0, 0.0, 0.0, 0.0}},
		attrS("layout", "NCDHW"), attrS("method", "linear"),
		attrS("coordinate_transformation_mode", "half_pixel"), attrS("rounding_method", ""),
		AttrDef{Name: "cubic_alpha", Kind: AttrFloat, Default: -0.75},
		AttrDef{Name: "cubic_exclude", Kind: AttrInt, Default: int64(0)},
		AttrDef{Name: "extrapolation_value", Kind: AttrFloat, Default: 0.0},
		attrDT("out_dtype"))
}

func inferResize3D(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	if x.NDim >= 0 && x.NDim != 5 {
		return nil, opErr(c, "data must be 5-D, got rank %d", x.NDim)
	}
	size, n, err := shapeArg(c, 1)
	if err != nil {
		return nil, err
	}
	if n >= 0 && n != 3 {
		return nil, opErr(c, "size must have 3 values, got %d", n)
	}
	dt := x.DType
	if d := dtypeAttr(c, "out_dtype"); !d.IsVoid() {
		dt = d
	}
	layout := attrStr(c, "layout")
	if len(layout) != 5 || strings.Count(layout, "N")+strings.Count(layout, "C")+strings.Count(layout, "D")+
		strings.Count(layout, "H")+strings.Count(layout, "W") != 5 {
		return nil, opErr(c, "layout must be a 5-D layout such as NCDHW, got %q", layout)
	}
	if x.Shape == nil || size == nil {
		return unknownTensor(5, dt), nil
	}
	out := append([]PrimExpr{}, x.Shape...)
	for i, l := range "DHW" {
		out[strings.IndexRune(layout, l)] = size[i]
	}
	return &TensorSInfo{Shape: out, NDim: 5, DType: dt}, nil
}
