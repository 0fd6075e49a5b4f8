package lower

import (
	"slices"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// SoftmaxAttentionKernel is the fused kernel FuseAttention targets.
const SoftmaxAttentionKernel = KernelPrefix + "relaxgo.softmax_attention"

// Scale and mask operations of the fused attention kernel's scale_op and
// mask_op arguments (the kernels package's AttentionNoScale... and
// AttentionNoMask... constants).
const (
	attentionNoScale  = 0
	attentionMultiply = 1
	attentionDivide   = 2

	attentionNoMask    = 0
	attentionAddMask   = 1 // scores + mask
	attentionMaskAdd   = 2 // mask + scores
	attentionWhereFill = 3 // where(mask, fill, scores)
	attentionWhereKeep = 4 // where(mask, scores, fill)
)

// FuseAttention merges a decomposed attention, as frontends print it after
// legalization,
//
//	s = matmul(a, b); [s = s * c | s / c;] [s = s + m | m + s | where(w, f, s) | where(w, s, f);]
//	p = softmax(s, axis=-1); o = matmul(p, v)
//
// (c and f one-element float32 tensors, m a float32 and w a bool tensor that
// broadcast to the scores), into one call of the fused attention
// kernel, which runs a block of score rows at a time through the same
// kernels in the same order (so results do not change) without writing the
// scores out whole. Every tensor is float32 with the same rank and batch
// dimensions (no broadcasting), the matmuls keep their input dtype, and
// the intermediates have no other uses and sit in the same binding block.
// A head split around it, as frontends print one (rank 4: q and v permuted
// (B, T, H, F) -> (B, H, T, F), the result permuted back to (B, T, H, F);
// rank 3, PyTorch's multi-head attention: (T, G, F) -> (G, T, F) and back),
// is read and written in place by the kernel (its layout argument) where a
// permute has no other use, and those permute_dims go. (The keys' permute,
// a transposition, stays: see kernels.AttentionTokenMajorA.)
// Runs after Legalize.
func FuseAttention(m *ir.Module) (*ir.Module, error) {
	if _, ok := runtime.Lookup(SoftmaxAttentionKernel); !ok {
		return m, nil
	}
	return mapRelaxFuncs(m, func(fn *ir.Function) (*ir.Function, error) {
		uses := useCounts(fn)
		def, block := bindingIndex(fn)
		// single returns the kernel call defining x when x is a variable
		// used once, bound in blk.
		single := func(x ir.Expr, blk *ir.BindingBlock) (*ir.Var, string, *ir.Tuple, bool) {
			v, ok := x.(*ir.Var)
			if !ok || uses[v] != 1 || block[v] != blk {
				return nil, "", nil, false
			}
			name, args, ok := kernelCall(def[v])
			return v, name, args, ok
		}
		// headPermute returns, for x bound in blk to a head split's
		// permute_dims (headSplitAxes) used only once, its variable and
		// the tensor permuted.
		headPermute := func(x ir.Expr, blk *ir.BindingBlock) (*ir.Var, ir.Expr, bool) {
			pv, name, args, ok := single(x, blk)
			if !ok || name != KernelName("relax.permute_dims") || len(args.Fields) != 2 || !headSplitAxes(args.Fields[1], args.Fields[0].SInfo()) {
				return nil, nil, false
			}
			return pv, args.Fields[0], true
		}
		fused := map[*ir.Var]*ir.Tuple{}
		drop := map[*ir.Var]bool{}
		// permuteUses maps a variable to the variable bound to its
		// permute_dims back to token-major, (B, H, T, F) -> (B, T, H, F).
		permuteUses := map[*ir.Var]*ir.Var{}
		for _, blk := range allBlocks(fn.Body) {
			for _, b := range blk.Bindings {
				if name, args, ok := kernelCall(b.BoundValue()); ok && name == KernelName("relax.permute_dims") && len(args.Fields) == 2 {
					if x, ok := args.Fields[0].(*ir.Var); ok && headSplitAxes(args.Fields[1], x.Info) {
						permuteUses[x] = b.BoundVar()
					}
				}
			}
		}
		for _, blk := range allBlocks(fn.Body) {
			for _, b := range blk.Bindings {
				o := b.BoundVar()
				name, args, ok := kernelCall(b.BoundValue())
				if !ok || name != KernelName("relax.matmul") || !attentionMatmul(args) {
					continue
				}
				pv, pname, pargs, ok := single(args.Fields[0], blk)
				if !ok || pname != KernelName("relax.nn.softmax") || len(pargs.Fields) != 2 || !lastAxis(pargs.Fields[1], pv.Info) {
					continue
				}
				sv, sname, sargs, ok := single(pargs.Fields[0], blk)
				if !ok {
					continue
				}
				scores := pv.Info // the shape the mask must broadcast to
				inter := []*ir.Var{pv}
				// follow steps from the current step back to x's definition
				// (x used once, in this block), keeping the step's variable
				// to drop.
				follow := func(x ir.Expr) bool {
					nv, nname, nargs, ok := single(x, blk)
					if ok {
						inter = append(inter, sv)
						sv, sname, sargs = nv, nname, nargs
					}
					return ok
				}
				// A mask step (softmax's input backwards: the mask comes after
				// the scale).
				var mask, fill ir.Expr = primInt(0), primInt(0)
				mop := int64(attentionNoMask)
				switch f := sargs.Fields; {
				case sname == KernelName("relax.add") && len(f) == 2:
					for i := 0; i < 2; i++ {
						if maskFor(f[1-i].SInfo(), scores, runtime.Float32) && follow(f[i]) {
							mask, mop = f[1-i], attentionAddMask+int64(i)
							break
						}
					}
				case sname == KernelName("relax.where") && len(f) == 3 && maskFor(f[0].SInfo(), scores, runtime.Bool):
					for i := 1; i < 3; i++ {
						// i == 2: where(mask, fill, scores); i == 1: where(mask, scores, fill).
						if isOneF32(f[3-i].SInfo()) && follow(f[i]) {
							mask, fill, mop = f[0], f[3-i], attentionWhereFill+int64(2-i)
							break
						}
					}
				}
				var scale ir.Expr = primInt(0)
				op := int64(attentionNoScale)
				switch f := sargs.Fields; {
				case sname == KernelName("relax.multiply") && len(f) == 2:
					for i := 0; i < 2; i++ {
						if isOneF32(f[1-i].SInfo()) && follow(f[i]) {
							scale, op = f[1-i], attentionMultiply
							break
						}
					}
				case sname == KernelName("relax.divide") && len(f) == 2 && isOneF32(f[1].SInfo()):
					// Only scores / c (c / scores is another operation).
					if follow(f[0]) {
						scale, op = f[1], attentionDivide
					}
				}
				if sname != KernelName("relax.matmul") || !attentionMatmul(sargs) {
					continue
				}
				a, bm, v := sargs.Fields[0], sargs.Fields[1], args.Fields[1]
				if !sameBatch(a.SInfo(), bm.SInfo(), v.SInfo(), o.Info) {
					continue
				}
				for _, x := range append(inter, sv) {
					drop[x] = true
				}
				// Head splits the kernel reads in place: an operand made
				// head-major by a permute_dims used only here is read
				// token-major instead, and a permute of the output back to
				// token-major is the kernel's own output.
				layout := int64(0)
				if pv, x, ok := headPermute(a, blk); ok {
					a, layout = x, layout|attentionTokenMajorA
					drop[pv] = true
				}
				if pv, x, ok := headPermute(v, blk); ok {
					v, layout = x, layout|attentionTokenMajorV
					drop[pv] = true
				}
				call := []ir.Expr{a, bm, v, scale, primInt(op), mask, fill, primInt(mop), primInt(layout)}
				if pv, ok := permuteUses[o]; ok && uses[o] == 1 && block[pv] == blk {
					call[8] = primInt(layout | attentionTokenMajorOut)
					fused[pv] = tupleExpr(call)
					drop[o] = true
					continue
				}
				fused[o] = tupleExpr(call)
			}
		}
		if len(fused) == 0 {
			return fn, nil
		}
		return rewriteFused(fn, SoftmaxAttentionKernel, drop, fused)
	})
}

// Operand layout bits of the fused attention kernel's layout argument
// (the kernels package's AttentionTokenMajor... constants).
const (
	attentionTokenMajorA   = 1
	attentionTokenMajorV   = 2
	attentionTokenMajorOut = 4
)

// headSplitAxes reports whether axes, a permute_dims' of a float32 tensor
// x, are a head split's: (B, T, H, F) -> (B, H, T, F) for rank 4, (T, G,
// F) -> (G, T, F) for rank 3; each is its own inverse (the output's
// permute back).
func headSplitAxes(axes ir.Expr, x ir.StructInfo) bool {
	t, ok := x.(*ir.TensorSInfo)
	se, ok2 := axes.(*ir.ShapeExpr)
	if !ok || !ok2 || !isF32Tensor(t) {
		return false
	}
	got, ok := shapeInts(se)
	if !ok {
		return false
	}
	switch len(t.Shape) {
	case 4:
		return slices.Equal(got, []int64{0, 2, 1, 3})
	case 3:
		return slices.Equal(got, []int64{1, 0, 2})
	}
	return false
}

// attentionMatmul reports whether a legalized matmul's arguments are two
// float32 tensors of one rank >= 2 and an out_dtype that keeps float32.
func attentionMatmul(args *ir.Tuple) bool {
	if len(args.Fields) != 3 {
		return false
	}
	dt, ok := args.Fields[2].(*ir.DataTypeImm)
	if !ok || !(dt.Value.IsVoid() || dt.Value == runtime.Float32) {
		return false
	}
	a, ok1 := args.Fields[0].SInfo().(*ir.TensorSInfo)
	b, ok2 := args.Fields[1].SInfo().(*ir.TensorSInfo)
	return ok1 && ok2 && isF32Tensor(a) && isF32Tensor(b) && len(a.Shape) >= 2 && len(a.Shape) == len(b.Shape)
}

// lastAxis reports whether axis (a softmax's) is the last axis of x.
func lastAxis(axis ir.Expr, x ir.StructInfo) bool {
	p, ok := axis.(*ir.PrimValue)
	t, ok2 := x.(*ir.TensorSInfo)
	if !ok || !ok2 || t.Shape == nil {
		return false
	}
	ax, ok := ir.AsInt(p.Value)
	return ok && (ax == -1 || ax == int64(len(t.Shape)-1))
}

// isOneF32 reports whether s is a float32 tensor of one element.
func isOneF32(s ir.StructInfo) bool {
	t, ok := s.(*ir.TensorSInfo)
	if !ok || t.DType != runtime.Float32 || t.Shape == nil {
		return false
	}
	for _, d := range t.Shape {
		if v, ok := ir.AsInt(d); !ok || v != 1 {
			return false
		}
	}
	return true
}

// sameBatch reports whether a (..., M, K), b (..., K, N), v (..., N, D)
// and out (..., M, D) have one rank and equal batch dimensions.
func sameBatch(a, b, v, out ir.StructInfo) bool {
	ts := make([]*ir.TensorSInfo, 4)
	for i, s := range []ir.StructInfo{a, b, v, out} {
		t, ok := s.(*ir.TensorSInfo)
		if !ok || !isF32Tensor(t) || len(t.Shape) < 2 || (i > 0 && len(t.Shape) != len(ts[0].Shape)) {
			return false
		}
		ts[i] = t
	}
	r := len(ts[0].Shape)
	for _, t := range ts[1:] {
		for i := 0; i < r-2; i++ {
			if !ir.ProveEqual(ts[0].Shape[i], t.Shape[i]) {
				return false
			}
		}
	}
	as, bs, vs, os := ts[0].Shape, ts[1].Shape, ts[2].Shape, ts[3].Shape
	return ir.ProveEqual(as[r-1], bs[r-2]) && ir.ProveEqual(bs[r-1], vs[r-2]) &&
		ir.ProveEqual(as[r-2], os[r-2]) && ir.ProveEqual(vs[r-1], os[r-1])
}

// maskFor reports whether s is a dt tensor that broadcasts to scores
// (each axis 1 or the scores' own, no more axes).
func maskFor(s, scores ir.StructInfo, dt runtime.DataType) bool {
	m, ok := s.(*ir.TensorSInfo)
	t, ok2 := scores.(*ir.TensorSInfo)
	if !ok || !ok2 || m.DType != dt || m.Shape == nil || t.Shape == nil || len(m.Shape) > len(t.Shape) {
		return false
	}
	for i, d := range m.Shape {
		td := t.Shape[i+len(t.Shape)-len(m.Shape)]
		if v, ok := ir.AsInt(d); !(ok && v == 1) && !ir.ProveEqual(d, td) {
			return false
		}
	}
	return true
}
