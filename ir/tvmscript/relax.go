package tvmscript

import (
	"maps"
	"strings"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// rscope is a lexical scope of Relax variables.
type rscope struct {
	parent *rscope
	vars   map[string]*ir.Var
}

func (s *rscope) lookup(name string) (*ir.Var, bool) {
	for ; s != nil; s = s.parent {
		if v, ok := s.vars[name]; ok {
			return v, true
		}
	}
	return nil, false
}

func (s *rscope) child() *rscope { return &rscope{parent: s, vars: map[string]*ir.Var{}} }

// rfn is the state of one Relax function being parsed.
type rfn struct {
	f   *ir.Function
	sym map[string]*ir.PrimVar
}

// relaxFunc converts one Relax function. A nested function gets its
// enclosing function's env, whose symbolic variables it shares (they are
// Python variables of the enclosing scope in TVM's parser); outerEnv is nil
// at module level.
func (p *parser) relaxFunc(fd *funcDef, kws []kwarg, outer *rscope, outerEnv *rfn) (*ir.Function, error) {
	f := &ir.Function{Name: fd.name, Pure: true}
	f.Loc = fd.p
	for _, k := range kws {
		switch k.name {
		case "pure":
			b, err := boolKw(p, k)
			if err != nil {
				return nil, err
			}
			f.Pure = b
		case "private":
			b, err := boolKw(p, k)
			if err != nil {
				return nil, err
			}
			f.Private = b
		default:
			return nil, p.errorf(k.p, "unknown argument %q of @R.function", k.name)
		}
	}
	env := &rfn{f: f, sym: map[string]*ir.PrimVar{}}
	if outerEnv != nil {
		maps.Copy(env.sym, outerEnv.sym)
	}
	scope := outer.child()
	for _, pr := range fd.params {
		if pr.ann == nil {
			return nil, p.errorf(pr.p, "parameter %q needs a struct info annotation", pr.name)
		}
		if pr.def != nil {
			return nil, p.errorf(pr.def.pos(), "parameters cannot have default values")
		}
		si, err := p.sinfo(pr.ann, env, true)
		if err != nil {
			return nil, err
		}
		v := &ir.Var{Name: pr.name}
		v.Info = si
		v.Loc = pr.p
		if _, dup := scope.vars[pr.name]; dup {
			return nil, p.errorf(pr.p, "duplicate parameter %q", pr.name)
		}
		scope.vars[pr.name] = v
		f.Params = append(f.Params, v)
	}
	if fd.ret != nil {
		si, err := p.sinfo(fd.ret, env, true)
		if err != nil {
			return nil, err
		}
		f.Ret = si
	}
	body, err := p.relaxSeq(fd.body, env, scope, seqFunc, fd.p)
	if err != nil {
		return nil, err
	}
	f.Body = body
	return f, nil
}

type seqKind int

const (
	seqFunc seqKind = iota
	seqBranch
)

// relaxSeq parses a function body or an if branch into a SeqExpr. For a
// branch, the last binding provides the result (see branchResult).
func (p *parser) relaxSeq(stmts []stmt, env *rfn, scope *rscope, kind seqKind, pos ir.Span) (*ir.SeqExpr, error) {
	seq := &ir.SeqExpr{}
	seq.Loc = pos
	var cur *ir.BindingBlock
	flush := func() {
		if cur != nil && len(cur.Bindings) > 0 {
			seq.Blocks = append(seq.Blocks, cur)
		}
		cur = nil
	}
	add := func(b ir.Binding) {
		if cur == nil {
			cur = &ir.BindingBlock{Loc: b.Pos()}
		}
		cur.Bindings = append(cur.Bindings, b)
	}
	returned := false
	for _, s := range stmts {
		if returned {
			return nil, p.errorf(s.pos(), "statement after return")
		}
		switch x := s.(type) {
		case *withStmt:
			if len(x.items) != 1 || x.items[0].as != nil {
				return nil, p.errorf(x.p, "unsupported with statement in a Relax function; expected `with R.dataflow():`")
			}
			c, ok := p.isCall(x.items[0].x, "relax", "dataflow")
			if !ok || len(c.args)+len(c.kw) != 0 {
				return nil, p.errorf(x.p, "unsupported with statement in a Relax function; expected `with R.dataflow():`")
			}
			flush()
			blk, err := p.dataflowBlock(x, env, scope)
			if err != nil {
				return nil, err
			}
			if len(blk.Bindings) > 0 {
				seq.Blocks = append(seq.Blocks, blk)
			}
		case *returnStmt:
			if kind != seqFunc {
				return nil, p.errorf(x.p, "return inside an if branch is not supported; end each branch with a binding of the result variable")
			}
			if x.x == nil {
				return nil, p.errorf(x.p, "a Relax function must return a value")
			}
			e, err := p.rexpr(x.x, env, scope)
			if err != nil {
				return nil, err
			}
			seq.Body = e
			returned = true
		case *ifStmt:
			b, err := p.ifBinding(x, env, scope)
			if err != nil {
				return nil, err
			}
			add(b)
		default:
			handled, err := p.prelude(s, env, kind == seqFunc)
			if err != nil {
				return nil, err
			}
			if handled {
				continue
			}
			bs, err := p.bindings(s, env, scope, false)
			if err != nil {
				return nil, err
			}
			for _, b := range bs {
				add(b)
			}
		}
	}
	flush()
	if kind == seqFunc && !returned {
		return nil, p.errorf(pos, "function %q has no return statement", env.f.Name)
	}
	return seq, nil
}

// prelude handles the non-binding statements of a function body:
// `n = T.int64()`, `R.func_attr({...})`, `cls = Module`, docstrings, pass.
func (p *parser) prelude(s stmt, env *rfn, top bool) (bool, error) {
	switch x := s.(type) {
	case *passStmt:
		return true, nil
	case *exprStmt:
		if _, ok := x.x.(*strLit); ok {
			return true, nil
		}
		if c, ok := p.isCall(x.x, "relax", "func_attr"); ok {
			if !top {
				return false, p.errorf(x.p, "R.func_attr must be at the top level of a function body")
			}
			if len(c.args) != 1 || len(c.kw) != 0 {
				return false, p.errorf(c.p, "R.func_attr takes one dict argument")
			}
			a, err := p.attrDict(c.args[0], false)
			if err != nil {
				return false, err
			}
			env.f.Attrs = append(env.f.Attrs, a...)
			return true, nil
		}
	case *assignStmt:
		if x.value == nil {
			return false, nil
		}
		if t, ok := x.target.(*tupleExpr); ok && x.ann == nil {
			// b, s = T.int64(), T.int64(): one declaration per name.
			v, ok := x.value.(*tupleExpr)
			if !ok || len(v.elts) != len(t.elts) || !p.allSymDecls(v.elts) {
				return false, nil
			}
			for i, e := range t.elts {
				n, ok := e.(*nameExpr)
				if !ok {
					return false, p.errorf(e.pos(), "unsupported assignment target %s; declare symbolic variables by name", describeFor(e))
				}
				if err := p.declareSym(env, n, v.elts[i].(*callExpr)); err != nil {
					return false, err
				}
			}
			return true, nil
		}
		n, ok := x.target.(*nameExpr)
		if !ok {
			return false, nil
		}
		if v, ok := x.value.(*nameExpr); ok && p.clsNames[v.name] {
			if x.ann != nil {
				return false, p.errorf(x.p, "the module alias cannot be annotated")
			}
			p.clsNames[n.name] = true
			return true, nil
		}
		if p.allSymDecls([]expr{x.value}) {
			return true, p.declareSym(env, n, x.value.(*callExpr))
		}
	}
	return false, nil
}

// allSymDecls reports whether every expression is a symbolic-variable
// declaration, T.<dtype>() with no arguments.
func (p *parser) allSymDecls(es []expr) bool {
	for _, e := range es {
		c, ok := e.(*callExpr)
		if !ok || len(c.args) != 0 || len(c.kw) != 0 {
			return false
		}
		if k, _ := p.ns(c.fn); k != "tir" {
			return false
		}
	}
	return true
}

// declareSym declares the symbolic variable n = T.<dtype>() of a Relax
// function; redeclaring it with the same type is allowed.
func (p *parser) declareSym(env *rfn, n *nameExpr, c *callExpr) error {
	_, rest := p.ns(c.fn)
	dt, ok := dtypeName(rest)
	if !ok || !(dt.IsInt() || dt.IsUInt()) {
		return p.errorf(c.p, "symbolic variables must be integers, found T.%s()", rest)
	}
	if old, ok := env.sym[n.name]; ok {
		if old.Type != dt {
			return p.errorf(n.p, "symbolic variable %q was declared as %s", n.name, old.Type)
		}
		return nil
	}
	env.sym[n.name] = ir.NewPrimVar(n.name, dt)
	return nil
}

func (p *parser) dataflowBlock(w *withStmt, env *rfn, outer *rscope) (*ir.BindingBlock, error) {
	blk := &ir.BindingBlock{Dataflow: true, Loc: w.p}
	scope := outer.child()
	ended := false
	for _, s := range w.body {
		if ended {
			return nil, p.errorf(s.pos(), "no bindings are allowed after R.output")
		}
		if es, ok := s.(*exprStmt); ok {
			if c, ok := p.isCall(es.x, "relax", "output"); ok {
				if len(c.kw) != 0 {
					return nil, p.errorf(c.kw[0].p, "R.output takes variables only")
				}
				for _, a := range c.args {
					n, ok := a.(*nameExpr)
					if !ok {
						return nil, p.errorf(a.pos(), "R.output takes variable names, found %s", describeFor(a))
					}
					v, ok := scope.vars[n.name]
					if !ok {
						return nil, p.errorf(n.p, "R.output: %q is not bound in this dataflow block", n.name)
					}
					v.Dataflow = false
					outer.vars[n.name] = v
				}
				ended = true
				continue
			}
		}
		switch x := s.(type) {
		case *ifStmt:
			return nil, p.errorf(x.p, "if statements are not allowed inside a dataflow block")
		case *withStmt:
			return nil, p.errorf(x.p, "nested with statements are not allowed inside a dataflow block")
		case *returnStmt:
			return nil, p.errorf(x.p, "return inside a dataflow block; call R.output and return after the block")
		}
		if handled, err := p.prelude(s, env, false); err != nil {
			return nil, err
		} else if handled {
			continue
		}
		bs, err := p.bindings(s, env, scope, true)
		if err != nil {
			return nil, err
		}
		blk.Bindings = append(blk.Bindings, bs...)
	}
	return blk, nil
}

// bindings converts one statement into its bindings: one, except for
// tuple unpacking. "a, b = value" is what Python does with a Relax tuple
// value in TVM's parser: each name gets value[i] (a TupleGetItem). A value
// that is not already a variable is bound first, so that it is evaluated
// once.
func (p *parser) bindings(s stmt, env *rfn, scope *rscope, dataflow bool) ([]ir.Binding, error) {
	x, ok := s.(*assignStmt)
	if !ok {
		b, err := p.binding(s, env, scope, dataflow)
		if b == nil || err != nil {
			return nil, err
		}
		return []ir.Binding{b}, nil
	}
	var names []expr
	switch t := x.target.(type) {
	case *tupleExpr:
		names = t.elts
	case *listExpr:
		names = t.elts
	default:
		b, err := p.binding(s, env, scope, dataflow)
		if err != nil {
			return nil, err
		}
		return []ir.Binding{b}, nil
	}
	if x.ann != nil || x.value == nil {
		return nil, p.errorf(x.p, "a tuple-unpacking assignment takes no annotation")
	}
	seen := map[string]bool{}
	for _, n := range names {
		nm, ok := n.(*nameExpr)
		if !ok {
			return nil, p.errorf(n.pos(), "unsupported assignment target %s; unpack into plain names", describeFor(n))
		}
		if seen[nm.name] {
			return nil, p.errorf(n.pos(), "duplicate name %q in a tuple-unpacking assignment", nm.name)
		}
		seen[nm.name] = true
	}
	val, err := p.rexpr(x.value, env, scope)
	if err != nil {
		return nil, err
	}
	var out []ir.Binding
	tup, ok := val.(*ir.Var)
	if !ok {
		// Named after its parts ("_" would print as a void call).
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = n.(*nameExpr).name
		}
		tup = &ir.Var{Name: strings.Join(parts, "_"), Dataflow: dataflow}
		tup.Loc = x.p
		out = append(out, &ir.VarBinding{Var: tup, Value: val, Loc: x.p})
	}
	for i, n := range names {
		nm := n.(*nameExpr)
		v := &ir.Var{Name: nm.name, Dataflow: dataflow}
		v.Loc = nm.p
		item := &ir.TupleGetItem{Tuple: tup, Index: i}
		item.Loc = nm.p
		out = append(out, &ir.VarBinding{Var: v, Value: item, Loc: x.p})
		scope.vars[nm.name] = v
	}
	return out, nil
}

