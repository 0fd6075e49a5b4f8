// Command transformer runs the transformer block (layer norm, attention, MLP) example: a model compiled by relaxgo into the Go
// package ./model, called in compiled mode and in bytecode mode.
package main

//go:generate go run github.com/relaxgo/relaxgo/cmd/relaxgo gen --params model.safetensors --pkg model -o model model.py

import (
	"fmt"
	"log"

	"github.com/relaxgo/relaxgo/examples/transformer/model"
	"github.com/relaxgo/relaxgo/runtime"
)

func main() {
	x := input(1, 8, 32)
	y, err := model.Main(x)
	if err != nil {
		log.Fatal(err)
	}
	report(runtime.Tuple{y}, bytecode("main", x))
}

// input makes a deterministic float32 tensor.
func input(shape ...int64) *runtime.Tensor {
	x := runtime.MustNewTensor(shape, runtime.Float32)
	for i := range x.Float32s() {
		x.Float32s()[i] = float32(i%7-3) / 4
	}
	return x
}

// bytecode runs fn on the model's bytecode VM.
func bytecode(fn string, args ...runtime.Value) runtime.Value {
	m, err := model.Default()
	if err != nil {
		log.Fatal(err)
	}
	vm, err := m.NewVM()
	if err != nil {
		log.Fatal(err)
	}
	v, err := vm.Invoke(fn, args...)
	if err != nil {
		log.Fatal(err)
	}
	return v
}

// report prints both modes' results and whether they agree bit for bit.
func report(compiled, bytecode runtime.Value) {
	fmt.Println("compiled:", show(compiled))
	fmt.Println("bytecode:", show(bytecode))
	fmt.Println("modes agree:", runtime.ValuesEqual(compiled, bytecode))
}

func show(v runtime.Value) string {
	switch x := v.(type) {
	case runtime.Tuple:
		if len(x) == 1 {
			return show(x[0])
		}
		return fmt.Sprint(x)
	case *runtime.Tensor:
		if x.DType() == runtime.Float32 {
			d := x.Float32s()
			if len(d) > 8 {
				return fmt.Sprintf("%s %v ...", x, d[:8])
			}
			return fmt.Sprintf("%s %v", x, d)
		}
	}
	return fmt.Sprint(v)
}
