package ir

// VisitExpr calls f on e and its sub-expressions in pre-order; when f
// returns false the children of that node are skipped. Sub-expressions are a
// Call's callee and arguments, fields of a Tuple, the tuple of a
// TupleGetItem, an If's condition and branches, the binding values and body
// of a SeqExpr and the body of a Function. Bound variables (binding targets
// and parameters) are not visited; uses of variables are.
func VisitExpr(e Expr, f func(Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	switch x := e.(type) {
	case *Call:
		VisitExpr(x.Callee, f)
		for _, a := range x.Args {
			VisitExpr(a, f)
		}
	case *Tuple:
		for _, a := range x.Fields {
			VisitExpr(a, f)
		}
	case *TupleGetItem:
		VisitExpr(x.Tuple, f)
	case *If:
		VisitExpr(x.Cond, f)
		if x.Then != nil {
			VisitExpr(x.Then, f)
		}
		if x.Else != nil {
			VisitExpr(x.Else, f)
		}
	case *SeqExpr:
		for _, b := range x.Blocks {
			for _, bd := range b.Bindings {
				VisitExpr(bd.BoundValue(), f)
			}
		}
		VisitExpr(x.Body, f)
	case *Function:
		if x.Body != nil {
			VisitExpr(x.Body, f)
		}
	}
}

// RewriteExpr rebuilds e bottom-up: children are rewritten first, then post
// is applied to the (possibly rebuilt) node and its result replaces it.
// Nodes whose children did not change are kept as they are (pointer-equal);
// rebuilt nodes keep their source location and have their struct info
// cleared, so Normalize recomputes it. Binding targets and parameters are
// not passed to post; variable uses are. If post returns nil the node is kept.
func RewriteExpr(e Expr, post func(Expr) Expr) Expr {
	if e == nil {
		return nil
	}
	var out Expr = e
	switch x := e.(type) {
	case *Call:
		callee := RewriteExpr(x.Callee, post)
		args, changed := rewriteList(x.Args, post)
		if changed || callee != x.Callee {
			n := *x
			n.Info = nil
			n.Callee, n.Args = callee, args
			out = &n
		}
	case *Tuple:
		fields, changed := rewriteList(x.Fields, post)
		if changed {
			n := *x
			n.Info = nil
			n.Fields = fields
			out = &n
		}
	case *TupleGetItem:
		t := RewriteExpr(x.Tuple, post)
		if t != x.Tuple {
			n := *x
			n.Info = nil
			n.Tuple = t
			out = &n
		}
	case *If:
		c := RewriteExpr(x.Cond, post)
		th, el := rewriteSeq(x.Then, post), rewriteSeq(x.Else, post)
		if c != x.Cond || th != x.Then || el != x.Else {
			n := *x
			n.Info = nil
			n.Cond, n.Then, n.Else = c, th, el
			out = &n
		}
	case *SeqExpr:
		if s := rewriteSeq(x, post); s != x {
			out = s
		}
	case *Function:
		if x.Body != nil {
			if b := rewriteSeq(x.Body, post); b != x.Body {
				n := *x
				n.Info = nil
				n.Body = b
				out = &n
			}
		}
	}
	if r := post(out); r != nil {
		return r
	}
	return out
}

func rewriteList(es []Expr, post func(Expr) Expr) ([]Expr, bool) {
	changed := false
	out := make([]Expr, len(es))
	for i, a := range es {
		out[i] = RewriteExpr(a, post)
		changed = changed || out[i] != a
	}
	return out, changed
}

// rewriteSeq rewrites the binding values and body of s (post is not applied to s itself).
func rewriteSeq(s *SeqExpr, post func(Expr) Expr) *SeqExpr {
	if s == nil {
		return nil
	}
	changed := false
	blocks := make([]*BindingBlock, len(s.Blocks))
	for i, b := range s.Blocks {
		blocks[i] = b
		var nb []Binding
		for j, bd := range b.Bindings {
			v := RewriteExpr(bd.BoundValue(), post)
			if v == bd.BoundValue() {
				if nb != nil {
					nb = append(nb, bd)
				}
				continue
			}
			if nb == nil {
				nb = append([]Binding{}, b.Bindings[:j]...)
			}
			switch x := bd.(type) {
			case *VarBinding:
				nb = append(nb, &VarBinding{Var: x.Var, Value: v, Loc: x.Loc})
			case *MatchCast:
				nb = append(nb, &MatchCast{Var: x.Var, Value: v, Info: x.Info, Loc: x.Loc})
			}
		}
		if nb != nil {
			blocks[i] = &BindingBlock{Dataflow: b.Dataflow, Bindings: nb, Loc: b.Loc}
			changed = true
		}
	}
	body := RewriteExpr(s.Body, post)
	if !changed && body == s.Body {
		return s
	}
	n := *s
	n.Info = nil
	n.Blocks, n.Body = blocks, body
	return &n
}

// ForEachBinding calls fn on every binding inside e in program order,
// including bindings of nested SeqExprs (If branches) and nested functions;
// block is the binding block holding the binding.
func ForEachBinding(e Expr, fn func(b Binding, block *BindingBlock)) {
	VisitExpr(e, func(x Expr) bool {
		s, ok := x.(*SeqExpr)
		if !ok {
			return true
		}
		for _, blk := range s.Blocks {
			for _, b := range blk.Bindings {
				fn(b, blk)
				ForEachBinding(b.BoundValue(), fn)
			}
		}
		ForEachBinding(s.Body, fn)
		return false
	})
}

// FunctionBindings lists the bindings of f's body in program order (see ForEachBinding).
func FunctionBindings(f *Function) []Binding {
	var out []Binding
	if f == nil || f.Body == nil {
		return nil
	}
	ForEachBinding(f.Body, func(b Binding, _ *BindingBlock) { out = append(out, b) })
	return out
}

// ExprFreeVars lists the Relax variables e uses without binding them
// (parameters of nested functions and binding targets inside e are bound),
// in first-use order. (The name FreeVars is taken by the PrimExpr version.)
func ExprFreeVars(e Expr) []*Var {
	bound := map[*Var]bool{}
	if f, ok := e.(*Function); ok {
		for _, p := range f.Params {
			bound[p] = true
		}
	}
	ForEachBinding(e, func(b Binding, _ *BindingBlock) { bound[b.BoundVar()] = true })
	VisitExpr(e, func(x Expr) bool {
		if f, ok := x.(*Function); ok {
			for _, p := range f.Params {
				bound[p] = true
			}
		}
		return true
	})
	var out []*Var
	seen := map[*Var]bool{}
	VisitExpr(e, func(x Expr) bool {
		if v, ok := x.(*Var); ok && !bound[v] && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
		return true
	})
	return out
}
