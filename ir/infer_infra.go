package ir

// Inference of infrastructure ops (call_tir, packed calls, closures, memory).

// sinfoArgsResult is SInfoArgs[0], a tuple of SInfoArgs when there are
// several, or def when there are none.
func sinfoArgsResult(c *Call, def StructInfo) StructInfo {
	switch len(c.SInfoArgs) {
	case 0:
		return def
	case 1:
		return c.SInfoArgs[0]
	}
	return &TupleSInfo{append([]StructInfo{}, c.SInfoArgs...)}
}

func inferCallTIR(c *Call, ctx *InferCtx) (StructInfo, error) {
	if err := needArgs(c, 2); err != nil {
		return nil, err
	}
	if len(c.SInfoArgs) == 0 {
		return nil, opErr(c, "needs the output struct info (out_sinfo/out_ty)")
	}
	if _, ok := argSInfo(c, 1).(*TupleSInfo); !ok {
		return nil, opErr(c, "args must be a tuple, got %s", SInfoString(argSInfo(c, 1)))
	}
	if len(c.Args) > 2 && c.Args[2] != nil {
		if _, ok := argSInfo(c, 2).(*ShapeSInfo); !ok {
			return nil, opErr(c, "tir_vars must be a shape, got %s", SInfoString(argSInfo(c, 2)))
		}
	}
	if gv, ok := c.Args[0].(*GlobalVar); ok && ctx != nil && ctx.Module != nil {
		if f, ok := ctx.Module.Funcs[gv.Name]; ok {
			if _, isPrim := f.(*PrimFunc); !isPrim && c.OpName() == "relax.call_tir" {
				return nil, opErr(c, "%s is not a PrimFunc", gv.Name)
			}
		}
	}
	for _, s := range c.SInfoArgs {
		if err := checkOutSInfo(c, s); err != nil {
			return nil, err
		}
	}
	return sinfoArgsResult(c, nil), nil
}

func checkOutSInfo(c *Call, s StructInfo) error {
	switch x := s.(type) {
	case *TensorSInfo:
		return nil
	case *TupleSInfo:
		for _, f := range x.Fields {
			if err := checkOutSInfo(c, f); err != nil {
				return err
			}
		}
		return nil
	}
	return opErr(c, "output struct info must be tensors, got %s", SInfoString(s))
}

// inferSInfoArgs returns the explicit result type, or Object when absent.
func inferSInfoArgs(c *Call, _ *InferCtx) (StructInfo, error) {
	if len(c.Args) == 0 || c.Args[0] == nil {
		return nil, opErr(c, "missing callee")
	}
	return sinfoArgsResult(c, &ObjectSInfo{}), nil
}

func inferObject(c *Call, _ *InferCtx) (StructInfo, error) { return &ObjectSInfo{}, nil }

func inferVoid(c *Call, _ *InferCtx) (StructInfo, error) { return VoidSInfo(), nil }

func inferMakeClosure(c *Call, ctx *InferCtx) (StructInfo, error) {
	if err := needArgs(c, 2); err != nil {
		return nil, err
	}
	if _, ok := argSInfo(c, 1).(*TupleSInfo); !ok {
		return nil, opErr(c, "captured values must be a tuple, got %s", SInfoString(argSInfo(c, 1)))
	}
	return &FuncSInfo{Opaque: true}, nil
}

func inferInvokeClosure(c *Call, _ *InferCtx) (StructInfo, error) {
	if err := needArgs(c, 2); err != nil {
		return nil, err
	}
	switch argSInfo(c, 0).(type) {
	case *FuncSInfo, *ObjectSInfo:
	default:
		return nil, opErr(c, "closure must be callable, got %s", SInfoString(argSInfo(c, 0)))
	}
	return sinfoArgsResult(c, &ObjectSInfo{}), nil
}

func inferShapeOf(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	if x.Shape != nil {
		return &ShapeSInfo{Values: append([]PrimExpr{}, x.Shape...), NDim: len(x.Shape)}, nil
	}
	return &ShapeSInfo{NDim: x.NDim}, nil
}

// inferAllocTensor builds a tensor from the shape argument shapeIdx and the
// dtype argument dtypeIdx (a DataTypeImm).
func inferAllocTensor(shapeIdx, dtypeIdx int) func(*Call, *InferCtx) (StructInfo, error) {
	return func(c *Call, _ *InferCtx) (StructInfo, error) {
		if err := needArgs(c, max(shapeIdx, dtypeIdx)+1); err != nil {
			return nil, err
		}
		vals, nd, err := shapeArg(c, shapeIdx)
		if err != nil {
			return nil, err
		}
		dti, ok := c.Args[dtypeIdx].(*DataTypeImm)
		if !ok {
			return nil, opErr(c, "dtype must be a dtype literal, got %s", exprKind(c.Args[dtypeIdx]))
		}
		if vals == nil {
			return unknownTensor(nd, dti.Value), nil
		}
		return NewTensorSInfo(append([]PrimExpr{}, vals...), dti.Value), nil
	}
}

func inferAssert(c *Call, _ *InferCtx) (StructInfo, error) {
	if err := needArgs(c, 1); err != nil {
		return nil, err
	}
	s := argSInfo(c, 0)
	ok := false
	switch x := s.(type) {
	case *PrimSInfo:
		ok = x.DType.IsBool()
	case *TensorSInfo:
		ok = x.NDim == 0 && (x.DType.IsBool() || x.DType.IsVoid())
	}
	if !ok {
		return nil, opErr(c, "condition must be a boolean scalar, got %s", SInfoString(s))
	}
	return VoidSInfo(), nil
}
