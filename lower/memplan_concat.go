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
	// prefixes are earlier concatenations whose parts are a leading run
	// of this one's (a dense block's: each layer's input is the one
	// before's plus one more feature map): their outputs become views of
	// this output's storage at offset 0, where those parts already lie,
	// and their calls are dropped too.
	prefixes    []*ir.Var
	prefixCalls []ir.Binding
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
	// alloc resolves an argument to the one planned allocation it is;
	// single to one not yet in a plan.
	alloc := func(v ir.Expr) *ir.Var {
		x, ok := v.(*ir.Var)
		if !ok || len(al.of[x]) != 1 {
			return nil
		}
		for t := range al.of[x] {
			if own[t] {
				return t
			}
		}
		return nil
	}
	single := func(v ir.Expr) *ir.Var {
		if t := alloc(v); t != nil && !used[t] {
			return t
		}
		return nil
	}
	cands := concatCandidates(bs)
	prefixChains(cands)
	var plans []concatPlan
	for _, cd := range cands {
		if cd.next >= 0 {
			continue // planned, if at all, as a prefix of a later one
		}
		i := cd.at
		out := single(cd.out)
		if out == nil || len(cd.ins) == 0 {
			continue
		}
		p, ok := concatLayout(out, cd.ins, cd.axis, single)
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
		p.call = bs[i]
		used[out] = true
		for _, a := range p.parts {
			used[a] = true
		}
		// The concatenations before whose parts lead this one's, latest
		// first, while each output is a planner's allocation made before
		// its call, read for the last time before this concatenation (the
		// storage lives to this output's last use) and tiled by its parts
		// as this output's first bytes are (concatLayout: the same parts
		// in the same order from offset 0).
		for k := cd.prev; k >= 0; k = cands[k].prev {
			pk := cands[k]
			o := single(pk.out)
			if o == nil || allocAt[o] >= pk.at || lastUse[o] >= i {
				break
			}
			if _, ok := concatLayout(o, pk.ins, pk.axis, alloc); !ok {
				break
			}
			used[o] = true
			p.prefixes = append(p.prefixes, o)
			p.prefixCalls = append(p.prefixCalls, bs[pk.at])
		}
		plans = append(plans, p)
	}
	return plans
}

// concatCand is a kernels.concat call at binding at: its parts, axis and
// output argument.
type concatCand struct {
	at   int
	ins  []ir.Expr
	axis int64
	out  ir.Expr
	// next and prev link the candidate to the one whose parts extend its
	// own and to the one whose parts its own extend (-1: none).
	next, prev int
}

// concatCandidates returns the concatenations among bs with a literal axis.
func concatCandidates(bs []ir.Binding) []concatCand {
	var cands []concatCand
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
		axis, ok := intArg(c.Args[n-2])
		if !ok {
			continue
		}
		cands = append(cands, concatCand{at: i, ins: ins, axis: axis, out: c.Args[n-1], next: -1, prev: -1})
	}
	return cands
}

// prefixChains links each candidate to the first later one whose parts
// begin with all of its parts (the same variables in the same order, one
// more at least) along the same axis, each candidate to at most one on
// either side (concatCand's next and prev).
func prefixChains(cands []concatCand) {
	for k := range cands {
		for j := k + 1; j < len(cands); j++ {
			if cands[j].prev < 0 && cands[j].axis == cands[k].axis && leadingVars(cands[k].ins, cands[j].ins) {
				cands[k].next, cands[j].prev = j, k
				break
			}
		}
	}
}

// leadingVars reports whether long begins with every expression of short,
// the same variables, and has more.
func leadingVars(short, long []ir.Expr) bool {
	if len(short) == 0 || len(long) <= len(short) {
		return false
	}
	for i, e := range short {
		v, ok := e.(*ir.Var)
		if !ok || long[i] != ir.Expr(v) {
			return false
		}
	}
	return true
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
