package tvmscript

import (
	"fmt"
	"strings"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// tenv is the state of one PrimFunc being parsed.
type tenv struct {
	p       *parser
	scopes  []map[string]any // name -> *ir.PrimVar | *ir.Buffer
	loopDom map[*ir.PrimVar]ir.Range
}

func (t *tenv) lookup(name string) (any, bool) {
	for i := len(t.scopes) - 1; i >= 0; i-- {
		if v, ok := t.scopes[i][name]; ok {
			return v, true
		}
	}
	return nil, false
}

func (t *tenv) define(name string, v any) { t.scopes[len(t.scopes)-1][name] = v }
func (t *tenv) push()                     { t.scopes = append(t.scopes, map[string]any{}) }
func (t *tenv) pop()                      { t.scopes = t.scopes[:len(t.scopes)-1] }

func (t *tenv) ctx() *primCtx {
	return &primCtx{p: t.p, intType: runtime.Int32, floatType: runtime.Float32, lookup: t.lookup, tir: true}
}

func (t *tenv) expr(e expr) (ir.PrimExpr, error) { return t.ctx().expr(e) }

func (p *parser) primFunc(fd *funcDef, kws []kwarg) (*ir.PrimFunc, error) {
	f := &ir.PrimFunc{Name: fd.name, BufferMap: map[*ir.PrimVar]*ir.Buffer{}, Loc: fd.p}
	for _, k := range kws {
		switch k.name {
		case "private":
			b, err := boolKw(p, k)
			if err != nil {
				return nil, err
			}
			f.Private = b
		case "s_tir":
			b, err := boolKw(p, k)
			if err != nil {
				return nil, err
			}
			f.STIR = b
		case "check_well_formed":
		default:
			return nil, p.errorf(k.p, "unknown argument %q of @T.prim_func", k.name)
		}
	}
	if fd.ret != nil {
		// "-> None" states what every PrimFunc relaxgo runs does: it
		// returns nothing and writes its output buffers.
		if _, void := fd.ret.(*noneLit); !void {
			return nil, p.errorf(fd.ret.pos(), "PrimFunc return values (-> %s) are not supported; only -> None", exprText(fd.ret))
		}
	}
	t := &tenv{p: p, loopDom: map[*ir.PrimVar]ir.Range{}}
	t.push()
	for _, pr := range fd.params {
		if pr.ann == nil {
			return nil, p.errorf(pr.p, "parameter %q needs a type annotation (T.handle, T.Buffer(...), T.int32, ...)", pr.name)
		}
		if pr.def != nil {
			return nil, p.errorf(pr.def.pos(), "parameters cannot have default values")
		}
		if _, dup := t.scopes[0][pr.name]; dup {
			return nil, p.errorf(pr.p, "duplicate parameter %q", pr.name)
		}
		ann := pr.ann
		var c *callExpr
		if cc, ok := ann.(*callExpr); ok {
			c, ann = cc, cc.fn
		}
		k, name := p.ns(ann)
		if k != "tir" {
			return nil, p.errorf(pr.ann.pos(), "unsupported PrimFunc parameter annotation %s", describeFor(pr.ann))
		}
		switch {
		case name == "handle" || name == "Ptr":
			v := ir.NewPrimVar(pr.name, handleType)
			f.Params = append(f.Params, v)
			t.define(pr.name, v)
		case name == "Buffer":
			if c == nil {
				return nil, p.errorf(pr.ann.pos(), "T.Buffer needs a shape")
			}
			b, err := t.buffer(pr.name, c, "T.Buffer", 0)
			if err != nil {
				return nil, err
			}
			v := ir.NewPrimVar(pr.name, handleType)
			f.Params = append(f.Params, v)
			f.BufferMap[v] = b
			t.define(pr.name, b)
		default:
			dt, ok := dtypeName(name)
			if !ok || c != nil && len(c.args)+len(c.kw) > 0 {
				return nil, p.errorf(pr.ann.pos(), "unsupported PrimFunc parameter annotation %s", describeFor(pr.ann))
			}
			v := ir.NewPrimVar(pr.name, dt)
			f.Params = append(f.Params, v)
			t.define(pr.name, v)
		}
	}
	// Prelude: func_attr, symbolic declarations, match_buffer; then the body.
	var rest []stmt
	var rootAllocs []*ir.Buffer
	for _, s := range p.splitSymDecls(fd.body) {
		switch x := s.(type) {
		case *exprStmt:
			if c, ok := p.isCall(x.x, "tir", "func_attr"); ok {
				if len(c.args) != 1 || len(c.kw) != 0 {
					return nil, p.errorf(c.p, "T.func_attr takes one dict argument")
				}
				a, err := p.attrDict(c.args[0], true)
				if err != nil {
					return nil, err
				}
				f.Attrs = append(f.Attrs, a...)
				continue
			}
			if _, ok := x.x.(*strLit); ok {
				continue
			}
		case *assignStmt:
			if n, ok := x.target.(*nameExpr); ok && x.value != nil {
				if c, ok := p.isCall(x.value, "tir", "match_buffer"); ok {
					if len(c.args) == 0 {
						return nil, p.errorf(c.p, "T.match_buffer needs a handle parameter")
					}
					hn, ok := c.args[0].(*nameExpr)
					var hv *ir.PrimVar
					if ok {
						for _, prm := range f.Params {
							if prm.Name == hn.name {
								hv = prm
							}
						}
					}
					if hv == nil || hv.Type != handleType {
						return nil, p.errorf(c.args[0].pos(), "T.match_buffer's first argument must be a T.handle parameter")
					}
					if _, done := f.BufferMap[hv]; done {
						return nil, p.errorf(c.args[0].pos(), "parameter %q is already matched to a buffer", hn.name)
					}
					b, err := t.buffer(n.name, c, "T.match_buffer", 1)
					if err != nil {
						return nil, err
					}
					f.BufferMap[hv] = b
					t.define(n.name, b)
					continue
				}
				if c, ok := x.value.(*callExpr); ok && len(c.args)+len(c.kw) == 0 && x.ann == nil {
					if k, name := p.ns(c.fn); k == "tir" {
						if dt, ok := dtypeName(name); ok {
							t.define(n.name, ir.NewPrimVar(n.name, dt))
							continue
						}
					}
				}
				if c, ok := p.isCall(x.value, "tir", "alloc_buffer", "sblock_alloc_buffer"); ok && x.ann == nil {
					b, err := t.buffer(n.name, c, "T.alloc_buffer", 0)
					if err != nil {
						return nil, err
					}
					rootAllocs = append(rootAllocs, b)
					t.define(n.name, b)
					continue
				}
			}
		}
		rest = append(rest, s)
	}
	body, err := t.stmts(rest, nil)
	if err != nil {
		return nil, err
	}
	if len(rootAllocs) > 0 || containsBlock(body) {
		if b, ok := body.(*ir.Block); ok && b.Name == "root" && len(b.IterVars) == 0 && len(rootAllocs) == 0 {
			f.Body = b
		} else {
			f.Body = &ir.Block{Name: "root", Implicit: true, AllocBuffers: rootAllocs, Body: body, Loc: fd.p}
		}
	} else {
		f.Body = body
	}
	return f, nil
}

func containsBlock(s ir.Stmt) bool {
	switch x := s.(type) {
	case *ir.Block:
		return true
	case *ir.For:
		return containsBlock(x.Body)
	case *ir.SeqStmt:
		for _, y := range x.Stmts {
			if containsBlock(y) {
				return true
			}
		}
	case *ir.IfThenElse:
		return containsBlock(x.Then) || x.Else != nil && containsBlock(x.Else)
	case *ir.LetStmt:
		return containsBlock(x.Body)
	case *ir.AttrStmt:
		return containsBlock(x.Body)
	case *ir.AllocBuffer:
		return containsBlock(x.Body)
	}
	return false
}

// buffer converts T.Buffer / T.match_buffer / T.alloc_buffer arguments;
// skip is the number of leading positional arguments to ignore.
func (t *tenv) buffer(name string, c *callExpr, what string, skip int) (*ir.Buffer, error) {
	p := t.p
	cc := *c
	cc.args = c.args[skip:]
	a, err := p.args(&cc, what, "shape", "dtype", "data", "strides", "elem_offset", "scope", "align", "offset_factor", "buffer_type", "axis_separators")
	if err != nil {
		return nil, err
	}
	b := &ir.Buffer{Name: name, DType: runtime.Float32}
	b.Data = ir.NewPrimVar(name, handleType)
	sh := a["shape"]
	if sh == nil {
		return nil, p.errorf(c.p, "%s needs a shape", what)
	}
	if b.Shape, err = t.exprList(sh); err != nil {
		return nil, err
	}
	if d := a["dtype"]; d != nil {
		if b.DType, err = p.parseDType(d); err != nil {
			return nil, err
		}
	}
	if s := a["strides"]; s != nil {
		if _, none := s.(*noneLit); !none {
			if b.Strides, err = t.exprList(s); err != nil {
				return nil, err
			}
		}
	}
	if e := a["elem_offset"]; e != nil {
		if _, none := e.(*noneLit); !none {
			if b.ElemOffset, err = t.expr(e); err != nil {
				return nil, err
			}
		}
	}
	if s := a["scope"]; s != nil {
		sl, ok := s.(*strLit)
		if !ok {
			return nil, p.errorf(s.pos(), "scope must be a string")
		}
		if sl.v != "global" {
			b.Scope = sl.v
		}
	}
	if d := a["data"]; d != nil {
		if _, none := d.(*noneLit); !none {
			return nil, p.errorf(d.pos(), "explicit buffer data pointers are not supported")
		}
	}
	return b, nil
}

// exprList converts a tuple/list of expressions (or a single one).
func (t *tenv) exprList(e expr) ([]ir.PrimExpr, error) {
	var elts []expr
	switch x := e.(type) {
	case *attrExpr:
		// buf.shape: another buffer's dimensions.
		if bn, ok := x.x.(*nameExpr); ok && x.name == "shape" {
			if v, _ := t.lookup(bn.name); v != nil {
				if b, ok := v.(*ir.Buffer); ok {
					return append([]ir.PrimExpr(nil), b.Shape...), nil
				}
			}
		}
		elts = []expr{e}
	case *tupleExpr:
		elts = x.elts
	case *listExpr:
		elts = x.elts
	default:
		elts = []expr{e}
	}
	out := make([]ir.PrimExpr, len(elts))
	for i, x := range elts {
		v, err := t.expr(x)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func seqOf(ss []ir.Stmt) ir.Stmt {
	switch len(ss) {
	case 0:
		return &ir.Evaluate{Value: &ir.IntImm{Value: 0, Type: runtime.Int32}}
	case 1:
		return ss[0]
	}
	return &ir.SeqStmt{Stmts: ss}
}

// scopedStmts is stmts in a new scope: names the statements define are
// gone after them.
func (t *tenv) scopedStmts(list []stmt, blk *ir.Block) (ir.Stmt, error) {
	t.push()
	defer t.pop()
	return t.stmts(list, blk)
}

// stmts converts a statement list. blk is the enclosing block when the list
// is a block body (its header statements fill blk).
func (t *tenv) stmts(list []stmt, blk *ir.Block) (ir.Stmt, error) {
	p := t.p
	var out []ir.Stmt
	for i, s := range list {
		switch x := s.(type) {
		case *passStmt:
		case *exprStmt:
			if _, ok := x.x.(*strLit); ok {
				continue
			}
			if c, ok := x.x.(*callExpr); ok {
				k, name := p.ns(c.fn)
				if k == "tir" {
					switch name {
					case "reads", "writes", "where", "block_attr", "sblock_attr":
						if blk == nil {
							return nil, p.errorf(c.p, "T.%s is only allowed inside a block", name)
						}
						if err := t.blockHeader(blk, name, c); err != nil {
							return nil, err
						}
						continue
					case "evaluate":
						if len(c.args) != 1 || len(c.kw) != 0 {
							return nil, p.errorf(c.p, "T.evaluate takes one argument")
						}
						v, err := t.expr(c.args[0])
						if err != nil {
							return nil, err
						}
						out = append(out, &ir.Evaluate{Value: v, Loc: x.p})
						continue
					case "func_attr":
						return nil, p.errorf(c.p, "T.func_attr must be at the top level of the function")
					case "attr":
						// T.attr(node, key, value): the rest of this body is
						// its body.
						if len(c.args) != 3 || len(c.kw) != 0 {
							return nil, p.errorf(c.p, "T.attr takes a node, a key string and a value")
						}
						key, ok := c.args[1].(*strLit)
						if !ok {
							return nil, p.errorf(c.args[1].pos(), "T.attr needs the key as a string")
						}
						node, err := t.expr(c.args[0])
						if err != nil {
							return nil, err
						}
						var val ir.PrimExpr
						if sv, ok := c.args[2].(*strLit); ok {
							val = &ir.PrimStr{Value: sv.v}
						} else if val, err = t.expr(c.args[2]); err != nil {
							return nil, err
						}
						body, err := t.stmts(list[i+1:], blk)
						if err != nil {
							return nil, err
						}
						out = append(out, &ir.AttrStmt{Node: node, Key: key.v, Value: val, Body: body, Loc: x.p})
						return seqOf(out), nil
					}
				}
			}
			v, err := t.expr(x.x)
			if err != nil {
				return nil, err
			}
			out = append(out, &ir.Evaluate{Value: v, Loc: x.p})
		case *assignStmt:
			st, consumed, err := t.assign(x, list[i+1:], blk)
			if err != nil {
				return nil, err
			}
			if st != nil {
				out = append(out, st)
			}
			if consumed {
				return seqOf(out), nil
			}
		case *augAssignStmt:
			ix, ok := x.target.(*indexExpr)
			if !ok {
				return nil, p.errorf(x.p, "augmented assignment needs a buffer element target")
			}
			desugared := &assignStmt{p: x.p, target: ix, value: &binExpr{p: x.p, op: x.op, x: ix, y: x.value}}
			st, _, err := t.assign(desugared, nil, blk)
			if err != nil {
				return nil, err
			}
			out = append(out, st)
		case *forStmt:
			st, err := t.forLoop(x)
			if err != nil {
				return nil, err
			}
			out = append(out, st)
		case *withStmt:
			st, err := t.with(x, blk)
			if err != nil {
				return nil, err
			}
			if st != nil {
				out = append(out, st)
			}
		case *ifStmt:
			cond, err := t.expr(x.cond)
			if err != nil {
				return nil, err
			}
			ite := &ir.IfThenElse{Cond: cond, Loc: x.p}
			ite.Then, err = t.scopedStmts(x.body, nil)
			if err != nil {
				return nil, err
			}
			if x.els != nil {
				ite.Else, err = t.scopedStmts(x.els, nil)
				if err != nil {
					return nil, err
				}
			}
			out = append(out, ite)
		case *returnStmt:
			return nil, p.errorf(x.p, "return is not supported in a PrimFunc")
		case *whileStmt:
			return nil, p.errorf(x.p, "while loops are not supported")
		case *assertStmt:
			return nil, p.errorf(x.p, "assert statements are not supported")
		default:
			return nil, p.errorf(s.pos(), "unsupported statement in a PrimFunc")
		}
	}
	return seqOf(out), nil
}

// assign handles buffer stores, allocations, iteration variables,
// declarations and let bindings. consumed reports that the rest of the
// list became the body of the returned statement.
func (t *tenv) assign(x *assignStmt, rest []stmt, blk *ir.Block) (ir.Stmt, bool, error) {
	p := t.p
	if x.value == nil {
		return nil, false, p.errorf(x.p, "annotation without a value")
	}
	if ix, ok := x.target.(*indexExpr); ok {
		c := t.ctx()
		buf, err := c.buffer(ix.x)
		if err != nil {
			return nil, false, err
		}
		idx, err := c.indices(buf, ix)
		if err != nil {
			return nil, false, err
		}
		v, err := c.conv(x.value)
		if err != nil {
			return nil, false, err
		}
		if v.lit {
			v = retype(v, buf.DType)
		}
		return &ir.BufferStore{Buffer: buf, Value: v.e, Indices: idx, Loc: x.p}, false, nil
	}
	if c, ok := x.value.(*callExpr); ok {
		k, name := p.ns(c.fn)
		if k == "tir" && strings.HasPrefix(name, "axis.") {
			if blk == nil {
				return nil, false, p.errorf(c.p, "T.%s is only allowed inside a block", name)
			}
			return nil, false, t.axis(blk, x.target, c, strings.TrimPrefix(name, "axis."))
		}
	}
	n, ok := x.target.(*nameExpr)
	if !ok {
		return nil, false, p.errorf(x.p, "unsupported assignment target %s", describeFor(x.target))
	}
	if c, ok := x.value.(*callExpr); ok {
		k, name := p.ns(c.fn)
		if k == "tir" {
			switch name {
			case "alloc_buffer", "sblock_alloc_buffer":
				// The current dialect spells a block's allocation
				// T.sblock_alloc_buffer; v0.23 uses T.alloc_buffer.
				b, err := t.buffer(n.name, c, "T."+name, 0)
				if err != nil {
					return nil, false, err
				}
				t.define(n.name, b)
				if blk != nil {
					blk.AllocBuffers = append(blk.AllocBuffers, b)
					return nil, false, nil
				}
				body, err := t.stmts(rest, nil)
				if err != nil {
					return nil, false, err
				}
				return &ir.AllocBuffer{Buffer: b, Body: body, Loc: x.p}, true, nil
			case "match_buffer":
				return nil, false, p.errorf(c.p, "T.match_buffer is only supported at the top of a PrimFunc")
			case "decl_buffer", "allocate":
				return nil, false, p.errorf(c.p, "T.%s is not supported", name)
			}
			if dt, ok := dtypeName(name); ok && len(c.args) == 0 && len(c.kw) == 0 {
				t.define(n.name, ir.NewPrimVar(n.name, dt))
				return nil, false, nil
			}
		}
	}
	// A let binding: the rest of the list is its body.
	v, err := t.ctx().conv(x.value)
	if err != nil {
		return nil, false, err
	}
	dt := v.e.DType()
	if x.ann != nil {
		ann := x.ann
		// T.let[T.int64] spells the same let binding with its type.
		if ix, isIndex := ann.(*indexExpr); isIndex && len(ix.index) == 1 {
			if k, name := p.ns(ix.x); k == "tir" && name == "let" {
				ann = ix.index[0]
			}
		}
		k, name := p.ns(ann)
		adt, ok := dtypeName(name)
		if k != "tir" || !ok {
			return nil, false, p.errorf(x.ann.pos(), "unsupported annotation %s; expected a scalar type such as T.int32", describeFor(x.ann))
		}
		dt = adt
		if v.lit {
			v = retype(v, dt)
		}
	}
	lv := ir.NewPrimVar(n.name, dt)
	t.push()
	t.define(n.name, lv)
	body, err := t.stmts(rest, blk)
	t.pop()
	if err != nil {
		return nil, false, err
	}
	return &ir.LetStmt{Var: lv, Value: v.e, Body: body, Loc: x.p}, true, nil
}

// axis handles `v = T.axis.spatial(dom, binding)` and `a, b = T.axis.remap("SR", [i, j])`.
func (t *tenv) axis(blk *ir.Block, target expr, c *callExpr, kind string) error {
	p := t.p
	if kind == "remap" {
		if len(c.args) != 2 || len(c.kw) != 0 {
			return p.errorf(c.p, "T.axis.remap takes a kind string and a list of loop variables")
		}
		ks, ok := c.args[0].(*strLit)
		if !ok {
			return p.errorf(c.args[0].pos(), "T.axis.remap needs a kind string such as \"SSR\"")
		}
		var binds []expr
		switch l := c.args[1].(type) {
		case *listExpr:
			binds = l.elts
		case *tupleExpr:
			binds = l.elts
		case *nameExpr:
			v, _ := t.lookup(l.name)
			a, ok := v.(*gridAlias)
			if !ok {
				return p.errorf(c.args[1].pos(), "T.axis.remap needs a list of loop variables")
			}
			for _, n := range a.names {
				binds = append(binds, n)
			}
		default:
			return p.errorf(c.args[1].pos(), "T.axis.remap needs a list of loop variables")
		}
		names, err := targetNames(p, target, "expected a variable name", "expected variable names")
		if err != nil {
			return err
		}
		if len(ks.v) != len(binds) || len(names) != len(binds) {
			return p.errorf(c.p, "T.axis.remap: %d kinds, %d variables and %d bindings do not match", len(ks.v), len(names), len(binds))
		}
		for i, b := range binds {
			var ik ir.IterKind
			switch ks.v[i] {
			case 'S':
				ik = ir.IterSpatial
			case 'R':
				ik = ir.IterReduce
			default:
				return p.errorf(ks.p, "T.axis.remap: unknown iteration kind %q (expected S or R)", ks.v[i])
			}
			bn, ok := b.(*nameExpr)
			if !ok {
				return p.errorf(b.pos(), "T.axis.remap binds loop variables, found %s", describeFor(b))
			}
			lv, ok := t.lookup(bn.name)
			pv, isVar := lv.(*ir.PrimVar)
			if !ok || !isVar {
				return p.errorf(bn.p, "undefined loop variable %q", bn.name)
			}
			dom, ok := t.loopDom[pv]
			if !ok {
				return p.errorf(bn.p, "%q is not a loop variable", bn.name)
			}
			iv := ir.NewPrimVar(names[i].name, pv.Type)
			blk.IterVars = append(blk.IterVars, ir.IterVar{Var: iv, Dom: dom, Kind: ik, Binding: pv})
			t.define(names[i].name, iv)
		}
		return nil
	}
	var ik ir.IterKind
	switch kind {
	case "spatial", "S":
		ik = ir.IterSpatial
	case "reduce", "R":
		ik = ir.IterReduce
	case "scan":
		ik = ir.IterScan
	case "opaque":
		ik = ir.IterOpaque
	default:
		return p.errorf(c.p, "unsupported T.axis.%s", kind)
	}
	n, ok := target.(*nameExpr)
	if !ok {
		return p.errorf(target.pos(), "T.axis.%s binds one variable", kind)
	}
	a, err := p.args(c, "T.axis."+kind, "dom", "binding", "dtype")
	if err != nil {
		return err
	}
	if a["dom"] == nil || a["binding"] == nil {
		return p.errorf(c.p, "T.axis.%s takes a domain and a binding", kind)
	}
	ctx := t.ctx()
	bind, err := ctx.conv(a["binding"])
	if err != nil {
		return err
	}
	var lo, ext pval
	switch d := a["dom"].(type) {
	case *tupleExpr:
		if len(d.elts) != 2 {
			return p.errorf(d.p, "a domain tuple is (begin, end)")
		}
		b0, err := ctx.conv(d.elts[0])
		if err != nil {
			return err
		}
		b1, err := ctx.conv(d.elts[1])
		if err != nil {
			return err
		}
		b0, b1 = ctx.unify(b0, b1)
		lo = b0
		ext = pval{ir.Simplify(&ir.Binary{Op: ir.OpSub, A: b1.e, B: b0.e}), false}
	default:
		e, err := ctx.conv(d)
		if err != nil {
			return err
		}
		ext = e
		lo = pval{&ir.IntImm{Value: 0, Type: ctx.intType}, true}
	}
	if ext.lit && !bind.lit {
		ext = retype(ext, bind.e.DType())
	}
	if bind.lit && !ext.lit {
		bind = retype(bind, ext.e.DType())
	}
	dt := ext.e.DType()
	if lo.lit {
		lo = retype(lo, dt)
	}
	iv := ir.NewPrimVar(n.name, dt)
	blk.IterVars = append(blk.IterVars, ir.IterVar{Var: iv, Dom: ir.Range{Min: lo.e, Extent: ext.e}, Kind: ik, Binding: bind.e})
	t.define(n.name, iv)
	return nil
}

func (t *tenv) blockHeader(blk *ir.Block, name string, c *callExpr) error {
	p := t.p
	switch name {
	case "where":
		if len(c.args) != 1 || len(c.kw) != 0 {
			return p.errorf(c.p, "T.where takes one condition")
		}
		v, err := t.expr(c.args[0])
		if err != nil {
			return err
		}
		blk.Predicate = v
	case "block_attr", "sblock_attr":
		if len(c.args) != 1 || len(c.kw) != 0 {
			return p.errorf(c.p, "T.%s takes one dict argument", name)
		}
		a, err := p.attrDict(c.args[0], true)
		if err != nil {
			return err
		}
		blk.Annotations = append(blk.Annotations, a...)
	case "reads", "writes":
		if len(c.kw) != 0 {
			return p.errorf(c.kw[0].p, "T.%s takes buffer regions only", name)
		}
		args := c.args
		if len(args) == 1 {
			if l, ok := args[0].(*listExpr); ok {
				args = l.elts
			}
		}
		regions := []ir.BufferRegion{}
		for _, a := range args {
			r, err := t.region(a)
			if err != nil {
				return err
			}
			regions = append(regions, r)
		}
		if name == "reads" {
			blk.Reads = regions
		} else {
			blk.Writes = regions
		}
	}
	return nil
}

// region converts A[i, 0:8] to a buffer region.
func (t *tenv) region(e expr) (ir.BufferRegion, error) {
	p := t.p
	ctx := t.ctx()
	ix, ok := e.(*indexExpr)
	if !ok {
		if n, isName := e.(*nameExpr); isName {
			buf, err := ctx.buffer(n)
			if err != nil {
				return ir.BufferRegion{}, err
			}
			r := ir.BufferRegion{Buffer: buf}
			for _, d := range buf.Shape {
				r.Region = append(r.Region, ir.Range{Min: zero(d.DType()), Extent: d})
			}
			return r, nil
		}
		return ir.BufferRegion{}, p.errorf(e.pos(), "expected a buffer region such as A[i, 0:8], found %s", describeFor(e))
	}
	buf, err := ctx.buffer(ix.x)
	if err != nil {
		return ir.BufferRegion{}, err
	}
	if len(ix.index) != len(buf.Shape) {
		return ir.BufferRegion{}, p.errorf(ix.p, "buffer %q has %d dimensions but the region has %d", buf.Name, len(buf.Shape), len(ix.index))
	}
	r := ir.BufferRegion{Buffer: buf}
	for _, ie := range ix.index {
		if s, ok := ie.(*sliceExpr); ok {
			if s.lo == nil || s.hi == nil || s.stride != nil {
				return ir.BufferRegion{}, p.errorf(s.p, "a region slice needs a begin and an end (begin:end)")
			}
			lo, err := ctx.conv(s.lo)
			if err != nil {
				return ir.BufferRegion{}, err
			}
			hi, err := ctx.conv(s.hi)
			if err != nil {
				return ir.BufferRegion{}, err
			}
			lo, hi = ctx.unify(lo, hi)
			r.Region = append(r.Region, ir.Range{Min: lo.e, Extent: simplifyInt(&ir.Binary{Op: ir.OpSub, A: hi.e, B: lo.e})})
			continue
		}
		v, err := ctx.expr(ie)
		if err != nil {
			return ir.BufferRegion{}, err
		}
		r.Region = append(r.Region, ir.Range{Min: v, Extent: &ir.IntImm{Value: 1, Type: v.DType()}})
	}
	return r, nil
}

// simplifyInt simplifies an integer expression, keeping its type.
func simplifyInt(e ir.PrimExpr) ir.PrimExpr {
	s := ir.Simplify(e)
	if s.DType() != e.DType() {
		if i, ok := s.(*ir.IntImm); ok {
			return &ir.IntImm{Value: i.Value, Type: e.DType()}
		}
		return e
	}
	return s
}

// gridAlias is what `iters` names in `for iters in T.grid(a, b)`: the loop
// variables T.grid made (iters_0, iters_1, ...), for T.axis.remap.
type gridAlias struct {
	name  string
	names []*nameExpr
}

// targetNames is an assignment or loop target's names: one name or a tuple
// of names; elemMsg reports a tuple element that is not a name, msg any
// other target.
func targetNames(p *parser, target expr, elemMsg, msg string) ([]*nameExpr, error) {
	switch tg := target.(type) {
	case *nameExpr:
		return []*nameExpr{tg}, nil
	case *tupleExpr:
		names := make([]*nameExpr, 0, len(tg.elts))
		for _, e := range tg.elts {
			n, ok := e.(*nameExpr)
			if !ok {
				return nil, p.errorf(e.pos(), "%s", elemMsg)
			}
			names = append(names, n)
		}
		return names, nil
	}
	return nil, p.errorf(target.pos(), "%s", msg)
}

func (t *tenv) forLoop(x *forStmt) (ir.Stmt, error) {
	p := t.p
	names, err := targetNames(p, x.target, "loop targets must be names", "loop targets must be names")
	if err != nil {
		return nil, err
	}
	c, ok := x.iter.(*callExpr)
	if !ok {
		return nil, p.errorf(x.iter.pos(), "unsupported loop iterator %s; expected range(...), T.grid(...), T.serial(...), ...", describeFor(x.iter))
	}
	ctx := t.ctx()
	type loop struct {
		v        *ir.PrimVar
		min, ext ir.PrimExpr
		kind     ir.ForKind
		tag      string
		ann      ir.Attrs
	}
	var loops []loop
	fnName, _ := dotted(c.fn)
	k, name := p.ns(c.fn)
	var alias *gridAlias // `for iters in T.grid(a, b)`: iters names the loop variables
	if k == "tir" && name == "grid" {
		if len(c.kw) != 0 {
			return nil, p.errorf(c.kw[0].p, "T.grid takes extents only")
		}
		var exts []ir.PrimExpr
		for _, a := range c.args {
			if st, ok := a.(*starExpr); ok {
				// *buf.shape: the buffer's dimensions, in order.
				at, ok := st.x.(*attrExpr)
				bn, ok2 := (*nameExpr)(nil), false
				if ok {
					bn, ok2 = at.x.(*nameExpr)
				}
				if !ok || !ok2 || at.name != "shape" {
					return nil, p.errorf(st.p, "T.grid takes *buffer.shape as its star argument")
				}
				v, _ := t.lookup(bn.name)
				b, isBuf := v.(*ir.Buffer)
				if !isBuf {
					return nil, p.errorf(bn.p, "%s is not a buffer", bn.name)
				}
				exts = append(exts, b.Shape...)
				continue
			}
			ext, err := ctx.expr(a)
			if err != nil {
				return nil, err
			}
			exts = append(exts, ext)
		}
		if tn, single := x.target.(*nameExpr); single && len(exts) > 1 {
			// One target names the tuple of loop variables.
			alias = &gridAlias{name: tn.name}
			for i := range exts {
				n := &nameExpr{p: names[0].p, name: fmt.Sprintf("%s_%d", names[0].name, i)}
				alias.names = append(alias.names, n)
			}
			names = alias.names
		}
		if len(exts) != len(names) {
			return nil, p.errorf(x.p, "T.grid has %d extents but %d loop variables", len(exts), len(names))
		}
		for i, ext := range exts {
			loops = append(loops, loop{v: ir.NewPrimVar(names[i].name, ext.DType()), min: zero(ext.DType()), ext: ext})
		}
	} else {
		kind := ir.ForSerial
		switch {
		case k == "" && fnName == "range":
		case k == "tir" && name == "serial":
		case k == "tir" && name == "parallel":
			kind = ir.ForParallel
		case k == "tir" && name == "vectorized":
			kind = ir.ForVectorized
		case k == "tir" && name == "unroll":
			kind = ir.ForUnrolled
		case k == "tir" && name == "thread_binding":
			kind = ir.ForThreadBinding
		default:
			return nil, p.errorf(c.p, "unsupported loop iterator %s; expected range(...), T.grid(...), T.serial(...), ...", describeFor(c.fn))
		}
		if len(names) != 1 {
			return nil, p.errorf(x.target.pos(), "this loop binds one variable")
		}
		a, err := p.args(c, fnName, "start", "stop", "annotations", "thread", "step")
		if err != nil {
			return nil, err
		}
		if a["start"] == nil {
			return nil, p.errorf(c.p, "%s needs an extent", fnName)
		}
		if s := a["step"]; s != nil {
			return nil, p.errorf(s.pos(), "loop steps are not supported")
		}
		l := loop{kind: kind}
		if a["stop"] == nil {
			ext, err := ctx.expr(a["start"])
			if err != nil {
				return nil, err
			}
			l.min, l.ext = zero(ext.DType()), ext
		} else {
			lo, err := ctx.conv(a["start"])
			if err != nil {
				return nil, err
			}
			hi, err := ctx.conv(a["stop"])
			if err != nil {
				return nil, err
			}
			lo, hi = ctx.unify(lo, hi)
			l.min, l.ext = lo.e, simplifyInt(&ir.Binary{Op: ir.OpSub, A: hi.e, B: lo.e})
		}
		if th := a["thread"]; th != nil {
			s, ok := th.(*strLit)
			if !ok {
				return nil, p.errorf(th.pos(), "thread must be a string")
			}
			l.tag = s.v
		}
		if kind == ir.ForThreadBinding && l.tag == "" {
			return nil, p.errorf(c.p, "T.thread_binding needs thread=")
		}
		if an := a["annotations"]; an != nil {
			if _, none := an.(*noneLit); !none {
				if l.ann, err = p.attrDict(an, true); err != nil {
					return nil, err
				}
			}
		}
		l.v = ir.NewPrimVar(names[0].name, l.ext.DType())
		loops = append(loops, l)
	}
	t.push()
	for _, l := range loops {
		t.define(l.v.Name, l.v)
		t.loopDom[l.v] = ir.Range{Min: l.min, Extent: l.ext}
	}
	if alias != nil {
		t.define(alias.name, alias)
	}
	body, err := t.stmts(x.body, nil)
	t.pop()
	if err != nil {
		return nil, err
	}
	for i := len(loops) - 1; i >= 0; i-- {
		l := loops[i]
		body = &ir.For{Var: l.v, Min: l.min, Extent: l.ext, Kind: l.kind, Body: body, ThreadTag: l.tag, Annotations: l.ann, Loc: x.p}
	}
	return body, nil
}

func (t *tenv) with(x *withStmt, blk *ir.Block) (ir.Stmt, error) {
	p := t.p
	if len(x.items) != 1 {
		return nil, p.errorf(x.p, "with statements in TIR take one item")
	}
	c, ok := x.items[0].x.(*callExpr)
	k, name := "", ""
	if ok {
		k, name = p.ns(c.fn)
	}
	if k != "tir" {
		return nil, p.errorf(x.p, "unsupported with statement in a PrimFunc; expected T.block/T.sblock or T.init")
	}
	switch name {
	case "block", "sblock":
		if x.items[0].as != nil {
			return nil, p.errorf(x.p, "T.%s does not bind a name", name)
		}
		a, err := p.args(c, "T."+name, "name_hint", "no_realize")
		if err != nil {
			return nil, err
		}
		b := &ir.Block{Loc: x.p}
		if nh := a["name_hint"]; nh != nil {
			s, ok := nh.(*strLit)
			if !ok {
				return nil, p.errorf(nh.pos(), "the block name must be a string")
			}
			b.Name = s.v
		}
		body, err := t.scopedStmts(x.body, b)
		if err != nil {
			return nil, err
		}
		b.Body = body
		return b, nil
	case "init":
		if blk == nil {
			return nil, p.errorf(x.p, "T.init is only allowed inside a block")
		}
		if len(c.args)+len(c.kw) != 0 {
			return nil, p.errorf(c.p, "T.init takes no arguments")
		}
		if blk.Init != nil {
			return nil, p.errorf(x.p, "duplicate T.init in block %q", blk.Name)
		}
		init, err := t.scopedStmts(x.body, nil)
		if err != nil {
			return nil, err
		}
		blk.Init = init
		return nil, nil
	}
	return nil, p.errorf(x.p, "unsupported with statement T.%s in a PrimFunc", name)
}

// splitSymDecls rewrites "n, m = T.int64(), T.int64()" into one statement
// per name, so the prelude sees the declarations one at a time. Only
// zero-argument T.* calls are split: they cannot refer to the names being
// bound, so the order of the parts does not matter.
func (p *parser) splitSymDecls(body []stmt) []stmt {
	out := make([]stmt, 0, len(body))
	for _, s := range body {
		x, ok := s.(*assignStmt)
		if !ok || x.ann != nil {
			out = append(out, s)
			continue
		}
		t, ok1 := x.target.(*tupleExpr)
		v, ok2 := x.value.(*tupleExpr)
		if !ok1 || !ok2 || len(t.elts) != len(v.elts) || !p.allSymDecls(v.elts) {
			out = append(out, s)
			continue
		}
		for i := range t.elts {
			out = append(out, &assignStmt{p: x.p, target: t.elts[i], value: v.elts[i]})
		}
	}
	return out
}
