package main

import (
	"math"
	"testing"

	"github.com/relaxgo/relaxgo/examples/encoder/model"
	"github.com/relaxgo/relaxgo/examples/internal/demo"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
)

// TestMatchesTorch runs the imported encoder in both modes on the input the
// fixture was exported with and compares with PyTorch's output
// (expected.npz, computed by torch; |got-want| <= 1e-3 + 1e-3*|want|).
func TestMatchesTorch(t *testing.T) {
	in, err := tensorio.ReadNPZFile("inputs.npz")
	if err != nil {
		t.Fatal(err)
	}
	x, ok := in.Get("input")
	if !ok {
		t.Fatal("inputs.npz has no entry input")
	}
	want, err := tensorio.ReadNPZFile("expected.npz")
	if err != nil {
		t.Fatal(err)
	}
	w, ok := want.Get("last_hidden_state")
	if !ok {
		t.Fatal("expected.npz has no entry last_hidden_state")
	}
	compiled, err := model.Main(x)
	if err != nil {
		t.Fatal(err)
	}
	m := demo.Load(t, model.Default)
	vm, err := m.NewVM()
	if err != nil {
		t.Fatal(err)
	}
	bytecode, err := vm.Invoke("main", x)
	if err != nil {
		t.Fatal(err)
	}
	if !runtime.ValuesEqual(compiled, bytecode) {
		t.Fatal("compiled and bytecode modes differ")
	}
	g, e := compiled.Float32s(), w.Float32s()
	if len(g) != len(e) {
		t.Fatalf("%d values, want %d", len(g), len(e))
	}
	for i := range e {
		if d := math.Abs(float64(g[i] - e[i])); d > 1e-3+1e-3*math.Abs(float64(e[i])) {
			t.Fatalf("element %d: %v, want %v", i, g[i], e[i])
		}
	}
}
