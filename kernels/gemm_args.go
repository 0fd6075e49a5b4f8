package kernels

import (
	"fmt"

	"github.com/relaxgo/relaxgo/runtime"
)

// Packed-argument decoding for the linear-algebra and convolution ops
// (matmul, conv1d, conv2d, conv2d_transpose), with runtime.Args: every helper
// returns an error naming the op and the argument position instead of
// panicking.

func laCount(op string, args []runtime.Value, n int) error {
	a := runtime.Args{Func: op, Values: args}
	a.Count(n, n)
	return a.Err()
}

// laArg returns argument i when it is a T. The helpers below take their
// common spelling this way first: runtime.Args' bookkeeping cost more than
// a small convolution's packing (cnn_small's); anything else, errors
// laFlag reads argument i, a bool or an int (nonzero: true); what names it
// in the error.
func laFlag(op string, args []runtime.Value, i int, what string) (bool, error) {
	switch v := args[i].(type) {
	case bool:
		return v, nil
	case int64:
		return v != 0, nil
	}
	return false, fmt.Errorf("%s: argument %d (%s) must be a bool or int, got %s", op, i, what, runtime.TypeName(args[i]))
}

// included, goes through runtime.Args.
func laArg[T any](args []runtime.Value, i int) (T, bool) {
	if i >= 0 && i < len(args) {
		v, ok := args[i].(T)
		return v, ok
	}
	var zero T
	return zero, false
}

func laTensor(op string, args []runtime.Value, i int) (*runtime.Tensor, error) {
	if t, ok := laArg[*runtime.Tensor](args, i); ok && t != nil {
		return t, nil
	}
	a := runtime.Args{Func: op, Values: args}
	t := a.Tensor(i)
	return t, a.Err()
}

func laInt(op string, args []runtime.Value, i int) (int64, error) {
	if n, ok := laArg[int64](args, i); ok {
		return n, nil
	}
	a := runtime.Args{Func: op, Values: args}
	n := a.Int(i)
	return n, a.Err()
}

func laInts(op string, args []runtime.Value, i int) ([]int64, error) {
	if v, ok := laArg[runtime.Shape](args, i); ok && v != nil {
		return v, nil
	}
	if v, ok := laArg[[]int64](args, i); ok && v != nil {
		return v, nil
	}
	a := runtime.Args{Func: op, Values: args}
	v := a.Ints(i)
	if a.Err() == nil && v == nil {
		// nil is not an integer list here.
		a.Shape(i)
	}
	return v, a.Err()
}

func laString(op string, args []runtime.Value, i int) (string, error) {
	if s, ok := laArg[string](args, i); ok {
		return s, nil
	}
	a := runtime.Args{Func: op, Values: args}
	s := a.String(i)
	return s, a.Err()
}

// laDType accepts a DataType, its spelling, or None (void: "same as input").
func laDType(op string, args []runtime.Value, i int) (runtime.DataType, error) {
	if i >= 0 && i < len(args) && args[i] == nil {
		return runtime.Void, nil
	}
	if dt, ok := laArg[runtime.DataType](args, i); ok {
		return dt, nil
	}
	a := runtime.Args{Func: op, Values: args}
	dt := a.DType(i)
	return dt, a.Err()
}

// laConvert reads element i of a float32/float64/int32/int64 tensor as T.
func laReader[T int64 | float64](t *runtime.Tensor) (func(i int) T, error) {
	switch t.DType() {
	case runtime.Float32:
		s := t.Float32s()
		return func(i int) T { return T(s[i]) }, nil
	case runtime.Float64:
		s := t.Float64s()
		return func(i int) T { return T(s[i]) }, nil
	case runtime.Int32:
		s := t.Int32s()
		return func(i int) T { return T(s[i]) }, nil
	case runtime.Int64:
		s := t.Int64s()
		return func(i int) T { return T(s[i]) }, nil
	}
	return nil, fmt.Errorf("unsupported dtype %s", t.DType())
}

// laWriter stores a T into element i of a float32/float64/int32/int64 tensor.
func laWriter[T int64 | float64](t *runtime.Tensor) (func(i int, v T), error) {
	switch t.DType() {
	case runtime.Float32:
		s := t.Float32s()
		return func(i int, v T) { s[i] = float32(v) }, nil
	case runtime.Float64:
		s := t.Float64s()
		return func(i int, v T) { s[i] = float64(v) }, nil
	case runtime.Int32:
		s := t.Int32s()
		return func(i int, v T) { s[i] = int32(v) }, nil
	case runtime.Int64:
		s := t.Int64s()
		return func(i int, v T) { s[i] = int64(v) }, nil
	}
	return nil, fmt.Errorf("unsupported dtype %s", t.DType())
}

// laSupported reports whether the plain paths handle dt.
func laSupported(dt runtime.DataType) bool {
	return dt == runtime.Float32 || dt == runtime.Float64 || dt == runtime.Int32 || dt == runtime.Int64
}
