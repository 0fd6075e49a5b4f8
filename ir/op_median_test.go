package ir

import "testing"

func TestInferMedian(t *testing.T) {
	runInferCases(t, []inferCase{
		{"median all", "relax.median", []Expr{f32(3, 4)}, nil, `R.Tensor((), dtype="float32")`},
		{"median all keepdims", "relax.median", []Expr{f32(3, 4)}, Attrs{{"keepdims", true}}, `R.Tensor((1, 1), dtype="float32")`},
		{"median axis", "relax.median", []Expr{f32(3, 4)}, Attrs{{"axis", []any{int64(1)}}}, `R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="int64"))`},
		{"median 1d axis", "relax.median", []Expr{f32(4)}, Attrs{{"axis", []any{int64(0)}}}, `R.Tuple(R.Tensor((), dtype="float32"), R.Tensor((), dtype="int64"))`},
		{"median two axes", "relax.median", []Expr{f32(2, 3, 4)}, Attrs{{"axis", []any{int64(0), int64(2)}}}, `R.Tensor((3,), dtype="float32")`},
	})
}
