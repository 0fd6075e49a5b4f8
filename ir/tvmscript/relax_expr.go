package tvmscript

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

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
			return p.primValue(x, env)
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
		return p.primValue(x, env)
	case *strLit:
		s := &ir.StringImm{Value: x.v}
		s.Loc = x.p
		return s, nil
	case *listExpr:
		return nil, p.errorf(x.p, "a list is not a Relax value here; use a tuple")
	case *noneLit:
		return nil, p.errorf(x.p, "None is not a Relax value here")
	case *unaryExpr:
		if p.primOnly(x, env, scope) {
			return p.primValue(x, env)
		}
		if x.op == "-" {
			return p.sugarCall(x.p, "negative", env, scope, x.x)
		}
	case *binExpr:
		if p.primOnly(x, env, scope) {
			return p.primValue(x, env)
		}
		op, ok := relaxBinOps[x.op]
		if !ok {
			return nil, p.errorf(x.p, "operator %q on Relax values is not supported; call the op", x.op)
		}
		return p.sugarCall(x.p, op, env, scope, x.x, x.y)
	case *cmpExpr:
		if len(x.ops) != 1 {
			return nil, p.errorf(x.p, "chained comparisons on Relax values are not supported")
		}
		op, ok := relaxCmpOps[x.ops[0]]
		if !ok {
			return nil, p.errorf(x.p, "operator %q on Relax values is not supported (TVM keeps == and != for object identity)", x.ops[0])
		}
		return p.sugarCall(x.p, op, env, scope, x.xs[0], x.xs[1])
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
	if v, ok := literalValue(e); ok {
		return v, nil
	}
	switch x := e.(type) {
	case *listExpr:
		return p.kwList(x.elts, env, scope)
	case *tupleExpr:
		return p.kwList(x.elts, env, scope)
	case *lambdaExpr:
		return p.indexMap(x, runtime.Int64, env)
	case *callExpr:
		if k, name := p.ns(x.fn); k == "tir" {
			if name == "index_map" {
				return p.tIndexMap(x, env)
			}
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

func (p *parser) isIndexMap(e expr) bool {
	switch x := e.(type) {
	case *lambdaExpr:
		return true
	case *callExpr:
		k, name := p.ns(x.fn)
		return k == "tir" && name == "index_map"
	}
	return false
}

// tIndexMap converts T.index_map(lambda ..., index_dtype="int64").
func (p *parser) tIndexMap(x *callExpr, env *rfn) (*ir.IndexMap, error) {
	dt := runtime.Int64
	var fn expr
	if len(x.args) > 0 {
		fn = x.args[0]
	}
	for _, kw := range x.kw {
		switch kw.name {
		case "mapping_function":
			fn = kw.val
		case "index_dtype":
			s, ok := kw.val.(*strLit)
			if !ok {
				return nil, p.errorf(kw.p, "T.index_map: index_dtype must be a string")
			}
			d, err := runtime.ParseDataType(s.v)
			if err != nil || !d.IsInt() {
				return nil, p.errorf(kw.p, "T.index_map: index_dtype %q is not an integer type", s.v)
			}
			dt = d
		case "inverse_index_map":
			// A hint for TVM's scheduling; the forward map says all.
		default:
			return nil, p.errorf(kw.p, "T.index_map: unexpected keyword %s", kw.name)
		}
	}
	l, ok := fn.(*lambdaExpr)
	if len(x.args) > 1 || !ok {
		return nil, p.errorf(x.p, "T.index_map takes one lambda (and index_dtype=)")
	}
	return p.indexMap(l, dt, env)
}

// indexMap converts `lambda i, j: (e1, e2)` whose parameters are indices of
// type dt; the body may also read the function's symbolic dims.
func (p *parser) indexMap(l *lambdaExpr, dt runtime.DataType, env *rfn) (*ir.IndexMap, error) {
	m := &ir.IndexMap{}
	params := map[string]*ir.PrimVar{}
	for _, n := range l.params {
		if _, dup := params[n]; dup {
			return nil, p.errorf(l.p, "lambda: parameter %s given twice", n)
		}
		v := ir.NewPrimVar(n, dt)
		params[n] = v
		m.Params = append(m.Params, v)
	}
	c := p.relaxPrim(env, false)
	outer := c.lookup
	c.intType = dt
	c.lookup = func(name string) (any, bool) {
		if v, ok := params[name]; ok {
			return v, true
		}
		return outer(name)
	}
	body := []expr{l.body}
	if t, ok := l.body.(*tupleExpr); ok {
		body = t.elts
	} else if t, ok := l.body.(*listExpr); ok {
		body = t.elts
	}
	for _, e := range body {
		r, err := c.expr(e)
		if err != nil {
			return nil, err
		}
		m.Results = append(m.Results, r)
	}
	return m, nil
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
		return p.primValue(x, env)
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
	case "to_vdevice":
		// Every value lives on the CPU: moving it there is the value itself.
		a, err := p.args(x, "R.to_vdevice", "data", "dst_vdevice")
		if err != nil {
			return nil, err
		}
		if a["data"] == nil || a["dst_vdevice"] == nil {
			return nil, p.errorf(x.p, "R.to_vdevice takes a value and a device")
		}
		if err := p.checkVDeviceString(a["dst_vdevice"]); err != nil {
			return nil, err
		}
		return p.rexpr(a["data"], env, scope)
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
		if len(x.args) < 1 || len(x.args) > 2 || len(x.kw) != 0 {
			return nil, p.errorf(x.p, "R.ExternFunc takes the function's name and optionally its R.Callable type")
		}
		f, err := p.externArg(x.args[0], "R.ExternFunc")
		if err != nil || len(x.args) == 1 {
			return f, err
		}
		si, err := p.sinfo(x.args[1], env, false)
		if err != nil {
			return nil, err
		}
		fs, ok := si.(*ir.FuncSInfo)
		if !ok {
			return nil, p.errorf(x.args[1].pos(), "R.ExternFunc's type must be an R.Callable")
		}
		f.SetSInfo(fs)
		return f, nil
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

// primValue converts a scalar expression (a number, a symbolic variable, a
// T.* call, arithmetic on them) used where a Relax value is expected into
// R.prim_value, as TVM's parser does (relax.utils.convert_to_expr).
func (p *parser) primValue(e expr, env *rfn) (ir.Expr, error) {
	pe, err := p.relaxPrim(env, false).expr(e)
	if err != nil {
		return nil, err
	}
	v := &ir.PrimValue{Value: pe}
	v.Loc = e.pos()
	return v, nil
}

// primOnly reports whether e is scalar arithmetic that mentions no Relax
// variable: numbers, symbolic variables and T.* calls. Python evaluates
// such an expression to a TIR expression before TVM's parser sees it.
func (p *parser) primOnly(e expr, env *rfn, scope *rscope) bool {
	switch x := e.(type) {
	case *intLit, *floatLit, *boolLit:
		return true
	case *nameExpr:
		if _, ok := scope.lookup(x.name); ok {
			return false
		}
		_, ok := env.sym[x.name]
		return ok
	case *callExpr:
		k, _ := p.ns(x.fn)
		return k == "tir"
	case *unaryExpr:
		return p.primOnly(x.x, env, scope)
	case *binExpr:
		return p.primOnly(x.x, env, scope) && p.primOnly(x.y, env, scope)
	}
	return false
}

// relaxBinOps and relaxCmpOps are the Python operators TVM overloads on
// Relax expressions (ExprWithOp in tvm/relax/expr.py), with the ops they
// build.
var (
	relaxBinOps = map[string]string{"+": "add", "-": "subtract", "*": "multiply", "/": "divide",
		"//": "floor_divide", "%": "mod", "**": "power"}
	relaxCmpOps = map[string]string{"<": "less", ">": "greater", "<=": "less_equal", ">=": "greater_equal"}
)

// sugarCall converts operator sugar on Relax values (a + b, -a, a < b)
// into the op call TVM's parser builds. As in TVM, both operands must be
// Relax values: a bare number must be wrapped in R.const first.
func (p *parser) sugarCall(pos ir.Span, op string, env *rfn, scope *rscope, operands ...expr) (ir.Expr, error) {
	for _, a := range operands {
		switch a.(type) {
		case *intLit, *floatLit, *boolLit:
			return nil, p.errorf(a.pos(), "operator on a Relax value and the number %s: convert the number with R.const first", exprText(a))
		}
	}
	return p.opCall(&callExpr{p: pos, fn: &nameExpr{p: pos, name: op}, args: operands}, op, env, scope)
}

// attentionBias resolves R.nn.attention's optional bias, its fourth
// parameter: TVM builds relax.nn.attention_bias when a bias is given (and
// prints that op as R.nn.attention(q, k, v, bias, ...)), relax.nn.attention
// when it is absent or None.
func (p *parser) attentionBias(x *callExpr) (string, *callExpr, error) {
	var bias expr
	y := *x
	y.args = x.args
	if len(x.args) > 3 {
		bias = x.args[3]
		y.args = append(slices.Clone(x.args[:3]), x.args[4:]...)
		if len(x.args) > 4 {
			return "", nil, p.errorf(x.args[4].pos(), "R.nn.attention takes query, key, value and bias positionally; pass the rest by keyword")
		}
	}
	y.kw = nil
	for _, k := range x.kw {
		if k.name == "bias" {
			if bias != nil {
				return "", nil, p.errorf(k.p, "R.nn.attention: argument \"bias\" given twice")
			}
			bias = k.val
			continue
		}
		y.kw = append(y.kw, k)
	}
	if _, none := bias.(*noneLit); bias == nil || none {
		return "nn.attention", &y, nil
	}
	y.args = append(slices.Clone(y.args), bias)
	return "nn.attention_bias", &y, nil
}

// opCall converts a generic operator call and canonicalises it with the op registry.
func (p *parser) opCall(x *callExpr, name string, env *rfn, scope *rscope) (ir.Expr, error) {
	if name == "" {
		return nil, p.errorf(x.p, "R is not callable")
	}
	if name == "nn.attention" {
		var err error
		if name, x, err = p.attentionBias(x); err != nil {
			return nil, err
		}
	}
	c := newCall(newOp("relax."+name, x.fn.pos()), x.p)
	for _, a := range x.args {
		if p.isIndexMap(a) {
			// Only layout_transform takes one, as its second parameter.
			m, err := p.kwValue(a, env, scope)
			if err != nil {
				return nil, err
			}
			c.Attrs = append(c.Attrs, ir.Attr{Key: "index_map", Value: m})
			continue
		}
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
	// R.const(np.array(...)), R.const(np.ones((2, 3), "int32")): the
	// NumPy calls TVM's tests write inline, evaluated as Python would.
	npVal, npDT, isNumpy, err := p.numpyValue(val)
	if err != nil {
		return nil, err
	}
	if isNumpy {
		val = npVal
	}
	var shape []int64
	var elems []any
	kind := "" // "float", "int", "bool"
	var walk func(e expr, depth int) error
	walk = func(e expr, depth int) error {
		var elts []expr
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
		case *unaryExpr, *binExpr, *callExpr:
			// Python evaluates arithmetic on literals before TVMScript
			// sees it: R.const(5.0 / 3.0, "float32"), R.const(-1, ...).
			if lit, ok := foldNumber(e); ok {
				return walk(lit, depth)
			}
			return p.errorf(e.pos(), "R.const takes a number, a bool or a nested list of them")
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
	if (dt.IsVoid() || dt == (runtime.DataType{})) && isNumpy {
		dt = npDT
		if dt == (runtime.DataType{}) {
			// np.array follows its literals with NumPy's 64-bit defaults.
			dt = map[string]runtime.DataType{"float": runtime.Float64, "bool": runtime.Bool}[kind]
			if dt == (runtime.DataType{}) {
				dt = runtime.Int64
			}
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

// maxNumpyElems bounds the arrays np.ones/np.zeros/np.full may build
// inline; large constants are printed as metadata, never spelled out.
const maxNumpyElems = 1 << 20

// numpyValue evaluates the NumPy constructors TVM's tests pass to R.const:
// np.array(obj, dtype), np.ones/np.zeros(shape, dtype) and np.full(shape,
// fill, dtype) (numpy. works too). It returns the value as a nested literal
// list and the array's dtype: the dtype argument, else NumPy's default
// (float64 for ones/zeros/full of a float; void for np.array, which then
// follows the literals). ok is false when e is no such call.
func (p *parser) numpyValue(e expr) (val expr, dt runtime.DataType, ok bool, err error) {
	c, isCall := e.(*callExpr)
	if !isCall {
		return nil, dt, false, nil
	}
	at, isAttr := c.fn.(*attrExpr)
	if !isAttr {
		return nil, dt, false, nil
	}
	if mod, isName := at.x.(*nameExpr); !isName || (mod.name != "np" && mod.name != "numpy") {
		return nil, dt, false, nil
	}
	names := map[string][]string{
		"array": {"object", "dtype"}, "asarray": {"a", "dtype"},
		"ones": {"shape", "dtype"}, "zeros": {"shape", "dtype"}, "full": {"shape", "fill_value", "dtype"},
	}[at.name]
	if names == nil {
		return nil, dt, false, p.errorf(c.p, "R.const: np.%s is not supported; use a literal list or np.array/ones/zeros/full", at.name)
	}
	a, err := p.args(c, "np."+at.name, names...)
	if err != nil {
		return nil, dt, false, err
	}
	if d := a["dtype"]; d != nil {
		if dt, err = p.numpyDType(d); err != nil {
			return nil, dt, false, err
		}
	}
	switch at.name {
	case "array", "asarray":
		v := a["object"]
		if v == nil {
			v = a["a"]
		}
		if v == nil {
			return nil, dt, false, p.errorf(c.p, "np.%s needs a value", at.name)
		}
		return v, dt, true, nil
	}
	shape, err := p.numpyShape(a["shape"], c)
	if err != nil {
		return nil, dt, false, err
	}
	var fill expr
	switch at.name {
	case "ones":
		fill = &floatLit{p: c.p, v: 1}
	case "zeros":
		fill = &floatLit{p: c.p, v: 0}
	case "full":
		if fill = a["fill_value"]; fill == nil {
			return nil, dt, false, p.errorf(c.p, "np.full needs a fill value")
		}
		if f, ok := foldNumber(fill); ok {
			fill = f
		}
		if dt == (runtime.DataType{}) {
			switch fill.(type) {
			case *intLit:
				dt = runtime.Int64
			case *boolLit:
				dt = runtime.Bool
			}
		}
	}
	if dt == (runtime.DataType{}) {
		dt = runtime.Float64
	}
	var build func(dims []int64) expr
	build = func(dims []int64) expr {
		if len(dims) == 0 {
			return fill
		}
		l := &listExpr{p: c.p, elts: make([]expr, dims[0])}
		for i := range l.elts {
			l.elts[i] = build(dims[1:])
		}
		return l
	}
	return build(shape), dt, true, nil
}

// numpyShape reads a NumPy shape argument: an int or a tuple/list of ints,
// refusing more than maxNumpyElems elements.
func (p *parser) numpyShape(e expr, c *callExpr) ([]int64, error) {
	if e == nil {
		return nil, p.errorf(c.p, "missing shape")
	}
	var dims []expr
	switch x := e.(type) {
	case *tupleExpr:
		dims = x.elts
	case *listExpr:
		dims = x.elts
	default:
		dims = []expr{e}
	}
	shape := make([]int64, len(dims))
	n := int64(1)
	for i, d := range dims {
		f, ok := foldNumber(d)
		il, isInt := f.(*intLit)
		if !ok || !isInt || il.v < 0 {
			return nil, p.errorf(d.pos(), "a NumPy shape needs non-negative integers, found %s", exprText(d))
		}
		shape[i] = il.v
		if il.v > 0 && n > maxNumpyElems/il.v {
			return nil, p.errorf(e.pos(), "array of shape %s is too large to spell inline (more than %d elements)", exprText(e), maxNumpyElems)
		}
		n *= il.v
	}
	return shape, nil
}

// numpyDType reads a NumPy dtype: a string ("float32"), np.float32, or a
// Python type (float, int, bool), mapped to NumPy's defaults.
func (p *parser) numpyDType(e expr) (runtime.DataType, error) {
	switch x := e.(type) {
	case *attrExpr:
		if mod, ok := x.x.(*nameExpr); ok && (mod.name == "np" || mod.name == "numpy") {
			name := strings.TrimSuffix(x.name, "_")
			if dt, err := runtime.ParseDataType(name); err == nil {
				return dt, nil
			}
		}
	case *nameExpr:
		switch x.name {
		case "float":
			return runtime.Float64, nil
		case "int":
			return runtime.Int64, nil
		case "bool":
			return runtime.Bool, nil
		}
	}
	return p.parseDType(e)
}

// foldNumber evaluates unary and binary arithmetic on int and float
// literals with Python's rules (int / int is a float, // and % floor), as
// the Python interpreter does before TVMScript's parser sees the value. It
// reports false for anything else, and for int results that overflow int64
// or divide by zero.
func foldNumber(e expr) (expr, bool) {
	switch x := e.(type) {
	case *intLit, *floatLit:
		return x, true
	case *callExpr:
		// float("inf"), float("-inf"), float("nan"), float(3), int(2.5).
		f, ok := x.fn.(*nameExpr)
		if !ok || len(x.args) != 1 || len(x.kw) != 0 || (f.name != "float" && f.name != "int") {
			return nil, false
		}
		if str, ok := x.args[0].(*strLit); ok && f.name == "float" {
			v, err := strconv.ParseFloat(strings.TrimSpace(str.v), 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return nil, false
			}
			return &floatLit{p: x.p, v: v}, true
		}
		a, ok := foldNumber(x.args[0])
		if !ok {
			return nil, false
		}
		if f.name == "float" {
			return &floatLit{p: x.p, v: numFloat(a)}, true
		}
		v := math.Trunc(numFloat(a))
		if i, isInt := a.(*intLit); isInt {
			return i, true
		}
		if math.IsNaN(v) || v < math.MinInt64 || v >= math.MaxInt64 {
			return nil, false
		}
		return &intLit{p: x.p, v: int64(v)}, true
	case *unaryExpr:
		v, ok := foldNumber(x.x)
		if !ok {
			return nil, false
		}
		switch x.op {
		case "+":
			return v, true
		case "-":
			switch n := v.(type) {
			case *intLit:
				if n.v == math.MinInt64 {
					return nil, false
				}
				return &intLit{p: x.p, v: -n.v}, true
			case *floatLit:
				return &floatLit{p: x.p, v: -n.v}, true
			}
		}
		return nil, false
	case *binExpr:
		a, ok1 := foldNumber(x.x)
		b, ok2 := foldNumber(x.y)
		if !ok1 || !ok2 {
			return nil, false
		}
		ai, aInt := a.(*intLit)
		bi, bInt := b.(*intLit)
		if aInt && bInt && x.op != "/" && x.op != "**" {
			v, ok := foldInt(x.op, ai.v, bi.v)
			if !ok {
				return nil, false
			}
			return &intLit{p: x.p, v: v}, true
		}
		fa, fb := numFloat(a), numFloat(b)
		var v float64
		switch x.op {
		case "+":
			v = fa + fb
		case "-":
			v = fa - fb
		case "*":
			v = fa * fb
		case "/":
			if fb == 0 {
				return nil, false
			}
			v = fa / fb
		case "//":
			if fb == 0 {
				return nil, false
			}
			v = math.Floor(fa / fb)
		case "%":
			if fb == 0 {
				return nil, false
			}
			v = fa - math.Floor(fa/fb)*fb
		case "**":
			if aInt && bInt && bi.v >= 0 {
				// An int power of an int stays an int in Python.
				r, ok := intPow(ai.v, bi.v)
				if !ok {
					return nil, false
				}
				return &intLit{p: x.p, v: r}, true
			}
			v = math.Pow(fa, fb)
		default:
			return nil, false
		}
		return &floatLit{p: x.p, v: v}, true
	}
	return nil, false
}

func numFloat(e expr) float64 {
	if i, ok := e.(*intLit); ok {
		return float64(i.v)
	}
	return e.(*floatLit).v
}

// foldInt applies a Python integer operator, refusing overflow and
// division by zero.
func foldInt(op string, a, b int64) (int64, bool) {
	switch op {
	case "+":
		r := a + b
		return r, (r > a) == (b > 0) || b == 0
	case "-":
		r := a - b
		return r, (r < a) == (b > 0) || b == 0
	case "*":
		if a == 0 || b == 0 {
			return 0, true
		}
		r := a * b
		return r, r/b == a && !(a == -1 && b == math.MinInt64) && !(b == -1 && a == math.MinInt64)
	case "//", "%":
		if b == 0 || (a == math.MinInt64 && b == -1) {
			return 0, false
		}
		q, m := a/b, a%b
		if m != 0 && (m < 0) != (b < 0) {
			q--
			m += b
		}
		if op == "//" {
			return q, true
		}
		return m, true
	}
	return 0, false
}

// intPow is a**b for b >= 0, refusing overflow.
func intPow(a, b int64) (int64, bool) {
	r := int64(1)
	for range b {
		v, ok := foldInt("*", r, a)
		if !ok {
			return 0, false
		}
		r = v
		if r == 0 || r == 1 && a == 1 {
			return r, true
		}
	}
	return r, true
}
