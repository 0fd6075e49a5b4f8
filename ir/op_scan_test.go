package ir

import (
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func TestInferScanGatherOneHot(t *testing.T) {
	n := NewPrimVar("n", runtime.Int64)
	on := &PrimValue{Value: &FloatImm{Value: 1, Type: runtime.Float32}}
	off := &PrimValue{Value: &FloatImm{Value: 0, Type: runtime.Float32}}
	offI := &PrimValue{Value: Int64(0)}
	runInferCases(t, []inferCase{
		{"cumsum axis", "relax.cumsum", []Expr{f32(n, 3)}, Attrs{{"axis", int64(1)}}, `R.Tensor((n, 3), dtype="float32")`},
		{"cumsum flat", "relax.cumsum", []Expr{f32(n, 3)}, nil, `R.Tensor((n * 3,), dtype="float32")`},
		{"cumprod dtype", "relax.cumprod", []Expr{f32(2, 3)}, Attrs{{"axis", int64(0)}, {"dtype", "float64"}}, `R.Tensor((2, 3), dtype="float64")`},
		{"cumsum bad axis", "relax.cumsum", []Expr{f32(2, 3)}, Attrs{{"axis", int64(2)}}, "error: axis"},
		{"gather_elements", "relax.gather_elements", []Expr{f32(4, 5), i64(4, 2)}, Attrs{{"axis", int64(1)}}, `R.Tensor((4, 2), dtype="float32")`},
		{"gather_elements rank", "relax.gather_elements", []Expr{f32(4, 5), i64(4)}, nil, "error: same rank"},
		{"gather_elements float idx", "relax.gather_elements", []Expr{f32(4, 5), f32(4, 5)}, nil, "error: indices must be integers"},
		{"one_hot", "relax.one_hot", []Expr{i64(n), on, off}, Attrs{{"depth", int64(7)}}, `R.Tensor((n, 7), dtype="float32")`},
		{"one_hot axis 0", "relax.one_hot", []Expr{i64(3), on, off}, Attrs{{"depth", int64(7)}, {"axis", int64(0)}}, `R.Tensor((7, 3), dtype="float32")`},
		{"one_hot dtypes", "relax.one_hot", []Expr{i64(3), on, offI}, Attrs{{"depth", int64(7)}}, "error: dtypes differ"},
		{"one_hot depth", "relax.one_hot", []Expr{i64(3), on, off}, Attrs{{"depth", int64(0)}}, "error: depth must be positive"},
	})
}
