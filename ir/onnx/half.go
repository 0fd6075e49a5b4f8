package onnx

import (
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// viaFloat32 lists the ops whose kernels have no float16
// version: their half-precision calls are computed in float32 and the result
// rounded back, as numpy and onnxruntime do for these types on CPU.
var viaFloat32 = map[string]bool{
	"relax.matmul": true, "relax.nn.conv1d": true, "relax.nn.conv2d": true,
	"relax.nn.conv1d_transpose": true, "relax.nn.conv2d_transpose": true,
}

func halfArg(e ir.Expr) (runtime.DataType, bool) {
	if e == nil {
		return runtime.Void, false
	}
	ts, ok := e.SInfo().(*ir.TensorSInfo)
	if !ok || (ts.DType != runtime.Float16) {
		return runtime.Void, false
	}
	return ts.DType, true
}

// emitViaFloat32 reports whether op's call on args must go through float32,
// and if so emits it.
func (c *Ctx) emitViaFloat32(op string, args []ir.Expr, attrs []ir.Attr) (*Value, bool, error) {
	if !viaFloat32[op] || len(args) < 2 {
		return nil, false, nil
	}
	dt, ok := halfArg(args[0])
	if !ok {
		return nil, false, nil
	}
	cast := make([]ir.Expr, len(args))
	for i, a := range args {
		cast[i] = a
		if _, ok := halfArg(a); ok {
			v, err := c.Emit("relax.astype", []ir.Expr{a}, Attr("dtype", runtime.Float32))
			if err != nil {
				return nil, true, err
			}
			cast[i] = v.Expr
		}
	}
	var kept []ir.Attr
	for _, a := range attrs {
		if a.Key != "out_dtype" {
			kept = append(kept, a)
		}
	}
	y, err := c.Emit(op, cast, kept...)
	if err != nil {
		return nil, true, err
	}
	r, err := c.Emit("relax.astype", []ir.Expr{y.Expr}, Attr("dtype", dt))
	return r, true, err
}
