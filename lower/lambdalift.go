package lower

import (
	"fmt"

	"github.com/relaxgo/relaxgo/ir"
)

// LambdaLift moves functions defined inside Relax functions to module level,
// as TVM's LambdaLift does. A nested function that uses no variables of its
// enclosing function becomes a private global function and its calls call
// it directly. One that captures variables gets them as extra trailing
// parameters; its binding becomes R.make_closure(f, (captures...)) and calls
// through the variable become R.invoke_closure.
func LambdaLift(m *ir.Module) (*ir.Module, error) {
	out := m.Clone()
	for _, name := range m.Order {
		fn, ok := m.Funcs[name].(*ir.Function)
		if !ok {
			continue
		}
		lifted := map[*ir.Var]*liftedFunc{}
		nf, err := rewriteFunction(fn, func(b ir.Binding, emit func(ir.Binding)) error {
			vb, ok := b.(*ir.VarBinding)
			if !ok {
				emit(b)
				return nil
			}
			if inner, ok := vb.Value.(*ir.Function); ok {
				lf, err := liftFunction(out, fn.Name, vb.Var, inner)
				if err != nil {
					return err
				}
				lifted[vb.Var] = lf
				if len(lf.captures) > 0 {
					caps := make([]ir.Expr, len(lf.captures))
					for i, c := range lf.captures {
						caps[i] = c
					}
					c := opCall("relax.make_closure", &ir.FuncSInfo{Params: nil, Ret: inner.Ret, Opaque: true}, vb.Loc, lf.gv, tupleExpr(caps))
					emit(&ir.VarBinding{Var: vb.Var, Value: c, Loc: vb.Loc})
				}
				return nil
			}
			if c, ok := vb.Value.(*ir.Call); ok {
				if v, ok := c.Callee.(*ir.Var); ok {
					if lf := lifted[v]; lf != nil {
						var nc *ir.Call
						if len(lf.captures) == 0 {
							nc = &ir.Call{Callee: lf.gv, Args: c.Args}
						} else {
							nc = opCall("relax.invoke_closure", c.SInfo(), c.Loc, v, tupleExpr(c.Args))
							nc.SInfoArgs = []ir.StructInfo{c.SInfo()}
						}
						nc.Info, nc.Loc = c.Info, c.Loc
						emit(&ir.VarBinding{Var: vb.Var, Value: nc, Loc: vb.Loc})
						return nil
					}
				}
			}
			emit(b)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("function %s: %w", name, err)
		}
		out.Funcs[name] = nf
	}
	return out, nil
}

type liftedFunc struct {
	gv       *ir.GlobalVar
	captures []*ir.Var
}

// liftFunction adds inner (bound to v inside function outer) to the module.
func liftFunction(m *ir.Module, outer string, v *ir.Var, inner *ir.Function) (*liftedFunc, error) {
	bound := map[*ir.Var]bool{}
	for _, p := range inner.Params {
		bound[p] = true
	}
	forEachBinding(inner.Body, func(b ir.Binding) { bound[b.BoundVar()] = true })
	var captures []*ir.Var
	seen := map[*ir.Var]bool{}
	var err error
	visitVars(inner.Body, func(x *ir.Var) {
		if x == v {
			err = posErr(inner.Loc, "nested function %s calls itself; recursive local functions are not supported (define it at module level)", v.Name)
		}
		if !bound[x] && !seen[x] {
			seen[x] = true
			captures = append(captures, x)
		}
	})
	if err != nil {
		return nil, err
	}
	name := outer + "_" + v.Name
	for i := 1; m.Funcs[name] != nil; i++ {
		name = fmt.Sprintf("%s_%s%d", outer, v.Name, i)
	}
	lf := *inner
	lf.Name = name
	lf.Private = true
	sub := map[*ir.Var]ir.Expr{}
	for _, c := range captures {
		p := newVar(c.Name, c.Info, c.Loc)
		lf.Params = append(append([]*ir.Var{}, lf.Params...), p)
		sub[c] = p
	}
	if len(sub) > 0 {
		lf.Body = substSeq(inner.Body, sub)
	}
	m.Replace(name, &lf)
	gv := &ir.GlobalVar{Name: name}
	gv.Info = &ir.FuncSInfo{Ret: inner.Ret, Opaque: true}
	return &liftedFunc{gv: gv, captures: captures}, nil
}