// binding converts one binding statement (or a void call statement).
func (p *parser) binding(s stmt, env *rfn, scope *rscope, dataflow bool) (ir.Binding, error) {
	switch x := s.(type) {
	case *assignStmt:
		n, ok := x.target.(*nameExpr)
		if !ok {
			return nil, p.errorf(x.p, "unsupported assignment target %s; bind one variable per statement", describeFor(x.target))
		}
		if x.value == nil {
			return nil, p.errorf(x.p, "annotation without a value")
		}
		v := &ir.Var{Name: n.name, Dataflow: dataflow}
		v.Loc = n.p
		if x.ann != nil {
			si, err := p.sinfo(x.ann, env, false)
			if err != nil {
				return nil, err
			}
			v.Info = si
		}
		if c, ok := p.isCall(x.value, "relax", "match_cast"); ok {
			a, err := p.args(c, "R.match_cast", "value", "struct_info")
			if err != nil {
				return nil, err
			}
			if a["value"] == nil || a["struct_info"] == nil {
				return nil, p.errorf(c.p, "R.match_cast takes a value and a struct info")
			}
			val, err := p.rexpr(a["value"], env, scope)
			if err != nil {
				return nil, err
			}
			si, err := p.sinfo(a["struct_info"], env, false)
			if err != nil {
				return nil, err
			}
			scope.vars[n.name] = v
			return &ir.MatchCast{Var: v, Value: val, Info: si, Loc: x.p}, nil
		}
		val, err := p.rexpr(x.value, env, scope)
		if err != nil {
			return nil, err
		}
		scope.vars[n.name] = v
		return &ir.VarBinding{Var: v, Value: val, Loc: x.p}, nil
	case *exprStmt:
		val, err := p.rexpr(x.x, env, scope)
		if err != nil {
			return nil, err
		}
		v := &ir.Var{Name: "_", Dataflow: dataflow}
		v.Loc = x.p
		return &ir.VarBinding{Var: v, Value: val, Loc: x.p}, nil
	case *funcDef:
		kind, kws, err := p.decorator(x)
		if err != nil {
			return nil, err
		}
		if kind != "relax" {
			return nil, p.errorf(x.p, "only @R.function may be nested in a Relax function")
		}
		f, err := p.relaxFunc(x, kws, scope, env)
		if err != nil {
			return nil, err
		}
		v := &ir.Var{Name: x.name, Dataflow: dataflow}
		v.Loc = x.p
		scope.vars[x.name] = v
		return &ir.VarBinding{Var: v, Value: f, Loc: x.p}, nil
	case *augAssignStmt:
		return nil, p.errorf(x.p, "augmented assignment is not supported in Relax")
	}
	return nil, p.errorf(s.pos(), "unsupported statement in a Relax function")
}

