package lower

import (
	"fmt"

	"github.com/relaxgo/relaxgo/internal/builtin"
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// Codes of vm.builtin.match_shape and make_shape (TVM's MatchShapeCode / MakeShapeCode).
const (
	matchAssertImm   = 0 // dim must equal the immediate
	matchStoreHeap   = 1 // store dim into heap[slot]
	matchNoOp        = 2 // skip
	matchAssertHeap  = 3 // dim must equal heap[slot]
	makeUseImm       = 0 // dim is the immediate
	makeLoadHeap     = 1 // dim is heap[slot]
	shapeHeapBuiltin = builtin.AllocShapeHeap
)

// shapeLowerer holds the per-function state of VMShapeLower.
type shapeLowerer struct {
	fn    *ir.Function
	nm    *namer
	slots map[*ir.PrimVar]int
	nslot int
	// heap is the shape heap variable, or a null value when the function
	// has no symbolic variables.
	heap ir.Expr
	// temps are heap slots for compound expressions, keyed by printed form.
	temps map[string]int
}

// VMShapeLower makes shape computation explicit with VM builtins: a shape heap
// (an int64 array) holds the symbolic variables of a function; parameters and
// match_cast values are checked (check_tensor_info etc.) and matched
// (match_shape, which stores or compares dimensions), compound symbolic
// expressions are computed into the heap (vm.builtin.shape_compute), and shape
// values with symbolic dimensions are built with make_shape. Error contexts
// name the function, the parameter and its annotation.
func VMShapeLower(m *ir.Module) (*ir.Module, error) {
	return mapRelaxFuncs(m, func(fn *ir.Function) (*ir.Function, error) {
		sl := &shapeLowerer{fn: fn, nm: newNamer(fn), slots: map[*ir.PrimVar]int{}, temps: map[string]int{}}
		return sl.run()
	})
}

func (sl *shapeLowerer) slotOf(v *ir.PrimVar) int {
	if s, ok := sl.slots[v]; ok {
		return s
	}
	sl.slots[v] = sl.nslot
	sl.nslot++
	return sl.slots[v]
}

func (sl *shapeLowerer) run() (*ir.Function, error) {
	fn := sl.fn
	// Reserve slots for every symbolic variable in declaration order first.
	for _, p := range fn.Params {
		for _, v := range symVars(p.Info) {
			sl.slotOf(v)
		}
	}
	forEachBinding(fn.Body, func(b ir.Binding) {
		if mc, ok := b.(*ir.MatchCast); ok {
			for _, v := range symVars(mc.Info) {
				sl.slotOf(v)
			}
		}
	})
	heapVar := newVar(sl.nm.fresh("shape_heap"), &ir.TensorSInfo{Shape: nil, NDim: 1, DType: runtime.Int64}, fn.Loc)
	sl.heap = heapVar
	if sl.nslot == 0 {
		sl.heap = opCall("relax.null_value", &ir.ObjectSInfo{}, fn.Loc)
	}

	entry := &ir.BindingBlock{}
	emitEntry := func(b ir.Binding) { entry.Bindings = append(entry.Bindings, b) }
	bound := map[*ir.PrimVar]bool{}
	var deferred []func(emit func(ir.Binding)) error
	for _, p := range fn.Params {
		ctx := fmt.Sprintf("%s: parameter %s (annotated %s)", fn.Name, p.Name, ir.SInfoString(p.Info))
		d, err := sl.checkAndMatch(p, p.Info, ctx, bound, emitEntry)
		if err != nil {
			return nil, err
		}
		deferred = append(deferred, d...)
	}
	for _, d := range deferred {
		if err := d(emitEntry); err != nil {
			return nil, err
		}
	}
	nf, err := rewriteFunction(fn, func(b ir.Binding, emit func(ir.Binding)) error {
		if mc, ok := b.(*ir.MatchCast); ok {
			ctx := fmt.Sprintf("%s: match_cast of %s to %s", fn.Name, mc.Var.Name, ir.SInfoString(mc.Info))
			if mc.Loc.Line > 0 {
				ctx += " at " + mc.Loc.String()
			}
			val, err := sl.lowerExpr(mc.Value, emit)
			if err != nil {
				return err
			}
			src := newVar(sl.nm.fresh(mc.Var.Name+"_src"), mc.Value.SInfo(), mc.Loc)
			if vv, ok := val.(*ir.Var); ok {
				src = vv
			} else {
				emit(bind(src, val, mc.Loc))
			}
			ds, err := sl.checkAndMatch(src, mc.Info, ctx, bound, emit)
			if err != nil {
				return err
			}
			for _, d := range ds {
				if err := d(emit); err != nil {
					return err
				}
			}
			emit(&ir.VarBinding{Var: mc.Var, Value: src, Loc: mc.Loc})
			return nil
		}
		val, err := sl.lowerExpr(b.BoundValue(), emit)
		if err != nil {
			return err
		}
		if val == b.BoundValue() {
			emit(b)
		} else {
			emit(&ir.VarBinding{Var: b.BoundVar(), Value: val, Loc: b.Pos()})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The result expression may itself hold a symbolic shape.
	var tail []ir.Binding
	body, err := sl.lowerExpr(nf.Body.Body, func(b ir.Binding) { tail = append(tail, b) })
	if err != nil {
		return nil, err
	}
	nb := *nf.Body
	nb.Body = body
	if len(tail) > 0 {
		nb.Blocks = append(append([]*ir.BindingBlock{}, nb.Blocks...), &ir.BindingBlock{Bindings: tail})
	}
	if sl.nslot > 0 {
		alloc := &ir.Call{Callee: &ir.Op{Name: "relax.call_builtin_with_ctx"}, Args: []ir.Expr{
			&ir.ExternFunc{Symbol: shapeHeapBuiltin}, tupleExpr([]ir.Expr{primInt(int64(sl.nslot))})},
			SInfoArgs: []ir.StructInfo{heapVar.Info}}
		alloc.Info = heapVar.Info
		entry.Bindings = append([]ir.Binding{bind(heapVar, alloc, fn.Loc)}, entry.Bindings...)
	}
	if len(entry.Bindings) > 0 {
		nb.Blocks = append([]*ir.BindingBlock{entry}, nb.Blocks...)
	}
	nf.Body = &nb
	return nf, nil
}

// symVars lists the symbolic variables appearing in struct info, in order.
func symVars(s ir.StructInfo) []*ir.PrimVar {
	var out []*ir.PrimVar
	seen := map[*ir.PrimVar]bool{}
	add := func(e ir.PrimExpr) {
		for _, v := range ir.FreeVars(e) {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	var walk func(ir.StructInfo)
	walk = func(s ir.StructInfo) {
		switch x := s.(type) {
		case *ir.TensorSInfo:
			for _, d := range x.Shape {
				add(d)
			}
		case *ir.ShapeSInfo:
			for _, d := range x.Values {
				add(d)
			}
		case *ir.PrimSInfo:
			if x.Value != nil {
				add(x.Value)
			}
		case *ir.TupleSInfo:
			for _, f := range x.Fields {
				walk(f)
			}
		}
	}
	walk(s)
	return out
}

func (sl *shapeLowerer) void(name string, loc ir.Span, args ...ir.Expr) ir.Binding {
	return bind(newVar("_", ir.VoidSInfo(), loc), externCall(name, ir.VoidSInfo(), loc, args...), loc)
}

// checkAndMatch emits the checks of value v against struct info s and the
// matching of its symbolic dimensions; compound dimensions whose variables are
// not all bound yet are returned as deferred checks.
func (sl *shapeLowerer) checkAndMatch(v *ir.Var, s ir.StructInfo, ctx string, bound map[*ir.PrimVar]bool, emit func(ir.Binding)) ([]func(func(ir.Binding)) error, error) {
	loc := v.Loc
	switch x := s.(type) {
	case *ir.ObjectSInfo, nil:
		return nil, nil
	case *ir.TensorSInfo:
		ndim := int64(x.NDim)
		args := []ir.Expr{v, primInt(ndim)}
		if !x.DType.IsVoid() {
			args = append(args, dtypeImm(x.DType))
		}
		args = append(args, strImm(ctx))
		emit(sl.void(builtin.CheckTensorInfo, loc, args...))
		if x.Shape == nil {
			return nil, nil
		}
		return sl.matchDims(v, x.Shape, ctx, bound, emit)
	case *ir.ShapeSInfo:
		emit(sl.void(builtin.CheckShapeInfo, loc, v, primInt(int64(x.NDim)), strImm(ctx)))
		if x.Values == nil {
			return nil, nil
		}
		return sl.matchDims(v, x.Values, ctx, bound, emit)
	case *ir.PrimSInfo:
		emit(sl.void(builtin.CheckPrimValueInfo, loc, v, dtypeImm(x.DType), strImm(ctx)))
		if x.Value == nil {
			return nil, nil
		}
		code, val, deferred := sl.matchCode(x.Value, bound)
		if deferred {
			return []func(func(ir.Binding)) error{func(emit func(ir.Binding)) error {
				slot, err := sl.compute(x.Value, emit)
				if err != nil {
					return err
				}
				emit(sl.void(builtin.MatchPrimValue, loc, v, sl.heap, primInt(matchAssertHeap), primInt(int64(slot)), strImm(ctx)))
				return nil
			}}, nil
		}
		emit(sl.void(builtin.MatchPrimValue, loc, v, sl.heap, primInt(code), primInt(val), strImm(ctx)))
		return nil, nil
	case *ir.TupleSInfo:
		emit(sl.void(builtin.CheckTupleInfo, loc, v, primInt(int64(len(x.Fields))), strImm(ctx)))
		var out []func(func(ir.Binding)) error
		for i, f := range x.Fields {
			if len(symVars(f)) == 0 && !needsCheck(f) {
				continue
			}
			fv := newVar(sl.nm.fresh(fmt.Sprintf("%s_%d", v.Name, i)), f, loc)
			emit(bind(fv, externCall(builtin.TupleGetItem, f, loc, v, primInt(int64(i))), loc))
			d, err := sl.checkAndMatch(fv, f, fmt.Sprintf("%s, field %d", ctx, i), bound, emit)
			if err != nil {
				return nil, err
			}
			out = append(out, d...)
		}
		return out, nil
	case *ir.FuncSInfo:
		emit(sl.void(builtin.CheckFuncInfo, loc, v, strImm(ctx)))
		return nil, nil
	}
	return nil, fmt.Errorf("%s: cannot check struct info %s", ctx, ir.SInfoString(s))
}

// needsCheck reports whether a value of this struct info gets a run-time check.
func needsCheck(s ir.StructInfo) bool {
	_, obj := s.(*ir.ObjectSInfo)
	return s != nil && !obj
}

// matchCode decides how one dimension is matched: against an immediate, by
// storing a fresh variable, by comparing with a bound one, or later (compound).
func (sl *shapeLowerer) matchCode(d ir.PrimExpr, bound map[*ir.PrimVar]bool) (code, val int64, deferred bool) {
	d = ir.Simplify(d)
	if c, ok := ir.AsInt(d); ok {
		return matchAssertImm, c, false
	}
	if pv, ok := d.(*ir.PrimVar); ok {
		slot := int64(sl.slotOf(pv))
		if bound[pv] {
			return matchAssertHeap, slot, false
		}
		bound[pv] = true
		return matchStoreHeap, slot, false
	}
	return matchNoOp, 0, true
}

func (sl *shapeLowerer) matchDims(v *ir.Var, dims []ir.PrimExpr, ctx string, bound map[*ir.PrimVar]bool, emit func(ir.Binding)) ([]func(func(ir.Binding)) error, error) {
	loc := v.Loc
	args := []ir.Expr{v, sl.heap, primInt(int64(len(dims)))}
	var compound []int
	for i, d := range dims {
		code, val, deferred := sl.matchCode(d, bound)
		if deferred {
			compound = append(compound, i)
		}
		args = append(args, primInt(code), primInt(val))
	}
	emit(sl.void(builtin.MatchShape, loc, append(args, strImm(ctx))...))
	if len(compound) == 0 {
		return nil, nil
	}
	return []func(func(ir.Binding)) error{func(emit func(ir.Binding)) error {
		args := []ir.Expr{v, sl.heap, primInt(int64(len(dims)))}
		j := 0
		for i, d := range dims {
			if j < len(compound) && compound[j] == i {
				j++
				slot, err := sl.compute(d, emit)
				if err != nil {
					return err
				}
				args = append(args, primInt(matchAssertHeap), primInt(int64(slot)))
				continue
			}
			args = append(args, primInt(matchNoOp), primInt(0))
		}
		emit(sl.void(builtin.MatchShape, loc, append(args, strImm(ctx))...))
		return nil
	}}, nil
}

// compute emits the evaluation of a compound integer expression into a heap
// slot and returns the slot.
func (sl *shapeLowerer) compute(e ir.PrimExpr, emit func(ir.Binding)) (int, error) {
	e = ir.Simplify(e)
	if pv, ok := e.(*ir.PrimVar); ok {
		return sl.slotOf(pv), nil
	}
	key := ir.ExprString(e)
	if s, ok := sl.temps[key]; ok {
		return s, nil
	}
	prog, err := compileShapeProgram(e, sl.slots)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", sl.fn.Name, err)
	}
	slot := sl.nslot
	sl.nslot++
	sl.temps[key] = slot
	progExpr := shapeExpr(prog)
	emit(sl.void(builtin.ShapeCompute, sl.fn.Loc, sl.heap, primInt(int64(slot)), progExpr))
	return slot, nil
}

// lowerExpr replaces shape values and prim values with symbolic parts by
// variables bound to make_shape / make_prim_value calls emitted before use.
func (sl *shapeLowerer) lowerExpr(e ir.Expr, emit func(ir.Binding)) (ir.Expr, error) {
	switch x := e.(type) {
	case *ir.ShapeExpr:
		static := true
		for _, d := range x.Values {
			if _, ok := ir.AsInt(ir.Simplify(d)); !ok {
				static = false
			}
		}
		if static {
			return x, nil
		}
		args := []ir.Expr{sl.heap, primInt(int64(len(x.Values)))}
		for _, d := range x.Values {
			d = ir.Simplify(d)
			if c, ok := ir.AsInt(d); ok {
				args = append(args, primInt(makeUseImm), primInt(c))
				continue
			}
			slot, err := sl.compute(d, emit)
			if err != nil {
				return nil, err
			}
			args = append(args, primInt(makeLoadHeap), primInt(int64(slot)))
		}
		v := newVar(sl.nm.fresh("shape"), x.SInfo(), x.Loc)
		emit(bind(v, externCall(builtin.MakeShape, x.SInfo(), x.Loc, args...), x.Loc))
		return v, nil
	case *ir.PrimValue:
		d := ir.Simplify(x.Value)
		if _, ok := d.(*ir.IntImm); ok {
			return x, nil
		}
		if _, ok := d.(*ir.FloatImm); ok {
			return x, nil
		}
		if !(d.DType().IsInt() || d.DType().IsUInt()) {
			return nil, posErr(x.Loc, "symbolic prim value %s of type %s is not supported", ir.ExprString(d), d.DType())
		}
		slot, err := sl.compute(d, emit)
		if err != nil {
			return nil, err
		}
		v := newVar(sl.nm.fresh("prim"), x.SInfo(), x.Loc)
		emit(bind(v, externCall(builtin.MakePrimValue, x.SInfo(), x.Loc, sl.heap, primInt(makeLoadHeap), primInt(int64(slot))), x.Loc))
		return v, nil
	case *ir.Tuple:
		changed := false
		fields := make([]ir.Expr, len(x.Fields))
		for i, f := range x.Fields {
			nf, err := sl.lowerExpr(f, emit)
			if err != nil {
				return nil, err
			}
			fields[i] = nf
			changed = changed || nf != f
		}
		return withFields(x, fields, changed), nil
	case *ir.Call:
		changed := false
		args := make([]ir.Expr, len(x.Args))
		for i, a := range x.Args {
			na, err := sl.lowerExpr(a, emit)
			if err != nil {
				return nil, err
			}
			args[i] = na
			changed = changed || na != a
		}
		if !changed {
			return x, nil
		}
		c := *x
		c.Args = args
		return &c, nil
	case *ir.If:
		return x, nil // branches were rewritten binding by binding
	}
	return e, nil
}
