// Package rtimpltest holds the checks of the tests relaxgo generates into
// model packages (model.relaxgo_test.go).
//
// This package should only be imported by generated tests; its API may change
// with the generator.
package rtimpltest

import (
	"errors"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// Tensor stands, in a Func's Args (also inside a runtime.Tuple), for the
// deterministic tensor runtime.SampleTensor makes of its shape, dtype and
// seed.
type Tensor struct {
	Shape []int64
	DType runtime.DataType
	Seed  int
}

// materialize replaces each Tensor in v (and in its tuples) by its sample.
func materialize(t testing.TB, v runtime.Value) runtime.Value {
	t.Helper()
	switch x := v.(type) {
	case Tensor:
		s, err := runtime.SampleTensor(x.Shape, x.DType, x.Seed)
		if err != nil {
			t.Fatal(err)
		}
		return s
	case runtime.Tuple:
		out := make(runtime.Tuple, len(x))
		for i, f := range x {
			out[i] = materialize(t, f)
		}
		return out
	}
	return v
}

// TestModes is the check of a generated package's test: name runs in
// bytecode and in compiled mode on args, and the results must be
// bit-identical. It skips when the model calls a packed function nobody
// registered, or when both modes fail (the arguments the test synthesized
// do not suit the function).
func TestModes(t testing.TB, m *runtime.Model, name string, args ...runtime.Value) {
	t.Helper()
	want, got, werr, gerr := m.CompareModes(name, args...)
	switch {
	case errors.Is(werr, runtime.ErrMissingFunction):
		t.Skipf("the model calls a packed function this package does not provide; register it with runtime.Register first: %v", werr)
	case werr != nil && gerr != nil:
		t.Skipf("both modes fail (the function needs something this test cannot give it): %v", werr)
	case werr != nil:
		t.Fatalf("bytecode: %v", werr)
	case gerr != nil:
		t.Fatalf("compiled: %v", gerr)
	}
	if !runtime.ValuesEqual(got, want) {
		t.Fatalf("modes disagree: compiled %v, bytecode %v", got, want)
	}
}

// Func is a function of the model that a generated test runs in both modes.
type Func struct {
	Name string
	// Args are its arguments, a Tensor standing for a sample tensor.
	Args []runtime.Value
	// Skip, when set, says why the generator could not synthesize arguments
	// from the parameters' types; the subtest then skips.
	Skip string
}

// TestModesAgree is a generated package's test: it loads the model with
// load and runs each of funcs in a subtest through TestModes.
func TestModesAgree(t *testing.T, load func() (*runtime.Model, error), funcs ...Func) {
	t.Helper()
	m, err := load()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range funcs {
		t.Run(f.Name, func(t *testing.T) {
			if f.Skip != "" {
				t.Skip(f.Skip)
			}
			args := make([]runtime.Value, len(f.Args))
			for i, a := range f.Args {
				args[i] = materialize(t, a)
			}
			TestModes(t, m, f.Name, args...)
		})
	}
}
