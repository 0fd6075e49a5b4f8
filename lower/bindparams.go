package lower

import (
	"fmt"
	"sort"
	"strings"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// BindParams returns a pass that turns weights into constants: in every Relax
// function, each parameter after the first num_input ones whose name is a key
// of params is replaced by a Constant holding that tensor. The tensor's dtype
// and shape must match the parameter's annotation. Parameters without a
// weight stay parameters. Names in params that match no parameter are an
// error, so a misspelt weight file is not silently ignored, and so are
// weight parameters (after num_input, in functions with a num_input
// attribute) that params lacks, unless allowed with BindParamsAllowMissing.
func BindParams(params map[string]*runtime.Tensor) Pass {
	return bindParams(params, false)
}

// BindParamsAllowMissing is BindParams leaving weight parameters that params
// lacks as parameters (run-time arguments) on purpose.
func BindParamsAllowMissing(params map[string]*runtime.Tensor) Pass {
	return bindParams(params, true)
}

func bindParams(params map[string]*runtime.Tensor, allowMissing bool) Pass {
	return Pass{Name: "bind-params", Run: func(m *ir.Module) (*ir.Module, error) {
		used := map[string]bool{}
		var missing []string
		out, err := mapRelaxFuncs(m, func(fn *ir.Function) (*ir.Function, error) {
			if _, ok := fn.Attrs.Get("num_input"); ok {
				for i, p := range fn.Params {
					if _, ok := params[p.Name]; i >= fn.NumInput() && !ok {
						missing = append(missing, p.Name)
					}
				}
			}
			return bindFunc(fn, params, used)
		})
		if err != nil {
			return nil, err
		}
		if err := checkBoundCallees(m, out); err != nil {
			return nil, err
		}
		if len(missing) > 0 && !allowMissing && len(params) > 0 {
			sort.Strings(missing)
			return nil, fmt.Errorf("weights missing from the params file: %s (pass --allow-missing-params to keep them as run-time arguments)", strings.Join(missing, ", "))
		}
		var unused []string
		for name := range params {
			if !used[name] {
				unused = append(unused, name)
			}
		}
		if len(unused) > 0 {
			sort.Strings(unused)
			return nil, fmt.Errorf("weights match no function parameter: %s", strings.Join(unused, ", "))
		}
		return out, nil
	}}
}

func bindFunc(fn *ir.Function, params map[string]*runtime.Tensor, used map[string]bool) (*ir.Function, error) {
	if len(params) == 0 {
		return fn, nil
	}
	sub := map[*ir.Var]ir.Expr{}
	var keep []*ir.Var
	for i, p := range fn.Params {
		t, ok := params[p.Name]
		if i < fn.NumInput() || !ok {
			keep = append(keep, p)
			continue
		}
		if err := checkWeight(p, t); err != nil {
			return nil, err
		}
		used[p.Name] = true
		sub[p] = constExpr(t, p.Loc)
	}
	if len(sub) == 0 {
		return fn, nil
	}
	nf := *fn
	nf.Params = keep
	nf.Body = substSeq(fn.Body, sub)
	if _, ok := nf.Attrs.Get("num_input"); ok {
		nf.Attrs = nf.Attrs.Set("num_input", int64(fn.NumInput()))
	}
	return &nf, nil
}

func checkWeight(p *ir.Var, t *runtime.Tensor) error {
	ts, ok := p.Info.(*ir.TensorSInfo)
	if !ok {
		return posErr(p.Loc, "weight %s: parameter is %s, not a tensor", p.Name, ir.SInfoString(p.Info))
	}
	if !ts.DType.IsVoid() && ts.DType != t.DType() {
		return posErr(p.Loc, "weight %s: dtype %s does not match the parameter's %s", p.Name, t.DType(), ts.DType)
	}
	if ts.NDim >= 0 && ts.NDim != t.NDim() {
		return posErr(p.Loc, "weight %s: shape %s does not match the parameter's %s", p.Name, runtime.Shape(t.Shape()), ir.SInfoString(ts))
	}
	for i, d := range ts.Shape {
		v, ok := ir.AsInt(ir.Simplify(d))
		if !ok {
			return posErr(p.Loc, "weight %s: parameter dimension %d is symbolic (%s); bind weights only to parameters of static shape", p.Name, i, ir.ExprString(d))
		}
		if v != t.Shape()[i] {
			return posErr(p.Loc, "weight %s: shape %s does not match the parameter's %s", p.Name, runtime.Shape(t.Shape()), ir.SInfoString(ts))
		}
	}
	return nil
}

// substExpr replaces variables by expressions, rebuilding only what changes.
func substExpr(e ir.Expr, sub map[*ir.Var]ir.Expr) ir.Expr {
	switch x := e.(type) {
	case *ir.Var:
		if r, ok := sub[x]; ok {
			return r
		}
		return x
	case *ir.Tuple:
		fields, changed := substList(x.Fields, sub)
		return withFields(x, fields, changed)
	case *ir.TupleGetItem:
		return withTuple(x, substExpr(x.Tuple, sub))
	case *ir.Call:
		callee := substExpr(x.Callee, sub)
		args, changed := substList(x.Args, sub)
		if !changed && callee == x.Callee {
			return x
		}
		n := *x
		n.Callee, n.Args = callee, args
		return &n
	case *ir.If:
		n := *x
		n.Cond = substExpr(x.Cond, sub)
		n.Then = substSeq(x.Then, sub)
		n.Else = substSeq(x.Else, sub)
		return &n
	case *ir.SeqExpr:
		return substSeq(x, sub)
	}
	return e
}

func substList(es []ir.Expr, sub map[*ir.Var]ir.Expr) ([]ir.Expr, bool) {
	out := make([]ir.Expr, len(es))
	changed := false
	for i, e := range es {
		out[i] = substExpr(e, sub)
		changed = changed || out[i] != e
	}
	return out, changed
}

func substSeq(s *ir.SeqExpr, sub map[*ir.Var]ir.Expr) *ir.SeqExpr {
	ns := &ir.SeqExpr{ExprBase: s.ExprBase}
	for _, blk := range s.Blocks {
		nb := &ir.BindingBlock{Dataflow: blk.Dataflow, Loc: blk.Loc}
		for _, b := range blk.Bindings {
			switch x := b.(type) {
			case *ir.VarBinding:
				nb.Bindings = append(nb.Bindings, &ir.VarBinding{Var: x.Var, Value: substExpr(x.Value, sub), Loc: x.Loc})
			case *ir.MatchCast:
				nb.Bindings = append(nb.Bindings, &ir.MatchCast{Var: x.Var, Value: substExpr(x.Value, sub), Info: x.Info, Loc: x.Loc})
			}
		}
		ns.Blocks = append(ns.Blocks, nb)
	}
	ns.Body = substExpr(s.Body, sub)
	return ns
}

// checkBoundCallees refuses a binding that removed parameters of a function
// another function calls: as TVM's BindParams, binding is per function, by
// that function's parameter names, so the callers' call sites would no
// longer match the callee's signature.
func checkBoundCallees(before, after *ir.Module) error {
	changed := map[string]bool{}
	for name, f := range before.Funcs {
		fn, ok := f.(*ir.Function)
		if !ok {
			continue
		}
		if nf, ok := after.Funcs[name].(*ir.Function); ok && len(nf.Params) != len(fn.Params) {
			changed[name] = true
		}
	}
	if len(changed) == 0 {
		return nil
	}
	for _, name := range before.Order {
		fn, ok := before.Funcs[name].(*ir.Function)
		if !ok {
			continue
		}
		var err error
		ir.VisitExpr(fn.Body, func(e ir.Expr) bool {
			if c, ok := e.(*ir.Call); ok && err == nil {
				if gv, ok := c.Callee.(*ir.GlobalVar); ok && changed[gv.Name] {
					err = fmt.Errorf("weights bind to parameters of %s, which %s calls: binding (per function, by parameter name, as TVM's BindParams) would change %s's signature under its call sites; give %s's weight parameters other names than the weights, or drop its num_input so they are the caller's arguments", gv.Name, name, gv.Name, gv.Name)
				}
			}
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
