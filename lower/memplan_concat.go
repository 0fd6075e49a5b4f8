package lower

import (
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// ConcatKernel is the kernel a legalized R.concat calls: its arguments are
// the tensors (or one tuple of them), the axis and the output.
const ConcatKernel = "kernels.concat"

// concatAlign is the byte alignment a part's place in its concatenation
// must have: storage is 64-byte aligned, and a part placed at a multiple of
// 64 keeps the alignment its own allocation would have had.
const concatAlign = 64

// concatPlan is a concatenation done in place: each part's allocation is a
// view of the output's storage at its offset, so the producers write their
// results where the concatenation would have copied them, and the copy is
// dropped.
type concatPlan struct {
	out   *ir.Var   // the output's allocation
	parts []*ir.Var // the parts' allocations, in order
	offs  []int64   // their byte offsets in the output
	call  ir.Binding
}

// planConcats finds the concatenations among the top-level bindings bs that
// can be done in place: the output and every part are allocations the
// planner owns (static shape, not escaping), distinct and in no other such
// concatenation; every part's last use is the concatenation; each part is a
// contiguous block of the output (the dimensions before the axis are all
// 1, as a batch of one concatenated along channels is) at an aligned offset.
// The producers then write into the output's storage directly. The bits do
// not change: the same values land at the same places, without the copy.
func planConcats(bs []ir.Binding, al *aliasInfo, allocAt, lastUse map[*ir.Var]int, planned []*ir.Var) []concatPlan {
	own := map[*ir.Var]bool{}
	for _, t := range planned {
		own[t] = true
	}
	used := map[*ir.Var]bool{}
	single := func(v ir.Expr) *ir.Var {
		x, ok := v.(*ir.Var)
		if !ok || len(al.of[x]) != 1 {
			return nil
		}
		for t := range al.of[x] {
			if own[t] && !used[t] {
				return t
			}
		}
		return nil
	}
	var plans []concatPlan
	for i, b := range bs {
		c, ok := b.BoundValue().(*ir.Call)
		if !ok {
			continue
		}
		if ext, ok := c.Callee.(*ir.ExternFunc); !ok || ext.Symbol != ConcatKernel || len(c.Args) < 3 {
			continue
		}
		n := len(c.Args)
		ins := c.Args[:n-2]
		if t, ok := ins[0].(*ir.Tuple); ok && len(ins) == 1 {
			ins = t.Fields
		}
		out := single(c.Args[n-1])
		axis, ok := intArg(c.Args[n-2])
		if out == nil || !ok || len(ins) == 0 {
			continue
		}
		p, ok := concatLayout(out, ins, axis, single)
		if !ok {
			continue
		}
		for _, a := range p.parts {
			if lastUse[a] != i || allocAt[a] >= i {
				ok = false
			}
		}
		if !ok {
			continue
		}
		p.call = b
		used[out] = true
		for _, a := range p.parts {
			used[a] = true
		}
		plans = append(plans, p)
	}
	return plans
}

// concatLayout checks that the parts ins (each resolved by part to an
// allocation) tile out along axis as contiguous blocks at aligned offsets,
// and returns their plan.
func concatLayout(out *ir.Var, ins []ir.Expr, axis int64, part func(ir.Expr) *ir.Var) (concatPlan, bool) {
	ots := out.Info.(*ir.TensorSInfo)
	oshape, _ := ots.StaticShape()
	r := int64(len(oshape))
	if axis < 0 {
		axis += r
	}
	if axis < 0 || axis >= r {
		return concatPlan{}, false
	}
	for _, d := range oshape[:axis] {
		if d != 1 {
			return concatPlan{}, false
		}
	}
	p := concatPlan{out: out}
	seen := map[*ir.Var]bool{}
	var off, along int64
	for _, e := range ins {
		a := part(e)
		if a == nil || a == out || seen[a] {
			return concatPlan{}, false
		}
		seen[a] = true
		ts := a.Info.(*ir.TensorSInfo)
		shape, _ := ts.StaticShape()
		if ts.DType != ots.DType || int64(len(shape)) != r || off%concatAlign != 0 {
			return concatPlan{}, false
		}
		for k, d := range shape {
			if int64(k) != axis && d != oshape[k] {
				return concatPlan{}, false
			}
		}
		nb, err := runtime.NumBytes(shape, ts.DType)
		if err != nil {
			return concatPlan{}, false
		}
		p.parts = append(p.parts, a)
		p.offs = append(p.offs, off)
		off += nb
		along += shape[axis]
	}
	return p, along == oshape[axis]
}

// intArg reads an integer literal argument (R.prim_value).
func intArg(e ir.Expr) (int64, bool) {
	pv, ok := e.(*ir.PrimValue)
	if !ok {
		return 0, false
	}
	return ir.AsInt(pv.Value)
}