// ifBinding parses if/else into a binding of an If expression. Each branch
// ends with a binding of the same variable name, which names the result.
func (p *parser) ifBinding(x *ifStmt, env *rfn, scope *rscope) (ir.Binding, error) {
	cond, err := p.rexpr(x.cond, env, scope)
	if err != nil {
		return nil, err
	}
	if x.els == nil {
		return nil, p.errorf(x.p, "an if statement in a Relax function needs an else branch")
	}
	thenSeq, name, ann, err := p.branch(x.body, env, scope, "_then", x.p)
	if err != nil {
		return nil, err
	}
	elsePos := x.p
	if len(x.els) > 0 {
		elsePos = x.els[0].pos()
	}
	elseSeq, name2, _, err := p.branch(x.els, env, scope, "_else", elsePos)
	if err != nil {
		return nil, err
	}
	if name != name2 {
		return nil, p.errorf(elsePos, "both branches must end by binding the same variable: the then branch binds %q, the else branch %q", name, name2)
	}
	v := &ir.Var{Name: name}
	v.Loc = x.p
	v.Info = ann
	ife := &ir.If{Cond: cond, Then: thenSeq, Else: elseSeq}
	ife.Loc = x.p
	scope.vars[name] = v
	return &ir.VarBinding{Var: v, Value: ife, Loc: x.p}, nil
}

