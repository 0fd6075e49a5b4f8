package ir

import (
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func TestInferSort(t *testing.T) {
	n := NewPrimVar("n", runtime.Int64)
	runInferCases(t, []inferCase{
		{"sort", "relax.sort", []Expr{f32(n, 5)}, nil, `R.Tensor((n, 5), dtype="float32")`},
		{"argsort", "relax.argsort", []Expr{f32(3, 5)}, Attrs{{"dtype", "int64"}}, `R.Tensor((3, 5), dtype="int64")`},
		{"topk both", "relax.topk", []Expr{f32(n, 10)}, Attrs{{"k", int64(3)}}, `R.Tuple(R.Tensor((n, 3), dtype="float32"), R.Tensor((n, 3), dtype="int32"))`},
		{"topk values axis 0", "relax.topk", []Expr{f32(10, 4)}, Attrs{{"k", int64(2)}, {"axis", int64(0)}, {"ret_type", "values"}}, `R.Tensor((2, 4), dtype="float32")`},
		{"topk all", "relax.topk", []Expr{f32(3, 4)}, Attrs{{"k", int64(0)}, {"ret_type", "indices"}}, `R.Tensor((3, 4), dtype="int32")`},
		{"sort axis", "relax.sort", []Expr{f32(3, 4)}, Attrs{{"axis", int64(2)}}, "error: axis"},
		{"topk ret", "relax.topk", []Expr{f32(3, 4)}, Attrs{{"ret_type", "keys"}}, "error: ret_type"},
	})
}
