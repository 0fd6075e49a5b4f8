package tirgo

import (
	"fmt"
	"sort"

	"github.com/dave/jennifer/jen"

	"github.com/relaxgo/relaxgo/ir"
)

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
