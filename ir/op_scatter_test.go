package ir

import (
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func TestInferScatter(t *testing.T) {
	n := NewPrimVar("n", runtime.Int64)
	runInferCases(t, []inferCase{
		{"scatter_elements", "relax.scatter_elements", []Expr{f32(n, 4), i64(2, 4), f32(2, 4)}, Attrs{{"axis", int64(-1)}, {"reduction", "add"}}, `R.Tensor((n, 4), dtype="float32")`},
		{"scatter_elements rank", "relax.scatter_elements", []Expr{f32(3, 4), i64(4), f32(4)}, nil, "error: rank"},
		{"scatter_elements dtype", "relax.scatter_elements", []Expr{f32(3, 4), i64(2, 4), i64(2, 4)}, nil, "error: same dtype"},
		{"scatter_elements index dtype", "relax.scatter_elements", []Expr{f32(3, 4), f32(2, 4), f32(2, 4)}, nil, "error: integer"},
		{"scatter_elements shape", "relax.scatter_elements", []Expr{f32(3, 4), i64(2, 4), f32(2, 3)}, nil, "error: same shape"},
		{"scatter_elements reduction", "relax.scatter_elements", []Expr{f32(3, 4), i64(2, 4), f32(2, 4)}, Attrs{{"reduction", "sum"}}, "error: reduction"},
		{"scatter_nd", "relax.scatter_nd", []Expr{f32(n, 4, 5), i64(3, 1), f32(3, 4, 5)}, Attrs{{"reduction", "max"}}, `R.Tensor((n, 4, 5), dtype="float32")`},
		{"scatter_nd full", "relax.scatter_nd", []Expr{f32(4, 5), i64(2, 3, 2), f32(2, 3)}, nil, `R.Tensor((4, 5), dtype="float32")`},
		{"scatter_nd updates", "relax.scatter_nd", []Expr{f32(4, 5), i64(3, 1), f32(3, 4)}, nil, "error: updates shape"},
		{"scatter_nd k", "relax.scatter_nd", []Expr{f32(4, 5), i64(3, 3), f32(3)}, nil, "error: exceeds"},
		{"scatter_nd mean", "relax.scatter_nd", []Expr{f32(4, 5), i64(3, 1), f32(3, 5)}, Attrs{{"reduction", "mean"}}, "error: reduction"},
		{"index_put", "relax.index_put", []Expr{f32(3, n), tupleE(i64(2), i64(2)), f32(2)}, Attrs{{"accumulate", true}}, `R.Tensor((3, n), dtype="float32")`},
		{"index_put one", "relax.index_put", []Expr{f32(5), i64(2), f32(2)}, nil, `R.Tensor((5,), dtype="float32")`},
		{"index_put count", "relax.index_put", []Expr{f32(3, 3), tupleE(i64(2)), f32(2)}, nil, "error: number of index tensors"},
		{"index_put dtype", "relax.index_put", []Expr{f32(3, 3), tupleE(i64(2), i64(2)), tv("v", tsi("float16", 2))}, nil, "error: same dtype"},
		{"slice_scatter", "relax.slice_scatter", []Expr{f32(8, n), f32(3, n), primE(1), primE(7), primE(2)}, nil, `R.Tensor((8, n), dtype="float32")`},
		{"slice_scatter axis", "relax.slice_scatter", []Expr{f32(2, 8), f32(2, 4), primE(0), primE(8), primE(2)}, Attrs{{"axis", int64(1)}}, `R.Tensor((2, 8), dtype="float32")`},
		{"slice_scatter len", "relax.slice_scatter", []Expr{f32(8, 2), f32(4, 2), primE(1), primE(7), primE(2)}, nil, "error: slice has"},
		{"slice_scatter step", "relax.slice_scatter", []Expr{f32(8, 2), f32(4, 2), primE(1), primE(7), primE(0)}, nil, "error: step"},
		{"slice_scatter other", "relax.slice_scatter", []Expr{f32(8, 2), f32(3, 3), primE(1), primE(7), primE(2)}, nil, "error: except at axis"},
	})
}