// branch parses one if branch. As TVM does, the last binding becomes the
// branch's result: a leaf or tuple value becomes the SeqExpr body directly;
// otherwise the binding is kept with its variable renamed name+suffix, and
// that variable is the body.
func (p *parser) branch(stmts []stmt, env *rfn, scope *rscope, suffix string, pos ir.Span) (*ir.SeqExpr, string, ir.StructInfo, error) {
	seq, err := p.relaxSeq(stmts, env, scope.child(), seqBranch, pos)
	if err != nil {
		return nil, "", nil, err
	}
	if len(seq.Blocks) == 0 {
		return nil, "", nil, p.errorf(pos, "an if branch must end with a binding of the result variable")
	}
	last := seq.Blocks[len(seq.Blocks)-1]
	if last.Dataflow {
		return nil, "", nil, p.errorf(pos, "an if branch must end with a binding outside a dataflow block")
	}
	b := last.Bindings[len(last.Bindings)-1]
	v := b.BoundVar()
	name, ann := v.Name, v.Info
	if name == "_" {
		return nil, "", nil, p.errorf(b.Pos(), "an if branch must end with a binding of the result variable")
	}
	if vb, ok := b.(*ir.VarBinding); ok && isLeafOrTuple(vb.Value) {
		last.Bindings = last.Bindings[:len(last.Bindings)-1]
		if len(last.Bindings) == 0 {
			seq.Blocks = seq.Blocks[:len(seq.Blocks)-1]
		}
		seq.Body = vb.Value
	} else {
		v.Name = name + suffix
		seq.Body = v
	}
	return seq, name, ann, nil
}

