package lower

import (
	"github.com/relaxgo/relaxgo/internal/builtin"
	"github.com/relaxgo/relaxgo/ir"
)

// reshapeKernels are the legalized ops that only reshape their input (their
// output has its elements in the same order): TVM's RewriteDataflowReshape
// recognizes them as PrimFuncs with a reshape pattern. A permute_dims that
// only moves axes of extent 1 is one too (keepsOrder).
var reshapeKernels = map[string]bool{
	KernelName("relax.reshape"):     true,
	KernelName("relax.expand_dims"): true,
	KernelName("relax.squeeze"):     true,
	KernelName("relax.flatten"):     true,
}

// RewriteDataflowReshape turns the reshapes of a dataflow block into views,
// as TVM's pass of the same name does: `lv = R.call_dps_packed("kernels.reshape",
// (x, shape), out_sinfo=T)` becomes `lv = R.call_pure_packed("vm.builtin.reshape",
// x, T's shape, sinfo_args=T)`, a header over x's data instead of a copy into
// a new allocation. Like TVM it leaves a dataflow block's outputs (variables
// that are not DataflowVars) alone, and unlike TVM also the DataflowVars an
// output is bound to directly (`gv = lv`, aliasedOutputs), so that a
// function's result is not a view of its last reshape. It also leaves reshapes of anything but the output of a
// destination-passing call of the same function (a parameter, a packed
// function's result, a tuple's field): those live in storage the VM's pool
// does not own, where a view would cost a header allocation on every call.
// StaticPlanBlockMemory then keeps x's storage for as long as the view is
// used (an opaque call's result may alias its arguments).
func RewriteDataflowReshape(m *ir.Module) (*ir.Module, error) {
	return mapRelaxFuncs(m, func(fn *ir.Function) (*ir.Function, error) {
		owned := map[*ir.Var]bool{}
		outputs := aliasedOutputs(fn.Body)
		return rewriteCalls(fn, func(vb *ir.VarBinding, c *ir.Call, emit func(ir.Binding)) error {
			if x, out, ok := reshapeOf(c); ok && vb.Var.Dataflow && !outputs[vb.Var] && owned[x] {
				owned[vb.Var] = true
				nc := purePackedCall(builtin.Reshape, []ir.Expr{x, shapeExpr(out.Shape)}, out, c.Loc)
				emit(&ir.VarBinding{Var: vb.Var, Value: nc, Loc: vb.Loc})
				return nil
			}
			switch c.OpName() {
			case "relax.call_dps_packed", "relax.call_tir":
				owned[vb.Var] = true
			}
			emit(vb)
			return nil
		})
	})
}

// aliasedOutputs returns the DataflowVars of seq's dataflow blocks that a
// block output (a variable that is not a DataflowVar) is bound to directly
// (`gv = lv`, as an importer ends a block): a view there would be the
// function's result, a header made on every call on storage made on every
// call (SqueezeNet's final flatten: three allocations a call where a copy
// into the result makes one).
func aliasedOutputs(seq *ir.SeqExpr) map[*ir.Var]bool {
	out := map[*ir.Var]bool{}
	if seq == nil {
		return out
	}
	for bi := len(seq.Blocks) - 1; bi >= 0; bi-- {
		bs := seq.Blocks[bi].Bindings
		for i := len(bs) - 1; i >= 0; i-- {
			vb, ok := bs[i].(*ir.VarBinding)
			if !ok {
				continue
			}
			if v, ok := vb.Value.(*ir.Var); ok && (!vb.Var.Dataflow || out[vb.Var]) {
				out[v] = true
			}
		}
	}
	return out
}

// reshapeOf reports whether c is a destination-passing call of a reshape
// kernel on a tensor variable x to a result of known shape and x's dtype.
func reshapeOf(c *ir.Call) (x *ir.Var, out *ir.TensorSInfo, ok bool) {
	if c.OpName() != "relax.call_dps_packed" || len(c.Args) != 2 || len(c.SInfoArgs) != 1 {
		return nil, nil, false
	}
	ext, ok := c.Args[0].(*ir.ExternFunc)
	permute := ok && ext.Symbol == KernelName("relax.permute_dims")
	if !ok || !reshapeKernels[ext.Symbol] && !permute {
		return nil, nil, false
	}
	args, ok := c.Args[1].(*ir.Tuple)
	if !ok || len(args.Fields) == 0 {
		return nil, nil, false
	}
	x, ok = args.Fields[0].(*ir.Var)
	if !ok {
		return nil, nil, false
	}
	xs, ok := x.Info.(*ir.TensorSInfo)
	out, ok2 := c.SInfoArgs[0].(*ir.TensorSInfo)
	if !ok || !ok2 || out.Shape == nil || xs.DType != out.DType {
		return nil, nil, false
	}
	if permute && (len(args.Fields) != 2 || !keepsOrder(xs, args.Fields[1])) {
		return nil, nil, false
	}
	return x, out, true
}

// keepsOrder reports whether permuting a tensor of x's shape by axes (a
// literal permutation) keeps its elements in their order: the axes of
// extent other than 1 stay in their relative order, as when a transpose
// swaps a batch of one with the sequence ((1, S, D) -> (S, 1, D), which
// PyTorch's attention exports around every layer). Such a permute_dims is a
// reshape. An extent not known to be 1 counts as another.
func keepsOrder(x *ir.TensorSInfo, axes ir.Expr) bool {
	se, ok := axes.(*ir.ShapeExpr)
	if !ok || x.Shape == nil || len(se.Values) != len(x.Shape) {
		return false
	}
	perm, ok := shapeInts(se)
	if !ok {
		return false
	}
	last := int64(-1)
	seen := make([]bool, len(perm))
	for _, a := range perm {
		if a < 0 || a >= int64(len(perm)) || seen[a] {
			return false
		}
		seen[a] = true
		if n, known := ir.AsInt(x.Shape[a]); known && n == 1 {
			continue
		}
		if a < last {
			return false
		}
		last = a
	}
	return true
}
