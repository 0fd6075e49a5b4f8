package tensorio

import (
	"fmt"

	"github.com/relaxgo/relaxgo/runtime"
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
