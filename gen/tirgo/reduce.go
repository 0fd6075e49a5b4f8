package tirgo

import (
	"github.com/dave/jennifer/jen"

	"github.com/relaxgo/relaxgo/ir"
)

// Reductions in a register.
//
// A loop nest whose innermost loops only drive reduction iteration
// variables of a single-store block,
//
//	for r1, r2 in ...:                 # serial/unroll/vectorized
//	    with T.block():
//	        vk = T.axis.reduce(.., r1) ...
//	        with T.init(): X[I] = init
//	        X[I] = f(X[I], ...)
//
// with X[I] not depending on the r loops, is emitted as
//
//	acc := X[I]
//	if <the other reduction variables are at their minimum> { acc = init }
//	for r1 { for r2 { acc = f(acc, ...) } }
//	X[I] = acc
//
// which is exact: init runs in the first r iteration exactly when the block
// would run it, f reads X only at I, the accumulator holds the value each
// iteration would have stored (rounded to the buffer's type), and no other
// buffer aliases X (TIR buffers are distinct).

type redPattern struct {
	loops []*ir.For
	blk   *ir.Block
	store *ir.BufferStore
	init  *ir.BufferStore
	rIVs  []ir.IterVar // reduction variables bound to the loops
	oIVs  []ir.IterVar // the other iteration variables
}

type accState struct {
	buf  *ir.Buffer
	name string
}

func (g *tirGen) matchReduction(x *ir.For) *redPattern {
	if g.noReduce {
		return nil
	}
	p := &redPattern{}
	var s ir.Stmt = x
	rvars := map[*ir.PrimVar]*ir.For{}
	for {
		f, ok := s.(*ir.For)
		if !ok {
			break
		}
		if f.Kind != ir.ForSerial && f.Kind != ir.ForUnrolled && f.Kind != ir.ForVectorized {
			return nil
		}
		p.loops = append(p.loops, f)
		rvars[f.Var] = f
		s = f.Body
	}
	blk, ok := s.(*ir.Block)
	if !ok || len(blk.AllocBuffers) > 0 || blk.Init == nil {
		return nil
	}
	if blk.Predicate != nil {
		if v, ok := ir.AsInt(blk.Predicate); !ok || v == 0 {
			return nil
		}
	}
	for _, l := range p.loops {
		if usesAny(l.Min, rvars) || usesAny(l.Extent, rvars) {
			return nil
		}
	}
	p.blk = blk
	p.store, ok = blk.Body.(*ir.BufferStore)
	if !ok {
		return nil
	}
	p.init, ok = blk.Init.(*ir.BufferStore)
	if !ok || p.init.Buffer != p.store.Buffer || !exprsEqual(p.init.Indices, p.store.Indices) {
		return nil
	}
	bound := map[*ir.PrimVar]bool{}
	rBound := map[*ir.PrimVar]bool{}
	for _, iv := range blk.IterVars {
		if iv.Binding == nil || !usesAny(iv.Binding, rvars) {
			p.oIVs = append(p.oIVs, iv)
			continue
		}
		bv, ok := iv.Binding.(*ir.PrimVar)
		if !ok || iv.Kind != ir.IterReduce || bv.Type != iv.Var.Type || bound[bv] {
			return nil
		}
		lo, ok1 := ir.AsInt(rvars[bv].Min)
		dlo, ok2 := ir.AsInt(iv.Dom.Min)
		if !ok1 || !ok2 || lo != dlo {
			return nil
		}
		bound[bv] = true
		rBound[iv.Var] = true
		p.rIVs = append(p.rIVs, iv)
	}
	if len(bound) != len(p.loops) {
		return nil
	}
	for _, e := range p.store.Indices {
		if usesVars(e, rBound) || usesAny(e, rvars) {
			return nil
		}
	}
	for _, iv := range p.oIVs {
		if usesVars(iv.Binding, rBound) {
			return nil
		}
	}
	if readsBuffer(p.init.Value, p.store.Buffer, nil) || usesVars(p.init.Value, rBound) || usesAny(p.init.Value, rvars) {
		return nil
	}
	if readsBuffer(p.store.Value, p.store.Buffer, p.store.Indices) {
		return nil
	}
	return p
}

func usesAny(e ir.PrimExpr, vars map[*ir.PrimVar]*ir.For) bool {
	for _, v := range ir.FreeVars(e) {
		if _, ok := vars[v]; ok {
			return true
		}
	}
	return false
}

