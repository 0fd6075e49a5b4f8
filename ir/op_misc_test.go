package ir

import (
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func TestInferMiscOps(t *testing.T) {
	n := NewPrimVar("n", runtime.Int64)
	fl := func(v float64) *PrimValue {
		p := &PrimValue{Value: &FloatImm{Value: v, Type: runtime.Float32}}
		return p
	}
	runInferCases(t, []inferCase{
		{"ewise_fma", "relax.ewise_fma", []Expr{f32(n, 3), f32(n, 3), f32(n, 3)}, nil, `R.Tensor((n, 3), dtype="float32")`},
		{"ewise_fma shape", "relax.ewise_fma", []Expr{f32(2, 3), f32(2, 4), f32(2, 3)}, nil, "error: same shape"},
		{"ewise_fma dtype", "relax.ewise_fma", []Expr{f32(2, 3), i64(2, 3), f32(2, 3)}, nil, "error: same dtype"},
		{"start_checkpoint", "relax.grad.start_checkpoint", []Expr{f32(n, 3)}, nil, `R.Tensor((n, 3), dtype="float32")`},
		{"bucketize", "relax.bucketize", []Expr{f32(n, 3), f32(4)}, nil, `R.Tensor((n, 3), dtype="int64")`},
		{"bucketize int32", "relax.bucketize", []Expr{f32(2), f32(4)}, Attrs{{"out_int32", true}}, `R.Tensor((2,), dtype="int32")`},
		{"bucketize 2d", "relax.bucketize", []Expr{f32(2), f32(4, 1)}, nil, "error: 1-D"},
		{"hamming_window", "relax.hamming_window", []Expr{primE(8), primE(1), fl(0.54), fl(0.46)}, Attrs{{"dtype", "float32"}}, `R.Tensor((8,), dtype="float32")`},
		{"hamming_window int", "relax.hamming_window", []Expr{primE(8), primE(1), fl(0.54), fl(0.46)}, Attrs{{"dtype", "int32"}}, "error: float"},
		{"hamming_window size", "relax.hamming_window", []Expr{primE(0), primE(1), fl(0.54), fl(0.46)}, Attrs{{"dtype", "float32"}}, "error: greater than zero"},
		{"reverse_sequence", "relax.reverse_sequence", []Expr{f32(3, n), i64(3)}, nil, `R.Tensor((3, n), dtype="float32")`},
		{"reverse_sequence batch", "relax.reverse_sequence", []Expr{f32(3, 4), i64(4)}, nil, "error: batch axis"},
		{"reverse_sequence axis", "relax.reverse_sequence", []Expr{f32(3, 4), i64(3)}, Attrs{{"seq_axis", int64(2)}}, "error: axis"},
		{"shape_to_tensor", "relax.shape_to_tensor", []Expr{shapeE(n, 4, 2)}, nil, `R.Tensor((3,), dtype="int64")`},
		{"multinomial", "relax.multinomial_from_uniform", []Expr{f32(2, 10), f32(n, 1), i64(n, 1)}, nil, `R.Tensor((n, 1), dtype="int64")`},
		{"multinomial shape", "relax.multinomial_from_uniform", []Expr{f32(2, 10), f32(3, 2), i64(3, 1)}, nil, "error: (n, 1)"},
		{"multinomial rank", "relax.multinomial_from_uniform", []Expr{f32(10), f32(3, 1), i64(3, 1)}, nil, "error: 2-D"},
	})
}
