package ir

import (
	"errors"
	"fmt"
)

// WellFormed checks the module's structure and returns every problem found,
// joined with errors.Join (nil when well formed). Each problem reads
// "file:line:col: message" when its location is known, else
// "function f: message". Checked: variables used before they are bound or
// out of scope (dataflow variables used outside their dataflow block),
// variables bound twice, references to functions missing from the module and
// calls of unknown ops, symbolic variables used before a parameter or a
// match_cast defines them, If conditions that are not bool/int scalars
// (when struct info is known), Relax functions without a body or result,
// and PrimFunc handle parameters without a buffer.
//
// The TVMScript front end resolves R.output itself: an output of a name
// that does not exist is its error; in the IR a dataflow variable used after
// its block (a missing R.output) is reported here.
func WellFormed(m *Module) error {
	w := &wfChecker{m: m, bound: map[*Var]bool{}}
	for _, name := range m.Order {
		switch f := m.Funcs[name].(type) {
		case *Function:
			w.function(f, nil)
		case *PrimFunc:
			w.primFunc(f)
		case nil:
			w.errorf(Span{}, nil, "module lists function %s but does not define it", name)
		}
	}
	return errors.Join(w.errs...)
}

const maxWFErrors = 100

type wfChecker struct {
	m     *Module
	errs  []error
	bound map[*Var]bool // every variable bound anywhere (for duplicate detection)
}

// wfScope is the set of variables and symbolic variables visible at a point.
type wfScope struct {
	vars map[*Var]bool
	syms map[*PrimVar]bool
	// dataflow is true inside a dataflow block.
	dataflow bool
}

func (s *wfScope) clone() *wfScope {
	c := &wfScope{vars: map[*Var]bool{}, syms: map[*PrimVar]bool{}, dataflow: s.dataflow}
	for k := range s.vars {
		c.vars[k] = true
	}
	for k := range s.syms {
		c.syms[k] = true
	}
	return c
}

func (w *wfChecker) errorf(sp Span, fn *Function, format string, a ...any) {
	if len(w.errs) >= maxWFErrors {
		return
	}
	w.errs = append(w.errs, errAt(sp, fn, format, a...))
}

func (w *wfChecker) function(f *Function, outer *wfScope) {
	sc := &wfScope{vars: map[*Var]bool{}, syms: map[*PrimVar]bool{}}
	if outer != nil {
		sc = outer.clone()
		sc.dataflow = false
	}
	for _, p := range f.Params {
		if w.bound[p] {
			w.errorf(f.Loc, f, "parameter %s is bound more than once", p.Name)
		}
		w.bound[p] = true
		sc.vars[p] = true
		if p.SInfo() == nil {
			w.errorf(f.Loc, f, "parameter %s has no type annotation", p.Name)
		}
		for _, v := range CollectSymVars(p.SInfo()) {
			sc.syms[v] = true
		}
	}
	if f.Body == nil || f.Body.Body == nil {
		w.errorf(f.Loc, f, "function %s has no return value", f.Name)
		return
	}
	if f.Ret != nil {
		// A return type may only mention symbolic variables of the parameters.
		w.symsDefined(f.Ret, sc, f.Loc, f, "return type")
	}
	w.seq(f.Body, sc, f)
}

func (w *wfChecker) symsDefined(s StructInfo, sc *wfScope, sp Span, fn *Function, what string) {
	for _, v := range CollectSymVars(s) {
		if !sc.syms[v] {
			w.errorf(sp, fn, "symbolic variable %s in %s %s is used before it is defined (by a parameter or a match_cast)", v.Name, what, SInfoString(s))
		}
	}
}

