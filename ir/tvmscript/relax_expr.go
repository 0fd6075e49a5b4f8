package tvmscript

import (
	"fmt"
	"strconv"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// rexpr converts a Relax expression.
func (p *parser) rexpr(e expr, env *rfn, scope *rscope) (ir.Expr, error) {
	switch x := e.(type) {
	case *nameExpr:
		if v, ok := scope.lookup(x.name); ok {
			return v, nil
		}
		if p.clsNames[x.name] {
			return nil, p.errorf(x.p, "the module %q cannot be used as a value", x.name)
		}
		if _, ok := env.sym[x.name]; ok {
			return nil, p.errorf(x.p, "symbolic variable %q used as a Relax value; wrap it: R.prim_value(%s)", x.name, x.name)
		}
		return nil, p.errorf(x.p, "undefined variable %q", x.name)
	case *attrExpr:
		if n, ok := x.x.(*nameExpr); ok && p.clsNames[n.name] {
			if !p.funcNames[x.name] {
				return nil, p.errorf(x.p, "module has no function %q", x.name)
			}
			g := &ir.GlobalVar{Name: x.name}
			g.Loc = x.p
			return g, nil
		}
		return nil, p.errorf(x.p, "unsupported expression %s", describeFor(x))
	case *callExpr:
		return p.rcall(x, env, scope)
	case *tupleExpr:
		t := &ir.Tuple{Fields: []ir.Expr{}}
		t.Loc = x.p
		for _, f := range x.elts {
			fe, err := p.rexpr(f, env, scope)
			if err != nil {
				return nil, err
			}
			t.Fields = append(t.Fields, fe)
		}
		return t, nil
	case *indexExpr:
		if c, ok, err := p.metadata(x); ok || err != nil {
			return c, err
		}
		if len(x.index) != 1 {
			return nil, p.errorf(x.p, "tuple indexing takes one integer index")
		}
		il, ok := x.index[0].(*intLit)
		if !ok || il.v < 0 {
			return nil, p.errorf(x.index[0].pos(), "tuple index must be a non-negative integer literal")
		}
		t, err := p.rexpr(x.x, env, scope)
		if err != nil {
			return nil, err
		}
		g := &ir.TupleGetItem{Tuple: t, Index: int(il.v)}
		g.Loc = x.p
		return g, nil
	case *intLit, *floatLit, *boolLit:
		pe, err := p.relaxPrim(env, false).expr(x)
		if err != nil {
			return nil, err
		}
		v := &ir.PrimValue{Value: pe}
		v.Loc = x.pos()
		return v, nil
	case *strLit:
		s := &ir.StringImm{Value: x.v}
		s.Loc = x.p
		return s, nil
	case *listExpr:
		return nil, p.errorf(x.p, "a list is not a Relax value here; use a tuple")
	case *noneLit:
		return nil, p.errorf(x.p, "None is not a Relax value here")
	case *unaryExpr:
		if x.op == "-" {
			return nil, p.errorf(x.p, "unary minus on Relax values is not supported; use R.negative")
		}
	case *binExpr:
		return nil, p.errorf(x.p, "operator %q on Relax values is not supported; call the op (e.g. R.add)", x.op)
	}
	return nil, p.errorf(e.pos(), "unsupported Relax expression %s", describeFor(e))
}

// metadata recognises metadata["relax.expr.Constant"][i].
func (p *parser) metadata(x *indexExpr) (ir.Expr, bool, error) {
	inner, ok := x.x.(*indexExpr)
	if !ok {
		return nil, false, nil
	}
	n, ok := inner.x.(*nameExpr)
	if !ok || n.name != "metadata" {
		return nil, false, nil
	}
	if len(inner.index) != 1 || len(x.index) != 1 {
		return nil, true, p.errorf(x.p, "malformed metadata reference; expected metadata[\"relax.expr.Constant\"][i]")
	}
	kind, ok := inner.index[0].(*strLit)
	if !ok {
		return nil, true, p.errorf(inner.index[0].pos(), "metadata kind must be a string")
	}
	if kind.v != "relax.expr.Constant" {
		return nil, true, p.errorf(inner.index[0].pos(), "unsupported metadata kind %q (only \"relax.expr.Constant\")", kind.v)
	}
	il, ok := x.index[0].(*intLit)
	if !ok || il.v < 0 {
		return nil, true, p.errorf(x.index[0].pos(), "metadata index must be a non-negative integer")
	}
	i := int(il.v)
	if int64(i) != il.v || i >= len(p.opts.Constants) || p.opts.Constants[i] == nil {
		return nil, true, p.errorf(x.p, "missing metadata: metadata[\"relax.expr.Constant\"][%d] is not available (the text omits the metadata section; supply the constants with Options.Constants)", il.v)
	}
	c := &ir.Constant{Value: p.opts.Constants[i], MetaIndex: i}
	c.Loc = x.p
	return c, true, nil
}

// opArg converts a positional argument of an op call: literals become
// PrimValue/StringImm, lists and tuples become Tuples, None a nil entry.
func (p *parser) opArg(e expr, env *rfn, scope *rscope) (ir.Expr, error) {
	switch x := e.(type) {
	case *noneLit:
		return nil, nil
	case *listExpr:
		return p.tupleOf(x.elts, x.p, env, scope)
	case *tupleExpr:
		return p.tupleOf(x.elts, x.p, env, scope)
	case *callExpr:
		if k, _ := p.ns(x.fn); k == "tir" {
			pe, err := p.relaxPrim(env, false).expr(x)
			if err != nil {
				return nil, err
			}
			v := &ir.PrimValue{Value: pe}
			v.Loc = x.p
			return v, nil
		}
	}
	return p.rexpr(e, env, scope)
}

func (p *parser) tupleOf(elts []expr, pos ir.Span, env *rfn, scope *rscope) (ir.Expr, error) {
	t := &ir.Tuple{Fields: []ir.Expr{}}
	t.Loc = pos
	for _, f := range elts {
		fe, err := p.opArg(f, env, scope)
		if err != nil {
			return nil, err
		}
		if fe == nil {
			return nil, p.errorf(f.pos(), "None is not allowed inside a tuple")
		}
		t.Fields = append(t.Fields, fe)
	}
	return t, nil
}

// kwValue converts a keyword argument of an op call to a plain Go value
// (int64, float64, bool, string, nil, []any) or an ir.Expr.
func (p *parser) kwValue(e expr, env *rfn, scope *rscope) (any, error) {
	switch x := e.(type) {
	case *intLit:
		return x.v, nil
	case *floatLit:
		return x.v, nil
	case *boolLit:
		return x.v, nil
	case *strLit:
		return x.v, nil
	case *noneLit:
		return nil, nil
	case *listExpr:
		return p.kwList(x.elts, env, scope)
	case *tupleExpr:
		return p.kwList(x.elts, env, scope)
	case *callExpr:
		if k, _ := p.ns(x.fn); k == "tir" {
			return p.relaxPrim(env, false).expr(x)
		}
	case *nameExpr:
		if v, ok := env.sym[x.name]; ok {
			if _, shadow := scope.lookup(x.name); !shadow {
				return v, nil
			}
		}
	}
	return p.rexpr(e, env, scope)
}

func (p *parser) kwList(elts []expr, env *rfn, scope *rscope) ([]any, error) {
	out := make([]any, len(elts))
	for i, x := range elts {
		v, err := p.kwValue(x, env, scope)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// callee converts the function of call_packed-like forms: a string or R.ExternFunc.
func (p *parser) externArg(e expr, what string) (*ir.ExternFunc, error) {
	switch x := e.(type) {
	case *strLit:
		f := &ir.ExternFunc{Symbol: x.v}
		f.Loc = x.p
		return f, nil
	case *callExpr:
		if c, ok := p.isCall(x, "relax", "ExternFunc"); ok && len(c.args) == 1 {
			if s, ok := c.args[0].(*strLit); ok {
				f := &ir.ExternFunc{Symbol: s.v}
				f.Loc = x.p
				return f, nil
			}
		}
	}
	return nil, p.errorf(e.pos(), "%s needs the function name as a string", what)
}

// inputsTuple converts the argument tuple of call_tir-like forms; a single
// non-tuple expression is wrapped in a one-element tuple (as TVM does).
func (p *parser) inputsTuple(e expr, env *rfn, scope *rscope) (ir.Expr, error) {
	switch x := e.(type) {
	case *tupleExpr:
		return p.tupleOf(x.elts, x.p, env, scope)
	case *listExpr:
		return p.tupleOf(x.elts, x.p, env, scope)
	}
	v, err := p.rexpr(e, env, scope)
	if err != nil {
		return nil, err
	}
	if _, ok := v.(*ir.Tuple); ok {
		return v, nil
	}
	t := &ir.Tuple{Fields: []ir.Expr{v}}
	t.Loc = e.pos()
	return t, nil
}

func newCall(callee ir.Expr, pos ir.Span) *ir.Call {
	c := &ir.Call{Callee: callee}
	c.Loc = pos
	return c
}

func newOp(name string, pos ir.Span) *ir.Op {
	o := &ir.Op{Name: name}
	o.Loc = pos
	return o
}

// sinfoKw picks the result-type keyword of either dialect.
func pickKw(a map[string]expr, names ...string) (expr, string) {
	for _, n := range names {
		if v, ok := a[n]; ok {
			return v, n
		}
	}
	return nil, ""
}

func (p *parser) rcall(x *callExpr, env *rfn, scope *rscope) (ir.Expr, error) {
	k, name := p.ns(x.fn)
	if k == "relax" {
		return p.relaxCall(x, name, env, scope)
	}
	if k == "tir" {
		return nil, p.errorf(x.p, "TIR expression %s used as a Relax value; wrap it: R.prim_value(...)", describeFor(x.fn))
	}
	if k == "ir" {
		return nil, p.errorf(x.p, "unexpected %s in a Relax function", describeFor(x.fn))
	}
	// cls.f(...) or a call of a variable.
	callee, err := p.rexpr(x.fn, env, scope)
	if err != nil {
		return nil, err
	}
	c := newCall(callee, x.p)
	for _, a := range x.args {
		ae, err := p.rexpr(a, env, scope)
		if err != nil {
			return nil, err
		}
		c.Args = append(c.Args, ae)
	}
	for _, kw := range x.kw {
		switch kw.name {
		case "sinfo_args", "ty_args":
			s, err := p.sinfoList(kw.val, env)
			if err != nil {
				return nil, err
			}
			c.SInfoArgs = s
		default:
			return nil, p.errorf(kw.p, "unexpected keyword argument %q in a function call", kw.name)
		}
	}
	return c, nil
}

func (p *parser) relaxCall(x *callExpr, name string, env *rfn, scope *rscope) (ir.Expr, error) {
	switch name {
	case "const":
		return p.rconst(x)
	case "shape":
		a, err := p.args(x, "R.shape", "value")
		if err != nil {
			return nil, err
		}
		if a["value"] == nil {
			return nil, p.errorf(x.p, "R.shape needs a list of dimensions")
		}
		dims, err := p.dims(a["value"], env, false)
		if err != nil {
			return nil, err
		}
		s := &ir.ShapeExpr{Values: dims}
		s.Loc = x.p
		return s, nil
	case "prim_value":
		a, err := p.args(x, "R.prim_value", "value")
		if err != nil {
			return nil, err
		}
		if a["value"] == nil {
			return nil, p.errorf(x.p, "R.prim_value needs a value")
		}
		pe, err := p.relaxPrim(env, false).expr(a["value"])
		if err != nil {
			return nil, err
		}
		v := &ir.PrimValue{Value: pe}
		v.Loc = x.p
		return v, nil
	case "str":
		a, err := p.args(x, "R.str", "value")
		if err != nil {
			return nil, err
		}
		s, ok := a["value"].(*strLit)
		if !ok {
			return nil, p.errorf(x.p, "R.str needs a string literal")
		}
		v := &ir.StringImm{Value: s.v}
		v.Loc = x.p
		return v, nil
	case "dtype":
		a, err := p.args(x, "R.dtype", "value")
		if err != nil {
			return nil, err
		}
		if a["value"] == nil {
			return nil, p.errorf(x.p, "R.dtype needs a dtype string")
		}
		dt, err := p.parseDType(a["value"])
		if err != nil {
			return nil, err
		}
		v := &ir.DataTypeImm{Value: dt}
		v.Loc = x.p
		return v, nil
	case "ExternFunc":
		if len(x.args) != 1 || len(x.kw) != 0 {
			return nil, p.errorf(x.p, "R.ExternFunc takes one string")
		}
		return p.externArg(x.args[0], "R.ExternFunc")
	case "tuple":
		if len(x.kw) != 0 {
			return nil, p.errorf(x.kw[0].p, "R.tuple takes positional fields only")
		}
		t := &ir.Tuple{Fields: []ir.Expr{}}
		t.Loc = x.p
		for _, f := range x.args {
			fe, err := p.rexpr(f, env, scope)
			if err != nil {
				return nil, err
			}
			t.Fields = append(t.Fields, fe)
		}
		return t, nil
	case "call_tir", "call_tir_inplace", "call_dps_packed":
		return p.callTIR(x, name, env, scope)
	case "call_packed":
		if len(x.args) == 0 {
			return nil, p.errorf(x.p, "R.call_packed needs the function name")
		}
		fn, err := p.externArg(x.args[0], "R.call_packed")
		if err != nil {
			return nil, err
		}
		c := newCall(fn, x.p)
		for _, a := range x.args[1:] {
			ae, err := p.opArg(a, env, scope)
			if err != nil {
				return nil, err
			}
			c.Args = append(c.Args, ae)
		}
		for _, kw := range x.kw {
			switch kw.name {
			case "sinfo_args", "ty_args":
				s, err := p.sinfoList(kw.val, env)
				if err != nil {
					return nil, err
				}
				c.SInfoArgs = s
			default:
				v, err := p.kwValue(kw.val, env, scope)
				if err != nil {
					return nil, err
				}
				c.Attrs = append(c.Attrs, ir.Attr{Key: kw.name, Value: v})
			}
		}
		return c, nil
	case "call_pure_packed", "call_builtin_with_ctx", "make_closure", "invoke_closure", "invoke_pure_closure":
		return p.infraCall(x, name, env, scope)
	case "match_cast":
		return nil, p.errorf(x.p, "R.match_cast must be the whole value of a binding")
	case "output":
		return nil, p.errorf(x.p, "R.output is only allowed at the end of a dataflow block")
	case "dataflow", "func_attr", "function":
		return nil, p.errorf(x.p, "R.%s is not allowed here", name)
	case "Tensor", "Tuple", "Shape", "Object", "Any", "Prim", "Callable":
		return nil, p.errorf(x.p, "struct info R.%s used as a value", name)
	}
	return p.opCall(x, name, env, scope)
}

// opCall converts a generic operator call and canonicalises it with the op registry.
func (p *parser) opCall(x *callExpr, name string, env *rfn, scope *rscope) (ir.Expr, error) {
	if name == "" {
		return nil, p.errorf(x.p, "R is not callable")
	}
	c := newCall(newOp("relax."+name, x.fn.pos()), x.p)
	for _, a := range x.args {
		ae, err := p.opArg(a, env, scope)
		if err != nil {
			return nil, err
		}
		c.Args = append(c.Args, ae)
	}
	for _, kw := range x.kw {
		switch kw.name {
		case "sinfo_args", "ty_args":
			s, err := p.sinfoList(kw.val, env)
			if err != nil {
				return nil, err
			}
			c.SInfoArgs = s
			continue
		}
		v, err := p.kwValue(kw.val, env, scope)
		if err != nil {
			return nil, err
		}
		c.Attrs = append(c.Attrs, ir.Attr{Key: kw.name, Value: v})
	}
	if err := ir.CanonicalizeCall(c); err != nil {
		return nil, p.src.wrap(x.p, err, "R.%s: %v", name, trimOpPrefix(err, "relax."+name))
	}
	return c, nil
}

// trimOpPrefix drops a leading "relax.name: " from an error message.
func trimOpPrefix(err error, op string) string {
	s := err.Error()
	if len(s) > len(op)+2 && s[:len(op)+2] == op+": " {
		return s[len(op)+2:]
	}
	return s
}

func (p *parser) callTIR(x *callExpr, name string, env *rfn, scope *rscope) (ir.Expr, error) {
	var a map[string]expr
	var err error
	switch name {
	case "call_tir":
		a, err = p.args(x, "R.call_tir", "gvar", "args", "out_sinfo", "tir_vars", "out_ty")
	case "call_tir_inplace":
		a, err = p.args(x, "R.call_tir_inplace", "gvar", "args", "inplace_indices", "out_sinfo", "tir_vars", "out_ty")
	default:
		a, err = p.args(x, "R.call_dps_packed", "func", "args", "out_sinfo", "out_ty")
	}
	if err != nil {
		return nil, err
	}
	c := newCall(newOp("relax."+name, x.fn.pos()), x.p)
	var callee ir.Expr
	if name == "call_dps_packed" {
		if a["func"] == nil {
			return nil, p.errorf(x.p, "R.call_dps_packed needs the function name")
		}
		callee, err = p.externArg(a["func"], "R.call_dps_packed")
	} else {
		if a["gvar"] == nil {
			return nil, p.errorf(x.p, "R.%s needs the PrimFunc to call (cls.name)", name)
		}
		callee, err = p.rexpr(a["gvar"], env, scope)
		if err == nil {
			if _, ok := callee.(*ir.GlobalVar); !ok {
				return nil, p.errorf(a["gvar"].pos(), "R.%s calls a module function (cls.name), found %s", name, describeFor(a["gvar"]))
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if a["args"] == nil {
		return nil, p.errorf(x.p, "R.%s needs the argument tuple", name)
	}
	ins, err := p.inputsTuple(a["args"], env, scope)
	if err != nil {
		return nil, err
	}
	c.Args = []ir.Expr{callee, ins}
	out, _ := pickKw(a, "out_sinfo", "out_ty")
	if a["out_sinfo"] != nil && a["out_ty"] != nil {
		return nil, p.errorf(x.p, "both out_sinfo and out_ty given")
	}
	if out == nil {
		return nil, p.errorf(x.p, "R.%s needs the output type (out_ty= or out_sinfo=)", name)
	}
	if c.SInfoArgs, err = p.sinfoList(out, env); err != nil {
		return nil, err
	}
	if tv := a["tir_vars"]; tv != nil {
		if _, none := tv.(*noneLit); !none {
			var se ir.Expr
			switch y := tv.(type) {
			case *listExpr, *tupleExpr:
				dims, err := p.dims(y, env, false)
				if err != nil {
					return nil, err
				}
				s := &ir.ShapeExpr{Values: dims}
				s.Loc = y.pos()
				se = s
			default:
				se, err = p.rexpr(y, env, scope)
				if err != nil {
					return nil, err
				}
			}
			c.Args = append(c.Args, se)
		}
	}
	if name == "call_tir_inplace" {
		ii := a["inplace_indices"]
		if ii == nil {
			return nil, p.errorf(x.p, "R.call_tir_inplace needs inplace_indices")
		}
		v, err := p.kwValue(ii, env, scope)
		if err != nil {
			return nil, err
		}
		if n, ok := v.(int64); ok {
			v = []any{n}
		}
		c.Attrs = ir.Attrs{{Key: "inplace_indices", Value: v}}
	}
	return c, nil
}

// infraCall converts call_pure_packed, call_builtin_with_ctx, make_closure,
// invoke_closure and invoke_pure_closure.
func (p *parser) infraCall(x *callExpr, name string, env *rfn, scope *rscope) (ir.Expr, error) {
	c := newCall(newOp("relax."+name, x.fn.pos()), x.p)
	if len(x.args) == 0 {
		return nil, p.errorf(x.p, "R.%s needs arguments", name)
	}
	var first ir.Expr
	var err error
	switch name {
	case "call_pure_packed", "call_builtin_with_ctx":
		first, err = p.externArg(x.args[0], "R."+name)
	default:
		first, err = p.rexpr(x.args[0], env, scope)
	}
	if err != nil {
		return nil, err
	}
	c.Args = []ir.Expr{first}
	rest := x.args[1:]
	switch name {
	case "call_pure_packed":
		for _, a := range rest {
			ae, err := p.opArg(a, env, scope)
			if err != nil {
				return nil, err
			}
			c.Args = append(c.Args, ae)
		}
	default:
		if len(rest) > 1 {
			return nil, p.errorf(rest[1].pos(), "R.%s takes the function and one argument tuple", name)
		}
		var t ir.Expr = &ir.Tuple{Fields: []ir.Expr{}}
		if len(rest) == 1 {
			if t, err = p.inputsTuple(rest[0], env, scope); err != nil {
				return nil, err
			}
		}
		c.Args = append(c.Args, t)
	}
	for _, kw := range x.kw {
		switch kw.name {
		case "sinfo_args", "ty_args":
			s, err := p.sinfoList(kw.val, env)
			if err != nil {
				return nil, err
			}
			c.SInfoArgs = s
		default:
			return nil, p.errorf(kw.p, "unexpected keyword argument %q to R.%s", kw.name, name)
		}
	}
	return c, nil
}

// rconst converts R.const(value, dtype).
func (p *parser) rconst(x *callExpr) (ir.Expr, error) {
	a, err := p.args(x, "R.const", "value", "dtype")
	if err != nil {
		return nil, err
	}
	val := a["value"]
	if val == nil {
		return nil, p.errorf(x.p, "R.const needs a value")
	}
	var shape []int64
	var elems []any
	kind := "" // "float", "int", "bool"
	var walk func(e expr, depth int) error
	walk = func(e expr, depth int) error {
		var elts []expr
		// float("inf"), float("-inf") and float("nan"), as the printer writes them.
		if c, ok := e.(*callExpr); ok && len(c.args) == 1 && len(c.kw) == 0 {
			if fn, ok := c.fn.(*nameExpr); ok && fn.name == "float" {
				if s, ok := c.args[0].(*strLit); ok {
					if v, err := strconv.ParseFloat(s.v, 64); err == nil {
						e = &floatLit{p: c.p, v: v}
					}
				}
			}
		}
		switch y := e.(type) {
		case *listExpr:
			elts = y.elts
		case *tupleExpr:
			elts = y.elts
		case *intLit, *floatLit, *boolLit:
			if depth != len(shape) {
				return p.errorf(e.pos(), "R.const: ragged nested list")
			}
			switch z := y.(type) {
			case *intLit:
				elems = append(elems, z.v)
				if kind == "" || kind == "bool" {
					kind = "int"
				}
			case *floatLit:
				elems = append(elems, z.v)
				kind = "float"
			case *boolLit:
				elems = append(elems, z.v)
				if kind == "" {
					kind = "bool"
				}
			}
			return nil
		default:
			return p.errorf(e.pos(), "R.const takes a number, a bool or a nested list of them")
		}
		if depth >= 32 {
			return p.errorf(e.pos(), "R.const: too many dimensions")
		}
		if depth == len(shape) && len(elems) == 0 {
			shape = append(shape, int64(len(elts)))
		} else if depth >= len(shape) || shape[depth] != int64(len(elts)) {
			return p.errorf(e.pos(), "R.const: ragged nested list")
		}
		if len(elts) == 0 && depth == len(shape)-1 {
			return nil
		}
		for _, el := range elts {
			if err := walk(el, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(val, 0); err != nil {
		return nil, err
	}
	var dt runtime.DataType
	if d := a["dtype"]; d != nil {
		if dt, err = p.parseDType(d); err != nil {
			return nil, err
		}
	}
	if dt.IsVoid() || dt == (runtime.DataType{}) {
		switch kind {
		case "float":
			dt = runtime.Float32
		case "bool":
			dt = runtime.Bool
		default:
			dt = runtime.Int32
		}
	}
	if !constElemOK(dt) {
		return nil, p.errorf(x.p, "R.const: unsupported dtype %s", dt)
	}
	t, err := runtime.NewTensor(shape, dt)
	if err != nil {
		return nil, p.errorf(x.p, "R.const: %v", err)
	}
	if int64(len(elems)) != t.NumElements() {
		return nil, p.errorf(x.p, "R.const: ragged nested list")
	}
	for i, v := range elems {
		if err := setElem(t, i, v); err != nil {
			return nil, p.errorf(x.p, "R.const: %v", err)
		}
	}
	c := &ir.Constant{Value: t, MetaIndex: -1}
	c.Loc = x.p
	return c, nil
}

var _ = fmt.Sprintf
