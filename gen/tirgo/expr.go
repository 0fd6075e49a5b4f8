package tirgo

import (
	"math"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// gexpr is emitted Go code with its precedence: 5 operand or unary, 4
// multiplicative, 3 additive, 2 comparison, 1 &&, 0 ||.
type gexpr struct {
	c    jen.Code
	prec int
}

func wrap(x gexpr, p int) jen.Code {
	if x.prec < p {
		return jen.Parens(x.c)
	}
	return x.c
}

func binop(a gexpr, op string, b gexpr, p int) gexpr {
	return gexpr{jen.Add(wrap(a, p)).Op(op).Add(wrap(b, p+1)), p}
}

func operand(c jen.Code) gexpr { return gexpr{c, 5} }

func (g *tirGen) call(name string, args ...gexpr) gexpr {
	cs := make([]jen.Code, len(args))
	for i, a := range args {
		cs[i] = a.c
	}
	return operand(jen.Id(name).Call(cs...))
}

func conv(t string, x gexpr) gexpr { return operand(jen.Id(t).Call(x.c)) }

// isConst reports whether e reads no variables or memory.
func isConst(e ir.PrimExpr) bool {
	ok := true
	ir.VisitPrim(e, func(x ir.PrimExpr) {
		switch x.(type) {
		case *ir.PrimVar, *ir.BufferLoad, *ir.PrimStr, *ir.Let:
			ok = false
		}
	})
	return ok
}

// constFold evaluates a constant expression with the reference semantics.
func (g *tirGen) constFold(e ir.PrimExpr) (v tval, err error) {
	defer func() {
		if r := recover(); r != nil {
			if ie, ok := r.(interpError); ok {
				err = g.errorf("%s: %s", ir.ExprString(e), string(ie))
				return
			}
			err = g.errorf("cannot evaluate %s: %v", ir.ExprString(e), r)
		}
	}()
	in := &interp{f: g.f, env: map[*ir.PrimVar]tval{}, bufs: map[*ir.Buffer]*ibuf{}}
	return in.expr(e), nil
}

func (g *tirGen) intLit(v int64, t runtime.DataType) jen.Code {
	switch {
	case t.IsBool():
		return jen.Lit(v != 0)
	case t.IsInt():
		switch t.Bits {
		case 8:
			return jen.Lit(int8(v))
		case 16:
			return jen.Lit(int16(v))
		case 32:
			return jen.Lit(int32(v))
		}
		return jen.Lit(int(v))
	}
	switch t.Bits {
	case 8:
		return jen.Lit(uint8(v))
	case 16:
		return jen.Lit(uint16(v))
	case 32:
		return jen.Lit(uint32(v))
	}
	return jen.Lit(uint64(v))
}

func (g *tirGen) literal(v tval, t runtime.DataType) gexpr {
	if !t.IsFloat() {
		c := g.intLit(v.i, t)
		if t.IsInt() && t.Bits == 64 && v.i < 0 {
			return gexpr{c, 5}
		}
		return operand(c)
	}
	gt := goScalar(t)
	f := v.f
	switch {
	case math.IsNaN(f):
		return conv(gt, operand(jen.Qual("math", "NaN").Call()))
	case math.IsInf(f, 0):
		s := 1
		if f < 0 {
			s = -1
		}
		return conv(gt, operand(jen.Qual("math", "Inf").Call(jen.Lit(s))))
	case f == 0 && math.Signbit(f):
		return conv(gt, operand(jen.Qual("math", "Copysign").Call(jen.Lit(0), jen.Lit(-1))))
	}
	bits := 64
	if gt == "float32" {
		bits = 32
	}
	s := strconv.FormatFloat(f, 'g', -1, bits)
	return operand(jen.Id(gt).Call(jen.Op(s)))
}

func (g *tirGen) expr(e ir.PrimExpr) (gexpr, error) {
	if e == nil {
		return gexpr{}, g.errorf("missing expression")
	}
	t := e.DType()
	if _, ok := e.(*ir.PrimStr); ok {
		return gexpr{}, g.errorf("string %s in an expression is not supported", ir.ExprString(e))
	}
	if v, ok := e.(*ir.PrimVar); ok && g.handles[v] {
		return gexpr{}, g.errorf("parameter %q is a handle without a buffer (T.match_buffer), which generated code cannot read", v.Name)
	}
	if !supportedDType(t) {
		return gexpr{}, g.errorf("expression %s has unsupported type %s", ir.ExprString(e), t)
	}
	if isConst(e) {
		if err := g.checkExpr(e); err != nil {
			return gexpr{}, err
		}
		v, err := g.constFold(e)
		if err != nil {
			return gexpr{}, err
		}
		return g.literal(v, t), nil
	}
	switch x := e.(type) {
	case *ir.PrimVar:
		n, ok := g.vname[x]
		if !ok {
			return gexpr{}, g.errorf("variable %s is not bound here", x.Name)
		}
		g.refs[x] = true
		return operand(jen.Id(n)), nil
	case *ir.Binary:
		return g.binary(x)
	case *ir.Not:
		if !x.A.DType().IsBool() {
			return gexpr{}, g.errorf("logical not of a %s value", x.A.DType())
		}
		a, err := g.expr(x.A)
		if err != nil {
			return gexpr{}, err
		}
		return gexpr{jen.Op("!").Add(wrap(a, 5)), 5}, nil
	case *ir.Cast:
		a, err := g.expr(x.Value)
		if err != nil {
			return gexpr{}, err
		}
		return g.cast(a, x.Value.DType(), x.Type), nil
	case *ir.Select:
		if !x.Cond.DType().IsBool() || x.True.DType() != x.False.DType() {
			return gexpr{}, g.errorf("ill-typed Select %s", ir.ExprString(e))
		}
		c, err := g.expr(x.Cond)
		if err != nil {
			return gexpr{}, err
		}
		a, err := g.expr(x.True)
		if err != nil {
			return gexpr{}, err
		}
		b, err := g.expr(x.False)
		if err != nil {
			return gexpr{}, err
		}
		gt := goScalar(t)
		h := g.helperFunc("sel_"+gt, jen.Params(jen.Id("c").Bool(), jen.List(jen.Id("a"), jen.Id("b")).Id(gt)), jen.Id(gt),
			jen.If(jen.Id("c")).Block(jen.Return(jen.Id("a"))), jen.Return(jen.Id("b")))
		return g.call(h, c, a, b), nil
	case *ir.BufferLoad:
		gb, err := g.buffer(x.Buffer)
		if err != nil {
			return gexpr{}, err
		}
		if g.acc != nil && g.acc.buf == x.Buffer {
			return operand(jen.Id(g.acc.name)), nil
		}
		off, err := g.offset(gb, x.Indices)
		if err != nil {
			return gexpr{}, err
		}
		return g.fromElem(x.Buffer.DType, operand(jen.Id(gb.data).Index(off))), nil
	case *ir.Let:
		if x.Value.DType() != x.Var.Type {
			return gexpr{}, g.errorf("let %s: value of type %s bound to a %s variable", x.Var.Name, x.Value.DType(), x.Var.Type)
		}
		v, err := g.expr(x.Value)
		if err != nil {
			return gexpr{}, err
		}
		name := g.fresh(x.Var.Name)
		g.vname[x.Var] = name
		g.depth[x.Var] = inlineDepth
		g.nonNegVars[x.Var] = g.nonNeg(x.Value)
		body, err := g.expr(x.Body)
		if err != nil {
			return gexpr{}, err
		}
		bindV := jen.Id(name).Op(":=").Add(v.c)
		if !g.refs[x.Var] {
			bindV = jen.Id("_").Op("=").Add(v.c)
		}
		return operand(jen.Func().Params().Id(goScalar(t)).Block(bindV, jen.Return(body.c)).Call()), nil
	case *ir.PrimCall:
		return g.primCall(x)
	}
	return gexpr{}, g.errorf("unsupported expression %s", ir.ExprString(e))
}

// checkExpr validates a constant expression before folding it, so that
// unsupported intrinsics are refused rather than folded.
func (g *tirGen) checkExpr(e ir.PrimExpr) error {
	var err error
	ir.VisitPrim(e, func(x ir.PrimExpr) {
		if err != nil {
			return
		}
		if !supportedDType(x.DType()) {
			err = g.errorf("expression %s has unsupported type %s", ir.ExprString(x), x.DType())
			return
		}
		if c, ok := x.(*ir.PrimCall); ok {
			if !knownIntrinsic(c) {
				err = g.errorf("unsupported intrinsic T.%s in %s", c.Op, ir.ExprString(e))
			}
		}
	})
	return err
}

func knownIntrinsic(c *ir.PrimCall) bool {
	switch c.Op {
	case "if_then_else":
		return len(c.Args) == 3
	case "likely", "isnan", "isinf", "isfinite", "abs":
		return len(c.Args) == 1
	}
	if mathFuncs1[c.Op] != nil {
		return len(c.Args) == 1 && c.Args[0].DType().IsFloat()
	}
	if mathFuncs2[c.Op] != nil {
		return len(c.Args) == 2 && c.Args[0].DType().IsFloat() && c.Args[1].DType() == c.Args[0].DType()
	}
	return false
}

// round16 rounds a float32 value to the 16-bit float type t.
func (g *tirGen) round16(t runtime.DataType, c jen.Code) jen.Code {
	if t.Code == runtime.CodeBFloat {
		return jen.Qual(halfPkg, "RoundBFloat16").Call(c)
	}
	return jen.Qual(halfPkg, "RoundFloat16").Call(c)
}

func (g *tirGen) binary(x *ir.Binary) (gexpr, error) {
	ta, tb := x.A.DType(), x.B.DType()
	if ta != tb {
		return gexpr{}, g.errorf("operands of %s have different types %s and %s", ir.ExprString(x), ta, tb)
	}
	t := ta
	if x.Op == ir.OpAnd || x.Op == ir.OpOr {
		if !t.IsBool() {
			return gexpr{}, g.errorf("%s on %s operands", x.Op, t)
		}
	}
	a, err := g.expr(x.A)
	if err != nil {
		return gexpr{}, err
	}
	// Floor division by a positive constant has cheap exact forms.
	if !t.IsFloat() && !t.IsBool() && (x.Op == ir.OpFloorDiv || x.Op == ir.OpFloorMod) {
		if c, ok := ir.AsInt(x.B); ok && c > 0 {
			c = wrapInt(c, t)
			if c > 0 && c&(c-1) == 0 {
				k := 0
				for int64(1)<<k < c {
					k++
				}
				if x.Op == ir.OpFloorDiv {
					if k == 0 {
						return a, nil
					}
					return binop(a, ">>", operand(jen.Lit(k)), 4), nil
				}
				return binop(a, "&", g.literal(tval{i: c - 1}, t), 4), nil
			}
			if c > 0 && (t.IsUInt() || g.nonNeg(x.A)) {
				op := "/"
				if x.Op == ir.OpFloorMod {
					op = "%"
				}
				return binop(a, op, g.literal(tval{i: c}, t), 4), nil
			}
		}
	}
	b, err := g.expr(x.B)
	if err != nil {
		return gexpr{}, err
	}
	gt := goScalar(t)
	fl := t.IsFloat()
	half := isHalf(t)
	arith := func(r gexpr) gexpr {
		if half {
			return operand(g.round16(t, r.c))
		}
		return r
	}
	switch x.Op {
	case ir.OpAdd:
		return arith(binop(a, "+", b, 3)), nil
	case ir.OpSub:
		return arith(binop(a, "-", b, 3)), nil
	case ir.OpMul:
		if fl {
			// The conversion stops Go from fusing a*b+c into an FMA.
			return arith(conv(gt, binop(a, "*", b, 4))), nil
		}
		return binop(a, "*", b, 4), nil
	case ir.OpDiv:
		return arith(binop(a, "/", b, 4)), nil
	case ir.OpMod:
		if fl {
			return arith(g.mathCall1(t, "Mod", a, b)), nil
		}
		return binop(a, "%", b, 4), nil
	case ir.OpFloorDiv:
		if fl {
			return arith(g.floatFloorDiv(t, a, b)), nil
		}
		if t.IsUInt() {
			return binop(a, "/", b, 4), nil
		}
		h := g.helperFunc("floordiv_"+gt, jen.Params(jen.List(jen.Id("a"), jen.Id("b")).Id(gt)), jen.Id(gt),
			jen.Id("q").Op(":=").Id("a").Op("/").Id("b"),
			jen.If(jen.Parens(jen.Id("a").Op("%").Id("b").Op("!=").Lit(0)).Op("&&").Parens(jen.Parens(jen.Id("a").Op("<").Lit(0)).Op("!=").Parens(jen.Id("b").Op("<").Lit(0)))).Block(jen.Id("q").Op("--")),
			jen.Return(jen.Id("q")))
		return g.call(h, a, b), nil
	case ir.OpFloorMod:
		if fl {
			q := g.floatFloorDiv(t, a, b)
			if t.Bits == 64 {
				return binop(a, "-", conv(gt, binop(q, "*", b, 4)), 3), nil
			}
			return arith(binop(a, "-", conv(gt, binop(q, "*", b, 4)), 3)), nil
		}
		if t.IsUInt() {
			return binop(a, "%", b, 4), nil
		}
		h := g.helperFunc("floormod_"+gt, jen.Params(jen.List(jen.Id("a"), jen.Id("b")).Id(gt)), jen.Id(gt),
			jen.Id("m").Op(":=").Id("a").Op("%").Id("b"),
			jen.If(jen.Id("m").Op("!=").Lit(0).Op("&&").Parens(jen.Parens(jen.Id("m").Op("<").Lit(0)).Op("!=").Parens(jen.Id("b").Op("<").Lit(0)))).Block(jen.Id("m").Op("+=").Id("b")),
			jen.Return(jen.Id("m")))
		return g.call(h, a, b), nil
	case ir.OpMin, ir.OpMax:
		if t.IsBool() {
			return gexpr{}, g.errorf("%s of bool values is not supported", x.Op)
		}
		if !fl {
			return g.call(x.Op.String(), a, b), nil
		}
		op, name := "<", "fmin_"+gt
		if x.Op == ir.OpMax {
			op, name = ">", "fmax_"+gt
		}
		h := g.helperFunc(name, jen.Params(jen.List(jen.Id("a"), jen.Id("b")).Id(gt)), jen.Id(gt),
			jen.If(jen.Id("a").Op(op).Id("b")).Block(jen.Return(jen.Id("a"))), jen.Return(jen.Id("b")))
		return g.call(h, a, b), nil
	case ir.OpEQ:
		return binop(a, "==", b, 2), nil
	case ir.OpNE:
		if fl {
			h := g.helperFunc("fne_"+gt, jen.Params(jen.List(jen.Id("a"), jen.Id("b")).Id(gt)), jen.Bool(),
				jen.Return(jen.Id("a").Op("<").Id("b").Op("||").Id("a").Op(">").Id("b")))
			return g.call(h, a, b), nil
		}
		return binop(a, "!=", b, 2), nil
	case ir.OpLT, ir.OpLE, ir.OpGT, ir.OpGE:
		if t.IsBool() {
			return gexpr{}, g.errorf("ordered comparison of bool values is not supported")
		}
		return binop(a, map[ir.BinOp]string{ir.OpLT: "<", ir.OpLE: "<=", ir.OpGT: ">", ir.OpGE: ">="}[x.Op], b, 2), nil
	case ir.OpAnd:
		return binop(a, "&&", b, 1), nil
	case ir.OpOr:
		return binop(a, "||", b, 0), nil
	}
	return gexpr{}, g.errorf("unsupported operator %s", x.Op)
}

func (g *tirGen) floatFloorDiv(t runtime.DataType, a, b gexpr) gexpr {
	q := binop(a, "/", b, 4)
	if t.Bits == 64 {
		return operand(jen.Qual("math", "Floor").Call(q.c))
	}
	return conv("float32", operand(jen.Qual("math", "Floor").Call(jen.Float64().Call(q.c))))
}

// mathCall1 calls math.<fn> in float64 and converts back to t's Go type.
func (g *tirGen) mathCall1(t runtime.DataType, fn string, args ...gexpr) gexpr {
	cs := make([]jen.Code, len(args))
	for i, a := range args {
		if t.Bits == 64 {
			cs[i] = a.c
		} else {
			cs[i] = jen.Float64().Call(a.c)
		}
	}
	r := operand(jen.Qual("math", fn).Call(cs...))
	if t.Bits == 64 {
		return r
	}
	return conv("float32", r)
}

var mathNames1 = map[string]string{
	"exp": "Exp", "exp2": "Exp2", "log": "Log", "log2": "Log2", "log10": "Log10", "log1p": "Log1p",
	"sqrt": "Sqrt", "tanh": "Tanh", "tan": "Tan", "sin": "Sin", "cos": "Cos", "sinh": "Sinh", "cosh": "Cosh",
	"asin": "Asin", "acos": "Acos", "atan": "Atan", "asinh": "Asinh", "acosh": "Acosh", "atanh": "Atanh",
	"erf": "Erf", "fabs": "Abs", "floor": "Floor", "ceil": "Ceil", "round": "RoundToEven", "nearbyint": "RoundToEven",
	"trunc": "Trunc", "fast_exp": "Exp", "fast_tanh": "Tanh", "fast_erf": "Erf",
}

var mathNames2 = map[string]string{"pow": "Pow", "atan2": "Atan2", "fmod": "Mod", "hypot": "Hypot", "copysign": "Copysign"}

func (g *tirGen) primCall(x *ir.PrimCall) (gexpr, error) {
	if !knownIntrinsic(x) {
		return gexpr{}, g.errorf("unsupported intrinsic T.%s in %s", x.Op, ir.ExprString(x))
	}
	t := x.DType()
	args := make([]gexpr, len(x.Args))
	if x.Op != "if_then_else" {
		for i, a := range x.Args {
			v, err := g.expr(a)
			if err != nil {
				return gexpr{}, err
			}
			args[i] = v
		}
	}
	switch x.Op {
	case "if_then_else":
		if !x.Args[0].DType().IsBool() || x.Args[1].DType() != x.Args[2].DType() || x.Args[1].DType() != t {
			return gexpr{}, g.errorf("ill-typed T.if_then_else %s", ir.ExprString(x))
		}
		c, err := g.expr(x.Args[0])
		if err != nil {
			return gexpr{}, err
		}
		a, err := g.expr(x.Args[1])
		if err != nil {
			return gexpr{}, err
		}
		b, err := g.expr(x.Args[2])
		if err != nil {
			return gexpr{}, err
		}
		return operand(jen.Func().Params().Id(goScalar(t)).Block(
			jen.If(c.c).Block(jen.Return(a.c)), jen.Return(b.c)).Call()), nil
	case "likely":
		return args[0], nil
	case "isnan", "isinf", "isfinite":
		at := x.Args[0].DType()
		if !at.IsFloat() {
			return g.literal(tval{i: b2i(x.Op == "isfinite")}, runtime.Bool), nil
		}
		a := args[0].c
		if at.Bits != 64 {
			a = jen.Float64().Call(a)
		}
		switch x.Op {
		case "isnan":
			return operand(jen.Qual("math", "IsNaN").Call(a)), nil
		case "isinf":
			return operand(jen.Qual("math", "IsInf").Call(a, jen.Lit(0))), nil
		}
		h := g.helperFunc("isfinite", jen.Params(jen.Id("x").Float64()), jen.Bool(),
			jen.Return(jen.Op("!").Qual("math", "IsNaN").Call(jen.Id("x")).Op("&&").Op("!").Qual("math", "IsInf").Call(jen.Id("x"), jen.Lit(0))))
		return operand(jen.Id(h).Call(a)), nil
	case "abs":
		at := x.Args[0].DType()
		if at.IsFloat() {
			return g.finishMath(t, g.mathCall1(t, "Abs", args[0])), nil
		}
		if at.IsUInt() || at.IsBool() {
			return args[0], nil
		}
		gt := goScalar(at)
		h := g.helperFunc("abs_"+gt, jen.Params(jen.Id("a").Id(gt)), jen.Id(gt),
			jen.If(jen.Id("a").Op("<").Lit(0)).Block(jen.Return(jen.Op("-").Id("a"))), jen.Return(jen.Id("a")))
		return g.call(h, args[0]), nil
	case "rsqrt":
		s := operand(jen.Qual("math", "Sqrt").Call(f64(t, args[0])))
		return g.finishMath(t, g.fromF64(t, binop(operand(jen.Lit(1.0)), "/", s, 4))), nil
	case "sigmoid":
		e := operand(jen.Qual("math", "Exp").Call(jen.Op("-").Add(f64w(t, args[0]))))
		den := binop(operand(jen.Lit(1.0)), "+", e, 3)
		return g.finishMath(t, g.fromF64(t, binop(operand(jen.Lit(1.0)), "/", den, 4))), nil
	case "exp10":
		return g.finishMath(t, g.fromF64(t, operand(jen.Qual("math", "Pow").Call(jen.Lit(10.0), f64(t, args[0]))))), nil
	}
	if n, ok := mathNames1[x.Op]; ok {
		return g.finishMath(t, g.mathCall1(t, n, args[0])), nil
	}
	if n, ok := mathNames2[x.Op]; ok {
		return g.finishMath(t, g.mathCall1(t, n, args[0], args[1])), nil
	}
	return gexpr{}, g.errorf("unsupported intrinsic T.%s", x.Op)
}

func f64(t runtime.DataType, a gexpr) jen.Code {
	if t.Bits == 64 {
		return a.c
	}
	return jen.Float64().Call(a.c)
}

func f64w(t runtime.DataType, a gexpr) jen.Code {
	if t.Bits == 64 {
		return wrap(a, 5)
	}
	return jen.Float64().Call(a.c)
}

func (g *tirGen) fromF64(t runtime.DataType, r gexpr) gexpr {
	if t.Bits == 64 {
		return r
	}
	return conv("float32", r)
}

func (g *tirGen) finishMath(t runtime.DataType, r gexpr) gexpr {
	if isHalf(t) {
		return operand(g.round16(t, r.c))
	}
	return r
}

// cast converts a (of TIR type from) to type to.
func (g *tirGen) cast(a gexpr, from, to runtime.DataType) gexpr {
	if from == to {
		return a
	}
	gf, gt := goScalar(from), goScalar(to)
	switch {
	case to.IsBool():
		return binop(a, "!=", operand(jen.Lit(0)), 2)
	case from.IsBool():
		h := g.helperFunc("b2n_"+gt, jen.Params(jen.Id("b").Bool()), jen.Id(gt),
			jen.If(jen.Id("b")).Block(jen.Return(jen.Lit(1))), jen.Return(jen.Lit(0)))
		r := g.call(h, a)
		if isHalf(to) {
			return r // 0 and 1 are exact
		}
		return r
	case to.IsFloat():
		var r gexpr
		if gf == gt {
			r = a
		} else {
			r = conv(gt, a)
		}
		if isHalf(to) && !(isHalf(from) && from.Code == to.Code) {
			return operand(g.round16(to, r.c))
		}
		return r
	case from.IsFloat():
		switch {
		case to.IsInt() && to.Bits == 64:
			return conv("int", a)
		case to.IsUInt() && to.Bits == 64:
			return conv("uint64", a)
		}
		return conv(gt, conv("int64", a))
	}
	if gf == gt {
		return a
	}
	return conv(gt, a)
}

// nonNeg reports whether an integer expression is provably >= 0.
func (g *tirGen) nonNeg(e ir.PrimExpr) bool {
	if e.DType().IsUInt() {
		return true
	}
	switch x := e.(type) {
	case *ir.IntImm:
		return x.Value >= 0
	case *ir.PrimVar:
		if s, ok := g.subst[x]; ok && s != ir.PrimExpr(x) {
			return g.nonNeg(s)
		}
		return g.nonNegVar(x)
	case *ir.Cast:
		return x.Value.DType().IsInt() && x.Value.DType().Bits <= x.Type.Bits && g.nonNeg(x.Value)
	case *ir.Binary:
		switch x.Op {
		case ir.OpAdd, ir.OpMul, ir.OpDiv, ir.OpFloorDiv, ir.OpMin:
			return g.nonNeg(x.A) && g.nonNeg(x.B)
		case ir.OpMax:
			return g.nonNeg(x.A) || g.nonNeg(x.B)
		case ir.OpFloorMod:
			c, ok := ir.AsInt(x.B)
			return ok && c > 0 || g.nonNeg(x.A) && g.nonNeg(x.B)
		case ir.OpMod:
			return g.nonNeg(x.A)
		}
	}
	return false
}

// nonNegVar: loop variables with a non-negative start, symbolic
// dimensions (bound from shapes).
func (g *tirGen) nonNegVar(v *ir.PrimVar) bool {
	return g.nonNegVars != nil && g.nonNegVars[v]
}

// helperFunc registers a small local function (an inlinable closure).
func (g *tirGen) helperFunc(key string, params *jen.Statement, result jen.Code, body ...jen.Code) string {
	if n, ok := g.helpers[key]; ok {
		return n
	}
	name := g.fresh(key)
	g.helpers[key] = name
	g.helperDecl = append(g.helperDecl, jen.Id(name).Op(":=").Func().Add(params).Add(result).Block(body...))
	return name
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
