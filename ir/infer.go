package ir

import (
	"fmt"
	"strings"

	"github.com/relaxgo/relaxgo/runtime"
)

// InferCtx is the context of struct-info inference: the module being
// normalized (for calls of module functions), when known.
type InferCtx struct {
	Module *Module
}

// InferCall infers the struct info of a canonical op call whose arguments
// already carry struct info.
func InferCall(c *Call, ctx *InferCtx) (StructInfo, error) {
	op, ok := c.Callee.(*Op)
	if !ok {
		return nil, fmt.Errorf("InferCall: callee is not an op")
	}
	def, ok := LookupOp(op.Name)
	if !ok {
		return nil, fmt.Errorf("unknown op %q", op.Name)
	}
	if def.Infer == nil {
		return &ObjectSInfo{}, nil
	}
	if ctx == nil {
		ctx = &InferCtx{}
	}
	for i, a := range c.Args {
		if a != nil && a.SInfo() == nil {
			return nil, fmt.Errorf("%s: argument %d has no struct info", def.Name, i)
		}
	}
	return def.Infer(c, ctx)
}

// opErr formats an inference error prefixed with the op name.
func opErr(c *Call, format string, a ...any) error {
	return fmt.Errorf("%s: %s", c.OpName(), fmt.Sprintf(format, a...))
}

// argName names argument i of c's op for messages.
func argName(c *Call, i int) string {
	if d, ok := LookupOp(c.OpName()); ok && i < len(d.Args) {
		if d.Args[len(d.Args)-1].Variadic && i >= len(d.Args)-1 {
			return d.Args[len(d.Args)-1].Name
		}
		return d.Args[i].Name
	}
	return fmt.Sprintf("#%d", i)
}

// argSInfo returns the struct info of argument i (nil when absent).
func argSInfo(c *Call, i int) StructInfo {
	if i >= len(c.Args) || c.Args[i] == nil {
		return nil
	}
	return c.Args[i].SInfo()
}

func needArgs(c *Call, n int) error {
	if len(c.Args) < n {
		return opErr(c, "expects %d arguments, got %d", n, len(c.Args))
	}
	return nil
}

// tensorArg returns argument i as a tensor; a PrimSInfo counts as a 0-d tensor when allowPrim.
func tensorArg(c *Call, i int, allowPrim bool) (*TensorSInfo, error) {
	s := argSInfo(c, i)
	switch x := s.(type) {
	case *TensorSInfo:
		return x, nil
	case *PrimSInfo:
		if allowPrim {
			return &TensorSInfo{Shape: []PrimExpr{}, NDim: 0, DType: x.DType}, nil
		}
	case nil:
		return nil, opErr(c, "missing argument %q", argName(c, i))
	}
	return nil, opErr(c, "argument %q must be a tensor, got %s", argName(c, i), SInfoString(s))
}

// shapeValues returns the shape carried by argument i (a ShapeExpr or an
// expression of shape struct info): values (nil when unknown) and ndim (-1 when unknown).
func shapeArg(c *Call, i int) ([]PrimExpr, int, error) {
	if i < len(c.Args) {
		if se, ok := c.Args[i].(*ShapeExpr); ok {
			return se.Values, len(se.Values), nil
		}
	}
	s := argSInfo(c, i)
	switch x := s.(type) {
	case *ShapeSInfo:
		if x.Values != nil {
			return x.Values, len(x.Values), nil
		}
		return nil, x.NDim, nil
	case nil:
		return nil, -1, opErr(c, "missing argument %q", argName(c, i))
	}
	return nil, -1, opErr(c, "argument %q must be a shape, got %s", argName(c, i), SInfoString(s))
}

// unknownTensor is a tensor of known rank (or -1) and dtype only.
func unknownTensor(ndim int, dt DataType) *TensorSInfo {
	return &TensorSInfo{NDim: ndim, DType: dt}
}

// normAxis maps axis (possibly negative) into [0, ndim).
func normAxis(c *Call, ndim int, axis int64) (int, error) {
	if axis < -int64(ndim) || axis >= int64(ndim) {
		return 0, opErr(c, "axis %d is out of range for a tensor of rank %d", axis, ndim)
	}
	if axis < 0 {
		axis += int64(ndim)
	}
	return int(axis), nil
}

