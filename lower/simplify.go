package lower

import (
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// visitVars calls f for every Relax variable read by e (If branches included).
func visitVars(e ir.Expr, f func(*ir.Var)) {
	switch x := e.(type) {
	case *ir.Var:
		f(x)
	case *ir.Tuple:
		for _, fl := range x.Fields {
			visitVars(fl, f)
		}
	case *ir.TupleGetItem:
		visitVars(x.Tuple, f)
	case *ir.Call:
		visitVars(x.Callee, f)
		for _, a := range x.Args {
			visitVars(a, f)
		}
		for _, a := range x.Attrs {
			if ae, ok := a.Value.(ir.Expr); ok {
				visitVars(ae, f)
			}
		}
	case *ir.If:
		visitVars(x.Cond, f)
		visitVars(x.Then, f)
		visitVars(x.Else, f)
	case *ir.SeqExpr:
		for _, blk := range x.Blocks {
			for _, b := range blk.Bindings {
				visitVars(b.BoundValue(), f)
			}
		}
		visitVars(x.Body, f)
	}
}

// isPureValue reports whether computing e has no effect besides its value,
// so an unused binding of it can be dropped.
func isPureValue(e ir.Expr, m *ir.Module) bool {
	switch x := e.(type) {
	case *ir.Var, *ir.Constant, *ir.ShapeExpr, *ir.PrimValue, *ir.StringImm, *ir.DataTypeImm, *ir.Tuple, *ir.TupleGetItem, *ir.GlobalVar:
		return true
	case *ir.Call:
		switch op := x.Callee.(type) {
		case *ir.Op:
			if structural[op.Name] {
				return op.Name == "relax.call_tir" || op.Name == "relax.call_pure_packed" || op.Name == "relax.shape_of" || op.Name == "relax.null_value"
			}
			if d, ok := ir.LookupOp(op.Name); ok {
				return d.Pure
			}
		}
	}
	return false
}

// DeadCodeElimination removes bindings of pure values that nothing reads,
// repeating until nothing changes. Match casts are kept: they check types at
// run time.
func DeadCodeElimination(m *ir.Module) (*ir.Module, error) {
	return mapRelaxFuncs(m, func(fn *ir.Function) (*ir.Function, error) {
		for {
			used := map[*ir.Var]bool{}
			visitVars(fn.Body, func(v *ir.Var) { used[v] = true })
			removed := false
			nf, err := rewriteFunction(fn, func(b ir.Binding, emit func(ir.Binding)) error {
				if vb, ok := b.(*ir.VarBinding); ok && !used[vb.Var] && isPureValue(vb.Value, m) {
					removed = true
					return nil
				}
				emit(b)
				return nil
			})
			if err != nil {
				return nil, err
			}
			fn = nf
			if !removed {
				return dropEmptyBlocks(fn), nil
			}
		}
	})
}

func dropEmptyBlocks(fn *ir.Function) *ir.Function {
	var blocks []*ir.BindingBlock
	for _, b := range fn.Body.Blocks {
		if len(b.Bindings) > 0 {
			blocks = append(blocks, b)
		}
	}
	nb := *fn.Body
	nb.Blocks = blocks
	nf := *fn
	nf.Body = &nb
	return &nf
}

// constValue evaluates a leaf expression known at compile time to its runtime value.
func constValue(e ir.Expr) (runtime.Value, bool) {
	switch x := e.(type) {
	case *ir.Constant:
		return x.Value, true
	case *ir.PrimValue:
		switch v := x.Value.(type) {
		case *ir.IntImm:
			return v.Value, true
		case *ir.FloatImm:
			return v.Value, true
		}
	case *ir.StringImm:
		return x.Value, true
	case *ir.DataTypeImm:
		return x.Value, true
	case *ir.ShapeExpr:
		s := make(runtime.Shape, len(x.Values))
		for i, d := range x.Values {
			v, ok := ir.AsInt(d)
			if !ok {
				return nil, false
			}
			s[i] = v
		}
		return s, true
	case *ir.Tuple:
		t := make(runtime.Tuple, len(x.Fields))
		for i, f := range x.Fields {
			v, ok := constValue(f)
			if !ok {
				return nil, false
			}
			t[i] = v
		}
		return t, true
	case *ir.Call:
		if x.OpName() == "relax.null_value" {
			return nil, true
		}
	}
	return nil, false
}

// FoldConstant evaluates operator calls whose arguments are all known at
// compile time (constants, variables bound to constants, including those
// folded earlier in the function, shapes and other literals), with the same
// library kernels the program would run, and replaces them by their
// results: a batch norm's sqrt(var + eps) and scale, reshaped biases. A
// result larger than both foldMinElems and its largest constant input (a
// broadcast or a tensor created from a shape) is left to run time, so that
// folding never grows the executable by more than its inputs.
func FoldConstant(m *ir.Module) (*ir.Module, error) {
	return rewriteWithConsts(m, func(vb *ir.VarBinding, consts map[*ir.Var]*ir.Constant) ir.Expr {
		if c, ok := vb.Value.(*ir.Call); ok && c.OpName() != "" && !structural[c.OpName()] {
			if t := foldCall(c, consts); t != nil {
				k := &ir.Constant{Value: t, MetaIndex: -1}
				k.Info = c.SInfo()
				k.Loc = c.Loc
				return k
			}
		}
		return nil
	})
}

// rewriteWithConsts rewrites every Relax function's variable bindings in
// order: f sees each with the variables bound to constants so far (a value
// it returns in place of the binding's counts when it is a constant) and
// returns a new value for it, or nil to keep it.
func rewriteWithConsts(m *ir.Module, f func(vb *ir.VarBinding, consts map[*ir.Var]*ir.Constant) ir.Expr) (*ir.Module, error) {
	return mapRelaxFuncs(m, func(fn *ir.Function) (*ir.Function, error) {
		consts := map[*ir.Var]*ir.Constant{}
		return rewriteFunction(fn, func(b ir.Binding, emit func(ir.Binding)) error {
			vb, ok := b.(*ir.VarBinding)
			if !ok {
				emit(b)
				return nil
			}
			if k, ok := vb.Value.(*ir.Constant); ok {
				consts[vb.Var] = k
			}
			if v := f(vb, consts); v != nil {
				if k, ok := v.(*ir.Constant); ok {
					consts[vb.Var] = k
				}
				emit(&ir.VarBinding{Var: vb.Var, Value: v, Loc: vb.Loc})
				return nil
			}
			emit(b)
			return nil
		})
	})
}

// foldMinElems is the size up to which FoldConstant folds any result.
const foldMinElems = 64

// foldCall runs c's kernel when all inputs are known (variables in consts
// stand for their constants) and the result is a single tensor of static
// shape no larger than foldMinElems or its largest constant input; it
// returns nil when it cannot.
func foldCall(c *ir.Call, consts map[*ir.Var]*ir.Constant) *runtime.Tensor {
	ts, ok := c.SInfo().(*ir.TensorSInfo)
	if !ok || ts.DType.IsVoid() {
		return nil
	}
	shape, ok := ts.StaticShape()
	if !ok {
		return nil
	}
	f, ok := runtime.Lookup(KernelName(c.OpName()))
	if !ok {
		return nil
	}
	sc := *c
	sc.Args = make([]ir.Expr, len(c.Args))
	largest := int64(foldMinElems)
	for i, a := range c.Args {
		a = substConsts(a, consts)
		if _, known := constValue(a); !known {
			return nil
		}
		if k, isConst := a.(*ir.Constant); isConst {
			largest = max(largest, k.Value.NumElements())
		}
		sc.Args[i] = a
	}
	if n, err := runtime.NumElements(shape); err != nil || n > largest {
		return nil
	}
	args, err := kernelArgs(&sc)
	if err != nil {
		return nil
	}
	vals := make([]runtime.Value, 0, len(args)+1)
	for _, a := range args {
		v, ok := constValue(a)
		if !ok {
			return nil
		}
		vals = append(vals, v)
	}
	out, err := runtime.NewTensor(shape, ts.DType)
	if err != nil {
		return nil
	}
	if _, err := f(append(vals, out)); err != nil {
		return nil // leave it to run time, where the error reaches the user
	}
	return out
}

// substConsts replaces variables bound to constants in e (itself or the
// fields of a tuple) by the constants.
func substConsts(e ir.Expr, consts map[*ir.Var]*ir.Constant) ir.Expr {
	switch x := e.(type) {
	case *ir.Var:
		if k, ok := consts[x]; ok {
			return k
		}
	case *ir.Tuple:
		var fields []ir.Expr
		for i, f := range x.Fields {
			if g := substConsts(f, consts); g != f {
				if fields == nil {
					fields = append([]ir.Expr(nil), x.Fields...)
				}
				fields[i] = g
			}
		}
		return withFields(x, fields, fields != nil)
	}
	return e
}

// ToNonDataflow turns dataflow blocks into ordinary binding blocks and
// dataflow variables into ordinary variables. Variables are shared between
// modules, so their Dataflow flag is cleared in place.
func ToNonDataflow(m *ir.Module) (*ir.Module, error) {
	return mapRelaxFuncs(m, func(fn *ir.Function) (*ir.Function, error) {
		nf, err := rewriteFunction(fn, func(b ir.Binding, emit func(ir.Binding)) error {
			b.BoundVar().Dataflow = false
			emit(b)
			return nil
		})
		if err != nil {
			return nil, err
		}
		for _, blk := range allBlocks(nf.Body) {
			blk.Dataflow = false
		}
		return nf, nil
	})
}

func allBlocks(seq *ir.SeqExpr) []*ir.BindingBlock {
	var out []*ir.BindingBlock
	for _, blk := range seq.Blocks {
		out = append(out, blk)
		for _, b := range blk.Bindings {
			if iff, ok := b.BoundValue().(*ir.If); ok {
				out = append(out, allBlocks(iff.Then)...)
				out = append(out, allBlocks(iff.Else)...)
			}
		}
	}
	return out
}
