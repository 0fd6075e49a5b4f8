package ir

import (
	"fmt"
	"sort"
	"strings"

	"github.com/relaxgo/relaxgo/runtime"
)

// Simplify puts an integer expression into a canonical form: sums of products
// with integer coefficients are collected (so n*2 and 2*n, or (n+1)-1 and n,
// come out identical), constants are folded, and floordiv/floormod/min/max of
// constants or of exactly divisible polynomials are evaluated. Expressions it
// does not understand are kept, with their operands simplified.
func Simplify(e PrimExpr) PrimExpr {
	if e == nil {
		return nil
	}
	t := e.DType()
	if !(t.IsInt() || t.IsUInt()) || t.Lanes > 1 {
		return simplifyChildren(e)
	}
	p, ok := toPoly(e)
	if !ok {
		return simplifyChildren(e)
	}
	return p.expr(t)
}

// ProveEqual reports whether a and b are provably equal integer expressions.
func ProveEqual(a, b PrimExpr) bool {
	if a == b {
		return true
	}
	if !a.DType().IsFloat() && !b.DType().IsFloat() {
		pa, oka := toPoly(a)
		pb, okb := toPoly(b)
		if oka && okb {
			return pa.sub(pb).isZero()
		}
	}
	return ExprString(Simplify(a)) == ExprString(Simplify(b))
}

// simplifyChildren simplifies the integer sub-expressions of a non-polynomial expression.
func simplifyChildren(e PrimExpr) PrimExpr {
	switch x := e.(type) {
	case *Binary:
		a, b := Simplify(x.A), Simplify(x.B)
		if ia, ok := a.(*IntImm); ok {
			if ib, ok := b.(*IntImm); ok {
				if v, err := evalIntBinary(x.Op, ia.Value, ib.Value); err == nil {
					return &IntImm{Value: v, Type: x.DType()}
				}
			}
		}
		if a == x.A && b == x.B {
			return x
		}
		return &Binary{x.Op, a, b}
	case *Cast:
		v := Simplify(x.Value)
		if iv, ok := v.(*IntImm); ok && !x.Type.IsFloat() && !x.Type.IsBool() {
			return &IntImm{Value: iv.Value, Type: x.Type}
		}
		if v.DType() == x.Type {
			return v
		}
		if v == x.Value {
			return x
		}
		return &Cast{x.Type, v}
	case *Select:
		c := Simplify(x.Cond)
		if ic, ok := c.(*IntImm); ok {
			if ic.Value != 0 {
				return Simplify(x.True)
			}
			return Simplify(x.False)
		}
		return &Select{c, Simplify(x.True), Simplify(x.False)}
	case *Not:
		a := Simplify(x.A)
		if ia, ok := a.(*IntImm); ok {
			return &IntImm{Value: b2i(ia.Value == 0), Type: runtime.Bool}
		}
		return &Not{a}
	}
	return e
}

// A monomial is a product of atoms (kept sorted by key) with a coefficient.
type monomial struct {
	key   string
	atoms []PrimExpr
	coef  int64
}

// poly is a sum of monomials keyed by their atom product; the constant term has key "".
type poly map[string]*monomial

func constPoly(c int64) poly {
	if c == 0 {
		return poly{}
	}
	return poly{"": {coef: c}}
}

func atomKey(e PrimExpr) string {
	if v, ok := e.(*PrimVar); ok {
		return "v:" + v.Name + fmt.Sprintf("@%p", v)
	}
	return "e:" + ExprString(e)
}

func atomPoly(e PrimExpr) poly {
	k := atomKey(e)
	return poly{k: {key: k, atoms: []PrimExpr{e}, coef: 1}}
}

func (p poly) isZero() bool { return len(p) == 0 }

func (p poly) constant() (int64, bool) {
	switch len(p) {
	case 0:
		return 0, true
	case 1:
		if m, ok := p[""]; ok {
			return m.coef, true
		}
	}
	return 0, false
}

func (p poly) add(q poly) poly {
	out := poly{}
	for k, m := range p {
		out[k] = &monomial{m.key, m.atoms, m.coef}
	}
	for k, m := range q {
		if o, ok := out[k]; ok {
			o.coef += m.coef
			if o.coef == 0 {
				delete(out, k)
			}
		} else {
			out[k] = &monomial{m.key, m.atoms, m.coef}
		}
	}
	return out
}

