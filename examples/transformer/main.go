// Command transformer runs the transformer block (layer norm, attention, MLP) example: a model compiled by relaxgo into the Go
// package ./model, called in compiled mode and in bytecode mode.
package main

//go:generate go run github.com/relaxgo/relaxgo/cmd/relaxgo gen --params model.safetensors --pkg model -o model model.py

import (
	"log"

	"github.com/relaxgo/relaxgo/examples/internal/demo"
	"github.com/relaxgo/relaxgo/examples/transformer/model"
	"github.com/relaxgo/relaxgo/runtime"
)

func main() {
	x := demo.Input(1, 8, 32)
	y, err := model.Main(x)
	if err != nil {
		log.Fatal(err)
	}
	demo.Report(runtime.Tuple{y}, demo.Bytecode(demo.Must(model.Default()), "main", x))
}