func usesVars(e ir.PrimExpr, vars map[*ir.PrimVar]bool) bool {
	for _, v := range ir.FreeVars(e) {
		if vars[v] {
			return true
		}
	}
	return false
}

// readsBuffer reports whether e loads b at indices other than idx (at any
// index when idx is nil).
func readsBuffer(e ir.PrimExpr, b *ir.Buffer, idx []ir.PrimExpr) bool {
	found := false
	ir.VisitPrim(e, func(x ir.PrimExpr) {
		if l, ok := x.(*ir.BufferLoad); ok && l.Buffer == b && (idx == nil || !exprsEqual(l.Indices, idx)) {
			found = true
		}
	})
	return found
}

func exprsEqual(a, b []ir.PrimExpr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !exprEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// exprEqual is structural equality with variables compared by identity.
func exprEqual(a, b ir.PrimExpr) bool {
	switch x := a.(type) {
	case *ir.IntImm:
		y, ok := b.(*ir.IntImm)
		return ok && *x == *y
	case *ir.FloatImm:
		y, ok := b.(*ir.FloatImm)
		return ok && *x == *y
	case *ir.PrimVar:
		return a == b
	case *ir.Binary:
		y, ok := b.(*ir.Binary)
		return ok && x.Op == y.Op && exprEqual(x.A, y.A) && exprEqual(x.B, y.B)
	case *ir.Cast:
		y, ok := b.(*ir.Cast)
		return ok && x.Type == y.Type && exprEqual(x.Value, y.Value)
	case *ir.BufferLoad:
		y, ok := b.(*ir.BufferLoad)
		return ok && x.Buffer == y.Buffer && exprsEqual(x.Indices, y.Indices)
	}
	return false
}

func (g *tirGen) reduction(p *redPattern, out *[]jen.Code) error {
	blk := p.blk
	g.setLoc(blk.Loc)
	var stmts []jen.Code
	var decls []ivDecl
	if err := g.bindIterVars(blk.Name, p.oIVs, &stmts, &decls); err != nil {
		return err
	}
	st := p.store
	g.setLoc(st.Loc)
	gb, err := g.buffer(st.Buffer)
	if err != nil {
		return err
	}
	if st.Value.DType() != st.Buffer.DType || p.init.Value.DType() != st.Buffer.DType {
		return g.errorf("store of a %s value into %s buffer %s", st.Value.DType(), st.Buffer.DType, st.Buffer.Name)
	}
	off, err := g.offset(gb, st.Indices)
	if err != nil {
		return err
	}
	offName := g.fresh(gb.data + "_off")
	acc := g.fresh(gb.data + "_acc")
	loadCode := g.fromElem(st.Buffer.DType, operand(jen.Id(gb.data).Index(jen.Id(offName))))
	stmts = append(stmts, jen.Id(offName).Op(":=").Add(off))
	// Init: when the other reduction variables are at their minimum and
	// the loops run at least once.
	g.setLoc(p.init.Loc)
	initV, err := g.expr(p.init.Value)
	if err != nil {
		return err
	}
	cond, err := g.atReductionStart(p.oIVs, p.loops)
	if err != nil {
		return err
	}
	if cond == nil {
		stmts = append(stmts, jen.Id(acc).Op(":=").Add(initV.c))
	} else {
		stmts = append(stmts, jen.Id(acc).Op(":=").Add(loadCode.c), jen.If(cond).Block(jen.Id(acc).Op("=").Add(initV.c)))
	}
	// The loops, with a block holding only the reduction variables.
	inner := &ir.Block{Name: blk.Name, IterVars: p.rIVs, Body: st, Loc: blk.Loc}
	var nest ir.Stmt = inner
	for i := len(p.loops) - 1; i >= 0; i-- {
		l := *p.loops[i]
		l.Body = nest
		nest = &l
	}
	g.noReduce, g.acc = true, &accState{buf: st.Buffer, name: acc}
	err = g.stmt(nest, &stmts)
	g.noReduce, g.acc = false, nil
	if err != nil {
		return err
	}
	stmts = append(stmts, jen.Id(gb.data).Index(jen.Id(offName)).Op("=").Add(g.toElem(st.Buffer.DType, operand(jen.Id(acc)))))
	for _, d := range decls {
		if !g.refs[d.v] {
			stmts[d.slot] = jen.Null()
		}
	}
	if blk.Name != "" {
		*out = append(*out, jen.Comment("block "+blk.Name+" (reduction in a register)"))
	}
	*out = append(*out, stmts...)
	return nil
}
