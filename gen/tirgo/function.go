package tirgo

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

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
		if b == nil && p.Type.Code == runtime.CodeHandle {
			// A stub's handle (TVM prints `T.evaluate(0)` bodies with
			// them): the argument is ignored; a body reading it is refused.
			g.handles[p] = true
			continue
		}
		if b == nil {
			if !p.Type.IsInt() && !p.Type.IsUInt() && !p.Type.IsFloat() || !supportedDType(p.Type) {
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
		if f.BufferMap[p] == nil && !g.refs[p] && !g.handles[p] {
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
