package tvmscript

import (
	"math"
	"slices"
	"strconv"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// primCtx converts Python expressions to PrimExprs. Relax contexts (shapes)
// use int64 for bare integers; TIR uses int32 and float32, and a bare
// literal combined with a typed expression takes that expression's type.
type primCtx struct {
	p                  *parser
	intType, floatType runtime.DataType
	// lookup resolves a name to a *ir.PrimVar or *ir.Buffer.
	lookup func(name string) (any, bool)
	// define, when set, makes string literals parse as expressions whose
	// unknown names become new variables (symbolic dims in signatures).
	define func(name string) *ir.PrimVar
	// tir enables TIR-only forms (buffer loads, string immediates).
	tir bool
}

// pval is a converted expression; lit marks an untyped Python literal.
type pval struct {
	e   ir.PrimExpr
	lit bool
}

var handleType = runtime.DataType{Code: runtime.CodeHandle, Bits: 64, Lanes: 1}

// mathOps are T.<name> intrinsics kept as PrimCall with the type of their first argument.
var mathOps = map[string]bool{
	"exp": true, "exp2": true, "exp10": true, "log": true, "log2": true, "log10": true, "log1p": true,
	"sqrt": true, "rsqrt": true, "tanh": true, "tan": true, "sin": true, "cos": true, "sinh": true, "cosh": true,
	"asin": true, "acos": true, "atan": true, "asinh": true, "acosh": true, "atanh": true, "atan2": true,
	"sigmoid": true, "erf": true, "pow": true, "fabs": true, "abs": true, "floor": true, "ceil": true,
	"round": true, "trunc": true, "nearbyint": true, "fmod": true, "hypot": true, "copysign": true,
	"ldexp": true, "nextafter": true, "popcount": true, "clz": true, "fast_exp": true, "fast_tanh": true,
	"fast_erf": true, "q_multiply_shift": true,
}

// boolOps are intrinsics returning bool.
var boolOps = map[string]bool{"isnan": true, "isinf": true, "isfinite": true, "likely": true}

func (c *primCtx) errorf(pos ir.Span, format string, args ...any) error {
	return c.p.errorf(pos, format, args...)
}

// expr converts and returns the final PrimExpr.
func (c *primCtx) expr(e expr) (ir.PrimExpr, error) {
	v, err := c.conv(e)
	if err != nil {
		return nil, err
	}
	return v.e, nil
}

func (c *primCtx) conv(e expr) (pval, error) {
	switch x := e.(type) {
	case *intLit:
		return pval{&ir.IntImm{Value: x.v, Type: c.intType}, true}, nil
	case *floatLit:
		return pval{&ir.FloatImm{Value: x.v, Type: c.floatType}, true}, nil
	case *boolLit:
		return pval{&ir.IntImm{Value: b2i(x.v), Type: runtime.Bool}, false}, nil
	case *strLit:
		if c.define != nil {
			return c.stringExpr(x)
		}
		if c.tir {
			return pval{&ir.PrimStr{Value: x.v}, false}, nil
		}
		return pval{}, c.errorf(x.p, "unexpected string %q in an expression", x.v)
	case *nameExpr:
		v, ok := c.lookup(x.name)
		if !ok {
			return pval{}, c.errorf(x.p, "undefined name %q", x.name)
		}
		switch y := v.(type) {
		case *ir.PrimVar:
			return pval{y, false}, nil
		case *ir.Buffer:
			return pval{}, c.errorf(x.p, "buffer %q used as a scalar value; index it (%s[...])", x.name, x.name)
		}
		return pval{}, c.errorf(x.p, "%q is not a scalar value", x.name)
	case *binExpr:
		a, err := c.conv(x.x)
		if err != nil {
			return pval{}, err
		}
		b, err := c.conv(x.y)
		if err != nil {
			return pval{}, err
		}
		var op ir.BinOp
		switch x.op {
		case "+":
			op = ir.OpAdd
		case "-":
			op = ir.OpSub
		case "*":
			op = ir.OpMul
		case "/":
			op = ir.OpDiv
		case "//":
			op = ir.OpFloorDiv
		case "%":
			op = ir.OpFloorMod
		case "**":
			a, b = c.unify(a, b)
			return pval{&ir.PrimCall{Op: "pow", Args: []ir.PrimExpr{a.e, b.e}, Type: a.e.DType()}, false}, nil
		default:
			return pval{}, c.errorf(x.p, "operator %q is not supported in scalar expressions", x.op)
		}
		return c.binary(x.p, op, a, b)
	case *unaryExpr:
		a, err := c.conv(x.x)
		if err != nil {
			return pval{}, err
		}
		switch x.op {
		case "-":
			switch l := a.e.(type) {
			case *ir.IntImm:
				if !l.Type.IsBool() {
					return pval{&ir.IntImm{Value: -l.Value, Type: l.Type}, a.lit}, nil
				}
			case *ir.FloatImm:
				return pval{&ir.FloatImm{Value: -l.Value, Type: l.Type}, a.lit}, nil
			}
			if _, ok := a.e.(*ir.PrimStr); ok {
				return pval{}, c.errorf(x.p, "cannot negate a string")
			}
			return pval{&ir.Binary{Op: ir.OpSub, A: zero(a.e.DType()), B: a.e}, false}, nil
		case "not":
			return pval{&ir.Not{A: a.e}, false}, nil
		}
		return pval{}, c.errorf(x.p, "operator %q is not supported in scalar expressions", x.op)
	case *cmpExpr:
		var out ir.PrimExpr
		for i, op := range x.ops {
			a, err := c.conv(x.xs[i])
			if err != nil {
				return pval{}, err
			}
			b, err := c.conv(x.xs[i+1])
			if err != nil {
				return pval{}, err
			}
			bop := map[string]ir.BinOp{"<": ir.OpLT, "<=": ir.OpLE, ">": ir.OpGT, ">=": ir.OpGE, "==": ir.OpEQ, "!=": ir.OpNE}[op]
			r, err := c.binary(x.p, bop, a, b)
			if err != nil {
				return pval{}, err
			}
			if out == nil {
				out = r.e
			} else {
				out = &ir.Binary{Op: ir.OpAnd, A: out, B: r.e}
			}
		}
		return pval{out, false}, nil
	case *boolOpExpr:
		op := ir.OpAnd
		if x.op == "or" {
			op = ir.OpOr
		}
		var out ir.PrimExpr
		for _, y := range x.xs {
			v, err := c.conv(y)
			if err != nil {
				return pval{}, err
			}
			if out == nil {
				out = v.e
			} else {
				out = &ir.Binary{Op: op, A: out, B: v.e}
			}
		}
		return pval{out, false}, nil
	case *indexExpr:
		if !c.tir {
			return pval{}, c.errorf(x.p, "indexing is not supported here")
		}
		if at, ok := x.x.(*attrExpr); ok && at.name == "shape" && len(x.index) == 1 {
			// buf.shape[i]: a dimension of a buffer.
			buf, err := c.buffer(at.x)
			if err != nil {
				return pval{}, err
			}
			i, ok := x.index[0].(*intLit)
			if !ok || i.v < 0 || i.v >= int64(len(buf.Shape)) {
				return pval{}, c.errorf(x.index[0].pos(), "%s.shape takes a constant index below %d", buf.Name, len(buf.Shape))
			}
			return pval{buf.Shape[i.v], false}, nil
		}
		buf, err := c.buffer(x.x)
		if err != nil {
			return pval{}, err
		}
		idx, err := c.indices(buf, x)
		if err != nil {
			return pval{}, err
		}
		return pval{&ir.BufferLoad{Buffer: buf, Indices: idx}, false}, nil
	case *callExpr:
		return c.call(x)
	case *condExpr:
		cond, err := c.conv(x.cond)
		if err != nil {
			return pval{}, err
		}
		a, err := c.conv(x.then)
		if err != nil {
			return pval{}, err
		}
		b, err := c.conv(x.els_)
		if err != nil {
			return pval{}, err
		}
		a, b = c.unify(a, b)
		return pval{&ir.Select{Cond: cond.e, True: a.e, False: b.e}, false}, nil
	}
	return pval{}, c.errorf(e.pos(), "unsupported scalar expression %s", describeFor(e))
}

func (c *primCtx) buffer(e expr) (*ir.Buffer, error) {
	n, ok := e.(*nameExpr)
	if !ok {
		return nil, c.errorf(e.pos(), "expected a buffer name, found %s", describeFor(e))
	}
	v, ok := c.lookup(n.name)
	if !ok {
		return nil, c.errorf(n.p, "undefined name %q", n.name)
	}
	b, ok := v.(*ir.Buffer)
	if !ok {
		return nil, c.errorf(n.p, "%q is not a buffer", n.name)
	}
	return b, nil
}

func (c *primCtx) indices(buf *ir.Buffer, x *indexExpr) ([]ir.PrimExpr, error) {
	idx := make([]ir.PrimExpr, len(x.index))
	for i, ie := range x.index {
		if _, ok := ie.(*sliceExpr); ok {
			return nil, c.errorf(ie.pos(), "slices are only allowed in T.reads/T.writes regions")
		}
		v, err := c.expr(ie)
		if err != nil {
			return nil, err
		}
		idx[i] = v
	}
	if len(buf.Shape) != len(idx) {
		return nil, c.errorf(x.p, "buffer %q has %d dimensions but is indexed with %d", buf.Name, len(buf.Shape), len(idx))
	}
	return idx, nil
}

// stringExpr parses a symbolic dimension written as a string ("n", "n * 2").
func (c *primCtx) stringExpr(s *strLit) (pval, error) {
	sub := &source{file: c.p.src.file, lines: c.p.src.lines}
	toks, _, _, err := lex(sub, s.v)
	if err != nil {
		return pval{}, c.errorf(s.p, "invalid symbolic expression %q", s.v)
	}
	for i := range toks {
		toks[i].pos = s.p
	}
	pp := &pyParser{src: sub, toks: toks}
	e, err := pp.expr()
	if err != nil || pp.peek().kind != tNewline && pp.peek().kind != tEOF {
		return pval{}, c.errorf(s.p, "invalid symbolic expression %q", s.v)
	}
	inner := *c
	inner.define = nil
	outerLookup := c.lookup
	inner.lookup = func(name string) (any, bool) {
		if v, ok := outerLookup(name); ok {
			return v, true
		}
		return c.define(name), true
	}
	return inner.conv(e)
}

func zero(dt runtime.DataType) ir.PrimExpr {
	if dt.IsFloat() {
		return &ir.FloatImm{Value: 0, Type: dt}
	}
	return &ir.IntImm{Value: 0, Type: dt}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// retype gives a literal the type dt.
func retype(v pval, dt runtime.DataType) pval {
	switch l := v.e.(type) {
	case *ir.IntImm:
		if dt.IsFloat() {
			return pval{&ir.FloatImm{Value: float64(l.Value), Type: dt}, false}
		}
		if dt.IsInt() || dt.IsUInt() || dt.IsBool() {
			return pval{&ir.IntImm{Value: l.Value, Type: dt}, false}
		}
	case *ir.FloatImm:
		if dt.IsFloat() {
			return pval{&ir.FloatImm{Value: l.Value, Type: dt}, false}
		}
	}
	return v
}

// unify applies TVM's binary-operand rules: a literal takes the other
// side's type; of two typed operands the narrower/integer one is cast.
func (c *primCtx) unify(a, b pval) (pval, pval) {
	switch {
	case a.lit && !b.lit:
		a = retype(a, b.e.DType())
	case b.lit && !a.lit:
		b = retype(b, a.e.DType())
	}
	ta, tb := a.e.DType(), b.e.DType()
	if ta == tb || a.lit && b.lit {
		return a, b
	}
	if _, ok := a.e.(*ir.PrimStr); ok {
		return a, b
	}
	if _, ok := b.e.(*ir.PrimStr); ok {
		return a, b
	}
	switch {
	case ta.IsFloat() && !tb.IsFloat():
		b = pval{&ir.Cast{Type: ta, Value: b.e}, false}
	case tb.IsFloat() && !ta.IsFloat():
		a = pval{&ir.Cast{Type: tb, Value: a.e}, false}
	case ta.Bits < tb.Bits:
		a = pval{&ir.Cast{Type: tb, Value: a.e}, false}
	case tb.Bits < ta.Bits:
		b = pval{&ir.Cast{Type: ta, Value: b.e}, false}
	}
	return a, b
}

func (c *primCtx) binary(pos ir.Span, op ir.BinOp, a, b pval) (pval, error) {
	if _, ok := a.e.(*ir.PrimStr); ok {
		return pval{}, c.errorf(pos, "strings cannot be used in arithmetic")
	}
	if _, ok := b.e.(*ir.PrimStr); ok {
		return pval{}, c.errorf(pos, "strings cannot be used in arithmetic")
	}
	if a.lit && b.lit {
		if r, ok := foldLit(op, a.e, b.e, c); ok {
			return r, nil
		}
	}
	a, b = c.unify(a, b)
	return pval{&ir.Binary{Op: op, A: a.e, B: b.e}, false}, nil
}

// foldLit folds arithmetic on two Python literals as Python would.
func foldLit(op ir.BinOp, a, b ir.PrimExpr, c *primCtx) (pval, bool) {
	ai, aInt := a.(*ir.IntImm)
	bi, bInt := b.(*ir.IntImm)
	if aInt && bInt {
		x, y := ai.Value, bi.Value
		switch op {
		case ir.OpAdd:
			return pval{&ir.IntImm{Value: x + y, Type: ai.Type}, true}, true
		case ir.OpSub:
			return pval{&ir.IntImm{Value: x - y, Type: ai.Type}, true}, true
		case ir.OpMul:
			return pval{&ir.IntImm{Value: x * y, Type: ai.Type}, true}, true
		case ir.OpFloorDiv:
			if y != 0 {
				return pval{&ir.IntImm{Value: ir.FloorDivInt(x, y), Type: ai.Type}, true}, true
			}
		case ir.OpFloorMod:
			if y != 0 {
				return pval{&ir.IntImm{Value: ir.FloorModInt(x, y), Type: ai.Type}, true}, true
			}
		case ir.OpDiv:
			if y != 0 {
				return pval{&ir.FloatImm{Value: float64(x) / float64(y), Type: c.floatType}, true}, true
			}
		}
		return pval{}, false
	}
	fa, okA := litFloat(a)
	fb, okB := litFloat(b)
	if !okA || !okB {
		return pval{}, false
	}
	var r float64
	switch op {
	case ir.OpAdd:
		r = fa + fb
	case ir.OpSub:
		r = fa - fb
	case ir.OpMul:
		r = fa * fb
	case ir.OpDiv:
		if fb == 0 {
			return pval{}, false
		}
		r = fa / fb
	default:
		return pval{}, false
	}
	return pval{&ir.FloatImm{Value: r, Type: c.floatType}, true}, true
}

func litFloat(e ir.PrimExpr) (float64, bool) {
	switch x := e.(type) {
	case *ir.IntImm:
		return float64(x.Value), true
	case *ir.FloatImm:
		return x.Value, true
	}
	return 0, false
}

// dtypeNames are the T.<dtype> constructors.
func dtypeName(s string) (runtime.DataType, bool) {
	switch s {
	case "handle", "void":
		return runtime.DataType{}, false
	}
	dt, err := runtime.ParseDataType(s)
	if err != nil || dt.String() != s {
		return runtime.DataType{}, false
	}
	return dt, true
}

func (c *primCtx) call(x *callExpr) (pval, error) {
	k, name := c.p.ns(x.fn)
	if k != "tir" {
		return pval{}, c.errorf(x.p, "unsupported call %s in a scalar expression", describeFor(x.fn))
	}
	// Older printers add the result's dtype to intrinsic calls
	// (T.exp(x, dtype="float32"), T.if_then_else(c, a, b, dtype=...)): it
	// is taken off here and checked against the type the call has.
	if mathOps[name] || boolOps[name] || name == "if_then_else" || name == "Select" {
		var dtKw *kwarg
		rest := x.kw[:0:0]
		for i := range x.kw {
			if x.kw[i].name == "dtype" {
				dtKw = &x.kw[i]
				continue
			}
			rest = append(rest, x.kw[i])
		}
		if dtKw != nil {
			want, err := c.p.parseDType(dtKw.val)
			if err != nil {
				return pval{}, err
			}
			y := *x
			y.kw = rest
			v, err := c.call(&y)
			if err != nil {
				return pval{}, err
			}
			if got := v.e.DType(); got != want && !v.lit {
				return pval{}, c.errorf(dtKw.p, "T.%s: dtype=%q, but the call's type is %s", name, want, got)
			}
			if v.lit {
				v = retype(v, want)
			}
			return v, nil
		}
	}
	argN := func(n int) error {
		if len(x.args) != n || len(x.kw) != 0 {
			return c.errorf(x.p, "T.%s takes %d argument(s), got %d", name, n, len(x.args)+len(x.kw))
		}
		return nil
	}
	convArgs := func() ([]pval, error) {
		out := make([]pval, len(x.args))
		for i, a := range x.args {
			v, err := c.conv(a)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	if dt, ok := dtypeName(name); ok {
		if len(x.args) == 0 {
			return pval{}, c.errorf(x.p, "T.%s() declares a variable and can only appear as `name = T.%s()`", name, name)
		}
		if err := argN(1); err != nil {
			return pval{}, err
		}
		switch a := x.args[0].(type) {
		case *intLit:
			if dt.IsFloat() {
				return pval{&ir.FloatImm{Value: float64(a.v), Type: dt}, false}, nil
			}
			return pval{&ir.IntImm{Value: a.v, Type: dt}, false}, nil
		case *boolLit:
			if dt.IsFloat() {
				return pval{&ir.FloatImm{Value: float64(b2i(a.v)), Type: dt}, false}, nil
			}
			return pval{&ir.IntImm{Value: b2i(a.v), Type: dt}, false}, nil
		case *floatLit:
			if !dt.IsFloat() {
				return pval{}, c.errorf(a.p, "T.%s needs an integer, found %s", name, exprText(a))
			}
			return pval{&ir.FloatImm{Value: a.v, Type: dt}, false}, nil
		case *strLit:
			var f float64
			switch a.v {
			case "inf":
				f = math.Inf(1)
			case "-inf":
				f = math.Inf(-1)
			case "nan":
				f = math.NaN()
			default:
				v, err := strconv.ParseFloat(a.v, 64)
				if err != nil || !dt.IsFloat() {
					return pval{}, c.errorf(a.p, "invalid literal %q for T.%s", a.v, name)
				}
				f = v
			}
			if !dt.IsFloat() {
				return pval{}, c.errorf(a.p, "invalid literal %q for T.%s", a.v, name)
			}
			return pval{&ir.FloatImm{Value: f, Type: dt}, false}, nil
		}
		v, err := c.conv(x.args[0])
		if err != nil {
			return pval{}, err
		}
		if v.lit {
			return retype(v, dt), nil
		}
		if v.e.DType() == dt {
			return v, nil
		}
		return pval{&ir.Cast{Type: dt, Value: v.e}, false}, nil
	}
	switch name {
	case "Cast", "cast":
		if err := argN(2); err != nil {
			return pval{}, err
		}
		dtArg, valArg := x.args[0], x.args[1]
		if name == "cast" {
			dtArg, valArg = valArg, dtArg
		}
		dt, err := c.p.parseDType(dtArg)
		if err != nil {
			return pval{}, err
		}
		v, err := c.conv(valArg)
		if err != nil {
			return pval{}, err
		}
		return pval{&ir.Cast{Type: dt, Value: v.e}, false}, nil
	case "max", "min", "floordiv", "floormod", "truncdiv", "truncmod", "Div", "Mod", "FloorDiv", "FloorMod", "Max", "Min", "And", "Or":
		if err := argN(2); err != nil {
			return pval{}, err
		}
		a, err := c.conv(x.args[0])
		if err != nil {
			return pval{}, err
		}
		b, err := c.conv(x.args[1])
		if err != nil {
			return pval{}, err
		}
		op := map[string]ir.BinOp{"max": ir.OpMax, "Max": ir.OpMax, "min": ir.OpMin, "Min": ir.OpMin,
			"floordiv": ir.OpFloorDiv, "FloorDiv": ir.OpFloorDiv, "floormod": ir.OpFloorMod, "FloorMod": ir.OpFloorMod,
			"truncdiv": ir.OpDiv, "Div": ir.OpDiv, "truncmod": ir.OpMod, "Mod": ir.OpMod, "And": ir.OpAnd, "Or": ir.OpOr}[name]
		if a.lit && b.lit {
			a, b = retype(a, a.e.DType()), retype(b, b.e.DType())
		}
		return c.binary(x.p, op, a, b)
	case "Not":
		if err := argN(1); err != nil {
			return pval{}, err
		}
		a, err := c.conv(x.args[0])
		if err != nil {
			return pval{}, err
		}
		return pval{&ir.Not{A: a.e}, false}, nil
	case "if_then_else", "Select":
		if err := argN(3); err != nil {
			return pval{}, err
		}
		args, err := convArgs()
		if err != nil {
			return pval{}, err
		}
		a, b := c.unify(args[1], args[2])
		if name == "Select" {
			return pval{&ir.Select{Cond: args[0].e, True: a.e, False: b.e}, false}, nil
		}
		return pval{&ir.PrimCall{Op: "if_then_else", Args: []ir.PrimExpr{args[0].e, a.e, b.e}, Type: a.e.DType()}, false}, nil
	case "assume":
		// An assumption for TVM's simplifier (T.evaluate(T.assume(c))):
		// kept in the IR, a no-op when it runs.
		if err := argN(1); err != nil {
			return pval{}, err
		}
		a, err := c.conv(x.args[0])
		if err != nil {
			return pval{}, err
		}
		if !a.e.DType().IsBool() {
			return pval{}, c.errorf(x.p, "T.assume takes a condition, got a %s value", a.e.DType())
		}
		return pval{&ir.PrimCall{Op: "assume", Args: []ir.PrimExpr{a.e}, Type: runtime.Bool}, false}, nil
	case "max_value", "min_value":
		if err := argN(1); err != nil {
			return pval{}, err
		}
		dt, err := c.p.parseDType(x.args[0])
		if err != nil {
			return pval{}, err
		}
		return pval{limitValue(dt, name == "max_value"), false}, nil
	case "call_extern", "call_pure_extern", "call_llvm_intrin", "call_llvm_pure_intrin":
		if len(x.args) < 2 || len(x.kw) != 0 {
			return pval{}, c.errorf(x.p, "T.%s takes a dtype, a function name and arguments", name)
		}
		dt, err := c.p.parseDType(x.args[0])
		if err != nil {
			return pval{}, err
		}
		fn, ok := x.args[1].(*strLit)
		if !ok {
			return pval{}, c.errorf(x.args[1].pos(), "T.%s needs the function name as a string", name)
		}
		args := []ir.PrimExpr{&ir.PrimStr{Value: fn.v}}
		for _, a := range x.args[2:] {
			v, err := c.expr(a)
			if err != nil {
				return pval{}, err
			}
			args = append(args, v)
		}
		return pval{&ir.PrimCall{Op: name, Args: args, Type: dt}, false}, nil
	}
	if mathOps[name] || boolOps[name] {
		// TVM's tir functions name their operands x (unary), x and y
		// (pow, fmod) or x1 and x2 (atan2, hypot, ...): keywords in that
		// order are taken as the operands, as Python binds them.
		if len(x.kw) > 0 {
			y := *x
			y.args = slices.Clone(x.args)
			y.kw = nil
			slot := map[string]int{"x": 0, "x1": 0, "y": 1, "x2": 1}
			for _, k := range x.kw {
				i, ok := slot[k.name]
				if k.name == "span" {
					continue
				}
				if !ok || i < len(x.args) {
					return pval{}, c.errorf(k.p, "T.%s: unexpected argument %q", name, k.name)
				}
				for len(y.args) <= i {
					y.args = append(y.args, nil)
				}
				if y.args[i] != nil {
					return pval{}, c.errorf(k.p, "T.%s: argument %q given twice", name, k.name)
				}
				y.args[i] = k.val
			}
			if slices.Contains(y.args, nil) {
				return pval{}, c.errorf(x.p, "T.%s: missing an argument", name)
			}
			x = &y
		}
		if len(x.args) == 0 {
			return pval{}, c.errorf(x.p, "T.%s needs arguments", name)
		}
		args, err := convArgs()
		if err != nil {
			return pval{}, err
		}
		if len(args) == 2 {
			args[0], args[1] = c.unify(args[0], args[1])
		}
		if len(args) == 1 && args[0].lit && name != "likely" {
			args[0] = retype(args[0], c.floatType)
		}
		es := make([]ir.PrimExpr, len(args))
		for i, a := range args {
			es[i] = a.e
		}
		t := es[0].DType()
		if boolOps[name] {
			t = runtime.Bool
		}
		op := name
		if name == "abs" && t.IsFloat() {
			op = "fabs"
		}
		return pval{&ir.PrimCall{Op: op, Args: es, Type: t}, false}, nil
	}
	return pval{}, c.errorf(x.p, "unsupported TIR function T.%s", name)
}

func limitValue(dt runtime.DataType, max bool) ir.PrimExpr {
	switch {
	case dt.IsFloat():
		v := math.MaxFloat32
		switch dt.Bits {
		case 64:
			v = math.MaxFloat64
		case 16:
			v = 65504
		}
		if !max {
			v = -v
		}
		return &ir.FloatImm{Value: v, Type: dt}
	case dt.IsBool():
		return &ir.IntImm{Value: b2i(max), Type: dt}
	case dt.IsUInt():
		if !max {
			return &ir.IntImm{Value: 0, Type: dt}
		}
		if dt.Bits >= 64 {
			return &ir.IntImm{Value: -1, Type: dt}
		}
		return &ir.IntImm{Value: int64(1)<<dt.Bits - 1, Type: dt}
	}
	bits := int(dt.Bits)
	if bits > 64 || bits == 0 {
		bits = 64
	}
	if max {
		return &ir.IntImm{Value: int64(uint64(1)<<(bits-1) - 1), Type: dt}
	}
	return &ir.IntImm{Value: -int64(uint64(1) << (bits - 1)), Type: dt}
}
