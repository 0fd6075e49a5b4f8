package ir

import "testing"

func TestInferGridSample(t *testing.T) {
	runInferCases(t, []inferCase{
		{"2d", "relax.image.grid_sample", []Expr{f32(2, 3, 5, 6), f32(2, 2, 4, 7)}, nil, `R.Tensor((2, 3, 4, 7), dtype="float32")`},
		{"3d", "relax.image.grid_sample", []Expr{f32(2, 3, 5, 6, 7), f32(2, 3, 4, 7, 8)}, Attrs{{"layout", "NCDHW"}}, `R.Tensor((2, 3, 4, 7, 8), dtype="float32")`},
		{"method", "relax.image.grid_sample", []Expr{f32(2, 3, 5, 6), f32(2, 2, 4, 7)}, Attrs{{"method", "linear"}}, "error: method"},
		{"padding", "relax.image.grid_sample", []Expr{f32(2, 3, 5, 6), f32(2, 2, 4, 7)}, Attrs{{"padding_mode", "wrap"}}, "error: padding_mode"},
		{"rank", "relax.image.grid_sample", []Expr{f32(2, 3, 5), f32(2, 2, 4, 7)}, nil, "error: rank"},
	})
}
