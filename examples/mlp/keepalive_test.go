package main

import (
	goruntime "runtime"
	"testing"
	"time"

	"github.com/relaxgo/relaxgo/examples/mlp/model"
	"github.com/relaxgo/relaxgo/kernels"
	"github.com/relaxgo/relaxgo/runtime"
)

// TestVMsKeepTheModelsWeightsRegistered drops every reference to a loaded
// Model but one VM (compiled, bytecode, and one made from a WithMode copy),
// collects garbage, and checks that the weights are still registered
// constants: the Model's cleanup forgets their packed forms, which the
// kernels (the Winograd convolution among them) pick by registration, so
// it must not run while a VM of the Model can still call them.
func TestVMsKeepTheModelsWeightsRegistered(t *testing.T) {
	for _, mk := range []struct {
		name string
		vm   func(m *model.Model) (*runtime.VM, error)
	}{
		{"compiled", func(m *model.Model) (*runtime.VM, error) { return m.NewCompiledVM() }},
		{"bytecode", func(m *model.Model) (*runtime.VM, error) { return m.NewVM() }},
		{"copy", func(m *model.Model) (*runtime.VM, error) { return m.Model.WithMode(runtime.Bytecode).NewVM() }},
	} {
		t.Run(mk.name, func(t *testing.T) {
			m, err := model.New()
			if err != nil {
				t.Fatal(err)
			}
			var weights []*runtime.Tensor
			for _, c := range m.Executable().Constants() {
				if w, ok := c.(*runtime.Tensor); ok && w.NDim() == 2 && w.DType() == runtime.Float32 {
					weights = append(weights, w)
				}
			}
			if len(weights) == 0 {
				t.Fatal("no weight matrices")
			}
			vm, err := mk.vm(m)
			if err != nil {
				t.Fatal(err)
			}
			m = nil
			for i := 0; i < 3; i++ {
				goruntime.GC()
				time.Sleep(5 * time.Millisecond) // cleanups run on their own goroutine
			}
			for _, w := range weights {
				if !kernels.IsConstant(w) {
					t.Fatalf("weight %v unregistered while a VM of the model is alive", w.Shape())
				}
			}
			goruntime.KeepAlive(vm)
		})
	}
}
