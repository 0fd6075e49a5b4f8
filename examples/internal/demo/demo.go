// Package demo holds what the example commands share: deterministic inputs,
// running a function on a model's bytecode VM, and printing both execution
// modes' results side by side.
package demo

import (
	"fmt"
	"log"

	"github.com/relaxgo/relaxgo/runtime"
)

// VMMaker is what every generated Model provides.
type VMMaker interface {
	NewVM(opts ...runtime.VMOption) (*runtime.VM, error)
	NewCompiledVM(opts ...runtime.VMOption) (*runtime.VM, error)
}

// Must returns v, or exits with err.
func Must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}

// Fataler is the part of testing.TB Load uses (the example commands link
// this package too, and need no testing package).
type Fataler interface {
	Helper()
	Fatal(args ...any)
}

// Load returns the model load gives (a generated package's New or Default),
// failing t when it cannot be loaded.
func Load[M any](t Fataler, load func() (M, error)) M {
	t.Helper()
	m, err := load()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Input makes a deterministic float32 tensor: element i is (i%7-3)/4.
func Input(shape ...int64) *runtime.Tensor {
	x := runtime.MustNewTensor(shape, runtime.Float32)
	for i := range x.Float32s() {
		x.Float32s()[i] = float32(i%7-3) / 4
	}
	return x
}

// Bytecode runs fn on a new bytecode VM of m, exiting on error.
func Bytecode(m VMMaker, fn string, args ...runtime.Value) runtime.Value {
	vm := Must(m.NewVM())
	return Must(vm.Invoke(fn, args...))
}

// Report prints both modes' results and whether they agree bit for bit.
func Report(compiled, bytecode runtime.Value) {
	fmt.Println("compiled:", Show(compiled))
	fmt.Println("bytecode:", Show(bytecode))
	fmt.Println("modes agree:", runtime.ValuesEqual(compiled, bytecode))
}

// Show renders a result briefly: a one-element tuple as its element, a
// float32 tensor with up to 8 leading values.
func Show(v runtime.Value) string {
	switch x := v.(type) {
	case runtime.Tuple:
		if len(x) == 1 {
			return Show(x[0])
		}
		parts := make([]string, len(x))
		for i, f := range x {
			parts[i] = Show(f)
		}
		return fmt.Sprint(parts)
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

// Must2 returns a and b, or exits with err.
func Must2[A, B any](a A, b B, err error) (A, B) {
	if err != nil {
		log.Fatal(err)
	}
	return a, b
}
