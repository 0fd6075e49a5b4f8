package runtime

import (
	"fmt"
	"math"
	"slices"
)

// Args decodes the arguments of a packed call: runtime's builtins, the
// kernels and user functions use it, so bad arguments read the same
// everywhere. Errors are sticky: after the first failure every accessor
// returns a zero value and Err reports that first error, which names Func and
// the argument and wraps ErrBuiltinArgs. Args does not allocate unless it
// reports an error.
//
//	a := runtime.Args{Func: "my.scale", Values: args}
//	x, k := a.Tensor(0), a.Float(1)
//	if err := a.Err(); err != nil {
//		return nil, err
//	}
type Args struct {
	// Func names the function in errors.
	Func string
	// Values are the arguments.
	Values []Value
	err    error
}

// argErr is the error of a packed call given bad arguments.
func argErr(fn string, format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", fn, ErrBuiltinArgs, fmt.Sprintf(format, args...))
}

// Err is the first error, or nil.
func (a *Args) Err() error { return a.err }

// Fail records an error (Func: message) unless one is recorded already. It
// does not wrap ErrBuiltinArgs: it is for what the function itself rejects.
func (a *Args) Fail(format string, args ...any) {
	if a.err == nil {
		a.err = fmt.Errorf("%s: %s", a.Func, fmt.Sprintf(format, args...))
	}
}

func (a *Args) bad(format string, args ...any) {
	if a.err == nil {
		a.err = argErr(a.Func, format, args...)
	}
}

// Count requires between lo and hi arguments (hi < 0: no upper bound).
func (a *Args) Count(lo, hi int) bool {
	n := len(a.Values)
	if n >= lo && (hi < 0 || n <= hi) {
		return true
	}
	switch {
	case hi < 0:
		a.bad("expects at least %d arguments, got %d", lo, n)
	case lo == hi:
		a.bad("expects %d arguments, got %d", lo, n)
	default:
		a.bad("expects %d to %d arguments, got %d", lo, hi, n)
	}
	return false
}

// Value returns argument i, or reports it missing.
func (a *Args) Value(i int) (Value, bool) {
	if a.err != nil {
		return nil, false
	}
	if i < 0 || i >= len(a.Values) {
		a.bad("missing argument %d", i)
		return nil, false
	}
	return a.Values[i], true
}

func (a *Args) want(i int, what string, v Value) {
	a.bad("argument %d must be %s, got %s", i, what, TypeName(v))
}

// Tensor decodes argument i as a non-nil tensor.
func (a *Args) Tensor(i int) *Tensor {
	v, ok := a.Value(i)
	if !ok {
		return nil
	}
	t, isT := v.(*Tensor)
	if !isT || t == nil {
		a.want(i, "a Tensor", v)
		return nil
	}
	return t
}

// toInt64 converts an integer-like value: int64, int, int32, bool, or an
// integral float64.
func toInt64(v Value) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
			return int64(x), true
		}
	}
	return 0, false
}

// Int decodes argument i as an integer (int64, int, int32, bool, or an
// integral float64).
func (a *Args) Int(i int) int64 {
	v, ok := a.Value(i)
	if !ok {
		return 0
	}
	n, ok := toInt64(v)
	if !ok {
		a.want(i, "an int", v)
	}
	return n
}

// Bool decodes argument i as a bool (bool, or an integer: true when non-zero).
func (a *Args) Bool(i int) bool {
	v, ok := a.Value(i)
	if !ok {
		return false
	}
	switch x := v.(type) {
	case bool:
		return x
	case int64:
		return x != 0
	case int:
		return x != 0
	}
	a.want(i, "a bool", v)
	return false
}

// Float decodes argument i as a float64 (float64, float32, an integer or a
// bool).
func (a *Args) Float(i int) float64 {
	v, ok := a.Value(i)
	if !ok {
		return 0
	}
	switch x := v.(type) {
	case float64:
		return x
	case float32:
		return float64(x)
	}
	if n, ok := toInt64(v); ok {
		return float64(n)
	}
	a.want(i, "a float", v)
	return 0
}

// Shape decodes argument i as a Shape (or []int64).
func (a *Args) Shape(i int) Shape {
	v, ok := a.Value(i)
	if !ok {
		return nil
	}
	switch s := v.(type) {
	case Shape:
		return s
	case []int64:
		return Shape(s)
	}
	a.want(i, "a Shape", v)
	return nil
}

// Ints decodes argument i as an int list: a Shape, []int64, []int, a Tuple
// of integers or one integer. nil gives nil; an empty list is non-nil.
func (a *Args) Ints(i int) []int64 {
	v, ok := a.Value(i)
	if !ok || v == nil {
		return nil
	}
	switch x := v.(type) {
	case Shape:
		if x == nil {
			return []int64{}
		}
		return x
	case []int64:
		if x == nil {
			return []int64{}
		}
		return x
	case []int:
		out := make([]int64, len(x))
		for k, e := range x {
			out[k] = int64(e)
		}
		return out
	case Tuple:
		out := make([]int64, len(x))
		for k, e := range x {
			n, ok := toInt64(e)
			if !ok {
				a.bad("argument %d: element %d must be an int, got %s", i, k, TypeName(e))
				return nil
			}
			out[k] = n
		}
		return out
	case int64:
		return []int64{x}
	}
	a.want(i, "a Shape", v)
	return nil
}

// String decodes argument i as a string; nil gives "".
func (a *Args) String(i int) string {
	v, ok := a.Value(i)
	if !ok || v == nil {
		return ""
	}
	s, isS := v.(string)
	if !isS {
		a.want(i, "a string", v)
	}
	return s
}

// DType decodes argument i as a data type (a DataType or its spelling); nil
// gives Void.
func (a *Args) DType(i int) DataType {
	v, ok := a.Value(i)
	if !ok || v == nil {
		return Void
	}
	switch x := v.(type) {
	case DataType:
		return x
	case string:
		dt, err := ParseDataType(x)
		if err != nil {
			a.bad("argument %d: %v", i, err)
		}
		return dt
	}
	a.want(i, "a DataType", v)
	return Void
}

// Tensors decodes argument i as tensors: a Tuple of tensors, []*Tensor
// (returned itself), or one tensor.
func (a *Args) Tensors(i int) []*Tensor {
	v, ok := a.Value(i)
	if !ok {
		return nil
	}
	if x, isS := v.([]*Tensor); isS {
		return x
	}
	return a.TensorsInto(i, nil)
}

// TensorsInto is Tensors with the tensors appended to buf (a []*Tensor's
// too), so that decoding them allocates nothing while buf has room: a
// kernel reads a tensor list into an array on its stack.
func (a *Args) TensorsInto(i int, buf []*Tensor) []*Tensor {
	v, ok := a.Value(i)
	if !ok {
		return nil
	}
	switch x := v.(type) {
	case []*Tensor:
		return append(buf, x...)
	case Tuple:
		buf = slices.Grow(buf, len(x))
		for k, e := range x {
			t, isT := e.(*Tensor)
			if !isT || t == nil {
				a.bad("argument %d: element %d must be a Tensor, got %s", i, k, TypeName(e))
				return nil
			}
			buf = append(buf, t)
		}
		return buf
	case *Tensor:
		if x != nil {
			return append(buf, x)
		}
	}
	a.want(i, "a Tuple of Tensors", v)
	return nil
}
