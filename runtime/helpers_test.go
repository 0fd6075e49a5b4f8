package runtime

import (
	"errors"
	"fmt"
	"testing"
)

// Test packed functions in the style of TVM's test.vm.* helpers.
func init() {
	binary := func(name string, opF func(a, b float64) float64, opI func(a, b int64) int64) PackedFunc {
		return func(args []Value) (Value, error) {
			if len(args) != 2 {
				return nil, fmt.Errorf("%s: want 2 args, got %d", name, len(args))
			}
			switch a := args[0].(type) {
			case *Tensor:
				b, ok := args[1].(*Tensor)
				if !ok || a.DType() != Float64 || b.DType() != Float64 || a.NumElements() != b.NumElements() {
					return nil, fmt.Errorf("%s: want two float64 tensors of equal size, got %v and %v", name, args[0], args[1])
				}
				out := MustNewTensor(a.Shape(), Float64)
				x, y, z := a.Float64s(), b.Float64s(), out.Float64s()
				for i := range z {
					z[i] = opF(x[i], y[i])
				}
				return out, nil
			case int64:
				b, ok := args[1].(int64)
				if !ok {
					return nil, fmt.Errorf("%s: want ints", name)
				}
				return opI(a, b), nil
			}
			return nil, fmt.Errorf("%s: unsupported %s", name, TypeName(args[0]))
		}
	}
	MustRegister("test.vm.add", binary("test.vm.add", func(a, b float64) float64 { return a + b }, func(a, b int64) int64 { return a + b }))
	MustRegister("test.vm.mul", binary("test.vm.mul", func(a, b float64) float64 { return a * b }, func(a, b int64) int64 { return a * b }))
	MustRegister("test.vm.add_scalar", func(args []Value) (Value, error) {
		a, ok1 := args[0].(int64)
		b, ok2 := args[1].(int64)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("add_scalar: want ints, got %s and %s", TypeName(args[0]), TypeName(args[1]))
		}
		return a + b, nil
	})
	MustRegister("test.vm.subtract_one", func(args []Value) (Value, error) { return args[0].(int64) - 1, nil })
	MustRegister("test.vm.equal_zero", func(args []Value) (Value, error) { return args[0].(int64) == 0, nil })
	MustRegister("test.vm.noop", func(args []Value) (Value, error) { return nil, nil })
	MustRegister("test.vm.fail", func(args []Value) (Value, error) { return nil, errTestFail })
	MustRegister("test.vm.panic", func(args []Value) (Value, error) { panic("boom") })
}

var errTestFail = errors.New("test.vm.fail failed")

func vec(xs ...float64) *Tensor {
	t, err := FromSlice(xs, int64(len(xs)))
	if err != nil {
		panic(err)
	}
	return t
}

func must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func noErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// build runs f on a new builder and returns Get's result.
func build(t testing.TB, f func(b *execBuilder)) *Executable {
	t.Helper()
	b := newExecBuilder()
	f(b)
	e, err := b.Get()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func newVM(t testing.TB, e *Executable, opts ...VMOption) *VM {
	t.Helper()
	vm, err := NewVM(e, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return vm
}

// fn defines a VM function with body, ending it.
func fn(b *execBuilder, name string, nargs int64, body func()) {
	b.EmitFunction(name, nargs, nil, FuncKindVM, 0)
	body()
	b.EndFunction(name)
}

func floats(t testing.TB, v Value) []float64 {
	t.Helper()
	x, ok := v.(*Tensor)
	if !ok {
		t.Fatalf("want a tensor, got %s", TypeName(v))
	}
	return must[[]float64](t)(ToSlice[float64](x))
}
