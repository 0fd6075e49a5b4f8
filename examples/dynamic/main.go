// Command dynamic runs the symbolic-batch example: a model compiled by relaxgo into the Go
// package ./model, called in compiled mode and in bytecode mode.
package main

//go:generate go run github.com/relaxgo/relaxgo/cmd/relaxgo gen --params model.safetensors --pkg model -o model model.py

import (
	"fmt"
	"log"

	"github.com/relaxgo/relaxgo/examples/dynamic/model"
	"github.com/relaxgo/relaxgo/examples/internal/demo"
)

func main() {
	for _, n := range []int64{1, 5} {
		x := demo.Input(n, 16)
		y, err := model.Main(x)
		if err != nil {
			log.Fatal(err)
		}
		demo.Report(y, demo.Bytecode(demo.Must(model.Default()), "main", x))
	}
	// A wrong inner dimension is refused with an error naming it.
	if _, err := model.Main(demo.Input(2, 15)); err != nil {
		fmt.Println("refused:", err)
	}
}
