package gen

import (
	"fmt"
	"go/token"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

const kernelsPkg = "github.com/relaxgo/relaxgo/kernels"

// TIRFunc emits a Go function
//
//	func <goName>(args []runtime.Value) (runtime.Value, error)
//
// implementing the TIR PrimFunc f with packed-call semantics: args are f's
// parameters in order, a *runtime.Tensor for each buffer parameter (dtype,
// rank and static dimensions are checked, symbolic dimensions are bound from
// the actual shapes on first occurrence and checked after) and an int64 (int
// and int32 accepted), float64 (or float32) or bool for each scalar
// parameter. The function returns (nil, nil), or an error naming the
// function and parameter; it does not panic on bad input (a panic inside the
// loop nest, such as an out-of-range data-dependent index, is recovered and
// returned as an error).
//
// Semantics follow TIR: block iteration variables take their bindings, a
// block's init runs when every reduction variable is at its domain minimum,
// predicates guard the block, buffers are row-major, alloc_buffer allocates
// once per call (once per chunk under a parallel loop), integer arithmetic
// wraps in its own width (int64 is Go's int, so generated code needs a
// 64-bit platform), Div/Mod truncate and FloorDiv/FloorMod floor. float32
// arithmetic is done in float32 (products are explicitly rounded so that Go
// never fuses them into FMAs); float16 and bfloat16 values are float32 in
// registers, rounded to 16 bits after every operation. Math intrinsics
// (T.exp, T.erf, ...) run in float64 and are rounded once to the argument
// type. Min/Max are a<b?a:b / a>b?a:b and float != is ordered (false on NaN),
// as TVM's LLVM backend emits them. Conversions from float to integers
// narrower than 64 bits go through int64. Parallel loops run on
// kernels.ParallelFor; vectorized and unrolled loops are plain loops.
//
// Unsupported TIR (thread bindings, vector types, unknown intrinsics,
// non-global storage scopes, explicit strides or element offsets, ...) is
// refused with an error giving the construct and its source location.
func TIRFunc(f *ir.PrimFunc, goName string) (*jen.Statement, error) {
	g := &tirGen{
		f: f, goName: goName,
		names:      map[string]bool{goName: true},
		vname:      map[*ir.PrimVar]string{},
		depth:      map[*ir.PrimVar]int{},
		subst:      map[*ir.PrimVar]ir.PrimExpr{},
		refs:       map[*ir.PrimVar]bool{},
		nonNegVars: map[*ir.PrimVar]bool{},
		bufs:       map[*ir.Buffer]*gbuf{},
		helpers:    map[string]string{},
		loc:        f.Loc,
	}
	for _, n := range []string{"args", "err", "math", "fmt", "runtime", "kernels", "ok", "r", "v"} {
		g.names[n] = true
	}
	code, err := g.function()
	if err != nil {
		return nil, err
	}
	return code, nil
}

const inlineDepth = 1 << 30

type gbuf struct {
	b       *ir.Buffer
	data    string
	strides []gstride
}

// gstride is a row-major stride: a constant, or a Go int variable.
type gstride struct {
	c    int64
	name string
}

type loopFrame struct {
	decls []jen.Code
	cse   map[string]string
}

type allocScope struct {
	decls []jen.Code
}

type tirGen struct {
	f      *ir.PrimFunc
	goName string
	names  map[string]bool
	vname  map[*ir.PrimVar]string
	depth  map[*ir.PrimVar]int
	// subst maps block iteration variables to their bindings (in loop
	// variables) for index linearization.
	subst      map[*ir.PrimVar]ir.PrimExpr
	refs       map[*ir.PrimVar]bool
	nonNegVars map[*ir.PrimVar]bool
	bufs       map[*ir.Buffer]*gbuf
	helpers    map[string]string
	helperDecl []jen.Code
	frames     []*loopFrame
	scopes     []*allocScope
	loc        ir.Span
	// noReduce disables the register-reduction rewrite while it emits its
	// loops; acc is the accumulator standing for the reduced buffer.
	noReduce bool
	acc      *accState
}

// errorf reports unsupported or malformed TIR at the current location.
func (g *tirGen) errorf(format string, args ...any) error {
	loc := g.loc.String()
	if loc == "" {
		loc = "unknown location"
	}
	return fmt.Errorf("gen: TIR function %s: %s: %s", g.f.Name, loc, fmt.Sprintf(format, args...))
}

func (g *tirGen) setLoc(s ir.Span) {
	if s != (ir.Span{}) {
		g.loc = s
	}
}

var goPredeclared = map[string]bool{
	"bool": true, "byte": true, "complex64": true, "complex128": true, "error": true, "float32": true, "float64": true,
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true, "rune": true, "string": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true, "any": true,
	"true": true, "false": true, "iota": true, "nil": true, "append": true, "cap": true, "clear": true, "close": true,
	"complex": true, "copy": true, "delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true,
	"new": true, "panic": true, "print": true, "println": true, "real": true, "recover": true, "comparable": true,
}

// fresh returns an unused Go identifier based on base.
func (g *tirGen) fresh(base string) string {
	var b strings.Builder
	for _, r := range base {
		if r < 128 && (r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "v" + s
	}
	if s == "_" {
		s = "v_"
	}
	name := s
	for i := 2; g.names[name] || token.IsKeyword(name) || goPredeclared[name]; i++ {
		name = s + "_" + strconv.Itoa(i)
	}
	g.names[name] = true
	return name
}

// ---- types ----

func supportedDType(dt runtime.DataType) bool {
	if dt.Lanes != 1 {
		return false
	}
	switch dt.Code {
	case runtime.CodeInt, runtime.CodeUInt:
		return dt.Bits == 1 && dt.Code == runtime.CodeUInt || dt.Bits == 8 || dt.Bits == 16 || dt.Bits == 32 || dt.Bits == 64
	case runtime.CodeFloat:
		return dt.Bits == 16 || dt.Bits == 32 || dt.Bits == 64
	case runtime.CodeBFloat:
		return dt.Bits == 16
	}
	return false
}

func isHalf(dt runtime.DataType) bool { return dt.IsFloat() && dt.Bits == 16 }

// goScalar is the Go type of a TIR scalar of type dt in generated code.
func goScalar(dt runtime.DataType) string {
	switch {
	case dt.IsBool():
		return "bool"
	case dt.IsFloat():
		if dt.Bits == 64 {
			return "float64"
		}
		return "float32"
	case dt.IsInt():
		if dt.Bits == 64 {
			return "int"
		}
		return "int" + strconv.Itoa(int(dt.Bits))
	}
	return "uint" + strconv.Itoa(int(dt.Bits))
}

// goElem is the Go element type of a buffer of type dt.
func goElem(dt runtime.DataType) string {
	switch {
	case isHalf(dt):
		return "uint16"
	case dt.IsInt() && dt.Bits == 64:
		return "int64"
	}
	return goScalar(dt)
}

// viewMethod is the runtime.Tensor method giving the typed view.
func viewMethod(dt runtime.DataType) string {
	switch {
	case isHalf(dt):
		return "Uint16s"
	case dt.IsBool():
		return "Bools"
	case dt.IsFloat():
		return "Float" + strconv.Itoa(int(dt.Bits)) + "s"
	case dt.IsInt():
		return "Int" + strconv.Itoa(int(dt.Bits)) + "s"
	}
	return "Uint" + strconv.Itoa(int(dt.Bits)) + "s"
}

func dtypeCode(dt runtime.DataType) jen.Code {
	named := map[runtime.DataType]string{
		runtime.Float16: "Float16", runtime.Float32: "Float32", runtime.Float64: "Float64", runtime.Int8: "Int8",
		runtime.Int16: "Int16", runtime.Int32: "Int32", runtime.Int64: "Int64", runtime.UInt8: "UInt8",
		runtime.UInt16: "UInt16", runtime.UInt32: "UInt32", runtime.UInt64: "UInt64", runtime.Bool: "Bool",
		runtime.BFloat16: "BFloat16",
	}
	if n, ok := named[dt]; ok {
		return jen.Qual(runtimePkg, n)
	}
	return jen.Qual(runtimePkg, "DataType").Values(jen.Dict{
		jen.Id("Code"): jen.Lit(int(dt.Code)), jen.Id("Bits"): jen.Lit(int(dt.Bits)), jen.Id("Lanes"): jen.Lit(int(dt.Lanes)),
	})
}

// ---- the function ----

func (g *tirGen) function() (*jen.Statement, error) {
	f := g.f
	if f.Body == nil {
		return nil, g.errorf("PrimFunc has no body")
	}
	var checks []jen.Code
	fail := func(format string, args ...jen.Code) jen.Code {
		return jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(append([]jen.Code{jen.Lit(f.Name + ": " + format)}, args...)...))
	}
	checks = append(checks, jen.If(jen.Len(jen.Id("args")).Op("!=").Lit(len(f.Params))).Block(
		fail(fmt.Sprintf("expected %d arguments, got %%d", len(f.Params)), jen.Len(jen.Id("args"))),
	))
	type dimCheck struct {
		sh   string
		d    int
		e    ir.PrimExpr
		what string
	}
	var dimChecks []dimCheck
	type bind struct {
		v    *ir.PrimVar
		code jen.Code
	}
	var binds []bind
	var views []jen.Code
	bound := map[*ir.PrimVar]string{} // symbolic var -> "parameter i (X) dimension d"
	var paramBufs []*ir.Buffer
	for i, p := range f.Params {
		arg := jen.Id("args").Index(jen.Lit(i))
		b := f.BufferMap[p]
		if b == nil {
			if !p.Type.IsInt() && !p.Type.IsUInt() && !p.Type.IsFloat() || !supportedDType(p.Type) {
				if p.Type.Code == runtime.CodeHandle {
					return nil, g.errorf("parameter %q is a handle without a buffer (T.match_buffer)", p.Name)
				}
				return nil, g.errorf("parameter %q has unsupported type %s", p.Name, p.Type)
			}
			code, err := g.scalarParam(i, p, fail)
			if err != nil {
				return nil, err
			}
			checks = append(checks, code...)
			bound[p] = fmt.Sprintf("parameter %d (%s)", i, p.Name)
			g.depth[p] = 0
			continue
		}
		if err := g.checkBuffer(b); err != nil {
			return nil, err
		}
		tn := g.fresh(b.Name + "_t")
		sh := g.fresh(b.Name + "_sh")
		what := fmt.Sprintf("parameter %d (%s)", i, b.Name)
		checks = append(checks,
			jen.List(jen.Id(tn), jen.Id("_")).Op(":=").Add(arg).Assert(jen.Op("*").Qual(runtimePkg, "Tensor")),
			jen.If(jen.Id(tn).Op("==").Nil()).Block(fail(what+": expected a tensor, got %T", arg)),
			jen.If(jen.Id(tn).Dot("DType").Call().Op("!=").Add(dtypeCode(b.DType))).Block(
				fail(what+": expected dtype "+b.DType.String()+", got %s", jen.Id(tn).Dot("DType").Call())),
			jen.Id(sh).Op(":=").Id(tn).Dot("Shape").Call(),
			jen.If(jen.Len(jen.Id(sh)).Op("!=").Lit(len(b.Shape))).Block(
				fail(fmt.Sprintf("%s: expected rank %d, got %%d", what, len(b.Shape)), jen.Len(jen.Id(sh)))),
		)
		for d, e := range b.Shape {
			dw := fmt.Sprintf("%s dimension %d", what, d)
			if v, ok := e.(*ir.PrimVar); ok {
				if _, done := bound[v]; !done {
					if !v.Type.IsInt() || v.Type.Lanes != 1 {
						return nil, g.errorf("symbolic dimension %s has unsupported type %s", v.Name, v.Type)
					}
					bound[v] = dw
					g.depth[v] = 0
					name := g.fresh(v.Name)
					g.vname[v] = name
					dim := jen.Id(sh).Index(jen.Lit(d))
					if v.Type.Bits < 64 {
						checks = append(checks, jen.If(jen.Add(dim).Op(">").Lit(int64(1)<<(v.Type.Bits-1)-1)).Block(
							fail(fmt.Sprintf("%s: %%d does not fit %s %s", dw, v.Type, v.Name), dim)))
					}
					binds = append(binds, bind{v, jen.Id(name).Op(":=").Id(goScalar(v.Type)).Call(dim)})
					g.nonNegVars[v] = true
					continue
				}
			}
			dimChecks = append(dimChecks, dimCheck{sh, d, e, dw})
		}
		data := g.fresh(b.Name)
		views = append(views, jen.Id(data).Op(":=").Id(tn).Dot(viewMethod(b.DType)).Call())
		g.bufs[b] = &gbuf{b: b, data: data}
		paramBufs = append(paramBufs, b)
	}
	// Dimension expressions must be computable from the bound variables.
	for _, dc := range dimChecks {
		for _, v := range ir.FreeVars(dc.e) {
			if _, ok := bound[v]; !ok {
				return nil, g.errorf("dimension %s of %s uses %s, which no earlier dimension or scalar parameter binds", ir.ExprString(dc.e), dc.what, v.Name)
			}
		}
	}
	scope := &allocScope{}
	g.scopes = []*allocScope{scope}
	for _, b := range paramBufs {
		if err := g.strides(g.bufs[b], &scope.decls); err != nil {
			return nil, err
		}
	}
	var body []jen.Code
	if err := g.stmt(f.Body, &body); err != nil {
		return nil, err
	}
	var dimCode []jen.Code
	for _, dc := range dimChecks {
		want, err := g.intCode(dc.e)
		if err != nil {
			return nil, err
		}
		dim := jen.Id(dc.sh).Index(jen.Lit(dc.d))
		desc := ""
		if _, ok := dc.e.(*ir.IntImm); !ok {
			desc = " (" + ir.ExprString(dc.e) + ")"
		}
		dimCode = append(dimCode, jen.If(jen.Add(dim).Op("!=").Int64().Call(want)).Block(
			fail(dc.what+": expected %d"+desc+", got %d", jen.Int64().Call(want), dim)))
	}
	// Bind the symbolic variables generated code refers to.
	all := []jen.Code{}
	all = append(all, checks...)
	for _, p := range f.Params {
		if f.BufferMap[p] == nil && !g.refs[p] {
			all = append(all, jen.Id("_").Op("=").Id(g.vname[p]))
		}
	}
	for _, b := range binds {
		if g.refs[b.v] {
			all = append(all, b.code)
		}
	}
	all = append(all, dimCode...)
	all = append(all, views...)
	all = append(all, scope.decls...)
	all = append(all, g.helperDecl...)
	all = append(all, jen.Defer().Func().Params().Block(
		jen.If(jen.Id("r").Op(":=").Recover(), jen.Id("r").Op("!=").Nil()).Block(
			jen.Id("err").Op("=").Qual("fmt", "Errorf").Call(jen.Lit(f.Name+": %v"), jen.Id("r")),
		),
	).Call())
	all = append(all, body...)
	all = append(all, jen.Return(jen.Nil(), jen.Nil()))
	doc := fmt.Sprintf("%s implements the TIR function %s.", g.goName, f.Name)
	return jen.Comment(doc).Line().Func().Id(g.goName).Params(jen.Id("args").Index().Qual(runtimePkg, "Value")).
		Params(jen.Id("_").Qual(runtimePkg, "Value"), jen.Id("err").Error()).Block(all...), nil
}

func (g *tirGen) scalarParam(i int, p *ir.PrimVar, fail func(string, ...jen.Code) jen.Code) ([]jen.Code, error) {
	arg := jen.Id("args").Index(jen.Lit(i))
	name := g.fresh(p.Name)
	g.vname[p] = name
	what := fmt.Sprintf("parameter %d (%s)", i, p.Name)
	t := p.Type
	switch {
	case t.IsBool():
		return []jen.Code{
			jen.List(jen.Id(name), jen.Id("ok")).Op(":=").Add(arg).Assert(jen.Bool()),
			jen.If(jen.Op("!").Id("ok")).Block(fail(what+": expected a bool, got %T", arg)),
		}, nil
	case t.IsFloat():
		raw := g.fresh(p.Name + "_arg")
		var conv jen.Code = jen.Id(goScalar(t)).Call(jen.Id(raw))
		if isHalf(t) {
			conv = g.round16(t, conv)
		}
		return []jen.Code{
			jen.Var().Id(raw).Float64(),
			jen.Switch(jen.Id("v").Op(":=").Add(arg).Assert(jen.Type())).Block(
				jen.Case(jen.Float64()).Block(jen.Id(raw).Op("=").Id("v")),
				jen.Case(jen.Float32()).Block(jen.Id(raw).Op("=").Float64().Call(jen.Id("v"))),
				jen.Default().Block(fail(what+": expected a float64, got %T", arg)),
			),
			jen.Id(name).Op(":=").Add(conv),
		}, nil
	}
	raw := g.fresh(p.Name + "_arg")
	out := []jen.Code{
		jen.Var().Id(raw).Int64(),
		jen.Switch(jen.Id("v").Op(":=").Add(arg).Assert(jen.Type())).Block(
			jen.Case(jen.Int64()).Block(jen.Id(raw).Op("=").Id("v")),
			jen.Case(jen.Int()).Block(jen.Id(raw).Op("=").Int64().Call(jen.Id("v"))),
			jen.Case(jen.Int32()).Block(jen.Id(raw).Op("=").Int64().Call(jen.Id("v"))),
			jen.Default().Block(fail(what+": expected an int64, got %T", arg)),
		),
	}
	gt := goScalar(t)
	if t.Bits < 64 {
		out = append(out, jen.If(jen.Int64().Call(jen.Id(gt).Call(jen.Id(raw))).Op("!=").Id(raw)).Block(
			fail(what+": %d does not fit "+t.String(), jen.Id(raw))))
	}
	out = append(out, jen.Id(name).Op(":=").Id(gt).Call(jen.Id(raw)))
	return out, nil
}

func (g *tirGen) checkBuffer(b *ir.Buffer) error {
	if !supportedDType(b.DType) {
		return g.errorf("buffer %s has unsupported dtype %s", b.Name, b.DType)
	}
	if b.Strides != nil {
		return g.errorf("buffer %s has explicit strides, which are not supported", b.Name)
	}
	if b.ElemOffset != nil {
		if v, ok := ir.AsInt(b.ElemOffset); !ok || v != 0 {
			return g.errorf("buffer %s has an element offset (%s), which is not supported", b.Name, ir.ExprString(b.ElemOffset))
		}
	}
	switch b.Scope {
	case "", "global", "local":
	default:
		return g.errorf("buffer %s has storage scope %q; only global (and local) buffers are supported", b.Name, b.Scope)
	}
	for _, e := range b.Shape {
		if t := e.DType(); !t.IsInt() || t.Lanes != 1 {
			return g.errorf("buffer %s has a dimension of type %s", b.Name, t)
		}
	}
	return nil
}

// strides computes a buffer's row-major strides, declaring Go variables
// (into decls) for the symbolic ones.
func (g *tirGen) strides(gb *gbuf, decls *[]jen.Code) error {
	n := len(gb.b.Shape)
	gb.strides = make([]gstride, n)
	c := int64(1)
	var sym []ir.PrimExpr
	for k := n - 1; k >= 0; k-- {
		if len(sym) == 0 {
			gb.strides[k] = gstride{c: c}
		} else {
			var prod jen.Code
			for _, e := range sym {
				code, err := g.intCode(e)
				if err != nil {
					return err
				}
				if prod == nil {
					prod = code
				} else {
					prod = jen.Add(prod).Op("*").Add(code)
				}
			}
			if c != 1 {
				prod = jen.Add(prod).Op("*").Lit(int(c))
			}
			name := g.fresh(fmt.Sprintf("%s_s%d", gb.data, k))
			*decls = append(*decls, jen.Id(name).Op(":=").Add(prod))
			gb.strides[k] = gstride{name: name}
		}
		dim := gb.b.Shape[k]
		if v, ok := ir.AsInt(dim); ok {
			c *= v
		} else {
			sym = append(sym, dim)
		}
	}
	return nil
}

// intCode emits an integer expression as a Go int operand of *.
func (g *tirGen) intCode(e ir.PrimExpr) (jen.Code, error) {
	x, err := g.intExpr(e)
	if err != nil {
		return nil, err
	}
	return wrap(x, 4), nil
}

// intExpr emits an integer expression as a Go int.
func (g *tirGen) intExpr(e ir.PrimExpr) (gexpr, error) {
	x, err := g.expr(e)
	if err != nil {
		return gexpr{}, err
	}
	if e.DType().IsInt() && e.DType().Bits == 64 {
		return x, nil
	}
	return conv("int", x), nil
}

// alloc declares a local buffer in the innermost allocation scope (the
// function, or the chunk of a parallel loop).
func (g *tirGen) alloc(b *ir.Buffer) error {
	if err := g.checkBuffer(b); err != nil {
		return err
	}
	for _, e := range b.Shape {
		for _, v := range ir.FreeVars(e) {
			if d, ok := g.depth[v]; !ok || d != 0 {
				return g.errorf("buffer %s: shape %s depends on %s; only shapes fixed per call are supported", b.Name, ir.ExprString(e), v.Name)
			}
		}
	}
	if _, dup := g.bufs[b]; dup {
		return g.errorf("buffer %s is allocated twice", b.Name)
	}
	scope := g.scopes[len(g.scopes)-1]
	gb := &gbuf{b: b, data: g.fresh(b.Name)}
	var size jen.Code = jen.Lit(1)
	constSize := int64(1)
	var symDims []jen.Code
	for _, e := range b.Shape {
		if v, ok := ir.AsInt(e); ok {
			constSize *= v
			continue
		}
		code, err := g.intCode(e)
		if err != nil {
			return err
		}
		symDims = append(symDims, code)
	}
	if constSize < 0 {
		return g.errorf("buffer %s has a negative size", b.Name)
	}
	size = jen.Lit(int(constSize))
	for i, d := range symDims {
		if i == 0 && constSize == 1 {
			size = d
		} else {
			size = jen.Add(size).Op("*").Add(d)
		}
	}
	scope.decls = append(scope.decls, jen.Id(gb.data).Op(":=").Make(jen.Index().Id(goElem(b.DType)), size))
	g.bufs[b] = gb
	return g.strides(gb, &scope.decls)
}

// ---- statements ----

func (g *tirGen) stmt(s ir.Stmt, out *[]jen.Code) error {
	switch x := s.(type) {
	case *ir.SeqStmt:
		for _, y := range x.Stmts {
			if err := g.stmt(y, out); err != nil {
				return err
			}
		}
		return nil
	case *ir.For:
		return g.forLoop(x, out)
	case *ir.Block:
		return g.block(x, out)
	case *ir.BufferStore:
		g.setLoc(x.Loc)
		return g.store(x.Buffer, x.Indices, x.Value, out)
	case *ir.IfThenElse:
		g.setLoc(x.Loc)
		c, err := g.boolExpr(x.Cond)
		if err != nil {
			return err
		}
		var then, els []jen.Code
		if err := g.stmt(x.Then, &then); err != nil {
			return err
		}
		st := jen.If(c).Block(then...)
		if x.Else != nil {
			if err := g.stmt(x.Else, &els); err != nil {
				return err
			}
			st = st.Else().Block(els...)
		}
		*out = append(*out, st)
		return nil
	case *ir.LetStmt:
		g.setLoc(x.Loc)
		if err := g.checkType(x.Var.Type, "let variable "+x.Var.Name); err != nil {
			return err
		}
		if x.Value.DType() != x.Var.Type {
			return g.errorf("let %s: value of type %s bound to a %s variable", x.Var.Name, x.Value.DType(), x.Var.Type)
		}
		v, err := g.expr(x.Value)
		if err != nil {
			return err
		}
		name := g.fresh(x.Var.Name)
		g.vname[x.Var] = name
		g.depth[x.Var] = inlineDepth
		g.nonNegVars[x.Var] = g.nonNeg(x.Value)
		slot := len(*out)
		*out = append(*out, jen.Id(name).Op(":=").Add(v.c))
		if err := g.stmt(x.Body, out); err != nil {
			return err
		}
		if !g.refs[x.Var] {
			(*out)[slot] = jen.Null()
		}
		return nil
	case *ir.Evaluate:
		g.setLoc(x.Loc)
		switch x.Value.(type) {
		case *ir.IntImm, *ir.FloatImm:
			return nil
		}
		return g.errorf("T.evaluate(%s) is not supported", ir.ExprString(x.Value))
	case *ir.AllocBuffer:
		g.setLoc(x.Loc)
		if err := g.alloc(x.Buffer); err != nil {
			return err
		}
		return g.stmt(x.Body, out)
	case nil:
		return g.errorf("missing statement")
	}
	return g.errorf("unsupported statement %T", s)
}

func (g *tirGen) checkType(t runtime.DataType, what string) error {
	if !supportedDType(t) {
		return g.errorf("%s has unsupported type %s", what, t)
	}
	return nil
}

// workEstimate is a rough count of innermost statements executed by s.
func workEstimate(s ir.Stmt) int64 {
	switch x := s.(type) {
	case *ir.SeqStmt:
		var w int64
		for _, y := range x.Stmts {
			w += workEstimate(y)
		}
		return w
	case *ir.For:
		ext, ok := ir.AsInt(x.Extent)
		if !ok {
			ext = 64
		}
		return min(ext*workEstimate(x.Body), 1<<40)
	case *ir.Block:
		w := workEstimate(x.Body)
		if x.Init != nil {
			w += workEstimate(x.Init)
		}
		return w
	case *ir.IfThenElse:
		w := workEstimate(x.Then)
		if x.Else != nil {
			w = max(w, workEstimate(x.Else))
		}
		return w
	case *ir.LetStmt:
		return workEstimate(x.Body)
	case *ir.AllocBuffer:
		return workEstimate(x.Body)
	}
	return 1
}

func (g *tirGen) forLoop(x *ir.For, out *[]jen.Code) error {
	g.setLoc(x.Loc)
	if p := g.matchReduction(x); p != nil {
		return g.reduction(p, out)
	}
	if x.Kind == ir.ForThreadBinding {
		return g.errorf("thread_binding loop over %s (thread %q) is not supported on CPU", x.Var.Name, x.ThreadTag)
	}
	if x.Kind > ir.ForThreadBinding || x.Kind < 0 {
		return g.errorf("unknown loop kind %d", int(x.Kind))
	}
	t := x.Var.Type
	if !t.IsInt() || t.Lanes != 1 || !supportedDType(t) {
		return g.errorf("loop variable %s has unsupported type %s", x.Var.Name, t)
	}
	if x.Min.DType() != t || x.Extent.DType() != t {
		return g.errorf("loop over %s: bounds of type %s/%s for a %s variable", x.Var.Name, x.Min.DType(), x.Extent.DType(), t)
	}
	lo, err := g.expr(x.Min)
	if err != nil {
		return err
	}
	ext, err := g.expr(x.Extent)
	if err != nil {
		return err
	}
	gt := goScalar(t)
	name := g.fresh(x.Var.Name)
	g.vname[x.Var] = name
	g.depth[x.Var] = len(g.frames) + 1
	g.nonNegVars[x.Var] = g.nonNeg(x.Min)
	frame := &loopFrame{cse: map[string]string{}}
	g.frames = append(g.frames, frame)
	parallel := x.Kind == ir.ForParallel
	if parallel {
		g.scopes = append(g.scopes, &allocScope{})
	}
	var body []jen.Code
	err = g.stmt(x.Body, &body)
	g.frames = g.frames[:len(g.frames)-1]
	if err != nil {
		return err
	}
	body = append(frame.decls, body...)
	loVal, loConst := ir.AsInt(x.Min)
	zeroMin := loConst && loVal == 0
	if !parallel {
		var end jen.Code
		eLo, c1 := ir.AsInt(x.Min)
		eExt, c2 := ir.AsInt(x.Extent)
		switch {
		case c1 && c2:
			end = g.intLit(eLo+eExt, t)
		case zeroMin && isSimple(x.Extent):
			end = ext.c
		default:
			e := ext.c
			if !zeroMin {
				e = binop(lo, "+", ext, 3).c
			}
			endName := g.fresh(name + "_end")
			*out = append(*out, jen.Id(endName).Op(":=").Add(e))
			end = jen.Id(endName)
		}
		*out = append(*out, jen.For(jen.Id(name).Op(":=").Add(lo.c), jen.Id(name).Op("<").Add(end), jen.Id(name).Op("++")).Block(body...))
		return nil
	}
	scope := g.scopes[len(g.scopes)-1]
	g.scopes = g.scopes[:len(g.scopes)-1]
	w := workEstimate(x.Body)
	grain := int64(1)
	if w < 16384 {
		grain = (16384 + w - 1) / w
	}
	loN, hiN := g.fresh("lo"), g.fresh("hi")
	var loop jen.Code
	if zeroMin && gt == "int" {
		loop = jen.For(jen.Id(name).Op(":=").Id(loN), jen.Id(name).Op("<").Id(hiN), jen.Id(name).Op("++")).Block(body...)
	} else {
		p := g.fresh(name + "_p")
		def := jen.Id(name).Op(":=").Add(wrap(lo, 3)).Op("+").Id(gt).Call(jen.Id(p))
		if zeroMin {
			def = jen.Id(name).Op(":=").Id(gt).Call(jen.Id(p))
		}
		loop = jen.For(jen.Id(p).Op(":=").Id(loN), jen.Id(p).Op("<").Id(hiN), jen.Id(p).Op("++")).Block(append([]jen.Code{def}, body...)...)
	}
	fnBody := append(append([]jen.Code{}, scope.decls...), loop)
	*out = append(*out, jen.Qual(kernelsPkg, "ParallelFor").Call(
		jen.Int().Call(ext.c), jen.Lit(int(grain)),
		jen.Func().Params(jen.List(jen.Id(loN), jen.Id(hiN)).Int()).Block(fnBody...),
	))
	return nil
}

func isSimple(e ir.PrimExpr) bool {
	switch e.(type) {
	case *ir.IntImm, *ir.PrimVar:
		return true
	}
	return false
}

// ivDecl is the declaration of a block iteration variable at stmts[slot],
// dropped when nothing refers to the variable.
type ivDecl struct {
	slot int
	v    *ir.PrimVar
}

func (g *tirGen) block(x *ir.Block, out *[]jen.Code) error {
	g.setLoc(x.Loc)
	var stmts []jen.Code
	var decls []ivDecl
	if err := g.bindIterVars(x.Name, x.IterVars, &stmts, &decls); err != nil {
		return err
	}
	return g.blockRest(x, stmts, decls, out)
}

// bindIterVars binds iteration variables to their bindings: aliases of
// plain loop variables, or declarations appended to stmts.
func (g *tirGen) bindIterVars(blkName string, ivs []ir.IterVar, stmts *[]jen.Code, decls *[]ivDecl) error {
	for _, iv := range ivs {
		if err := g.checkType(iv.Var.Type, "iteration variable "+iv.Var.Name); err != nil {
			return err
		}
		if iv.Binding == nil {
			return g.errorf("block %s: iteration variable %s has no binding", blkName, iv.Var.Name)
		}
		if !iv.Var.Type.IsInt() || !iv.Binding.DType().IsInt() {
			return g.errorf("block %s: iteration variable %s has type %s", blkName, iv.Var.Name, iv.Var.Type)
		}
		bind := iv.Binding
		if bv, ok := bind.(*ir.PrimVar); ok && bv.Type == iv.Var.Type {
			if n, ok := g.vname[bv]; ok {
				g.vname[iv.Var] = n
				g.depth[iv.Var] = g.depth[bv]
				if s, ok := g.subst[bv]; ok {
					g.subst[iv.Var] = s
				} else {
					g.subst[iv.Var] = bv
				}
				continue
			}
		}
		v, err := g.expr(bind)
		if err != nil {
			return err
		}
		code := v.c
		if bind.DType() != iv.Var.Type {
			code = jen.Id(goScalar(iv.Var.Type)).Call(v.c)
		}
		name := g.fresh(iv.Var.Name)
		g.vname[iv.Var] = name
		g.depth[iv.Var] = inlineDepth
		sb := ir.SubstPrim(bind, g.subst)
		if bind.DType() != iv.Var.Type {
			sb = &ir.Cast{Type: iv.Var.Type, Value: sb}
		}
		g.subst[iv.Var] = sb
		*decls = append(*decls, ivDecl{len(*stmts), iv.Var})
		*stmts = append(*stmts, jen.Id(name).Op(":=").Add(code))
	}
	return nil
}

func (g *tirGen) blockRest(x *ir.Block, stmts []jen.Code, decls []ivDecl, out *[]jen.Code) error {
	var inner []jen.Code
	for _, b := range x.AllocBuffers {
		if err := g.alloc(b); err != nil {
			return err
		}
	}
	if x.Init != nil {
		var conds []jen.Code
		for _, iv := range x.IterVars {
			if iv.Kind != ir.IterReduce {
				continue
			}
			c, err := g.boolExpr(&ir.Binary{Op: ir.OpEQ, A: iv.Var, B: iv.Dom.Min})
			if err != nil {
				return err
			}
			conds = append(conds, c)
		}
		var init []jen.Code
		if err := g.stmt(x.Init, &init); err != nil {
			return err
		}
		g.setLoc(x.Loc)
		if len(conds) == 0 {
			inner = append(inner, init...)
		} else {
			var cond jen.Code
			for _, c := range conds {
				if cond == nil {
					cond = c
				} else {
					cond = jen.Add(cond).Op("&&").Add(c)
				}
			}
			inner = append(inner, jen.If(cond).Block(init...))
		}
	}
	if err := g.stmt(x.Body, &inner); err != nil {
		return err
	}
	g.setLoc(x.Loc)
	if x.Predicate != nil {
		if v, ok := ir.AsInt(x.Predicate); !ok || v == 0 {
			c, err := g.boolExpr(x.Predicate)
			if err != nil {
				return err
			}
			inner = []jen.Code{jen.If(c).Block(inner...)}
		}
	}
	for _, d := range decls {
		if !g.refs[d.v] {
			stmts[d.slot] = jen.Null()
		}
	}
	if !x.Implicit && x.Name != "" && g.acc == nil {
		*out = append(*out, jen.Comment("block "+x.Name))
	}
	*out = append(*out, stmts...)
	*out = append(*out, inner...)
	return nil
}

func (g *tirGen) boolExpr(e ir.PrimExpr) (jen.Code, error) {
	if !e.DType().IsBool() {
		return nil, g.errorf("condition %s has type %s, not bool", ir.ExprString(e), e.DType())
	}
	x, err := g.expr(e)
	if err != nil {
		return nil, err
	}
	return x.c, nil
}

func (g *tirGen) buffer(b *ir.Buffer) (*gbuf, error) {
	gb := g.bufs[b]
	if gb == nil {
		return nil, g.errorf("buffer %s is neither a parameter nor allocated", b.Name)
	}
	return gb, nil
}

func (g *tirGen) store(b *ir.Buffer, idx []ir.PrimExpr, val ir.PrimExpr, out *[]jen.Code) error {
	gb, err := g.buffer(b)
	if err != nil {
		return err
	}
	if val.DType() != b.DType {
		return g.errorf("store of a %s value into %s buffer %s", val.DType(), b.DType, b.Name)
	}
	if g.acc != nil && g.acc.buf == b {
		v, err := g.expr(val)
		if err != nil {
			return err
		}
		*out = append(*out, jen.Id(g.acc.name).Op("=").Add(v.c))
		return nil
	}
	if c, ok := val.(*ir.PrimCall); ok && c.Op == "if_then_else" && len(c.Args) == 3 {
		cond, err := g.boolExpr(c.Args[0])
		if err != nil {
			return err
		}
		var then, els []jen.Code
		if err := g.store(b, idx, c.Args[1], &then); err != nil {
			return err
		}
		if err := g.store(b, idx, c.Args[2], &els); err != nil {
			return err
		}
		*out = append(*out, jen.If(cond).Block(then...).Else().Block(els...))
		return nil
	}
	off, err := g.offset(gb, idx)
	if err != nil {
		return err
	}
	v, err := g.expr(val)
	if err != nil {
		return err
	}
	*out = append(*out, jen.Id(gb.data).Index(off).Op("=").Add(g.toElem(b.DType, v)))
	return nil
}

// fromElem converts a buffer element to its scalar Go type.
func (g *tirGen) fromElem(dt runtime.DataType, load gexpr) gexpr {
	switch {
	case isHalf(dt) && dt.Code == runtime.CodeBFloat:
		return g.call(g.helper("bf2f"), load)
	case isHalf(dt):
		return g.call(g.helper("h2f"), load)
	case dt.IsInt() && dt.Bits == 64:
		return conv("int", load)
	}
	return load
}

func (g *tirGen) toElem(dt runtime.DataType, v gexpr) jen.Code {
	switch {
	case isHalf(dt):
		if dt.Code == runtime.CodeBFloat {
			return jen.Id(g.helper("f2bf")).Call(v.c)
		}
		return jen.Id(g.helper("f2h")).Call(v.c)
	case dt.IsInt() && dt.Bits == 64:
		return jen.Int64().Call(v.c)
	}
	return v.c
}

// ---- index linearization ----

type linTerm struct {
	code   jen.Code // the atom times its factor, as a Go int operand of *
	key    string
	coef   int64
	depth  int
	simple bool // a plain variable
}

// offset emits the row-major offset of idx in gb. The offset is a linear
// form in loop variables; its loop-invariant partial sums are hoisted to the
// start of the loops they depend on (and shared between accesses).
func (g *tirGen) offset(gb *gbuf, idx []ir.PrimExpr) (jen.Code, error) {
	if len(idx) != len(gb.b.Shape) {
		return nil, g.errorf("buffer %s has %d dimensions but is indexed with %d", gb.b.Name, len(gb.b.Shape), len(idx))
	}
	var terms []linTerm
	var konst int64
	for k, e := range idx {
		if t := e.DType(); !t.IsInt() || t.Lanes != 1 {
			return nil, g.errorf("index %s of buffer %s has type %s", ir.ExprString(e), gb.b.Name, t)
		}
		st := gb.strides[k]
		scale, factor := st.c, st.name
		if factor != "" {
			scale = 1
		}
		if err := g.linearize(e, scale, factor, &terms, &konst); err != nil {
			return nil, err
		}
	}
	// Merge equal atoms.
	var merged []linTerm
	pos := map[string]int{}
	for _, t := range terms {
		if i, ok := pos[t.key]; ok {
			merged[i].coef += t.coef
			continue
		}
		pos[t.key] = len(merged)
		merged = append(merged, t)
	}
	D := len(g.frames)
	var inline []linTerm
	byDepth := map[int][]linTerm{}
	first := inlineDepth
	for _, t := range merged {
		if t.coef == 0 {
			continue
		}
		if t.depth >= D || D == 0 {
			inline = append(inline, t)
			continue
		}
		byDepth[t.depth] = append(byDepth[t.depth], t)
		if t.depth > 0 && t.depth < first {
			first = t.depth
		}
	}
	if D == 0 {
		return sumCode(nil, inline, konst), nil
	}
	if first == inlineDepth {
		first = 1
	}
	if len(byDepth[0]) > 0 || konst != 0 && len(byDepth) > 0 {
		byDepth[first] = append(byDepth[0], byDepth[first]...)
		delete(byDepth, 0)
	}
	var depths []int
	for d := range byDepth {
		depths = append(depths, d)
	}
	sort.Ints(depths)
	var prev jen.Code
	hoistedConst := false
	for i, d := range depths {
		ts := byDepth[d]
		kc := int64(0)
		if i == 0 && konst != 0 {
			kc = konst
			hoistedConst = true
		}
		code := sumCode(prev, ts, kc)
		if prev == nil && len(ts) == 1 && ts[0].coef == 1 && kc == 0 && ts[0].simple {
			prev = code
			continue
		}
		frame := g.frames[d-1]
		key := fmt.Sprintf("%#v", code)
		name, ok := frame.cse[key]
		if !ok {
			name = g.fresh(fmt.Sprintf("%s_o%d", gb.data, d))
			frame.cse[key] = name
			frame.decls = append(frame.decls, jen.Id(name).Op(":=").Add(code))
		}
		prev = jen.Id(name)
	}
	if hoistedConst {
		konst = 0
	}
	return sumCode(prev, inline, konst), nil
}

// sumCode renders prev + Σ coef*term + k.
func sumCode(prev jen.Code, ts []linTerm, k int64) jen.Code {
	var out *jen.Statement
	if prev != nil {
		out = jen.Add(prev)
	}
	for _, t := range ts {
		c := t.coef
		term := jen.Add(t.code)
		neg := c < 0
		if neg {
			c = -c
		}
		if c != 1 {
			term = jen.Add(t.code).Op("*").Lit(int(c))
		}
		switch {
		case out == nil && neg:
			out = jen.Op("-").Add(term)
		case out == nil:
			out = term
		case neg:
			out = out.Op("-").Add(term)
		default:
			out = out.Op("+").Add(term)
		}
	}
	switch {
	case out == nil:
		return jen.Lit(int(k))
	case k > 0:
		out = out.Op("+").Lit(int(k))
	case k < 0:
		out = out.Op("-").Lit(int(-k))
	}
	return out
}

func (g *tirGen) linearize(e ir.PrimExpr, scale int64, factor string, terms *[]linTerm, konst *int64) error {
	switch x := e.(type) {
	case *ir.IntImm:
		if factor == "" {
			*konst += scale * wrapInt(x.Value, x.Type)
		} else {
			*terms = append(*terms, linTerm{code: jen.Id(factor), key: "1*" + factor, coef: scale * wrapInt(x.Value, x.Type), depth: 0, simple: true})
		}
		return nil
	case *ir.PrimVar:
		if s, ok := g.subst[x]; ok && s != ir.PrimExpr(x) {
			return g.linearize(s, scale, factor, terms, konst)
		}
	case *ir.Binary:
		if x.DType().IsInt() {
			switch x.Op {
			case ir.OpAdd, ir.OpSub:
				if err := g.linearize(x.A, scale, factor, terms, konst); err != nil {
					return err
				}
				if x.Op == ir.OpSub {
					scale = -scale
				}
				return g.linearize(x.B, scale, factor, terms, konst)
			case ir.OpMul:
				if c, ok := ir.AsInt(x.B); ok {
					return g.linearize(x.A, scale*wrapInt(c, x.B.DType()), factor, terms, konst)
				}
				if c, ok := ir.AsInt(x.A); ok {
					return g.linearize(x.B, scale*wrapInt(c, x.A.DType()), factor, terms, konst)
				}
			}
		}
	case *ir.Cast:
		// Widening of signed index arithmetic: assumed not to overflow in
		// the narrow type, as TVM's index arithmetic is.
		if x.Type.IsInt() && x.Value.DType().IsInt() && x.Value.DType().Bits <= x.Type.Bits {
			return g.linearize(x.Value, scale, factor, terms, konst)
		}
	}
	atom := ir.SubstPrim(e, g.subst)
	x, err := g.intExpr(atom)
	if err != nil {
		return err
	}
	code := wrap(x, 4)
	key := fmt.Sprintf("%#v", code)
	_, isVar := atom.(*ir.PrimVar)
	if factor != "" {
		code = jen.Add(code).Op("*").Id(factor)
		key += "*" + factor
		isVar = false
	}
	*terms = append(*terms, linTerm{code: code, key: key, coef: scale, depth: g.exprDepth(atom), simple: isVar && x.prec == 5})
	return nil
}

// exprDepth is the loop depth at which e can be evaluated: the deepest loop
// variable it uses, or inlineDepth when it reads memory, divides by a
// non-constant or uses block-local variables.
func (g *tirGen) exprDepth(e ir.PrimExpr) int {
	d := 0
	ir.VisitPrim(e, func(x ir.PrimExpr) {
		switch y := x.(type) {
		case *ir.PrimVar:
			if vd, ok := g.depth[y]; ok {
				d = max(d, vd)
			} else {
				d = inlineDepth
			}
		case *ir.BufferLoad, *ir.PrimCall, *ir.Let, *ir.Select:
			d = inlineDepth
		case *ir.Binary:
			switch y.Op {
			case ir.OpDiv, ir.OpMod, ir.OpFloorDiv, ir.OpFloorMod:
				if c, ok := ir.AsInt(y.B); !ok || c == 0 {
					d = inlineDepth
				}
			}
		}
	})
	return d
}

// ---- expressions ----

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
		return jen.Id(g.helper("rbf")).Call(c)
	}
	return jen.Id(g.helper("r16")).Call(c)
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

