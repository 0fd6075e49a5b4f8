package ir

// memory.view(data, shape=None, dtype=None, relative_byte_offset=None), as in
// TVM's relax.op.memory.view: a tensor over data's bytes with a new shape
// and/or dtype, starting relative_byte_offset bytes in. Absent arguments are
// R.null_value() (or an empty tuple) and keep data's shape, dtype or offset.
func init() {
	reg("relax.memory.view", true, inferView, args(arg("data"),
		optArg("shape", ArgExpr), optArg("dtype", ArgExpr), optArg("relative_byte_offset", ArgExpr)))
}

// viewArgAbsent reports whether argument i is missing, R.null_value() or ().
func viewArgAbsent(c *Call, i int) bool {
	if i >= len(c.Args) || c.Args[i] == nil {
		return true
	}
	if cc, ok := c.Args[i].(*Call); ok && cc.OpName() == "relax.null_value" {
		return true
	}
	if t, ok := c.Args[i].(*Tuple); ok && len(t.Fields) == 0 {
		return true
	}
	switch c.Args[i].(type) {
	case *DataTypeImm, *ShapeExpr, *PrimValue:
		return false
	}
	switch s := argSInfo(c, i).(type) {
	case *ObjectSInfo:
		return true
	case *TupleSInfo:
		return len(s.Fields) == 0
	}
	return false
}

func inferView(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	out := &TensorSInfo{Shape: x.Shape, NDim: x.NDim, DType: x.DType}
	if !viewArgAbsent(c, 1) {
		vals, n, err := shapeArg(c, 1)
		if err != nil {
			return nil, err
		}
		out.Shape, out.NDim = vals, n
	}
	if !viewArgAbsent(c, 2) {
		d, ok := c.Args[2].(*DataTypeImm)
		if !ok {
			return nil, opErr(c, "dtype must be a data type (R.dtype(...)), got %s", SInfoString(argSInfo(c, 2)))
		}
		if d.Value.IsVoid() {
			return nil, opErr(c, "dtype must be a concrete data type; use R.null_value() for no change")
		}
		out.DType = d.Value
	}
	var offset int64
	if !viewArgAbsent(c, 3) {
		p, ok := primArg(c, 3)
		if !ok || !p.DType().IsInt() {
			return nil, opErr(c, "relative_byte_offset must be an integer PrimValue")
		}
		offset, _ = AsInt(Simplify(p))
	}
	if viewArgAbsent(c, 1) && out.DType != x.DType && !x.DType.IsVoid() && out.DType.ElemBytes() > x.DType.ElemBytes() {
		return nil, opErr(c, "changing dtype from %s to %s increases the element size; give a new shape", x.DType, out.DType)
	}
	if x.Shape != nil && out.Shape != nil && !x.DType.IsVoid() && !out.DType.IsVoid() {
		in, ok1 := AsInt(Simplify(Mul(prod(x.Shape), Int64(int64(x.DType.ElemBytes())))))
		o, ok2 := AsInt(Simplify(Mul(prod(out.Shape), Int64(int64(out.DType.ElemBytes())))))
		if ok1 && ok2 && offset+o > in {
			return nil, opErr(c, "the view (%d bytes at offset %d) exceeds the %d bytes of data", o, offset, in)
		}
	}
	return out, nil
}
