package tirgo

import (
	"github.com/dave/jennifer/jen"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

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
	case *ir.AttrStmt:
		// A hint for TVM's lowering (e.g. pragma_scope): the body runs as is.
		return g.stmt(x.Body, out)
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
		switch v := x.Value.(type) {
		case *ir.IntImm, *ir.FloatImm:
			return nil
		case *ir.PrimCall:
			if v.Op == "assume" {
				return nil // an assumption for TVM's simplifier: nothing to run
			}
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
	case *ir.AttrStmt:
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

// atReductionStart is the condition under which a block's init runs: every
// reduction variable of ivs at its domain minimum, and (for the loops, when
// given) every loop extent positive. It is nil when nothing is to be checked.
func (g *tirGen) atReductionStart(ivs []ir.IterVar, loops []*ir.For) (jen.Code, error) {
	var cond jen.Code
	and := func(e ir.PrimExpr) error {
		c, err := g.boolExpr(e)
		if err != nil {
			return err
		}
		if cond == nil {
			cond = c
		} else {
			cond = jen.Add(cond).Op("&&").Add(c)
		}
		return nil
	}
	for _, iv := range ivs {
		if iv.Kind != ir.IterReduce {
			continue
		}
		if err := and(&ir.Binary{Op: ir.OpEQ, A: iv.Var, B: iv.Dom.Min}); err != nil {
			return nil, err
		}
	}
	for _, l := range loops {
		if v, ok := ir.AsInt(l.Extent); ok && v > 0 {
			continue
		}
		if err := and(&ir.Binary{Op: ir.OpGT, A: l.Extent, B: &ir.IntImm{Value: 0, Type: l.Extent.DType()}}); err != nil {
			return nil, err
		}
	}
	return cond, nil
}

func (g *tirGen) blockRest(x *ir.Block, stmts []jen.Code, decls []ivDecl, out *[]jen.Code) error {
	var inner []jen.Code
	for _, b := range x.AllocBuffers {
		if err := g.alloc(b); err != nil {
			return err
		}
	}
	if x.Init != nil {
		cond, err := g.atReductionStart(x.IterVars, nil)
		if err != nil {
			return err
		}
		var init []jen.Code
		if err := g.stmt(x.Init, &init); err != nil {
			return err
		}
		g.setLoc(x.Loc)
		if cond == nil {
			inner = append(inner, init...)
		} else {
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
		return operand(jen.Qual(halfPkg, "BFloat16ToFloat32").Call(load.c))
	case isHalf(dt):
		return operand(jen.Qual(halfPkg, "Float16ToFloat32").Call(load.c))
	case dt.IsInt() && dt.Bits == 64:
		return conv("int", load)
	}
	return load
}

func (g *tirGen) toElem(dt runtime.DataType, v gexpr) jen.Code {
	switch {
	case isHalf(dt):
		if dt.Code == runtime.CodeBFloat {
			return jen.Qual(halfPkg, "Float32ToBFloat16").Call(v.c)
		}
		return jen.Qual(halfPkg, "Float32ToFloat16").Call(v.c)
	case dt.IsInt() && dt.Bits == 64:
		return jen.Int64().Call(v.c)
	}
	return v.c
}
