package lower

import (
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// MatmulBiasKernel is the fused kernel FuseMatmulEpilogue targets.
const MatmulBiasKernel = KernelPrefix + "relaxgo.matmul_bias"

// kernelCall returns the kernel name and argument tuple of a legalized call
// (R.call_dps_packed("kernels.x", (args...), out)).
func kernelCall(e ir.Expr) (string, *ir.Tuple, bool) {
	c, ok := e.(*ir.Call)
	if !ok || c.OpName() != "relax.call_dps_packed" || len(c.Args) != 2 {
		return "", nil, false
	}
	ext, ok1 := c.Args[0].(*ir.ExternFunc)
	t, ok2 := c.Args[1].(*ir.Tuple)
	if !ok1 || !ok2 {
		return "", nil, false
	}
	return ext.Symbol, t, true
}

// FuseMatmulEpilogue merges a float32 matmul with the bias add that follows
// it (a vector over the last axis), then an add of a tensor of the output's
// shape (a residual connection, either operand order; also straight after a
// product without bias, with 0 for the bias) and a relu, into one call of
// the fused GEMM kernel, which applies them while each output tile
// is in cache. The intermediates must have no other uses and sit in the same
// binding block; a residual add after a relu is not taken (the kernel adds
// it first). The fused kernel performs the same float32 operations, so
// results do not change. Runs after Legalize.
func FuseMatmulEpilogue(m *ir.Module) (*ir.Module, error) {
	if _, ok := runtime.Lookup(MatmulBiasKernel); !ok {
		return m, nil
	}
	return mapRelaxFuncs(m, func(fn *ir.Function) (*ir.Function, error) {
		uses := useCounts(fn)
		def, block := bindingIndex(fn)
		// var -> fused kernel arguments (a, b, out_dtype, bias, relu[,
		// residual, residual_left])
		fused := map[*ir.Var][]ir.Expr{}
		drop := map[*ir.Var]bool{}
		for _, blk := range allBlocks(fn.Body) {
			for _, b := range blk.Bindings {
				v := b.BoundVar()
				name, args, ok := kernelCall(b.BoundValue())
				if !ok {
					continue
				}
				switch name {
				case KernelName("relax.add"):
					if len(args.Fields) != 2 || !isF32Tensor(v.Info) {
						continue
					}
					// A residual on a fused product (no relu yet, no
					// residual yet), the other operand of its shape.
					if fusedResidual(v, args, fused, uses, block, blk, drop) {
						continue
					}
					// A product's bias (a vector over the last axis), else
					// with no bias its residual (a tensor of its shape, 0
					// in the bias's place; a linear layer without bias,
					// then its residual connection).
					for i := 0; i < 2 && fused[v] == nil; i++ {
						mv, margs := soleProduct(args.Fields[i], def, uses, block, blk)
						if mv == nil || !ir.SInfoEqual(mv.Info, v.Info) {
							continue
						}
						other := args.Fields[1-i]
						switch {
						case isBiasFor(other.SInfo(), mv.Info):
							fused[v] = append(append([]ir.Expr{}, margs.Fields...), other, primInt(0))
						case ir.SInfoEqual(other.SInfo(), v.Info):
							left := int64(0)
							if i == 1 {
								left = 1 // add(r, p): the residual is the left operand
							}
							fused[v] = append(append([]ir.Expr{}, margs.Fields...), primInt(0), primInt(0), other, primInt(left))
						default:
							continue
						}
						drop[mv] = true
					}
				case KernelName("relax.nn.relu"):
					if len(args.Fields) != 1 {
						continue
					}
					av, ok := args.Fields[0].(*ir.Var)
					if !ok || fused[av] == nil || uses[av] != 1 || block[av] != blk {
						continue
					}
					f := append([]ir.Expr{}, fused[av]...)
					f[4] = primInt(1)
					fused[v] = f
					delete(fused, av)
					drop[av] = true
				}
			}
		}
		if len(fused) == 0 {
			return fn, nil
		}
		args := make(map[*ir.Var]*ir.Tuple, len(fused))
		for v, a := range fused {
			args[v] = tupleExpr(a)
		}
		return rewriteFused(fn, MatmulBiasKernel, drop, args)
	})
}

// rewriteFused is a fusion pass's rewrite of fn: the bindings of the
// variables in drop disappear, and each variable in fused is bound to
// R.call_dps_packed(symbol, fused[v]) instead, at its binding's position.
func rewriteFused(fn *ir.Function, symbol string, drop map[*ir.Var]bool, fused map[*ir.Var]*ir.Tuple) (*ir.Function, error) {
	return rewriteFusedBy(fn, func(*ir.Var) string { return symbol }, drop, fused)
}

// rewriteFusedBy is rewriteFused with each variable's kernel given by
// symbolOf.
func rewriteFusedBy(fn *ir.Function, symbolOf func(*ir.Var) string, drop map[*ir.Var]bool, fused map[*ir.Var]*ir.Tuple) (*ir.Function, error) {
	return rewriteFunction(fn, func(b ir.Binding, emit func(ir.Binding)) error {
		v := b.BoundVar()
		if drop[v] {
			return nil
		}
		if args, ok := fused[v]; ok {
			emit(&ir.VarBinding{Var: v, Value: dpsCall(symbolOf(v), args, v.Info, b.Pos()), Loc: b.Pos()})
			return nil
		}
		emit(b)
		return nil
	})
}

// bindingIndex maps each variable bound in fn's body to its value and to
// the binding block that binds it.
func bindingIndex(fn *ir.Function) (map[*ir.Var]ir.Expr, map[*ir.Var]*ir.BindingBlock) {
	def := map[*ir.Var]ir.Expr{}
	block := map[*ir.Var]*ir.BindingBlock{}
	for _, blk := range allBlocks(fn.Body) {
		for _, b := range blk.Bindings {
			def[b.BoundVar()] = b.BoundValue()
			block[b.BoundVar()] = blk
		}
	}
	return def, block
}

// useCounts counts the uses of each variable in fn's body.
func useCounts(fn *ir.Function) map[*ir.Var]int {
	uses := map[*ir.Var]int{}
	visitVars(fn.Body, func(v *ir.Var) { uses[v]++ })
	return uses
}

func isF32Tensor(s ir.StructInfo) bool {
	t, ok := s.(*ir.TensorSInfo)
	return ok && t.DType == runtime.Float32 && t.Shape != nil && len(t.Shape) >= 1
}

// isBiasFor reports whether bias is a float32 vector as long as out's last axis.
// fusedResidual fuses add(p, r) or add(r, p), binding v, into the fused
// product p's arguments when p has no relu or residual yet, no other use, sits
// fusedRelu reports whether fused kernel arguments f apply relu (their
// relu argument, f[4], is 1).
func fusedRelu(f []ir.Expr) bool {
	p, ok := f[4].(*ir.PrimValue)
	if !ok {
		return false
	}
	n, ok := ir.AsInt(p.Value)
	return ok && n == 1
}

// in blk, and r has v's type; it reports whether it did.
func fusedResidual(v *ir.Var, args *ir.Tuple, fused map[*ir.Var][]ir.Expr, uses map[*ir.Var]int, block map[*ir.Var]*ir.BindingBlock, blk *ir.BindingBlock, drop map[*ir.Var]bool) bool {
	for i := 0; i < 2; i++ {
		pv, ok := args.Fields[i].(*ir.Var)
		if !ok || len(fused[pv]) != 5 || fusedRelu(fused[pv]) || uses[pv] != 1 || block[pv] != blk {
			continue
		}
		res := args.Fields[1-i]
		if !ir.SInfoEqual(res.SInfo(), v.Info) || !ir.SInfoEqual(pv.Info, v.Info) {
			continue
		}
		left := int64(0)
		if i == 1 {
			left = 1 // add(r, p): the residual is the left operand
		}
		fused[v] = append(append([]ir.Expr{}, fused[pv]...), res, primInt(left))
		delete(fused, pv)
		drop[pv] = true
		return true
	}
	return false
}

// soleProduct returns the float32 matmul bound to e (and its arguments)
// when e is a variable used only there, in block blk; else nil.
func soleProduct(e ir.Expr, def map[*ir.Var]ir.Expr, uses map[*ir.Var]int, block map[*ir.Var]*ir.BindingBlock, blk *ir.BindingBlock) (*ir.Var, *ir.Tuple) {
	mv, ok := e.(*ir.Var)
	if !ok || uses[mv] != 1 || block[mv] != blk {
		return nil, nil
	}
	name, margs, ok := kernelCall(def[mv])
	if !ok || name != KernelName("relax.matmul") || len(margs.Fields) != 3 || !isF32Tensor(mv.Info) {
		return nil, nil
	}
	return mv, margs
}

func isBiasFor(bias, out ir.StructInfo) bool {
	b, ok := bias.(*ir.TensorSInfo)
	o, ok2 := out.(*ir.TensorSInfo)
	if !ok || !ok2 || b.DType != runtime.Float32 || len(b.Shape) != 1 || len(o.Shape) == 0 {
		return false
	}
	return ir.ProveEqual(b.Shape[0], o.Shape[len(o.Shape)-1])
}