// helper registers one of the fixed helpers (16-bit float conversions) and
// returns its name.
func (g *tirGen) helper(key string) string {
	if n, ok := g.helpers[key]; ok {
		return n
	}
	var decl jen.Code
	var name string
	switch key {
	case "r16":
		h2f, f2h := g.helper("h2f"), g.helper("f2h")
		name = g.fresh(key)
		decl = jen.Id(name).Op(":=").Func().Params(jen.Id("x").Float32()).Float32().Block(jen.Return(jen.Id(h2f).Call(jen.Id(f2h).Call(jen.Id("x")))))
	case "rbf":
		b2f, f2b := g.helper("bf2f"), g.helper("f2bf")
		name = g.fresh(key)
		decl = jen.Id(name).Op(":=").Func().Params(jen.Id("x").Float32()).Float32().Block(jen.Return(jen.Id(b2f).Call(jen.Id(f2b).Call(jen.Id("x")))))
	default:
		name = g.fresh(key)
		decl = rawCode(strings.Replace(halfHelperSrc[key], "NAME", name, 1))
	}
	g.helpers[key] = name
	g.helperDecl = append(g.helperDecl, decl)
	return name
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

// rawCode renders Go source text, turning MATH.X into a qualified math reference.
func rawCode(src string) jen.Code {
	parts := strings.Split(src, "MATH.")
	s := jen.Op(parts[0])
	for _, p := range parts[1:] {
		i := 0
		for i < len(p) && (p[i] == '_' || p[i] >= 'a' && p[i] <= 'z' || p[i] >= 'A' && p[i] <= 'Z' || p[i] >= '0' && p[i] <= '9') {
			i++
		}
		s = s.Qual("math", p[:i]).Op(p[i:])
	}
	return s
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
