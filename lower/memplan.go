package lower

import (
	"fmt"
	"sort"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// PlanAttr is the function attribute where StaticPlanBlockMemory records what
// it planned, for debug dumps.
const PlanAttr = "relaxgo.memory_plan"

// flatBindings lists the top-level bindings of a function body in order.
func flatBindings(seq *ir.SeqExpr) []ir.Binding {
	var out []ir.Binding
	for _, blk := range seq.Blocks {
		out = append(out, blk.Bindings...)
	}
	return out
}

// aliasInfo tracks, for every variable, which candidate allocations its value
// may hold (directly, in a tuple, or through an opaque call's result).
type aliasInfo struct {
	of map[*ir.Var]map[*ir.Var]bool
}

func (a *aliasInfo) add(v *ir.Var, ts map[*ir.Var]bool) {
	if len(ts) == 0 {
		return
	}
	s := a.of[v]
	if s == nil {
		s = map[*ir.Var]bool{}
		a.of[v] = s
	}
	for t := range ts {
		s[t] = true
	}
}

// readsOf collects the allocations reachable from the variables e reads.
func (a *aliasInfo) readsOf(e ir.Expr) map[*ir.Var]bool {
	out := map[*ir.Var]bool{}
	visitVars(e, func(v *ir.Var) {
		for t := range a.of[v] {
			out[t] = true
		}
	})
	return out
}

type storagePlan struct {
	v       *ir.Var
	size    int64
	freeAt  int // index of the last use of its current occupant
	tensors []*ir.Var
}

// StaticPlanBlockMemory lets tensors whose lifetimes do not overlap share
// storage. Allocations of static shape at a function's top level that do not
// flow into the result are planned: each gets a storage (created at function
// entry, sized to the largest tensor it ever holds) and becomes
// R.memory.alloc_tensor(storage, 0, shape, dtype). Allocations of symbolic
// shape, inside If branches, or reaching the result are left to
// LowerAllocTensor.
func StaticPlanBlockMemory(m *ir.Module) (*ir.Module, error) {
	return mapRelaxFuncs(m, func(fn *ir.Function) (*ir.Function, error) {
		bs := flatBindings(fn.Body)
		al := &aliasInfo{of: map[*ir.Var]map[*ir.Var]bool{}}
		allocAt := map[*ir.Var]int{}
		lastUse := map[*ir.Var]int{}
		var candidates []*ir.Var
		for i, b := range bs {
			v := b.BoundVar()
			if c, ok := b.BoundValue().(*ir.Call); ok && c.OpName() == "relax.builtin.alloc_tensor" {
				if ts, ok := v.Info.(*ir.TensorSInfo); ok {
					if _, static := ts.StaticShape(); static {
						candidates = append(candidates, v)
						allocAt[v] = i
						al.add(v, map[*ir.Var]bool{v: true})
						continue
					}
				}
			}
			reads := al.readsOf(b.BoundValue())
			for t := range reads {
				lastUse[t] = i
			}
			al.add(v, reads)
		}
		escapes := al.readsOf(fn.Body.Body)
		var planned []*ir.Var
		for _, t := range candidates {
			if !escapes[t] {
				planned = append(planned, t)
			}
		}
		if len(planned) == 0 {
			return fn, nil
		}
		// Concatenations done in place: a part's allocation becomes a view
		// of its output's storage, which then lives from the first part's
		// allocation on.
		type place struct {
			out *ir.Var
			off int64
		}
		in := map[*ir.Var]place{}
		drop := map[ir.Binding]bool{}
		plans := planConcats(bs, al, allocAt, lastUse, planned)
		for _, p := range plans {
			for k, a := range p.parts {
				in[a] = place{p.out, p.offs[k]}
				allocAt[p.out] = min(allocAt[p.out], allocAt[a])
			}
			for k, o := range p.prefixes {
				in[o] = place{p.out, 0}
				allocAt[p.out] = min(allocAt[p.out], allocAt[o])
				drop[p.prefixCalls[k]] = true
			}
			drop[p.call] = true
		}
		if len(plans) > 0 {
			var kept []*ir.Var
			for _, t := range planned {
				if _, ok := in[t]; !ok {
					kept = append(kept, t)
				}
			}
			planned = kept
			sort.SliceStable(planned, func(a, b int) bool { return allocAt[planned[a]] < allocAt[planned[b]] })
		}
		nm := newNamer(fn)
		var storages []*storagePlan
		home := map[*ir.Var]*storagePlan{}
		var plannedBytes, tensorBytes int64
		for _, t := range planned {
			ts := t.Info.(*ir.TensorSInfo)
			shape, _ := ts.StaticShape()
			need, err := runtime.NumBytes(shape, ts.DType)
			if err != nil {
				return nil, posErr(t.Loc, "allocation %s: %v", t.Name, err)
			}
			tensorBytes += need
			at := allocAt[t]
			// Best fit among free storages; else grow the largest free one; else a new one.
			var best, largest *storagePlan
			for _, s := range storages {
				if s.freeAt >= at {
					continue
				}
				if s.size >= need && (best == nil || s.size < best.size) {
					best = s
				}
				if largest == nil || s.size > largest.size {
					largest = s
				}
			}
			if best == nil {
				best = largest
			}
			if best == nil {
				best = &storagePlan{v: newVar(nm.fresh(fmt.Sprintf("storage%d", len(storages))), &ir.ObjectSInfo{}, t.Loc)}
				storages = append(storages, best)
			}
			if need > best.size {
				best.size = need
			}
			last, used := lastUse[t]
			if !used {
				last = at
			}
			best.freeAt = last
			best.tensors = append(best.tensors, t)
			home[t] = best
		}
		entry := &ir.BindingBlock{}
		for _, s := range storages {
			plannedBytes += s.size
			entry.Bindings = append(entry.Bindings, bind(s.v, allocStorage(shapeExpr([]ir.PrimExpr{ir.Int64(s.size)}), runtime.UInt8, ir.Span{}), ir.Span{}))
		}
		nf, err := rewriteFunction(fn, func(b ir.Binding, emit func(ir.Binding)) error {
			if drop[b] {
				return nil // a concatenation done in place
			}
			s, ok := home[b.BoundVar()]
			var off int64
			if pl, part := in[b.BoundVar()]; part {
				s, ok, off = home[pl.out], true, pl.off
			}
			if !ok {
				emit(b)
				return nil
			}
			ts := b.BoundVar().Info.(*ir.TensorSInfo)
			c := opCall("relax.memory.alloc_tensor", ts, b.Pos(), s.v, primInt(off), shapeExpr(ts.Shape), dtypeImm(ts.DType))
			emit(&ir.VarBinding{Var: b.BoundVar(), Value: c, Loc: b.Pos()})
			return nil
		})
		if err != nil {
			return nil, err
		}
		nb := *nf.Body
		nb.Blocks = append([]*ir.BindingBlock{entry}, nb.Blocks...)
		nf.Body = &nb
		inPlace := ""
		if len(plans) > 0 {
			n := len(plans)
			for _, p := range plans {
				n += len(p.prefixes)
			}
			inPlace = fmt.Sprintf("; %d concatenations in place", n)
		}
		nf.Attrs = nf.Attrs.Set(PlanAttr, fmt.Sprintf("%d tensors (%d bytes) in %d storages (%d bytes)%s; %d allocations left unplanned",
			len(planned), tensorBytes, len(storages), plannedBytes, inPlace, countAllocs(nf)))
		return nf, nil
	})
}

func countAllocs(fn *ir.Function) int {
	n := 0
	forEachBinding(fn.Body, func(b ir.Binding) {
		if c, ok := b.BoundValue().(*ir.Call); ok && c.OpName() == "relax.builtin.alloc_tensor" {
			n++
		}
	})
	return n
}

// allocStorage is R.memory.alloc_storage(size, R.prim_value(0), R.str("global"), R.dtype(dt)).
func allocStorage(size *ir.ShapeExpr, dt ir.DataType, loc ir.Span) *ir.Call {
	return opCall("relax.memory.alloc_storage", &ir.ObjectSInfo{}, loc, size, primInt(0), strImm("global"), dtypeImm(dt))
}

// LowerAllocTensor turns each remaining R.builtin.alloc_tensor into a storage
// of the tensor's (possibly symbolic) byte size and a tensor over it.
func LowerAllocTensor(m *ir.Module) (*ir.Module, error) {
	return mapRelaxFuncs(m, func(fn *ir.Function) (*ir.Function, error) {
		nm := newNamer(fn)
		return rewriteFunction(fn, func(b ir.Binding, emit func(ir.Binding)) error {
			c, ok := b.BoundValue().(*ir.Call)
			if !ok || c.OpName() != "relax.builtin.alloc_tensor" {
				emit(b)
				return nil
			}
			ts, ok := b.BoundVar().Info.(*ir.TensorSInfo)
			if !ok || ts.Shape == nil {
				return posErr(b.Pos(), "alloc_tensor %s: shape unknown", b.BoundVar().Name)
			}
			var size ir.PrimExpr = ir.Int64(int64(ts.DType.ElemBytes()))
			for _, d := range ts.Shape {
				size = &ir.Binary{Op: ir.OpMul, A: size, B: d}
			}
			size = ir.Simplify(size)
			sv := newVar(nm.fresh("storage_"+b.BoundVar().Name), &ir.ObjectSInfo{}, b.Pos())
			// The size is in bytes, so the storage's element type is uint8
			// (vm.builtin.alloc_storage sizes storage as shape x dtype bytes).
			emit(bind(sv, allocStorage(shapeExpr([]ir.PrimExpr{size}), runtime.UInt8, b.Pos()), b.Pos()))
			tc := opCall("relax.memory.alloc_tensor", ts, b.Pos(), sv, primInt(0), shapeExpr(ts.Shape), dtypeImm(ts.DType))
			emit(&ir.VarBinding{Var: b.BoundVar(), Value: tc, Loc: b.Pos()})
			return nil
		})
	})
}

// KillAfterLastUse clears registers as soon as their values are dead: after
// the last top-level use of a variable (not a parameter, not part of the
// result) it emits R.vm.kill_object(v). Storage itself is recycled by the VM
// when the function returns (pooled storages that do not escape through the
// result go back to the allocator), so steady-state calls reuse memory.
func KillAfterLastUse(m *ir.Module) (*ir.Module, error) {
	return mapRelaxFuncs(m, func(fn *ir.Function) (*ir.Function, error) {
		bs := flatBindings(fn.Body)
		idx := map[ir.Binding]int{}
		last := map[*ir.Var]int{}
		defined := map[*ir.Var]bool{}
		for i, b := range bs {
			idx[b] = i
			defined[b.BoundVar()] = true
			visitVars(b.BoundValue(), func(v *ir.Var) { last[v] = i })
		}
		live := map[*ir.Var]bool{}
		visitVars(fn.Body.Body, func(v *ir.Var) { live[v] = true })
		kills := map[int][]ir.Binding{}
		for v, i := range last {
			if !defined[v] || live[v] || isVoid(v) {
				continue
			}
			kills[i] = append(kills[i], bind(newVar("_", ir.VoidSInfo(), ir.Span{}), opCall("relax.vm.kill_object", ir.VoidSInfo(), ir.Span{}, v), ir.Span{}))
		}
		for i := range kills {
			sort.Slice(kills[i], func(a, b int) bool {
				return killedName(kills[i][a]) < killedName(kills[i][b])
			})
		}
		return rewriteTop(fn, func(b ir.Binding, emit func(ir.Binding)) error {
			emit(b)
			if i, ok := idx[b]; ok {
				for _, k := range kills[i] {
					emit(k)
				}
			}
			return nil
		})
	})
}

func killedName(b ir.Binding) string {
	return b.BoundValue().(*ir.Call).Args[0].(*ir.Var).Name
}

func isVoid(v *ir.Var) bool {
	t, ok := v.Info.(*ir.TupleSInfo)
	return ok && len(t.Fields) == 0
}

// rewriteTop is rewriteFunction for top-level bindings only (If branches untouched).
func rewriteTop(fn *ir.Function, f bindingRewriter) (*ir.Function, error) {
	nb := &ir.SeqExpr{ExprBase: fn.Body.ExprBase, Body: fn.Body.Body}
	for _, blk := range fn.Body.Blocks {
		out := &ir.BindingBlock{Dataflow: blk.Dataflow, Loc: blk.Loc}
		for _, b := range blk.Bindings {
			if err := f(b, func(x ir.Binding) { out.Bindings = append(out.Bindings, x) }); err != nil {
				return nil, err
			}
		}
		nb.Blocks = append(nb.Blocks, out)
	}
	nf := *fn
	nf.Body = nb
	return &nf, nil
}
