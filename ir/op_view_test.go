package ir

import (
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func TestInferView(t *testing.T) {
	dt := func(s string) *DataTypeImm {
		d, _ := runtime.ParseDataType(s)
		return &DataTypeImm{Value: d}
	}
	null := func() Expr { return &Call{Callee: &Op{Name: "relax.null_value"}} }
	runInferCases(t, []inferCase{
		{"view shape", "relax.memory.view", []Expr{f32(3, 4), shapeE(4, 3)}, nil, `R.Tensor((4, 3), dtype="float32")`},
		{"view dtype", "relax.memory.view", []Expr{f32(3, 4), null(), dt("int32"), null()}, nil, `R.Tensor((3, 4), dtype="int32")`},
		{"view offset", "relax.memory.view", []Expr{f32(3, 4), shapeE(2, 2), dt("float32"), primE(16)}, nil, `R.Tensor((2, 2), dtype="float32")`},
		{"view none", "relax.memory.view", []Expr{f32(3, 4)}, nil, `R.Tensor((3, 4), dtype="float32")`},
		{"view bounds", "relax.memory.view", []Expr{f32(3, 4), shapeE(2, 2), dt("float32"), primE(40)}, nil, "error: exceeds"},
		{"view grow", "relax.memory.view", []Expr{f32(3, 4), null(), dt("float64"), null()}, nil, "error: element size"},
	})
}
