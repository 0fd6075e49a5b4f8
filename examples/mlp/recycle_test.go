package main

import (
	"testing"

	"github.com/relaxgo/relaxgo/examples/internal/demo"
	"github.com/relaxgo/relaxgo/examples/mlp/model"
	"github.com/relaxgo/relaxgo/runtime"
)

// TestRecycledOutputs runs the model on VMs made WithRecycledOutputs in both
// modes: results equal an ordinary call's, a call's result is reused by the
// next call (the option's contract), and in steady state a call allocates
// only the returned tuple (its slice and its interface value) and Invoke's
// variadic argument slice, where an ordinary VM also allocates the result
// tensor's storage and bytes.
func TestRecycledOutputs(t *testing.T) {
	m := demo.Load(t, model.New)
	x1, x2 := demo.Input(4, 64), demo.Input(4, 64)
	for i, v := range x2.Float32s() {
		x2.Float32s()[i] = v * 2
	}
	want1, err := m.Main(x1)
	if err != nil {
		t.Fatal(err)
	}
	want2, err := m.Main(x2)
	if err != nil {
		t.Fatal(err)
	}
	eachMode(t, m, func(t *testing.T, mode string, newVM func(...runtime.VMOption) (*runtime.VM, error)) {
		plain, err := newVM()
		if err != nil {
			t.Fatal(err)
		}
		vm, err := newVM(runtime.WithRecycledOutputs())
		if err != nil {
			t.Fatal(err)
		}
		call := func(vm *runtime.VM, x *runtime.Tensor) *runtime.Tensor {
			v, err := vm.Invoke("main", x)
			if err != nil {
				t.Fatal(err)
			}
			return v.(runtime.Tuple)[0].(*runtime.Tensor)
		}
		r1 := call(vm, x1)
		if !runtime.ValuesEqual(r1, want1) {
			t.Fatal("first call differs from an ordinary call")
		}
		r2 := call(vm, x2)
		if !runtime.ValuesEqual(r2, want2) {
			t.Fatal("second call differs from an ordinary call")
		}
		if r1 != r2 || !runtime.ValuesEqual(r1, want2) {
			t.Error("the second call did not reuse the first call's result")
		}
		if raceEnabled {
			return
		}
		recycled := testing.AllocsPerRun(50, func() { call(vm, x1) })
		ordinary := testing.AllocsPerRun(50, func() { call(plain, x1) })
		if recycled != 0 || ordinary <= recycled {
			t.Errorf("allocations per call: %v recycled, %v ordinary; want none recycled (the result tensor's storage and the returned tuple are reused) and fewer than ordinary", recycled, ordinary)
		}
		t.Logf("allocations per call: %v with recycled outputs, %v without", recycled, ordinary)
	})
}

// TestInvokeInto checks VM.InvokeInto in both modes on a VM without
// recycled outputs: the results land in the caller's tensors, equal to an
// ordinary call's; they stay the caller's across later calls; a warm call
// allocates nothing; and a destination of another shape or dtype, or too
// many or too few destinations, is an error that leaves them as they were.
func TestInvokeInto(t *testing.T) {
	m := demo.Load(t, model.New)
	x1, x2 := demo.Input(4, 64), demo.Input(4, 64)
	for i, v := range x2.Float32s() {
		x2.Float32s()[i] = v * 2
	}
	want := func(x *runtime.Tensor) *runtime.Tensor {
		r, err := m.Main(x)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	want1, want2 := want(x1), want(x2)
	eachMode(t, m, func(t *testing.T, mode string, newVM func(...runtime.VMOption) (*runtime.VM, error)) {
		vm, err := newVM()
		if err != nil {
			t.Fatal(err)
		}
		d1, d2 := runtime.MustNewTensor(want1.Shape(), runtime.Float32), runtime.MustNewTensor(want1.Shape(), runtime.Float32)
		if err := vm.InvokeInto([]*runtime.Tensor{d1}, "main", x1); err != nil {
			t.Fatal(err)
		}
		if err := vm.InvokeInto([]*runtime.Tensor{d2}, "main", x2); err != nil {
			t.Fatal(err)
		}
		if !runtime.ValuesEqual(d1, want1) || !runtime.ValuesEqual(d2, want2) {
			t.Fatal("InvokeInto's results differ from ordinary calls' (or the second overwrote the first)")
		}
		bad := []struct {
			name string
			dst  []*runtime.Tensor
		}{
			{"shape", []*runtime.Tensor{runtime.MustNewTensor([]int64{4, 9}, runtime.Float32)}},
			{"dtype", []*runtime.Tensor{runtime.MustNewTensor(want1.Shape(), runtime.Float64)}},
			{"too many", []*runtime.Tensor{d1, d2}},
			{"too few", nil},
			{"nil", []*runtime.Tensor{nil}},
		}
		for _, b := range bad {
			before := d1.Clone()
			if err := vm.InvokeInto(b.dst, "main", x2); err == nil {
				t.Errorf("%s: accepted", b.name)
			} else {
				t.Logf("%s: %v", b.name, err)
			}
			if !runtime.ValuesEqual(d1, before) {
				t.Errorf("%s: the failed call wrote a destination", b.name)
			}
		}
		if raceEnabled {
			return
		}
		dst := []*runtime.Tensor{d1}
		if n := testing.AllocsPerRun(50, func() {
			if err := vm.InvokeInto(dst, "main", x1); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%v allocations per warm InvokeInto, want 0", n)
		}
		// The same through the Model's pool of VMs, in this mode.
		mm := m.Model
		if mode == "bytecode" {
			mm = m.WithMode(runtime.Bytecode).Model
		}
		if err := mm.InvokeInto(dst, "main", x2); err != nil || !runtime.ValuesEqual(d1, want2) {
			t.Fatalf("Model.InvokeInto: %v, or its result differs", err)
		}
		if n := testing.AllocsPerRun(50, func() {
			if err := mm.InvokeInto(dst, "main", x1); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%v allocations per warm Model.InvokeInto, want 0", n)
		}
		// And through the generated typed method.
		tm := m
		if mode == "bytecode" {
			tm = m.WithMode(runtime.Bytecode)
		}
		if err := tm.MainInto(d2, x1); err != nil || !runtime.ValuesEqual(d2, want1) {
			t.Fatalf("MainInto: %v, or its result differs", err)
		}
		if n := testing.AllocsPerRun(50, func() {
			if err := tm.MainInto(d2, x1); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%v allocations per warm MainInto, want 0", n)
		}
		if err := tm.MainInto(runtime.MustNewTensor([]int64{1}, runtime.Float32), x1); err == nil {
			t.Error("MainInto accepted a destination of another shape")
		}
		// The package-level function, on the Default model.
		if err := model.MainInto(d2, x2); err != nil || !runtime.ValuesEqual(d2, want2) {
			t.Fatalf("model.MainInto: %v, or its result differs", err)
		}
		if n := testing.AllocsPerRun(50, func() {
			if err := model.MainInto(d2, x1); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%v allocations per warm model.MainInto, want 0", n)
		}
	})
}

// eachMode runs f as a subtest per execution mode, with the mode's VM
// constructor.
func eachMode(t *testing.T, m *model.Model, f func(t *testing.T, mode string, newVM func(...runtime.VMOption) (*runtime.VM, error))) {
	for _, mode := range []string{"bytecode", "compiled"} {
		t.Run(mode, func(t *testing.T) {
			newVM := m.NewVM
			if mode == "compiled" {
				newVM = m.NewCompiledVM
			}
			f(t, mode, newVM)
		})
	}
}
