package ir

// Losses, as in TVM's relax.op.nn: nll_loss(predictions, targets,
// weights=None, reduction="mean", ignore_index=-100) and
// cross_entropy_with_logits(predictions, labels).
func init() {
	reg("relax.nn.nll_loss", true, inferNLLLoss,
		args(arg("predictions"), arg("targets"), optArg("weights", ArgExpr)),
		attrS("reduction", "mean"), attrI("ignore_index", -100))
	reg("relax.nn.cross_entropy_with_logits", true, inferCrossEntropy, args(arg("predictions"), arg("labels")))
}

func inferNLLLoss(c *Call, _ *InferCtx) (StructInfo, error) {
	pred, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	tgt, err := tensorArg(c, 1, false)
	if err != nil {
		return nil, err
	}
	if len(c.Args) > 2 && c.Args[2] != nil {
		w, err := tensorArg(c, 2, false)
		if err != nil {
			return nil, err
		}
		if w.NDim >= 0 && w.NDim != 1 {
			return nil, opErr(c, "weights must be 1-D, got rank %d", w.NDim)
		}
		if err := checkSameDType(c, pred, w, "weights"); err != nil {
			return nil, err
		}
	}
	if err := checkIndexDType(c, "targets", tgt); err != nil {
		return nil, err
	}
	if pred.NDim == 0 {
		return nil, opErr(c, "predictions must have rank >= 1")
	}
	if pred.NDim >= 0 && tgt.NDim >= 0 {
		k := pred.NDim - 2
		if pred.NDim == 1 {
			k = 0
		}
		kt := tgt.NDim - 1
		if pred.NDim == 1 {
			kt = tgt.NDim
		}
		if k != kt {
			return nil, opErr(c, "predictions of rank %d need targets of rank %d, got %d", pred.NDim, max(pred.NDim-1, 0), tgt.NDim)
		}
		if pred.Shape != nil && tgt.Shape != nil && pred.NDim > 1 {
			bad := provablyDifferent(pred.Shape[0], tgt.Shape[0])
			for i := 2; i < pred.NDim; i++ {
				bad = bad || provablyDifferent(pred.Shape[i], tgt.Shape[i-1])
			}
			if bad {
				return nil, opErr(c, "targets %s do not match predictions %s", dimsString(tgt.Shape), dimsString(pred.Shape))
			}
		}
	}
	switch r := attrStr(c, "reduction"); r {
	case "none":
		return &TensorSInfo{Shape: tgt.Shape, NDim: tgt.NDim, DType: pred.DType}, nil
	case "mean", "sum":
		return &TensorSInfo{Shape: []PrimExpr{}, NDim: 0, DType: pred.DType}, nil
	default:
		return nil, opErr(c, "reduction must be none, mean or sum, got %q", r)
	}
}

func inferCrossEntropy(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	y, err := tensorArg(c, 1, false)
	if err != nil {
		return nil, err
	}
	if x.NDim >= 0 && y.NDim >= 0 && x.NDim != y.NDim {
		return nil, opErr(c, "predictions and labels must have the same rank, got %d and %d", x.NDim, y.NDim)
	}
	if err := checkSameDType(c, x, y, "labels"); err != nil {
		return nil, err
	}
	if x.Shape != nil && y.Shape != nil {
		for i := range x.Shape {
			if provablyDifferent(x.Shape[i], y.Shape[i]) {
				return nil, opErr(c, "predictions %s and labels %s must have the same shape", dimsString(x.Shape), dimsString(y.Shape))
			}
		}
	}
	return &TensorSInfo{Shape: []PrimExpr{}, NDim: 0, DType: x.DType}, nil
}
