package tensorio

import (
	"fmt"

	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/runtime/half"
)

// FromResult flattens a function's result into an archive of out_0..out_k,
// depth-first through tuples: tensors as they are, a shape as an int64
// vector, and int64, float64 and bool scalars as 0-d tensors.
func FromResult(v runtime.Value) (*Archive, error) {
	a := &Archive{}
	return a, a.addResult(v)
}

func (a *Archive) addResult(v runtime.Value) error {
	var t *runtime.Tensor
	switch x := v.(type) {
	case runtime.Tuple:
		for _, f := range x {
			if err := a.addResult(f); err != nil {
				return err
			}
		}
		return nil
	case *runtime.Tensor:
		t = x
	case runtime.Shape:
		var err error
		if t, err = runtime.FromSlice([]int64(x), int64(len(x))); err != nil {
			return err
		}
	case int64:
		t = runtime.Scalar(x)
	case float64:
		t = runtime.Scalar(x)
	case bool:
		t = runtime.Scalar(x)
	default:
		return fmt.Errorf("tensorio: cannot write a result of type %s", runtime.TypeName(v))
	}
	return a.Add(fmt.Sprintf("out_%d", a.Len()), t)
}

// FromValues makes an archive of arg_0..arg_k from tensors, in order.
func FromValues(vals []runtime.Value) (*Archive, error) {
	a := &Archive{}
	for i, v := range vals {
		t, ok := v.(*runtime.Tensor)
		if !ok {
			return nil, fmt.Errorf("tensorio: argument %d is a %s, not a tensor", i, runtime.TypeName(v))
		}
		if err := a.Add(fmt.Sprintf("arg_%d", i), t); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// AsFloat64s returns the values of a numeric tensor as float64 (for printing
// and comparing), or nil for dtypes it does not cover.
func AsFloat64s(t *runtime.Tensor) []float64 {
	switch t.DType() {
	case runtime.Float32:
		return widen(t.Float32s())
	case runtime.Float64:
		return widen(t.Float64s())
	case runtime.Float16:
		return widenWith(t.Uint16s(), half.Float16ToFloat32)
	case runtime.BFloat16:
		return widenWith(t.Uint16s(), half.BFloat16ToFloat32)
	case runtime.Int8:
		return widen(t.Int8s())
	case runtime.Int16:
		return widen(t.Int16s())
	case runtime.Int32:
		return widen(t.Int32s())
	case runtime.Int64:
		return widen(t.Int64s())
	case runtime.UInt8:
		return widen(t.Uint8s())
	case runtime.UInt16:
		return widen(t.Uint16s())
	case runtime.UInt32:
		return widen(t.Uint32s())
	case runtime.Bool:
		return widenWith(t.Bools(), func(b bool) float64 {
			if b {
				return 1
			}
			return 0
		})
	}
	return nil
}

func widen[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | float32 | float64](xs []T) []float64 {
	return widenWith(xs, func(x T) float64 { return float64(x) })
}

func widenWith[T any, F float32 | float64](xs []T, f func(T) F) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(f(x))
	}
	return out
}
