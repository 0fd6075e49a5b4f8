package ir

import (
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func TestInferDynamicOps(t *testing.T) {
	n := NewPrimVar("n", runtime.Int64)
	runInferCases(t, []inferCase{
		{"nonzero", "relax.nonzero", []Expr{f32(n, 4)}, nil, `R.Tensor(ndim=2, dtype="int64")`},
		{"dynamic_strided_slice", "relax.dynamic_strided_slice", []Expr{f32(n, 4), i64(2), i64(2), i64(2)}, nil, `R.Tensor(ndim=2, dtype="float32")`},
		{"dynamic_strided_slice len", "relax.dynamic_strided_slice", []Expr{f32(n, 4), i64(3), i64(2), i64(2)}, nil, "error: one per axis"},
		{"dynamic_strided_slice dtype", "relax.dynamic_strided_slice", []Expr{f32(n, 4), f32(2), i64(2), i64(2)}, nil, "error: integer"},
		{"tensor_to_shape", "relax.tensor_to_shape", []Expr{i64(3)}, nil, `R.Shape(ndim=3)`},
		{"tensor_to_shape rank", "relax.tensor_to_shape", []Expr{i64(3, 1)}, nil, "error: 1-D"},
		{"tensor_to_shape symbolic", "relax.tensor_to_shape", []Expr{i64(n)}, nil, "error: static length"},
	})
}
