package lower

import (
	"fmt"

	"github.com/relaxgo/relaxgo/internal/builtin"
	"github.com/relaxgo/relaxgo/ir"
)

// CallTIRRewrite makes destination passing explicit. For
// `y = R.call_tir(f, (a, b), out_sinfo=T)` and
// `y = R.call_dps_packed("k", (a, b), out_sinfo=T)` it allocates the outputs
// with R.builtin.alloc_tensor, calls f(a, b, out...) for its effect, and binds
// y to the output (or to a tuple of the outputs). With tir_vars the shape's
// values are passed as trailing scalar arguments.
//
// A call with several outputs binds y to a tuple of them; an item y[i] of
// such a tuple is then bound to output i itself (foldTupleItems), and the
// tuple, when nothing else uses it, is not built: a split's pieces cost no
// tuple on every call.
func CallTIRRewrite(m *ir.Module) (*ir.Module, error) {
	return mapRelaxFuncs(m, func(fn *ir.Function) (*ir.Function, error) {
		fn, err := callTIRRewrite(fn)
		if err != nil {
			return nil, err
		}
		return foldTupleItems(fn)
	})
}

// foldTupleItems binds each item t[i] of a tuple t bound to a literal of
// variables to field i itself, and drops the bindings of such tuples that
// are then unused.
func foldTupleItems(fn *ir.Function) (*ir.Function, error) {
	tuples := map[*ir.Var]*ir.Tuple{}
	for _, blk := range allBlocks(fn.Body) {
		for _, b := range blk.Bindings {
			vb, ok := b.(*ir.VarBinding)
			if !ok {
				continue
			}
			if t, ok := vb.Value.(*ir.Tuple); ok && allVars(t.Fields) {
				tuples[vb.Var] = t
			}
		}
	}
	if len(tuples) == 0 {
		return fn, nil
	}
	fn, err := rewriteFunction(fn, func(b ir.Binding, emit func(ir.Binding)) error {
		if vb, ok := b.(*ir.VarBinding); ok {
			if g, ok := vb.Value.(*ir.TupleGetItem); ok {
				if tv, ok := g.Tuple.(*ir.Var); ok && tuples[tv] != nil && g.Index >= 0 && g.Index < len(tuples[tv].Fields) {
					emit(&ir.VarBinding{Var: vb.Var, Value: tuples[tv].Fields[g.Index], Loc: vb.Loc})
					return nil
				}
			}
		}
		emit(b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	uses := useCounts(fn)
	return rewriteFunction(fn, func(b ir.Binding, emit func(ir.Binding)) error {
		if vb, ok := b.(*ir.VarBinding); ok && tuples[vb.Var] != nil && uses[vb.Var] == 0 {
			return nil
		}
		emit(b)
		return nil
	})
}

// allVars reports whether every expression of es is a variable.
func allVars(es []ir.Expr) bool {
	for _, e := range es {
		if _, ok := e.(*ir.Var); !ok {
			return false
		}
	}
	return true
}

// callTIRRewrite is CallTIRRewrite's rewrite of the calls of one function.
func callTIRRewrite(fn *ir.Function) (*ir.Function, error) {
	nm := newNamer(fn)
	return rewriteCalls(fn, func(vb *ir.VarBinding, c *ir.Call, emit func(ir.Binding)) error {
		switch c.OpName() {
		case "relax.call_tir", "relax.call_dps_packed", "relax.call_tir_inplace":
		default:
			emit(vb)
			return nil
		}
		// call_tir_inplace: output i with in-place index k >= 0 is argument k,
		// written in place; only the other outputs are allocated and passed.
		var inplace []int64
		if c.OpName() == "relax.call_tir_inplace" {
			v, _ := c.Attrs.Get("inplace_indices")
			list, _ := v.([]any)
			for _, x := range list {
				k, ok := x.(int64)
				if !ok {
					return posErr(c.Pos(), "call_tir_inplace: inplace_indices must be integers, got %v", v)
				}
				inplace = append(inplace, k)
			}
		}
		if len(c.Args) < 2 {
			return posErr(c.Pos(), "%s: expected a callee and an argument tuple", c.OpName())
		}
		ins, ok := c.Args[1].(*ir.Tuple)
		if !ok {
			return posErr(c.Pos(), "%s: arguments must be a tuple literal", c.OpName())
		}
		var outInfos []ir.StructInfo
		for _, s := range c.SInfoArgs {
			if t, ok := s.(*ir.TupleSInfo); ok {
				outInfos = append(outInfos, t.Fields...)
			} else {
				outInfos = append(outInfos, s)
			}
		}
		if len(outInfos) == 0 {
			return posErr(c.Pos(), "%s: no output type", c.OpName())
		}
		if inplace != nil && len(inplace) != len(outInfos) {
			return posErr(c.Pos(), "call_tir_inplace: %d inplace indices for %d outputs", len(inplace), len(outInfos))
		}
		args := append([]ir.Expr{}, ins.Fields...)
		var outs []ir.Expr
		for i, s := range outInfos {
			if inplace != nil && inplace[i] >= 0 {
				if int(inplace[i]) >= len(ins.Fields) {
					return posErr(c.Pos(), "call_tir_inplace: inplace index %d out of range for %d arguments", inplace[i], len(ins.Fields))
				}
				outs = append(outs, ins.Fields[inplace[i]])
				continue
			}
			ts, ok := s.(*ir.TensorSInfo)
			if !ok || ts.Shape == nil || ts.DType.IsVoid() {
				return posErr(c.Pos(), "%s: output %d has type %s; outputs must be tensors of known shape and dtype", c.OpName(), i, ir.SInfoString(s))
			}
			name := vb.Var.Name
			if len(outInfos) > 1 {
				name = fmt.Sprintf("%s_out%d", vb.Var.Name, i)
			}
			ov := newVar(nm.fresh("alloc_"+name), ts, c.Loc)
			emit(bind(ov, allocTensor(ts, c.Loc), c.Loc))
			args = append(args, ov)
			outs = append(outs, ov)
		}
		callee := c.Args[0]
		if len(c.Args) > 2 {
			// tir_vars: the PrimFunc takes the values as trailing scalar
			// parameters. A literal shape is unpacked here; any other shape
			// value is unpacked at run time by vm.builtin.call_tir_dyn.
			if se, ok := c.Args[2].(*ir.ShapeExpr); ok {
				for _, d := range se.Values {
					p := &ir.PrimValue{Value: d}
					p.Info = &ir.PrimSInfo{DType: d.DType(), Value: d}
					p.Loc = c.Loc
					args = append(args, p)
				}
			} else {
				args = append([]ir.Expr{callee}, append(args, c.Args[2])...)
				callee = externFunc(builtin.CallTIRDyn)
			}
		}
		call := &ir.Call{Callee: callee, Args: args}
		call.Info = ir.VoidSInfo()
		call.Loc = c.Loc
		emit(bind(newVar("_", ir.VoidSInfo(), c.Loc), call, c.Loc))
		if len(outs) == 1 && len(c.SInfoArgs) == 1 {
			if _, isTuple := c.SInfoArgs[0].(*ir.TupleSInfo); !isTuple {
				emit(&ir.VarBinding{Var: vb.Var, Value: outs[0], Loc: vb.Loc})
				return nil
			}
		}
		emit(&ir.VarBinding{Var: vb.Var, Value: tupleExpr(outs), Loc: vb.Loc})
		return nil
	})
}

// allocTensor is R.builtin.alloc_tensor(R.shape(dims), R.dtype(dt), R.prim_value(0)).
func allocTensor(ts *ir.TensorSInfo, loc ir.Span) *ir.Call {
	return opCall("relax.builtin.alloc_tensor", ts, loc, shapeExpr(ts.Shape), dtypeImm(ts.DType), primInt(0))
}
