// Command tirmodel runs the TIR example: a Relax main that calls two
// hand-written TIR PrimFuncs (bias + GELU, then a row mean) with R.call_tir.
// relaxgo compiles the PrimFuncs to Go loop nests (the tir_ functions at the end
// of model/model.relaxgo.go) and the
// model runs in compiled mode and in bytecode mode, which call the same
// generated loops.
package main

//go:generate go run github.com/relaxgo/relaxgo/cmd/relaxgo gen --pkg model -o model model.py

import (
	"github.com/relaxgo/relaxgo/examples/internal/demo"
	"github.com/relaxgo/relaxgo/examples/tirmodel/model"
	"github.com/relaxgo/relaxgo/runtime"
)

func main() {
	x, b := demo.Input(3, 8), Bias()
	h, m := demo.Must2(model.Main(x, b))
	demo.Report(runtime.Tuple{h, m}, demo.Bytecode(demo.Must(model.Default()), "main", x, b))
}

// Bias is the example's bias vector: 0.1 * (j - 4) for j in 0..7.
func Bias() *runtime.Tensor {
	b := runtime.MustNewTensor([]int64{8}, runtime.Float32)
	for j := range b.Float32s() {
		b.Float32s()[j] = 0.1 * float32(j-4)
	}
	return b
}