func (w *wfChecker) seq(s *SeqExpr, outer *wfScope, fn *Function) {
	sc := outer.clone()
	for _, blk := range s.Blocks {
		sc.dataflow = blk.Dataflow
		var dfVars []*Var
		for _, b := range blk.Bindings {
			v := b.BoundVar()
			loc := b.Pos()
			if v == nil {
				w.errorf(loc, fn, "binding without a variable")
				continue
			}
			w.expr(b.BoundValue(), sc, fn, loc)
			if mc, ok := b.(*MatchCast); ok {
				for _, sv := range CollectSymVars(mc.Info) {
					sc.syms[sv] = true
				}
			} else if v.SInfo() != nil {
				w.symsDefined(v.SInfo(), sc, loc, fn, "the type of "+v.Name)
			}
			if w.bound[v] {
				w.errorf(loc, fn, "variable %s is bound more than once", v.Name)
			}
			w.bound[v] = true
			if v.Dataflow {
				if !blk.Dataflow {
					w.errorf(loc, fn, "dataflow variable %s is bound outside a dataflow block", v.Name)
				}
				dfVars = append(dfVars, v)
			}
			sc.vars[v] = true
		}
		for _, v := range dfVars {
			delete(sc.vars, v)
		}
		sc.dataflow = false
	}
	if s.Body == nil {
		w.errorf(s.Loc, fn, "block has no result value")
		return
	}
	w.expr(s.Body, sc, fn, s.Loc)
}

// expr checks the uses in e; loc is the enclosing binding's location, used
// when e has none.
func (w *wfChecker) expr(e Expr, sc *wfScope, fn *Function, loc Span) {
	at := func(x Expr) Span {
		if x != nil && x.Pos().Line > 0 {
			return x.Pos()
		}
		return loc
	}
	VisitExpr(e, func(x Expr) bool {
		switch y := x.(type) {
		case *Var:
			if !sc.vars[y] {
				if y.Dataflow && w.bound[y] {
					w.errorf(at(y), fn, "dataflow variable %s is used outside its dataflow block (missing R.output?)", y.Name)
				} else {
					w.errorf(at(y), fn, "undefined variable %s (used before it is bound or out of scope)", y.Name)
				}
			}
		case *GlobalVar:
			if _, ok := w.m.Funcs[y.Name]; !ok {
				w.errorf(at(y), fn, "call to unknown function %s (not in the module)", y.Name)
			}
		case *Call:
			if op, ok := y.Callee.(*Op); ok {
				if _, known := LookupOp(op.Name); !known {
					w.errorf(at(y), fn, "unknown op %q", op.Name)
				}
			}
			for _, s := range y.SInfoArgs {
				w.symsDefined(s, sc, at(y), fn, "the output type")
			}
		case *ShapeExpr:
			for _, d := range y.Values {
				w.primDefined(d, sc, at(y), fn)
			}
		case *PrimValue:
			w.primDefined(y.Value, sc, at(y), fn)
		case *If:
			w.expr(y.Cond, sc, fn, at(y))
			if cs := y.Cond.SInfo(); cs != nil && !isCondSInfo(cs) {
				w.errorf(at(y), fn, "if condition must be a bool or int scalar, got %s", SInfoString(cs))
			}
			for _, br := range []*SeqExpr{y.Then, y.Else} {
				if br == nil {
					w.errorf(at(y), fn, "if without both branches")
					continue
				}
				inner := sc.clone()
				inner.dataflow = false
				w.seq(br, inner, fn)
			}
			return false
		case *SeqExpr:
			w.seq(y, sc, fn)
			return false
		case *Function:
			w.function(y, sc)
			return false
		}
		return true
	})
}

func (w *wfChecker) primDefined(e PrimExpr, sc *wfScope, sp Span, fn *Function) {
	for _, v := range FreeVars(e) {
		if !sc.syms[v] {
			w.errorf(sp, fn, "symbolic variable %s is used before it is defined (by a parameter or a match_cast)", v.Name)
		}
	}
}

func (w *wfChecker) primFunc(f *PrimFunc) {
	// A handle parameter without a buffer is allowed (TVM prints stubs
	// `def f(A: T.handle): T.evaluate(0)`); the TIR compiler refuses a body
	// that reads one.
	for p, b := range f.BufferMap {
		if b == nil {
			w.errs = append(w.errs, errAt(f.Loc, nil, "prim_func %s: parameter %s maps to a nil buffer", f.Name, p.Name))
		}
	}
	if f.Body == nil {
		w.errs = append(w.errs, fmt.Errorf("prim_func %s has no body", f.Name))
	}
}
