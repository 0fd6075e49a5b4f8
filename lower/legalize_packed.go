package lower

import "github.com/relaxgo/relaxgo/ir"

// packedOps are ops whose output shape depends on the values of their inputs,
// so the output cannot be preallocated: they are legalized, as TVM does
// (nonzero's FCallPacked, tensor_to_shape's builtin), to a call_pure_packed
// of a function that allocates and returns its result. The result has the
// op's struct info (rank and dtype, no shape); later ops that need its shape
// need a match_cast, as in TVM.
var packedOps = map[string]string{
	"relax.nonzero":               "kernels.relaxgo.nonzero",
	"relax.dynamic_strided_slice": "kernels.relaxgo.dynamic_strided_slice",
	"relax.tensor_to_shape":       "vm.builtin.tensor_to_shape",
}

func legalizePacked(c *ir.Call, v *ir.Var, fn string) *ir.Call {
	out := c.SInfo()
	if out == nil {
		out = v.Info
	}
	return purePackedCall(fn, c.Args, out, c.Loc)
}

// purePackedCall is R.call_pure_packed(symbol, args..., sinfo_args=out).
func purePackedCall(symbol string, args []ir.Expr, out ir.StructInfo, loc ir.Span) *ir.Call {
	nc := &ir.Call{Callee: &ir.Op{Name: "relax.call_pure_packed"}, Args: append([]ir.Expr{externFunc(symbol)}, args...), SInfoArgs: []ir.StructInfo{out}}
	nc.Info, nc.Loc = out, loc
	return nc
}
