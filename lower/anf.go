package lower

import (
	"github.com/relaxgo/relaxgo/ir"
)

// ToANF lifts nested calls into bindings of their own (A-normal form, as
// TVM's block builder normalizes), so that every call's arguments are
// variables, constants, shape/prim/string values or tuples of those:
// `y = R.subtract(s, R.expand_dims(m, axis=[1]))` becomes
// `lv = R.expand_dims(m, axis=[1]); y = R.subtract(s, lv)`. Passes after it
// (legalization, code generation) see one call per binding.
func ToANF(m *ir.Module) (*ir.Module, error) {
	return mapRelaxFuncs(m, func(fn *ir.Function) (*ir.Function, error) {
		nm := newNamer(fn)
		nf, err := rewriteFunction(fn, func(b ir.Binding, emit func(ir.Binding)) error {
			switch x := b.(type) {
			case *ir.VarBinding:
				v := anfValue(x.Value, nm, emit)
				if v == x.Value {
					emit(b)
				} else {
					emit(&ir.VarBinding{Var: x.Var, Value: v, Loc: x.Loc})
				}
			case *ir.MatchCast:
				v := anfLeaf(x.Value, nm, emit)
				if v == x.Value {
					emit(b)
				} else {
					emit(&ir.MatchCast{Var: x.Var, Value: v, Info: x.Info, Loc: x.Loc})
				}
			default:
				emit(b)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		// The result expression may be a call too: bind it at the end.
		var tail []ir.Binding
		body := anfValue(nf.Body.Body, nm, func(b ir.Binding) { tail = append(tail, b) })
		if _, isLeaf := body.(*ir.Var); !isLeaf {
			if _, isCall := body.(*ir.Call); isCall {
				body = anfLeaf(body, nm, func(b ir.Binding) { tail = append(tail, b) })
			}
		}
		if len(tail) > 0 || body != nf.Body.Body {
			nb := *nf.Body
			nb.Body = body
			if len(tail) > 0 {
				nb.Blocks = append(append([]*ir.BindingBlock{}, nb.Blocks...), &ir.BindingBlock{Bindings: tail})
			}
			nf.Body = &nb
		}
		return nf, nil
	})
}

// anfValue lifts the nested calls out of a binding's value, keeping the
// value itself (a call stays a call).
func anfValue(e ir.Expr, nm *namer, emit func(ir.Binding)) ir.Expr {
	switch x := e.(type) {
	case *ir.Call:
		args, changed := anfList(x.Args, nm, emit)
		if !changed {
			return x
		}
		c := *x
		c.Args = args
		return &c
	case *ir.Tuple:
		fields, changed := anfList(x.Fields, nm, emit)
		return withFields(x, fields, changed)
	case *ir.TupleGetItem:
		return withTuple(x, anfLeaf(x.Tuple, nm, emit))
	case *ir.If:
		c := anfLeaf(x.Cond, nm, emit)
		if c == x.Cond {
			return x
		}
		n := *x
		n.Cond = c
		return &n
	}
	return e
}

func anfList(es []ir.Expr, nm *namer, emit func(ir.Binding)) ([]ir.Expr, bool) {
	out := make([]ir.Expr, len(es))
	changed := false
	for i, e := range es {
		out[i] = anfLeaf(e, nm, emit)
		changed = changed || out[i] != e
	}
	return out, changed
}

// anfLeaf turns an argument into a leaf: a nested call (or If) is bound to a
// fresh variable; tuples keep their shape with leaf fields.
func anfLeaf(e ir.Expr, nm *namer, emit func(ir.Binding)) ir.Expr {
	switch x := e.(type) {
	case *ir.Call, *ir.If, *ir.TupleGetItem:
		if c, ok := x.(*ir.Call); ok && (c.OpName() == "relax.null_value") {
			return x
		}
		v := anfValue(x, nm, emit)
		nv := newVar(nm.fresh("lv"), e.SInfo(), e.Pos())
		emit(&ir.VarBinding{Var: nv, Value: v, Loc: e.Pos()})
		return nv
	case *ir.Tuple:
		return anfValue(x, nm, emit)
	}
	return e
}
