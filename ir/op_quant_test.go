package ir

import (
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func TestInferQuantize(t *testing.T) {
	n := NewPrimVar("n", runtime.Int64)
	x := func(dt string, ds ...any) *Var { return tv("x", tsi(dt, ds...)) }
	s := func(dt string, ds ...any) *Var { return tv("s", tsi(dt, ds...)) }
	z := func(dt string, ds ...any) *Var { return tv("z", tsi(dt, ds...)) }
	runInferCases(t, []inferCase{
		{"quantize per-tensor", "relax.quantize", []Expr{x("float32", n, 4), s("float32"), z("int8")}, nil, `R.Tensor((n, 4), dtype="int8")`},
		{"quantize per-channel", "relax.quantize", []Expr{x("float16", 2, n), s("float16", n), z("int8", n)}, Attrs{{"out_dtype", "uint8"}}, `R.Tensor((2, n), dtype="uint8")`},
		{"quantize axis 0", "relax.quantize", []Expr{x("float32", 3, 4), s("float32", 3), z("int32", 1)}, Attrs{{"axis", int64(0)}}, `R.Tensor((3, 4), dtype="int8")`},
		{"dequantize", "relax.dequantize", []Expr{x("int8", 3, 4), s("float32", 4), z("int8", 4)}, nil, `R.Tensor((3, 4), dtype="float32")`},
		{"dequantize f16", "relax.dequantize", []Expr{x("uint8", 3, 4), s("float32", 1), z("uint8", 1)}, Attrs{{"out_dtype", "float16"}}, `R.Tensor((3, 4), dtype="float16")`},
		{"quantize size", "relax.quantize", []Expr{x("float32", 3, 4), s("float32", 3), z("int8")}, nil, "error: size mismatch"},
		{"quantize out_dtype", "relax.quantize", []Expr{x("float32", 3, 4), s("float32"), z("int8")}, Attrs{{"out_dtype", "float32"}}, "error: out_dtype"},
		{"quantize input", "relax.quantize", []Expr{x("int8", 3, 4), s("float32"), z("int8")}, nil, "error: input dtype"},
		{"dequantize out", "relax.dequantize", []Expr{x("int8", 3, 4), s("float32"), z("int8")}, Attrs{{"out_dtype", "int32"}}, "error: out_dtype"},
		{"dequantize scale", "relax.dequantize", []Expr{x("int8", 3, 4), s("int32"), z("int8")}, nil, "error: scale dtype"},
		{"dequantize zp", "relax.dequantize", []Expr{x("int8", 3, 4), s("float32"), z("float32")}, nil, "error: zero_point dtype"},
		{"dequantize axis", "relax.dequantize", []Expr{x("int8", 3, 4), s("float32"), z("int8")}, Attrs{{"axis", int64(2)}}, "error: axis"},
	})
}