// normAxes normalizes a list of axes, rejecting duplicates.
func normAxes(c *Call, ndim int, axes []int64) ([]int, error) {
	out := make([]int, len(axes))
	seen := map[int]bool{}
	for i, a := range axes {
		n, err := normAxis(c, ndim, a)
		if err != nil {
			return nil, err
		}
		if seen[n] {
			return nil, opErr(c, "axis %d appears more than once", a)
		}
		seen[n] = true
		out[i] = n
	}
	return out, nil
}

// dimsString renders a shape as (a, b).
func dimsString(dims []PrimExpr) string {
	var b strings.Builder
	writeDims(&b, dims)
	return b.String()
}

// provablyDifferent reports whether a and b are provably unequal (their
// difference simplifies to a nonzero constant).
func provablyDifferent(a, b PrimExpr) bool {
	d, ok := AsInt(Simplify(&Binary{OpSub, a, b}))
	return ok && d != 0
}

// binaryDType applies TVM's rule for arithmetic operands: equal dtypes
// (bool mixes with anything), Void when either is unknown.
func binaryDType(c *Call, a, b DataType) (DataType, error) {
	if a.IsVoid() || b.IsVoid() {
		return runtime.Void, nil
	}
	if a != b && !a.IsBool() && !b.IsBool() {
		return runtime.Void, opErr(c, "operands must have the same dtype, got %s and %s", a, b)
	}
	return a, nil
}

// broadcastShapes broadcasts two shapes as numpy does. ok is false when
// the result cannot be decided symbolically.
func broadcastShapes(c *Call, a, b []PrimExpr) ([]PrimExpr, bool, error) {
	na, nb := len(a), len(b)
	n := max(na, nb)
	out := make([]PrimExpr, n)
	for i := 1; i <= n; i++ {
		switch {
		case i > na:
			out[n-i] = b[nb-i]
			continue
		case i > nb:
			out[n-i] = a[na-i]
			continue
		}
		da, db := a[na-i], b[nb-i]
		ia, aok := AsInt(da)
		ib, bok := AsInt(db)
		switch {
		case aok && ia == 1:
			out[n-i] = db
		case bok && ib == 1:
			out[n-i] = da
		case ProveEqual(da, db):
			out[n-i] = da
		case aok && bok:
			return nil, false, opErr(c, "cannot broadcast %s with %s (dimension %s vs %s)", dimsString(a), dimsString(b), ExprString(da), ExprString(db))
		default:
			return nil, false, nil
		}
	}
	return out, true, nil
}

// broadcastSInfo infers the result of a broadcasting binary op with result dtype dt.
func broadcastSInfo(c *Call, x, y StructInfo, dt DataType) (StructInfo, error) {
	px, xPrim := x.(*PrimSInfo)
	_, yPrim := y.(*PrimSInfo)
	if xPrim && yPrim {
		_ = px
		return &PrimSInfo{DType: dt}, nil
	}
	tx, err := asTensorOrPrim(c, 0, x)
	if err != nil {
		return nil, err
	}
	ty, err := asTensorOrPrim(c, 1, y)
	if err != nil {
		return nil, err
	}
	ndim := -1
	if tx.NDim >= 0 && ty.NDim >= 0 {
		ndim = max(tx.NDim, ty.NDim)
	}
	if tx.Shape != nil && ty.Shape != nil {
		out, ok, err := broadcastShapes(c, tx.Shape, ty.Shape)
		if err != nil {
			return nil, err
		}
		if ok {
			return NewTensorSInfo(out, dt), nil
		}
	}
	return unknownTensor(ndim, dt), nil
}

func asTensorOrPrim(c *Call, i int, s StructInfo) (*TensorSInfo, error) {
	switch x := s.(type) {
	case *TensorSInfo:
		return x, nil
	case *PrimSInfo:
		return &TensorSInfo{Shape: []PrimExpr{}, NDim: 0, DType: x.DType}, nil
	}
	return nil, opErr(c, "argument %q must be a tensor or a scalar, got %s", argName(c, i), SInfoString(s))
}

func elemDType(s StructInfo) (DataType, bool) {
	switch x := s.(type) {
	case *TensorSInfo:
		return x.DType, true
	case *PrimSInfo:
		return x.DType, true
	}
	return runtime.Void, false
}

