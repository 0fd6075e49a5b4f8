package ir

import "fmt"

// Normalize infers and records the struct info of every expression and
// every bound variable of the module's Relax functions, canonicalizing op
// calls on the way, and derives each Function's FuncSInfo (its Ret is
// inferred from the body when not annotated). An annotated variable keeps
// its annotation when the inferred struct info may satisfy it (TVM's rule:
// only provable contradictions are errors, reported as "type mismatch").
// Normalize is idempotent.
func Normalize(m *Module) error {
	n := &normalizer{m: m, ctx: &InferCtx{Module: m}, done: map[*Function]bool{}}
	// Signatures first, so calls (including recursive ones) see them.
	for _, f := range m.RelaxFuncs() {
		if f.Ret != nil {
			f.SetSInfo(funcSignature(f))
		}
	}
	for _, f := range m.RelaxFuncs() {
		if err := n.function(f); err != nil {
			return err
		}
	}
	return nil
}

type normalizer struct {
	m    *Module
	ctx  *InferCtx
	sym  map[*PrimVar]bool // symbolic variables defined so far in the current function
	done map[*Function]bool
	busy []*Function
}

// funcSignature is f's FuncSInfo from its parameter annotations and Ret.
func funcSignature(f *Function) *FuncSInfo {
	ps := make([]StructInfo, len(f.Params))
	for i, p := range f.Params {
		ps[i] = p.SInfo()
		if ps[i] == nil {
			ps[i] = &ObjectSInfo{}
		}
	}
	ret := f.Ret
	if ret == nil {
		ret = &ObjectSInfo{}
	}
	return &FuncSInfo{Params: ps, Ret: ret, Pure: f.Pure}
}

// errAt prefixes an error with a source location (and the function name when the location is unknown).
func errAt(sp Span, fn *Function, format string, a ...any) error {
	msg := fmt.Sprintf(format, a...)
	if sp.Line > 0 {
		return fmt.Errorf("%s: %s", sp, msg)
	}
	if fn != nil && fn.Name != "" {
		return fmt.Errorf("function %s: %s", fn.Name, msg)
	}
	return fmt.Errorf("%s", msg)
}

func (n *normalizer) function(f *Function) error {
	if n.done[f] {
		return nil
	}
	for _, b := range n.busy {
		if b == f {
			return errAt(f.Loc, f, "cannot infer the return type of recursive function %s: annotate its return type", f.Name)
		}
	}
	n.busy = append(n.busy, f)
	defer func() { n.busy = n.busy[:len(n.busy)-1] }()
	outer := n.sym
	n.sym = map[*PrimVar]bool{}
	for v := range outer {
		n.sym[v] = true
	}
	defer func() { n.sym = outer }()
	for _, p := range f.Params {
		if p.SInfo() == nil {
			return errAt(f.Loc, f, "parameter %s has no type annotation", p.Name)
		}
		for _, v := range CollectSymVars(p.SInfo()) {
			n.sym[v] = true
		}
	}
	if f.Body == nil {
		return errAt(f.Loc, f, "function %s has no body", f.Name)
	}
	bs, err := n.seq(f.Body, f)
	if err != nil {
		return err
	}
	if f.Ret == nil {
		f.Ret = EraseToWellDefined(bs, func(v *PrimVar) bool { return n.paramSym(f, v) })
	} else if !MayBeBaseOf(f.Ret, bs) {
		return errAt(f.Body.Loc, f, "type mismatch: function %s returns %s but is annotated %s", f.Name, SInfoString(bs), SInfoString(f.Ret))
	}
	f.SetSInfo(funcSignature(f))
	n.done[f] = true
	return nil
}

func (n *normalizer) paramSym(f *Function, v *PrimVar) bool {
	for _, p := range f.Params {
		for _, s := range CollectSymVars(p.SInfo()) {
			if s == v {
				return true
			}
		}
	}
	return false
}