func (p poly) scale(c int64) poly {
	out := poly{}
	if c == 0 {
		return out
	}
	for k, m := range p {
		out[k] = &monomial{m.key, m.atoms, m.coef * c}
	}
	return out
}

func (p poly) sub(q poly) poly { return p.add(q.scale(-1)) }

func (p poly) mul(q poly) poly {
	out := poly{}
	for _, a := range p {
		for _, b := range q {
			atoms := append(append([]PrimExpr{}, a.atoms...), b.atoms...)
			sort.SliceStable(atoms, func(i, j int) bool { return atomKey(atoms[i]) < atomKey(atoms[j]) })
			keys := make([]string, len(atoms))
			for i, at := range atoms {
				keys[i] = atomKey(at)
			}
			k := strings.Join(keys, "*")
			out = out.add(poly{k: {key: k, atoms: atoms, coef: a.coef * b.coef}})
		}
	}
	return out
}

// divisibleBy reports whether every coefficient of p is a multiple of c.
func (p poly) divisibleBy(c int64) bool {
	for _, m := range p {
		if m.coef%c != 0 {
			return false
		}
	}
	return true
}

func toPoly(e PrimExpr) (poly, bool) {
	switch x := e.(type) {
	case *IntImm:
		if x.Type.IsBool() {
			return nil, false
		}
		return constPoly(x.Value), true
	case *PrimVar:
		return atomPoly(x), true
	case *Cast:
		if x.Type.IsFloat() || x.Value.DType().IsFloat() || x.Type.IsBool() {
			return nil, false
		}
		return toPoly(x.Value)
	case *Binary:
		switch x.Op {
		case OpAdd, OpSub, OpMul, OpFloorDiv, OpFloorMod, OpDiv, OpMod, OpMin, OpMax:
		default:
			return nil, false
		}
		a, ok := toPoly(x.A)
		if !ok {
			return nil, false
		}
		b, ok := toPoly(x.B)
		if !ok {
			return nil, false
		}
		switch x.Op {
		case OpAdd:
			return a.add(b), true
		case OpSub:
			return a.sub(b), true
		case OpMul:
			return a.mul(b), true
		}
		ca, aconst := a.constant()
		cb, bconst := b.constant()
		if aconst && bconst {
			v, err := evalIntBinary(x.Op, ca, cb)
			if err != nil {
				return nil, false
			}
			return constPoly(v), true
		}
		if bconst && cb != 0 {
			switch x.Op {
			case OpFloorDiv, OpDiv:
				if cb == 1 {
					return a, true
				}
				if a.divisibleBy(cb) && (x.Op == OpFloorDiv || cb > 0) {
					return a.scale(1).divExact(cb), true
				}
			case OpFloorMod, OpMod:
				if cb == 1 || cb == -1 {
					return poly{}, true
				}
				if x.Op == OpFloorMod && a.divisibleBy(cb) {
					return poly{}, true
				}
			}
		}
		if (x.Op == OpMin || x.Op == OpMax) && a.sub(b).isZero() {
			return a, true
		}
		t := x.DType()
		return atomPoly(&Binary{x.Op, a.expr(t), b.expr(t)}), true
	}
	return nil, false
}

func (p poly) divExact(c int64) poly {
	for _, m := range p {
		m.coef /= c
	}
	return p
}

// expr rebuilds an expression: higher-degree monomials first, then by key,
// the constant last; coefficients multiply on the right (n * 2).
func (p poly) expr(t DataType) PrimExpr {
	ms := make([]*monomial, 0, len(p))
	for _, m := range p {
		ms = append(ms, m)
	}
	sort.Slice(ms, func(i, j int) bool {
		a, b := ms[i], ms[j]
		if a.key == "" || b.key == "" {
			return b.key == ""
		}
		if len(a.atoms) != len(b.atoms) {
			return len(a.atoms) > len(b.atoms)
		}
		return a.key < b.key
	})
	// Start from a positive term when there is one, so 1 - n prints as such.
	for i, m := range ms {
		if m.coef > 0 {
			ms = append(append([]*monomial{m}, ms[:i]...), ms[i+1:]...)
			break
		}
	}
	var out PrimExpr
	for _, m := range ms {
		c := m.coef
		neg := out != nil && c < 0
		if neg {
			c = -c
		}
		var term PrimExpr
		for _, a := range m.atoms {
			if term == nil {
				term = a
			} else {
				term = &Binary{OpMul, term, a}
			}
		}
		switch {
		case term == nil:
			term = &IntImm{Value: c, Type: t}
		case c != 1:
			term = &Binary{OpMul, term, &IntImm{Value: c, Type: t}}
		}
		switch {
		case out == nil:
			out = term
		case neg:
			out = &Binary{OpSub, out, term}
		default:
			out = &Binary{OpAdd, out, term}
		}
	}
	if out == nil {
		return &IntImm{Value: 0, Type: t}
	}
	return out
}

