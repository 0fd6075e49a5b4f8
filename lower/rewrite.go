package lower

import (
	"fmt"

	"github.com/relaxgo/relaxgo/ir"
)

// bindingRewriter maps one binding to zero or more bindings, emitting them
// through emit. It is called for bindings inside If branches too (after their
// branches have been rewritten).
type bindingRewriter func(b ir.Binding, emit func(ir.Binding)) error

// rewriteFunction rebuilds fn's body with every binding passed through f.
// The body's result expression is kept.
func rewriteFunction(fn *ir.Function, f bindingRewriter) (*ir.Function, error) {
	body, err := rewriteSeq(fn.Body, f)
	if err != nil {
		return nil, err
	}
	nf := *fn
	nf.Body = body
	return &nf, nil
}

// rewriteCalls is rewriteFunction for rewrites of calls: f sees each binding
// of a variable to a call; every other binding is kept as it is.
func rewriteCalls(fn *ir.Function, f func(vb *ir.VarBinding, c *ir.Call, emit func(ir.Binding)) error) (*ir.Function, error) {
	return rewriteFunction(fn, func(b ir.Binding, emit func(ir.Binding)) error {
		if vb, ok := b.(*ir.VarBinding); ok {
			if c, ok := vb.Value.(*ir.Call); ok {
				return f(vb, c, emit)
			}
		}
		emit(b)
		return nil
	})
}

func rewriteSeq(seq *ir.SeqExpr, f bindingRewriter) (*ir.SeqExpr, error) {
	ns := &ir.SeqExpr{ExprBase: seq.ExprBase, Body: seq.Body}
	for _, blk := range seq.Blocks {
		nb := &ir.BindingBlock{Dataflow: blk.Dataflow, Loc: blk.Loc}
		emit := func(b ir.Binding) { nb.Bindings = append(nb.Bindings, b) }
		for _, b := range blk.Bindings {
			b, err := rewriteIfBranches(b, f)
			if err != nil {
				return nil, err
			}
			if err := f(b, emit); err != nil {
				return nil, err
			}
		}
		ns.Blocks = append(ns.Blocks, nb)
	}
	return ns, nil
}

// rewriteIfBranches rewrites the branches of a binding whose value is an If.
func rewriteIfBranches(b ir.Binding, f bindingRewriter) (ir.Binding, error) {
	vb, ok := b.(*ir.VarBinding)
	if !ok {
		return b, nil
	}
	iff, ok := vb.Value.(*ir.If)
	if !ok {
		return b, nil
	}
	th, err := rewriteSeq(iff.Then, f)
	if err != nil {
		return nil, err
	}
	el, err := rewriteSeq(iff.Else, f)
	if err != nil {
		return nil, err
	}
	ni := *iff
	ni.Then, ni.Else = th, el
	return &ir.VarBinding{Var: vb.Var, Value: &ni, Loc: vb.Loc}, nil
}

// forEachBinding visits every binding of seq in order, If branches included
// (a branch's bindings are visited before the binding holding the If).
func forEachBinding(seq *ir.SeqExpr, f func(ir.Binding)) {
	for _, blk := range seq.Blocks {
		for _, b := range blk.Bindings {
			if vb, ok := b.(*ir.VarBinding); ok {
				if iff, ok := vb.Value.(*ir.If); ok {
					forEachBinding(iff.Then, f)
					forEachBinding(iff.Else, f)
				}
			}
			f(b)
		}
	}
}

// namer hands out fresh variable names that do not clash with a function's.
type namer struct {
	used map[string]bool
}

func newNamer(fn *ir.Function) *namer {
	n := &namer{used: map[string]bool{}}
	for _, p := range fn.Params {
		n.used[p.Name] = true
	}
	forEachBinding(fn.Body, func(b ir.Binding) { n.used[b.BoundVar().Name] = true })
	return n
}

func (n *namer) fresh(base string) string {
	if !n.used[base] {
		n.used[base] = true
		return base
	}
	for i := 1; ; i++ {
		s := fmt.Sprintf("%s%d", base, i)
		if !n.used[s] {
			n.used[s] = true
			return s
		}
	}
}

// newVar makes a variable with struct info.
func newVar(name string, s ir.StructInfo, loc ir.Span) *ir.Var {
	v := &ir.Var{Name: name}
	v.Info = s
	v.Loc = loc
	return v
}

// bind makes `v = value` with the value's struct info set.
func bind(v *ir.Var, value ir.Expr, loc ir.Span) *ir.VarBinding {
	if value.SInfo() == nil {
		value.SetSInfo(v.Info)
	}
	return &ir.VarBinding{Var: v, Value: value, Loc: loc}
}

// opCall builds a call of a Relax operator.
func opCall(name string, s ir.StructInfo, loc ir.Span, args ...ir.Expr) *ir.Call {
	c := &ir.Call{Callee: &ir.Op{Name: name}, Args: args}
	c.Info = s
	c.Loc = loc
	return c
}

// externFunc is the opaque extern function symbol (a packed function the
// runtime resolves by name).
func externFunc(symbol string) *ir.ExternFunc {
	ext := &ir.ExternFunc{Symbol: symbol}
	ext.Info = &ir.FuncSInfo{Opaque: true}
	return ext
}

// externCall builds a call of a packed function by name.
func externCall(name string, s ir.StructInfo, loc ir.Span, args ...ir.Expr) *ir.Call {
	c := &ir.Call{Callee: &ir.ExternFunc{Symbol: name}, Args: args}
	c.Info = s
	c.Loc = loc
	return c
}

func primInt(v int64) *ir.PrimValue {
	p := &ir.PrimValue{Value: ir.Int64(v)}
	p.Info = &ir.PrimSInfo{DType: ir.Int64(0).Type, Value: p.Value}
	return p
}

func shapeExpr(dims []ir.PrimExpr) *ir.ShapeExpr {
	s := &ir.ShapeExpr{Values: dims}
	s.Info = &ir.ShapeSInfo{Values: dims, NDim: len(dims)}
	return s
}

func strImm(s string) *ir.StringImm {
	x := &ir.StringImm{Value: s}
	x.Info = &ir.ObjectSInfo{}
	return x
}

func dtypeImm(dt ir.DataType) *ir.DataTypeImm {
	x := &ir.DataTypeImm{Value: dt}
	x.Info = &ir.ObjectSInfo{}
	return x
}

func tupleExpr(fields []ir.Expr) *ir.Tuple {
	t := &ir.Tuple{Fields: fields}
	fs := make([]ir.StructInfo, len(fields))
	for i, f := range fields {
		fs[i] = f.SInfo()
	}
	t.Info = &ir.TupleSInfo{Fields: fs}
	return t
}

// withFields is x with fields, or x itself when nothing changed.
func withFields(x *ir.Tuple, fields []ir.Expr, changed bool) ir.Expr {
	if !changed {
		return x
	}
	t := &ir.Tuple{Fields: fields}
	t.ExprBase = x.ExprBase
	return t
}

// withTuple is x reading from t, or x itself when t is its tuple.
func withTuple(x *ir.TupleGetItem, t ir.Expr) ir.Expr {
	if t == x.Tuple {
		return x
	}
	n := *x
	n.Tuple = t
	return &n
}