func (n *normalizer) seq(s *SeqExpr, fn *Function) (StructInfo, error) {
	entry := map[*PrimVar]bool{}
	for v := range n.sym {
		entry[v] = true
	}
	for _, blk := range s.Blocks {
		for _, b := range blk.Bindings {
			if err := n.binding(b, fn); err != nil {
				return nil, err
			}
		}
	}
	if s.Body == nil {
		return nil, errAt(s.Loc, fn, "function %s: block has no result value", fn.Name)
	}
	bs, err := n.expr(s.Body, fn)
	if err != nil {
		return nil, err
	}
	// Symbolic variables defined inside the sequence (by match_cast) go out of scope.
	res := bs
	if len(entry) != len(n.sym) {
		res = EraseToWellDefined(bs, func(v *PrimVar) bool { return entry[v] })
	}
	n.sym = entry
	s.SetSInfo(res)
	return res, nil
}

func (n *normalizer) binding(b Binding, fn *Function) error {
	v := b.BoundVar()
	switch x := b.(type) {
	case *VarBinding:
		if f, ok := x.Value.(*Function); ok && f.Name == "" {
			f.Name = v.Name
		}
		inf, err := n.expr(x.Value, fn)
		if err != nil {
			return withSpan(err, x.Loc, fn)
		}
		if ann := v.SInfo(); ann != nil {
			if !MayBeBaseOf(ann, inf) {
				return errAt(x.Loc, fn, "type mismatch: variable %s is annotated %s but its value has type %s", v.Name, SInfoString(ann), SInfoString(inf))
			}
			// An annotation that leaves out the dtype (R.Tensor((1, 6, 1)),
			// as TVM prints some frontends' bindings) takes the value's
			// dtype, so the ops that use the variable know their types.
			// Its shape, which may declare symbolic variables, is kept.
			if at, ok := ann.(*TensorSInfo); ok && at.DType.IsVoid() {
				if it, ok := inf.(*TensorSInfo); ok && !it.DType.IsVoid() {
					refined := *at
					refined.DType = it.DType
					v.SetSInfo(&refined)
				}
			}
			return nil
		}
		v.SetSInfo(inf)
	case *MatchCast:
		inf, err := n.expr(x.Value, fn)
		if err != nil {
			return withSpan(err, x.Loc, fn)
		}
		if x.Info == nil {
			return errAt(x.Loc, fn, "match_cast of %s has no target type", v.Name)
		}
		if sinfoBaseCheck(x.Info, inf) == baseFailL0 && sinfoBaseCheck(inf, x.Info) == baseFailL0 {
			return errAt(x.Loc, fn, "type mismatch: match_cast of a value of type %s to %s can never succeed", SInfoString(inf), SInfoString(x.Info))
		}
		if ann := v.SInfo(); ann != nil && ann != x.Info && !SInfoEqual(ann, x.Info) {
			return errAt(x.Loc, fn, "type mismatch: variable %s is annotated %s but match_cast gives %s", v.Name, SInfoString(ann), SInfoString(x.Info))
		}
		for _, sv := range CollectSymVars(x.Info) {
			n.sym[sv] = true
		}
		v.SetSInfo(x.Info)
	default:
		return errAt(b.Pos(), fn, "unknown binding %T", b)
	}
	return nil
}

// withSpan adds a location to errors that do not have one yet.
func withSpan(err error, sp Span, fn *Function) error {
	if _, ok := err.(*locatedError); ok {
		return err
	}
	if sp.Line > 0 {
		return &locatedError{fmt.Errorf("%s: %w", sp, err)}
	}
	if fn != nil && fn.Name != "" {
		return &locatedError{fmt.Errorf("function %s: %w", fn.Name, err)}
	}
	return err
}

type locatedError struct{ err error }

// Error returns the located message.
func (e *locatedError) Error() string { return e.err.Error() }

// Unwrap returns the underlying error.
func (e *locatedError) Unwrap() error { return e.err }

func (n *normalizer) expr(e Expr, fn *Function) (StructInfo, error) {
	s, err := n.infer(e, fn)
	if err != nil {
		if _, ok := err.(*locatedError); !ok && e.Pos().Line > 0 {
			return nil, &locatedError{fmt.Errorf("%s: %w", e.Pos(), err)}
		}
		return nil, err
	}
	if s != nil {
		if _, isVar := e.(*Var); !isVar {
			e.SetSInfo(s)
		}
	}
	return s, nil
}

