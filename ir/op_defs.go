package ir

// Registration of the Relax operators. Attribute orders follow TVM's C++
// attrs structs (the printing order); PyOrder follows the Python signature.

func arg(name string) ArgDef                { return ArgDef{Name: name} }
func argK(name string, k ArgKind) ArgDef    { return ArgDef{Name: name, Kind: k} }
func optArg(name string, k ArgKind) ArgDef  { return ArgDef{Name: name, Kind: k, Optional: true} }
func varArgs(name string, k ArgKind) ArgDef { return ArgDef{Name: name, Kind: k, Variadic: true} }
func defArg(name string, k ArgKind, d any) ArgDef {
	return ArgDef{Name: name, Kind: k, Default: d}
}

func attrI(name string, d int64) AttrDef      { return AttrDef{Name: name, Kind: AttrInt, Default: d} }
func attrF(name string, d float64) AttrDef    { return AttrDef{Name: name, Kind: AttrFloat, Default: d} }
func attrB(name string, d bool) AttrDef       { return AttrDef{Name: name, Kind: AttrBool, Default: d} }
func attrS(name string, d string) AttrDef     { return AttrDef{Name: name, Kind: AttrString, Default: d} }
func attrDT(name string) AttrDef              { return AttrDef{Name: name, Kind: AttrDType} }
func attrReq(name string, k AttrKind) AttrDef { return AttrDef{Name: name, Kind: k, Required: true} }
func attrOptI(name string) AttrDef            { return AttrDef{Name: name, Kind: AttrInt, Optional: true} }
func attrOptInts(name string) AttrDef         { return AttrDef{Name: name, Kind: AttrIntList, Optional: true} }
func attrInts(name string, n int, d ...int64) AttrDef {
	v := make([]any, len(d))
	for i, x := range d {
		v[i] = x
	}
	return AttrDef{Name: name, Kind: AttrIntList, Len: n, Default: v}
}

func reg(name string, pure bool, infer func(*Call, *InferCtx) (StructInfo, error), args []ArgDef, attrs ...AttrDef) *OpDef {
	d := &OpDef{Name: name, Args: args, Attrs: attrs, Infer: infer, Pure: pure}
	RegisterOp(d)
	return d
}

func args(a ...ArgDef) []ArgDef { return a }
