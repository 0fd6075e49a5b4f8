package ir

import "testing"

func TestInferAllClassNMS(t *testing.T) {
	i64 := tv("m", tsi("int64"))
	th := tv("t", tsi("float32"))
	op := "relax.vision.all_class_non_max_suppression"
	runInferCases(t, []inferCase{
		{"onnx", op, []Expr{f32(2, 6, 4), f32(2, 3, 6), i64, th, th}, nil,
			`R.Tuple(R.Tensor((36, 3), dtype="int64"), R.Tensor((1,), dtype="int64"))`},
		{"tensorflow", op, []Expr{f32(2, 6, 4), f32(2, 3, 6), i64, th, th}, Attrs{{"output_format", "tensorflow"}},
			`R.Tuple(R.Tensor((2, 18, 2), dtype="int64"), R.Tensor((2, 18), dtype="float32"), R.Tensor((2,), dtype="int64"))`},
		{"boxes rank", op, []Expr{f32(6, 4), f32(2, 3, 6), i64, th, th}, nil, "error: 3-D"},
		{"box width", op, []Expr{f32(2, 6, 5), f32(2, 3, 6), i64, th, th}, nil, "error: (batch, num_boxes, 4)"},
		{"format", op, []Expr{f32(2, 6, 4), f32(2, 3, 6), i64, th, th}, Attrs{{"output_format", "coco"}}, "error: output_format"},
	})
}