func (n *normalizer) infer(e Expr, fn *Function) (StructInfo, error) {
	switch x := e.(type) {
	case nil:
		return nil, fmt.Errorf("missing expression")
	case *Var:
		if x.SInfo() == nil {
			return nil, fmt.Errorf("variable %s is used before it is defined", x.Name)
		}
		return x.SInfo(), nil
	case *GlobalVar:
		switch f := n.m.Funcs[x.Name].(type) {
		case *Function:
			if f.SInfo() == nil {
				if err := n.function(f); err != nil {
					return nil, err
				}
			}
			return f.SInfo(), nil
		case *PrimFunc:
			return &FuncSInfo{Opaque: true, Pure: true}, nil
		}
		return nil, fmt.Errorf("unknown function %s", x.Name)
	case *ExternFunc:
		if fs, ok := x.SInfo().(*FuncSInfo); ok {
			return fs, nil // R.ExternFunc("f", R.Callable(...)) keeps its type
		}
		return &FuncSInfo{Opaque: true}, nil
	case *Op:
		return &ObjectSInfo{}, nil
	case *Constant:
		if x.Value == nil {
			if x.SInfo() != nil {
				return x.SInfo(), nil
			}
			return nil, fmt.Errorf("constant without a value")
		}
		shape := x.Value.Shape()
		s := make([]int64, len(shape))
		copy(s, shape)
		return StaticTensorSInfo(s, x.Value.DType()), nil
	case *ShapeExpr:
		return &ShapeSInfo{Values: x.Values, NDim: len(x.Values)}, nil
	case *PrimValue:
		if x.Value == nil {
			return nil, fmt.Errorf("prim_value without a value")
		}
		return &PrimSInfo{DType: x.Value.DType(), Value: x.Value}, nil
	case *StringImm, *DataTypeImm:
		return &ObjectSInfo{}, nil
	case *Tuple:
		fs := make([]StructInfo, len(x.Fields))
		for i, f := range x.Fields {
			s, err := n.expr(f, fn)
			if err != nil {
				return nil, err
			}
			fs[i] = s
		}
		return &TupleSInfo{fs}, nil
	case *TupleGetItem:
		ts, err := n.expr(x.Tuple, fn)
		if err != nil {
			return nil, err
		}
		switch t := ts.(type) {
		case *TupleSInfo:
			if x.Index < 0 || x.Index >= len(t.Fields) {
				return nil, fmt.Errorf("tuple index %d is out of range for %s", x.Index, SInfoString(ts))
			}
			return t.Fields[x.Index], nil
		case *ObjectSInfo:
			return &ObjectSInfo{}, nil
		}
		return nil, fmt.Errorf("cannot index a value of type %s", SInfoString(ts))
	case *If:
		cs, err := n.expr(x.Cond, fn)
		if err != nil {
			return nil, err
		}
		if !isCondSInfo(cs) {
			return nil, fmt.Errorf("if condition must be a bool or int scalar, got %s", SInfoString(cs))
		}
		if x.Then == nil || x.Else == nil {
			return nil, fmt.Errorf("if without both branches")
		}
		ts, err := n.seq(x.Then, fn)
		if err != nil {
			return nil, err
		}
		es, err := n.seq(x.Else, fn)
		if err != nil {
			return nil, err
		}
		return SInfoJoin(ts, es), nil
	case *SeqExpr:
		return n.seq(x, fn)
	case *Function:
		if err := n.function(x); err != nil {
			return nil, err
		}
		return x.SInfo(), nil
	case *Call:
		return n.call(x, fn)
	}
	return nil, fmt.Errorf("unknown expression %T", e)
}

