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

// Sample is runtime.SampleTensor for generated tests, failing t on error.
func Sample(t testing.TB, shape []int64, dt runtime.DataType, seed int) *runtime.Tensor {
	t.Helper()
	x, err := runtime.SampleTensor(shape, dt, seed)
	if err != nil {
		t.Fatal(err)
	}
	return x
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
	// Args makes its arguments; nil when the generator could not synthesize
	// them from the parameters' types (the subtest then skips).
	Args func(t testing.TB) []runtime.Value
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
			if f.Args == nil {
				t.Skip("a parameter's type gives no shape to test with")
			}
			TestModes(t, m, f.Name, f.Args(t)...)
		})
	}
}