// ---- elementwise ----

// inferUnary returns the input's struct info (with dtype replaced by out
// when out is not Void). floatOnly rejects integer inputs.
func inferUnary(floatOnly bool, out DataType) func(*Call, *InferCtx) (StructInfo, error) {
	return func(c *Call, _ *InferCtx) (StructInfo, error) {
		if err := needArgs(c, 1); err != nil {
			return nil, err
		}
		s := argSInfo(c, 0)
		dt, ok := elemDType(s)
		if !ok {
			return nil, opErr(c, "argument %q must be a tensor or a scalar, got %s", argName(c, 0), SInfoString(s))
		}
		if floatOnly && !dt.IsVoid() && !dt.IsFloat() {
			return nil, opErr(c, "requires a floating-point input, got %s", dt)
		}
		if out.IsVoid() {
			return s, nil
		}
		switch x := s.(type) {
		case *PrimSInfo:
			return &PrimSInfo{DType: out}, nil
		case *TensorSInfo:
			return &TensorSInfo{Shape: x.Shape, NDim: x.NDim, DType: out}, nil
		}
		return s, nil
	}
}

// inferBinary infers a broadcasting binary op; cmp ops produce bool.
func inferBinary(cmp bool) func(*Call, *InferCtx) (StructInfo, error) {
	return func(c *Call, _ *InferCtx) (StructInfo, error) {
		if err := needArgs(c, 2); err != nil {
			return nil, err
		}
		x, y := argSInfo(c, 0), argSInfo(c, 1)
		dx, okx := elemDType(x)
		dy, oky := elemDType(y)
		if !okx {
			return nil, opErr(c, "argument %q must be a tensor or a scalar, got %s", argName(c, 0), SInfoString(x))
		}
		if !oky {
			return nil, opErr(c, "argument %q must be a tensor or a scalar, got %s", argName(c, 1), SInfoString(y))
		}
		dt, err := binaryDType(c, dx, dy)
		if err != nil {
			return nil, err
		}
		if cmp {
			dt = runtime.Bool
		}
		return broadcastSInfo(c, x, y, dt)
	}
}

func inferWhere(c *Call, _ *InferCtx) (StructInfo, error) {
	if err := needArgs(c, 3); err != nil {
		return nil, err
	}
	cond, err := tensorArg(c, 0, true)
	if err != nil {
		return nil, err
	}
	x, err := tensorArg(c, 1, true)
	if err != nil {
		return nil, err
	}
	y, err := tensorArg(c, 2, true)
	if err != nil {
		return nil, err
	}
	if !cond.DType.IsVoid() && !cond.DType.IsBool() {
		return nil, opErr(c, "condition must be bool, got %s", cond.DType)
	}
	dt, err := binaryDType(c, x.DType, y.DType)
	if err != nil {
		return nil, err
	}
	xy, err := broadcastSInfo(c, x, y, dt)
	if err != nil {
		return nil, err
	}
	return broadcastSInfo(c, cond, xy, dt)
}

func inferClip(c *Call, _ *InferCtx) (StructInfo, error) {
	if err := needArgs(c, 1); err != nil {
		return nil, err
	}
	for i := 1; i < len(c.Args) && i < 3; i++ {
		switch argSInfo(c, i).(type) {
		case *PrimSInfo, *TensorSInfo, nil:
		default:
			return nil, opErr(c, "%s must be a scalar, got %s", argName(c, i), SInfoString(argSInfo(c, i)))
		}
	}
	return inferUnary(false, runtime.Void)(c, nil)
}

func inferSoftmax(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	if !x.DType.IsVoid() && !x.DType.IsFloat() {
		return nil, opErr(c, "requires a floating-point input, got %s", x.DType)
	}
	if x.NDim >= 0 {
		axis, _ := c.AttrInt64("axis")
		if _, err := normAxis(c, x.NDim, axis); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// inferFirstArg returns the struct info of argument 0 unchanged.
func inferFirstArg(c *Call, _ *InferCtx) (StructInfo, error) {
	if err := needArgs(c, 1); err != nil {
		return nil, err
	}
	return argSInfo(c, 0), nil
}