func isLeafOrTuple(e ir.Expr) bool {
	switch e.(type) {
	case *ir.Call, *ir.If, *ir.SeqExpr, *ir.Function, *ir.TupleGetItem:
		return false
	}
	return true
}

// relaxPrim is the PrimExpr converter for Relax contexts (shapes, prim
// values). sig enables symbolic dims written as strings, which define
// new variables.
func (p *parser) relaxPrim(env *rfn, sig bool) *primCtx {
	c := &primCtx{p: p, intType: runtime.Int64, floatType: runtime.Float64}
	c.lookup = func(name string) (any, bool) {
		if env == nil {
			return nil, false
		}
		v, ok := env.sym[name]
		return v, ok
	}
	if sig && env != nil {
		c.define = func(name string) *ir.PrimVar {
			v := ir.NewPrimVar(name, runtime.Int64)
			env.sym[name] = v
			return v
		}
	}
	return c
}

// dims converts a shape literal (tuple or list) to PrimExprs.
func (p *parser) dims(e expr, env *rfn, sig bool) ([]ir.PrimExpr, error) {
	var elts []expr
	switch x := e.(type) {
	case *tupleExpr:
		elts = x.elts
	case *listExpr:
		elts = x.elts
	default:
		return nil, p.errorf(e.pos(), "expected a shape (a tuple or list of dimensions), found %s", describeFor(e))
	}
	c := p.relaxPrim(env, sig)
	out := make([]ir.PrimExpr, len(elts))
	for i, d := range elts {
		v, err := c.conv(d)
		if err != nil {
			return nil, err
		}
		if !v.e.DType().IsInt() && !v.e.DType().IsUInt() {
			return nil, p.errorf(d.pos(), "shape dimensions must be integers, found %s", describeFor(d))
		}
		out[i] = v.e
	}
	return out, nil
}