func isCondSInfo(s StructInfo) bool {
	ok := func(dt DataType) bool { return dt.IsVoid() || dt.IsBool() || dt.IsInt() || dt.IsUInt() }
	switch x := s.(type) {
	case *PrimSInfo:
		return ok(x.DType)
	case *TensorSInfo:
		return (x.NDim == 0 || x.NDim == -1) && ok(x.DType)
	case *ObjectSInfo:
		return true
	}
	return false
}

func (n *normalizer) call(c *Call, fn *Function) (StructInfo, error) {
	if _, isOp := c.Callee.(*Op); isOp {
		if err := CanonicalizeCall(c); err != nil {
			return nil, err
		}
		for _, a := range c.Args {
			if a == nil {
				continue
			}
			if _, err := n.expr(a, fn); err != nil {
				return nil, err
			}
		}
		s, err := InferCall(c, n.ctx)
		if err != nil {
			return nil, err
		}
		return n.erase(s), nil
	}
	if len(c.Attrs) > 0 {
		if err := CanonicalizeCall(c); err != nil {
			return nil, err
		}
	}
	cs, err := n.expr(c.Callee, fn)
	if err != nil {
		return nil, err
	}
	argInfos := make([]StructInfo, len(c.Args))
	for i, a := range c.Args {
		s, err := n.expr(a, fn)
		if err != nil {
			return nil, err
		}
		argInfos[i] = s
	}
	fs, ok := cs.(*FuncSInfo)
	if !ok {
		if _, isObj := cs.(*ObjectSInfo); isObj {
			return sinfoArgsResult(c, &ObjectSInfo{}), nil
		}
		return nil, fmt.Errorf("%s is not callable (type %s)", callName(c), SInfoString(cs))
	}
	if fs.Opaque || fs.Params == nil {
		return sinfoArgsResult(c, &ObjectSInfo{}), nil
	}
	if len(fs.Params) != len(c.Args) {
		return nil, fmt.Errorf("call to %s: expects %d arguments, got %d", callName(c), len(fs.Params), len(c.Args))
	}
	// Bind the callee's symbolic variables from the arguments, then check them.
	bind := map[*PrimVar]PrimExpr{}
	for i, p := range fs.Params {
		matchSym(p, argInfos[i], bind)
	}
	for i, p := range fs.Params {
		want := SubstSInfo(p, bind)
		if !MayBeBaseOf(want, argInfos[i]) {
			return nil, fmt.Errorf("call to %s: argument %d has type %s, want %s", callName(c), i, SInfoString(argInfos[i]), SInfoString(want))
		}
	}
	return n.erase(SubstSInfo(fs.Ret, bind)), nil
}

// matchSym binds the symbolic variables that appear as whole dimensions of
// a parameter's struct info to the argument's corresponding dimensions.
func matchSym(param, arg StructInfo, bind map[*PrimVar]PrimExpr) {
	dims := func(pd, ad []PrimExpr) {
		if pd == nil || ad == nil || len(pd) != len(ad) {
			return
		}
		for i, d := range pd {
			if v, ok := d.(*PrimVar); ok {
				if _, done := bind[v]; !done {
					bind[v] = ad[i]
				}
			}
		}
	}
	switch p := param.(type) {
	case *TensorSInfo:
		if a, ok := arg.(*TensorSInfo); ok {
			dims(p.Shape, a.Shape)
		}
	case *ShapeSInfo:
		if a, ok := arg.(*ShapeSInfo); ok {
			dims(p.Values, a.Values)
		}
	case *PrimSInfo:
		if a, ok := arg.(*PrimSInfo); ok && p.Value != nil && a.Value != nil {
			dims([]PrimExpr{p.Value}, []PrimExpr{a.Value})
		}
	case *TupleSInfo:
		if a, ok := arg.(*TupleSInfo); ok && len(a.Fields) == len(p.Fields) {
			for i := range p.Fields {
				matchSym(p.Fields[i], a.Fields[i], bind)
			}
		}
	}
}

// erase drops symbolic dimensions not defined in the current function.
func (n *normalizer) erase(s StructInfo) StructInfo {
	return EraseToWellDefined(s, func(v *PrimVar) bool { return n.sym[v] })
}
