package ir

import "testing"

func TestInferAffineGrid(t *testing.T) {
	runInferCases(t, []inferCase{
		{"2d", "relax.image.affine_grid", []Expr{f32(2, 2, 3), shapeE(4, 5)}, nil, `R.Tensor((2, 2, 4, 5), dtype="float32")`},
		{"3d", "relax.image.affine_grid", []Expr{f32(1, 3, 4), shapeE(2, 3, 4)}, Attrs{{"align_corners", false}}, `R.Tensor((1, 3, 2, 3, 4), dtype="float32")`},
		{"matrix", "relax.image.affine_grid", []Expr{f32(2, 2, 4), shapeE(4, 5)}, nil, "error: third dimension"},
		{"size", "relax.image.affine_grid", []Expr{f32(2, 2, 3), shapeE(4)}, nil, "error: 2 or 3 dims"},
	})
}
