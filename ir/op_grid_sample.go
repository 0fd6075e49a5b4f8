package ir

// image.grid_sample(data, grid, method="bilinear", layout="NCHW",
// padding_mode="zeros", align_corners=False), as in TVM (GridSampleAttrs:
// method, layout, padding_mode, align_corners). grid is in TVM's layout,
// (N, 2, H_out, W_out) (or (N, 3, D, H, W) for NCDHW); the output is
// (N, C, H_out, W_out).
func init() {
	reg("relax.image.grid_sample", true, inferGridSample, args(arg("data"), arg("grid")),
		attrS("method", "bilinear"), attrS("layout", "NCHW"), attrS("padding_mode", "zeros"), attrB("align_corners", false))
}

func inferGridSample(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	g, err := tensorArg(c, 1, false)
	if err != nil {
		return nil, err
	}
	nd := 4
	if attrStr(c, "layout") == "NCDHW" {
		nd = 5
	} else if attrStr(c, "layout") != "NCHW" {
		return nil, opErr(c, "layout must be NCHW or NCDHW, got %q", attrStr(c, "layout"))
	}
	if x.NDim >= 0 && x.NDim != nd {
		return nil, opErr(c, "data must have rank %d, got %d", nd, x.NDim)
	}
	if g.NDim >= 0 && g.NDim != nd {
		return nil, opErr(c, "grid must have rank %d, got %d", nd, g.NDim)
	}
	switch m := attrStr(c, "method"); m {
	case "bilinear", "nearest", "bicubic":
	default:
		return nil, opErr(c, "method must be bilinear, nearest or bicubic, got %q", m)
	}
	switch m := attrStr(c, "padding_mode"); m {
	case "zeros", "border", "reflection":
	default:
		return nil, opErr(c, "padding_mode must be zeros, border or reflection, got %q", m)
	}
	if x.Shape == nil || g.Shape == nil {
		return unknownTensor(nd, x.DType), nil
	}
	out := append([]PrimExpr{x.Shape[0], x.Shape[1]}, g.Shape[2:]...)
	return &TensorSInfo{Shape: out, NDim: nd, DType: x.DType}, nil
}
