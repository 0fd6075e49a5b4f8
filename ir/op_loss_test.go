package ir

import (
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func TestInferLossEinsum(t *testing.T) {
	n := NewPrimVar("n", runtime.Int64)
	runInferCases(t, []inferCase{
		{"nll_loss mean", "relax.nn.nll_loss", []Expr{f32(n, 5), i64(n), f32(5)}, nil, `R.Tensor((), dtype="float32")`},
		{"nll_loss none", "relax.nn.nll_loss", []Expr{f32(n, 5, 7), i64(n, 7)}, Attrs{{"reduction", "none"}}, `R.Tensor((n, 7), dtype="float32")`},
		{"nll_loss 1d", "relax.nn.nll_loss", []Expr{f32(5), tv("t", tsi("int64"))}, Attrs{{"reduction", "none"}}, `R.Tensor((), dtype="float32")`},
		{"nll_loss targets", "relax.nn.nll_loss", []Expr{f32(3, 5), i64(4)}, nil, "error: do not match"},
		{"nll_loss rank", "relax.nn.nll_loss", []Expr{f32(3, 5), i64(3, 2)}, nil, "error: rank"},
		{"nll_loss reduction", "relax.nn.nll_loss", []Expr{f32(3, 5), i64(3)}, Attrs{{"reduction", "max"}}, "error: reduction"},
		{"nll_loss float targets", "relax.nn.nll_loss", []Expr{f32(3, 5), f32(3)}, nil, "error: integer"},
		{"cross_entropy", "relax.nn.cross_entropy_with_logits", []Expr{f32(n, 5), f32(n, 5)}, nil, `R.Tensor((), dtype="float32")`},
		{"cross_entropy shape", "relax.nn.cross_entropy_with_logits", []Expr{f32(3, 5), f32(3, 4)}, nil, "error: same shape"},
		{"einsum matmul", "relax.einsum", []Expr{tupleE(f32(n, 3), f32(3, 4))}, Attrs{{"subscripts", "ij,jk->ik"}}, `R.Tensor((n, 4), dtype="float32")`},
		{"einsum implicit", "relax.einsum", []Expr{tupleE(f32(2, 3), f32(3, 4))}, Attrs{{"subscripts", "ij,jk"}}, `R.Tensor((2, 4), dtype="float32")`},
		{"einsum trace", "relax.einsum", []Expr{tupleE(f32(3, 3))}, Attrs{{"subscripts", "ii"}}, `R.Tensor((), dtype="float32")`},
		{"einsum ellipsis", "relax.einsum", []Expr{tupleE(f32(5, 1, 2, 3), f32(1, 6, 3, 4))}, Attrs{{"subscripts", "...ij,...jk->...ik"}}, `R.Tensor((5, 6, 2, 4), dtype="float32")`},
		{"einsum mismatch", "relax.einsum", []Expr{tupleE(f32(2, 3), f32(4, 4))}, Attrs{{"subscripts", "ij,jk->ik"}}, "error: label"},
		{"einsum arity", "relax.einsum", []Expr{tupleE(f32(2, 3))}, Attrs{{"subscripts", "ij,jk->ik"}}, "error: name 2 operands"},
		{"einsum dtype", "relax.einsum", []Expr{tupleE(f32(2, 3), i64(3, 4))}, Attrs{{"subscripts", "ij,jk->ik"}}, "error: dtype"},
	})
}
