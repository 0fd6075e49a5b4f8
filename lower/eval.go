package lower

import (
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// EvalCall evaluates an inferred op call whose arguments are all compile-time
// values (constants, shapes, prim values, strings, dtypes, tuples of them) with
// the op's library kernel, as FoldConstant does. It returns nil when it cannot
// (non-constant argument, non-tensor or symbolic result, no kernel, kernel error).
// Frontends use it to fold shape computations while importing.
func EvalCall(c *ir.Call) *runtime.Tensor {
	if c.OpName() == "" || structural[c.OpName()] {
		return nil
	}
	ts, ok := c.SInfo().(*ir.TensorSInfo)
	if !ok || ts.DType.IsVoid() {
		return nil
	}
	shape, ok := ts.StaticShape()
	if !ok {
		return nil
	}
	for _, a := range c.Args {
		if a == nil {
			return nil
		}
		if _, ok := constValue(a); !ok {
			return nil
		}
	}
	f, ok := runtime.Lookup(KernelName(c.OpName()))
	if !ok {
		return nil
	}
	args, err := kernelArgs(c)
	if err != nil {
		return nil
	}
	vals := make([]runtime.Value, 0, len(args)+1)
	for _, a := range args {
		v, ok := constValue(a)
		if !ok {
			return nil
		}
		vals = append(vals, v)
	}
	out, err := runtime.NewTensor(shape, ts.DType)
	if err != nil {
		return nil
	}
	if _, err := f(append(vals, out)); err != nil {
		return nil
	}
	return out
}