// sinfo converts a struct info annotation.
func (p *parser) sinfo(e expr, env *rfn, sig bool) (ir.StructInfo, error) {
	var c *callExpr
	fn := e
	if cc, ok := e.(*callExpr); ok {
		c, fn = cc, cc.fn
	}
	k, name := p.ns(fn)
	if k == "tir" && c == nil {
		if dt, ok := dtypeName(name); ok {
			return &ir.PrimSInfo{DType: dt}, nil
		}
	}
	if k != "relax" {
		return nil, p.errorf(e.pos(), "expected struct info such as R.Tensor(...), found %s", describeFor(e))
	}
	noArgs := c == nil || len(c.args)+len(c.kw) == 0
	switch name {
	case "Tensor":
		t := &ir.TensorSInfo{NDim: -1, DType: runtime.Void}
		if c == nil {
			return t, nil
		}
		a, err := p.args(c, "R.Tensor", "shape", "dtype", "vdevice", "ndim")
		if err != nil {
			return nil, err
		}
		if s, ok := a["shape"].(*strLit); ok && a["dtype"] == nil {
			a["dtype"], a["shape"] = s, nil
		}
		if sh := a["shape"]; sh != nil {
			if _, none := sh.(*noneLit); !none {
				dims, err := p.dims(sh, env, sig)
				if err != nil {
					return nil, err
				}
				t.Shape, t.NDim = dims, len(dims)
			}
		}
		if d := a["dtype"]; d != nil {
			dt, err := p.parseDType(d)
			if err != nil {
				return nil, err
			}
			t.DType = dt
		}
		if n := a["ndim"]; n != nil {
			il, ok := n.(*intLit)
			if !ok || il.v < -1 || il.v > 64 {
				return nil, p.errorf(n.pos(), "ndim must be an integer")
			}
			if t.Shape != nil && int(il.v) != len(t.Shape) {
				return nil, p.errorf(n.pos(), "ndim=%d does not match the shape's %d dimensions", il.v, len(t.Shape))
			}
			t.NDim = int(il.v)
		}
		if v := a["vdevice"]; v != nil {
			if err := p.checkVDeviceString(v); err != nil {
				return nil, err
			}
		}
		return t, nil
	case "Shape":
		s := &ir.ShapeSInfo{NDim: -1}
		if c == nil {
			return s, nil
		}
		a, err := p.args(c, "R.Shape", "values", "ndim")
		if err != nil {
			return nil, err
		}
		if v := a["values"]; v != nil {
			if _, none := v.(*noneLit); !none {
				dims, err := p.dims(v, env, sig)
				if err != nil {
					return nil, err
				}
				s.Values, s.NDim = dims, len(dims)
			}
		}
		if n := a["ndim"]; n != nil {
			il, ok := n.(*intLit)
			if !ok || il.v < -1 || il.v > 64 {
				return nil, p.errorf(n.pos(), "ndim must be an integer")
			}
			if s.Values != nil && int(il.v) != len(s.Values) {
				return nil, p.errorf(n.pos(), "ndim=%d does not match the %d values", il.v, len(s.Values))
			}
			s.NDim = int(il.v)
		}
		return s, nil
	case "Tuple":
		t := &ir.TupleSInfo{}
		if c == nil {
			return t, nil
		}
		if len(c.kw) != 0 {
			return nil, p.errorf(c.kw[0].p, "R.Tuple takes positional fields only")
		}
		fields := c.args
		if len(fields) == 1 {
			if l, ok := fields[0].(*listExpr); ok {
				fields = l.elts
			}
		}
		for _, f := range fields {
			si, err := p.sinfo(f, env, sig)
			if err != nil {
				return nil, err
			}
			t.Fields = append(t.Fields, si)
		}
		return t, nil
	case "Object", "Any":
		if !noArgs {
			return nil, p.errorf(c.p, "R.%s takes no arguments", name)
		}
		return &ir.ObjectSInfo{}, nil
	case "Prim":
		if c == nil {
			return nil, p.errorf(e.pos(), "R.Prim needs a dtype or a value")
		}
		a, err := p.args(c, "R.Prim", "dtype", "value")
		if err != nil {
			return nil, err
		}
		s := &ir.PrimSInfo{DType: runtime.Void}
		if d := a["dtype"]; d != nil {
			dt, err := p.parseDType(d)
			if err != nil {
				return nil, err
			}
			s.DType = dt
		}
		if v := a["value"]; v != nil {
			pe, err := p.relaxPrim(env, sig).expr(v)
			if err != nil {
				return nil, err
			}
			s.Value = pe
			if s.DType.IsVoid() {
				s.DType = pe.DType()
			}
		}
		if s.DType.IsVoid() {
			return nil, p.errorf(c.p, "R.Prim needs a dtype or a value")
		}
		return s, nil
	case "Callable":
		if noArgs {
			return &ir.FuncSInfo{Opaque: true, Pure: true}, nil
		}
		a, err := p.args(c, "R.Callable", "params", "ret", "purity", "derive_func")
		if err != nil {
			return nil, err
		}
		f := &ir.FuncSInfo{Pure: true}
		if pr := a["params"]; pr != nil {
			var elts []expr
			switch x := pr.(type) {
			case *tupleExpr:
				elts = x.elts
			case *listExpr:
				elts = x.elts
			case *noneLit:
				f.Opaque = true
			default:
				return nil, p.errorf(pr.pos(), "R.Callable params must be a tuple or list of struct info")
			}
			f.Params = []ir.StructInfo{}
			for _, x := range elts {
				si, err := p.sinfo(x, env, sig)
				if err != nil {
					return nil, err
				}
				f.Params = append(f.Params, si)
			}
		} else {
			f.Opaque = true
		}
		if r := a["ret"]; r != nil {
			si, err := p.sinfo(r, env, sig)
			if err != nil {
				return nil, err
			}
			f.Ret = si
		} else {
			f.Ret = &ir.ObjectSInfo{}
		}
		if pu := a["purity"]; pu != nil {
			b, ok := pu.(*boolLit)
			if !ok {
				return nil, p.errorf(pu.pos(), "purity must be True or False")
			}
			f.Pure = b.v
		}
		if d := a["derive_func"]; d != nil {
			sl, ok := d.(*strLit)
			if !ok {
				return nil, p.errorf(d.pos(), "derive_func must be the name of a global function, as a string")
			}
			f.DeriveFunc = sl.v
		}
		return f, nil
	}
	if name == "DTensor" || strings.HasPrefix(name, "DTensor.") {
		return nil, p.errorf(e.pos(), "R.DTensor (a tensor distributed over a device mesh) is not supported: relaxgo runs a module on one CPU")
	}
	return nil, p.errorf(e.pos(), "unknown struct info R.%s", strings.TrimSuffix(name, "."))
}

// sinfoList converts an output type given as one struct info or a list/tuple of them.
func (p *parser) sinfoList(e expr, env *rfn) ([]ir.StructInfo, error) {
	var elts []expr
	switch x := e.(type) {
	case *listExpr:
		elts = x.elts
	case *tupleExpr:
		elts = x.elts
	default:
		si, err := p.sinfo(e, env, false)
		if err != nil {
			return nil, err
		}
		return []ir.StructInfo{si}, nil
	}
	out := make([]ir.StructInfo, 0, len(elts))
	for _, x := range elts {
		si, err := p.sinfo(x, env, false)
		if err != nil {
			return nil, err
		}
		out = append(out, si)
	}
	return out, nil
}
