package ir

import (
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func TestInferAttention(t *testing.T) {
	s := NewPrimVar("s", runtime.Int64)
	f32 := func(name string, ds ...any) *Var { return tv(name, tsi("float32", ds...)) }
	runInferCases(t, []inferCase{
		{"attention", "relax.nn.attention", []Expr{f32("q", 2, s, 4, 8), f32("k", 2, 7, 4, 8), f32("v", 2, 7, 4, 16)}, nil, `R.Tensor((2, s, 4, 16), dtype="float32")`},
		{"attention_bias", "relax.nn.attention_bias", []Expr{f32("q", 1, 3, 2, 8), f32("k", 1, 5, 2, 8), f32("v", 1, 5, 2, 8), f32("b", 1, 2, 3, 5)}, Attrs{{"causal_mask", "BottomRight"}}, `R.Tensor((1, 3, 2, 8), dtype="float32")`},
		{"head dims", "relax.nn.attention", []Expr{f32("q", 1, 3, 2, 8), f32("k", 1, 3, 2, 4), f32("v", 1, 3, 2, 8)}, nil, "error: head dims"},
		{"rank", "relax.nn.attention", []Expr{f32("q", 3, 2, 8), f32("k", 1, 3, 2, 8), f32("v", 1, 3, 2, 8)}, nil, "error: must be 4-D"},
		{"mask", "relax.nn.attention", []Expr{f32("q", 1, 3, 2, 8), f32("k", 1, 3, 2, 8), f32("v", 1, 3, 2, 8)}, Attrs{{"causal_mask", "Diagonal"}}, "error: causal_mask"},
	})
}
