package ir

import (
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func TestInferResize3D(t *testing.T) {
	n := NewPrimVar("n", runtime.Int64)
	runInferCases(t, []inferCase{
		{"ncdhw", "relax.image.resize3d", []Expr{f32(n, 2, 3, 4, 5), shapeE(6, 7, 8)}, nil, `R.Tensor((n, 2, 6, 7, 8), dtype="float32")`},
		{"ndhwc", "relax.image.resize3d", []Expr{f32(1, 3, 4, 5, 2), shapeE(6, 7, 8)}, Attrs{{"layout", "NDHWC"}, {"out_dtype", "float16"}}, `R.Tensor((1, 6, 7, 8, 2), dtype="float16")`},
		{"rank", "relax.image.resize3d", []Expr{f32(1, 3, 4, 5), shapeE(6, 7, 8)}, nil, "error: 5-D"},
		{"size", "relax.image.resize3d", []Expr{f32(1, 2, 3, 4, 5), shapeE(6, 7)}, nil, "error: 3 values"},
	})
}
