package ir

// vision.roi_align(data, rois, pooled_size, spatial_scale, sample_ratio=-1,
// aligned=False, layout="NCHW", mode="avg"), as in TVM (ROIAlignAttrs in
// that order). rois is (num_roi, 5): batch index, x1, y1, x2, y2.
func init() {
	reg("relax.vision.roi_align", true, inferROIAlign, args(arg("data"), arg("rois")),
		AttrDef{Name: "pooled_size", Kind: AttrIntList, Len: 2, Required: true}, attrReq("spatial_scale", AttrFloat),
		attrI("sample_ratio", -1), attrB("aligned", false), attrS("layout", "NCHW"), attrS("mode", "avg"))
}

func inferROIAlign(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	r, err := tensorArg(c, 1, false)
	if err != nil {
		return nil, err
	}
	if x.NDim >= 0 && x.NDim != 4 {
		return nil, opErr(c, "data must be 4-D, got rank %d", x.NDim)
	}
	if r.NDim >= 0 && r.NDim != 2 {
		return nil, opErr(c, "rois must be 2-D (num_roi, 5), got rank %d", r.NDim)
	}
	if r.Shape != nil && provablyDifferent(r.Shape[1], Int64(5)) {
		return nil, opErr(c, "rois must have 5 columns, got %s", dimsString(r.Shape))
	}
	if m := attrStr(c, "mode"); m != "avg" && m != "max" {
		return nil, opErr(c, "mode must be avg or max, got %q", m)
	}
	layout := attrStr(c, "layout")
	if layout != "NCHW" && layout != "NHWC" {
		return nil, opErr(c, "layout must be NCHW or NHWC, got %q", layout)
	}
	ps := c.AttrInts("pooled_size")
	if len(ps) != 2 {
		return nil, opErr(c, "pooled_size must have 2 values, got %v", ps)
	}
	if x.Shape == nil || r.Shape == nil {
		return unknownTensor(4, x.DType), nil
	}
	ch := x.Shape[1]
	out := []PrimExpr{r.Shape[0], ch, Int64(ps[0]), Int64(ps[1])}
	if layout == "NHWC" {
		ch = x.Shape[3]
		out = []PrimExpr{r.Shape[0], Int64(ps[0]), Int64(ps[1]), ch}
	}
	return &TensorSInfo{Shape: out, NDim: 4, DType: x.DType}, nil
}
