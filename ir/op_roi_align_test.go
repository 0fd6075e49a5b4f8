package ir

import "testing"

func TestInferROIAlign(t *testing.T) {
	ps := []any{int64(2), int64(3)}
	runInferCases(t, []inferCase{
		{"nchw", "relax.vision.roi_align", []Expr{f32(2, 3, 8, 9), f32(4, 5)}, Attrs{{"pooled_size", ps}, {"spatial_scale", 0.5}}, `R.Tensor((4, 3, 2, 3), dtype="float32")`},
		{"nhwc", "relax.vision.roi_align", []Expr{f32(2, 8, 9, 3), f32(4, 5)}, Attrs{{"pooled_size", ps}, {"spatial_scale", 0.5}, {"layout", "NHWC"}}, `R.Tensor((4, 2, 3, 3), dtype="float32")`},
		{"rois", "relax.vision.roi_align", []Expr{f32(2, 3, 8, 9), f32(4, 4)}, Attrs{{"pooled_size", ps}, {"spatial_scale", 0.5}}, "error: 5 columns"},
		{"mode", "relax.vision.roi_align", []Expr{f32(2, 3, 8, 9), f32(4, 5)}, Attrs{{"pooled_size", ps}, {"spatial_scale", 0.5}, {"mode", "sum"}}, "error: mode"},
	})
}
