package ir

import "github.com/relaxgo/relaxgo/runtime"

// vision.all_class_non_max_suppression(boxes, scores,
// max_output_boxes_per_class, iou_threshold, score_threshold,
// output_format="onnx"), as in TVM (AllClassNonMaximumSuppressionAttrs):
// boxes (batch, num_boxes, 4), scores (batch, num_classes, num_boxes). The
// "onnx" result is (selected_indices int64 (batch*num_classes*num_boxes, 3),
// num_total_detections int64 (1,)); "tensorflow" gives (indices int64
// (batch, num_classes*num_boxes, 2), scores float32 (batch,
// num_classes*num_boxes), counts int64 (batch,)).
func init() {
	reg("relax.vision.all_class_non_max_suppression", true, inferAllClassNMS,
		args(arg("boxes"), arg("scores"), arg("max_output_boxes_per_class"), arg("iou_threshold"), arg("score_threshold")),
		attrS("output_format", "onnx"))
}

func inferAllClassNMS(c *Call, _ *InferCtx) (StructInfo, error) {
	boxes, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	scores, err := tensorArg(c, 1, false)
	if err != nil {
		return nil, err
	}
	for i := 2; i < 5; i++ {
		if _, err := tensorArg(c, i, true); err != nil {
			return nil, err
		}
	}
	if boxes.NDim != 3 || scores.NDim != 3 {
		return nil, opErr(c, "boxes and scores must be 3-D, got ranks %d and %d", boxes.NDim, scores.NDim)
	}
	format := attrStr(c, "output_format")
	if format != "onnx" && format != "tensorflow" {
		return nil, opErr(c, "output_format must be onnx or tensorflow, got %q", format)
	}
	if boxes.Shape == nil || scores.Shape == nil {
		return nil, opErr(c, "boxes and scores need known shapes")
	}
	if provablyDifferent(boxes.Shape[2], Int64(4)) {
		return nil, opErr(c, "boxes must be (batch, num_boxes, 4), got %s", dimsString(boxes.Shape))
	}
	batch, classes, nb := boxes.Shape[0], scores.Shape[1], boxes.Shape[1]
	i64 := func(dims ...PrimExpr) StructInfo {
		return &TensorSInfo{Shape: dims, NDim: len(dims), DType: runtime.Int64}
	}
	if format == "onnx" {
		return &TupleSInfo{Fields: []StructInfo{i64(Mul(Mul(batch, classes), nb), Int64(3)), i64(Int64(1))}}, nil
	}
	per := Mul(classes, nb)
	return &TupleSInfo{Fields: []StructInfo{i64(batch, per, Int64(2)),
		&TensorSInfo{Shape: []PrimExpr{batch, per}, NDim: 2, DType: runtime.Float32}, i64(batch)}}, nil
}
