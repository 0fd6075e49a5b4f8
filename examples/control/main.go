// Command control runs the control-flow (If and recursion) example: a model compiled by relaxgo into the Go
// package ./model, called in compiled mode and in bytecode mode.
package main

//go:generate go run github.com/relaxgo/relaxgo/cmd/relaxgo gen --pkg model -o model model.py

import (
	"log"

	"github.com/relaxgo/relaxgo/examples/control/model"
	"github.com/relaxgo/relaxgo/examples/internal/demo"
	"github.com/relaxgo/relaxgo/runtime"
)

func main() {
	x := demo.Input(4)
	n := runtime.Scalar(int64(3))
	y, err := model.Main(x, n)
	if err != nil {
		log.Fatal(err)
	}
	demo.Report(y, demo.Bytecode(demo.Must(model.Default()), "main", x, n))
}