// ExprString renders a PrimExpr in TVMScript syntax (integer literals of
// type int64 print bare; other typed literals print as T.<dtype>(v)).
func ExprString(e PrimExpr) string {
	var b strings.Builder
	writePrim(&b, e, 0)
	return b.String()
}

// precedence levels for printing
func binPrec(op BinOp) int {
	switch op {
	case OpOr:
		return 1
	case OpAnd:
		return 2
	case OpEQ, OpNE, OpLT, OpLE, OpGT, OpGE:
		return 4
	case OpAdd, OpSub:
		return 5
	default:
		return 6
	}
}

// writePrimList writes start, the expressions separated by commas, and end.
func writePrimList(b *strings.Builder, start string, es []PrimExpr, end string) {
	b.WriteString(start)
	for i, a := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		writePrim(b, a, 0)
	}
	b.WriteString(end)
}

func writePrim(b *strings.Builder, e PrimExpr, prec int) {
	switch x := e.(type) {
	case nil:
		b.WriteString("None")
	case *IntImm:
		switch {
		case x.Type.IsBool():
			if x.Value != 0 {
				b.WriteString("T.bool(True)")
			} else {
				b.WriteString("T.bool(False)")
			}
		case x.Type == runtime.Int64 || x.Type == runtime.Int32 && false:
			if x.Value < 0 && prec > 0 {
				fmt.Fprintf(b, "(%d)", x.Value)
			} else {
				fmt.Fprintf(b, "%d", x.Value)
			}
		default:
			fmt.Fprintf(b, "T.%s(%d)", x.Type, x.Value)
		}
	case *FloatImm:
		fmt.Fprintf(b, "T.%s(%s)", x.Type, FormatFloat(x.Value))
	case *PrimStr:
		fmt.Fprintf(b, "%q", x.Value)
	case *PrimVar:
		b.WriteString(x.Name)
	case *Binary:
		switch x.Op {
		case OpMin, OpMax:
			fmt.Fprintf(b, "T.%s(", x.Op)
			writePrim(b, x.A, 0)
			b.WriteString(", ")
			writePrim(b, x.B, 0)
			b.WriteString(")")
			return
		case OpDiv, OpMod:
			if !x.A.DType().IsFloat() {
				name := "truncdiv"
				if x.Op == OpMod {
					name = "truncmod"
				}
				fmt.Fprintf(b, "T.%s(", name)
				writePrim(b, x.A, 0)
				b.WriteString(", ")
				writePrim(b, x.B, 0)
				b.WriteString(")")
				return
			}
		}
		p := binPrec(x.Op)
		if p < prec {
			b.WriteByte('(')
		}
		writePrim(b, x.A, p)
		b.WriteString(" " + x.Op.String() + " ")
		writePrim(b, x.B, p+1)
		if p < prec {
			b.WriteByte(')')
		}
	case *Not:
		b.WriteString("T.Not(")
		writePrim(b, x.A, 0)
		b.WriteString(")")
	case *Cast:
		fmt.Fprintf(b, "T.Cast(%q, ", x.Type.String())
		writePrim(b, x.Value, 0)
		b.WriteString(")")
	case *Select:
		b.WriteString("T.Select(")
		writePrim(b, x.Cond, 0)
		b.WriteString(", ")
		writePrim(b, x.True, 0)
		b.WriteString(", ")
		writePrim(b, x.False, 0)
		b.WriteString(")")
	case *PrimCall:
		writePrimList(b, "T."+x.Op+"(", x.Args, ")")
	case *BufferLoad:
		writePrimList(b, x.Buffer.Name+"[", x.Indices, "]")
	case *Let:
		b.WriteString("T.let(" + x.Var.Name + ", ")
		writePrim(b, x.Value, 0)
		b.WriteString(", ")
		writePrim(b, x.Body, 0)
		b.WriteString(")")
	default:
		fmt.Fprintf(b, "<%T>", e)
	}
}
