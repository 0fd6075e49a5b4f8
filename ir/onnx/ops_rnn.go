package onnx

import (
	"fmt"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// RNN, GRU and LSTM unrolled over a static sequence length, with the default
// activations (sigmoid/tanh), forward, reverse or bidirectional, layout 0 or 1.
// sequence_lens must be absent or all equal to the sequence length.
//
// The input projection is hoisted out of the recurrence: per direction, one
// matmul of all S*B rows of X, flattened to (S*B, I), with Wᵀ, plus the
// combined bias Wb + Rb (a constant after folding when B is an initializer)
// gives every step's input part; step t takes its B rows with one slice (rows
// t*B.. for layout 0, every S-th row from t for layout 1, where X is
// (B, S, I)). A step adds one recurrent product h·Rᵀ to its input part and
// takes the gates out of the sum (one split where it needs several of them);
// one sigmoid covers the sigmoid gates first (LSTM without peepholes: all
// four, c's result unused; GRU: z and r). GRU's z and r take R's first 2H rows, its h gate the last H rows
// (transposed once, outside the loop): tanh(x_h + (r⊙h)·Rhᵀ) with Rbh in the
// combined bias by default, tanh(x_h + r⊙(h·Rhᵀ + Rbh)) with
// linear_before_reset=1, where Rbh stays with the recurrent term and the
// combined bias has zeros in its place. With one direction the outputs get
// their direction axis by expand_dims instead of a one-element stack.

func init() {
	Register("RNN", 7, convRecurrent("RNN", 1))
	Register("GRU", 7, convRecurrent("GRU", 3))
	Register("LSTM", 7, convRecurrent("LSTM", 4))
}

func convRecurrent(kind string, gates int64) ConvFunc {
	return func(c *Ctx, n *Node) ([]*Value, error) {
		if err := needInputs(n, 3); err != nil {
			return nil, err
		}
		if acts := n.Strs("activations", nil); acts != nil {
			def := map[string][]string{"RNN": {"Tanh"}, "GRU": {"Sigmoid", "Tanh"}, "LSTM": {"Sigmoid", "Tanh", "Tanh"}}[kind]
			for i, a := range acts {
				if a != def[i%len(def)] {
					return nil, n.unsupported("activations %v", acts)
				}
			}
		}
		if n.Has("clip") {
			return nil, n.unsupported("clip")
		}
		if n.Int("input_forget", 0) != 0 {
			return nil, n.unsupported("input_forget=1")
		}
		x, w, r := n.In[0], n.In[1], n.In[2]
		layout := n.Int("layout", 0)
		f := &formula{c: c}
		xd, ok := x.StaticDims()
		wd, ok2 := w.StaticDims()
		if !ok || !ok2 || len(xd) != 3 || len(wd) != 3 {
			return nil, n.unsupported("inputs must have static shapes")
		}
		S, B, I := xd[0], xd[1], xd[2]
		if layout != 0 {
			S, B = xd[1], xd[0]
		}
		H := n.Int("hidden_size", wd[1]/gates)
		dirs := wd[0]
		direction := n.Str("direction", "forward")
		if (direction == "bidirectional") != (dirs == 2) || H <= 0 || wd[1] != gates*H {
			return nil, fmt.Errorf("direction %q with weights %v", direction, wd)
		}
		if S > maxUnroll {
			return nil, n.unsupported("sequence of %d steps", S)
		}
		if sl := n.Input(4); sl != nil {
			lens, ok := sl.Ints()
			if !ok {
				return nil, n.unsupported("sequence_lens must be known at import time")
			}
			for _, l := range lens {
				if l != S {
					return nil, n.unsupported("sequence_lens %v differ from the sequence length %d", lens, S)
				}
			}
		}
		lbr := kind == "GRU" && n.Int("linear_before_reset", 0) != 0
		slice := func(v *Value, axes, begin, end, strides []int64) *Value {
			if f.err != nil || v == nil {
				return nil
			}
			s, err := c.Emit("relax.strided_slice", []ir.Expr{v.Expr, primInts(axes...), primInts(begin...), primInts(end...), primInts(strides...)})
			f.err = err
			return s
		}
		at := func(v *Value, axis int, i int64) *Value {
			if f.err != nil || v == nil {
				return nil
			}
			s, err := c.sliceAt(v, axis, i)
			f.err = err
			return s
		}
		span := func(v *Value, axis, lo, hi int64) *Value { // [lo, hi) of axis
			return slice(v, []int64{axis}, []int64{lo}, []int64{hi}, []int64{1})
		}
		cols := func(v *Value, k int64) *Value { return span(v, 1, k*H, (k+1)*H) } // gate k of a (B, gates*H) value
		// split is every gate of a (B, k*H) value: one split call where
		// slicing several gates out took one call each.
		split := func(v *Value, k int) []*Value {
			if f.err != nil || v == nil {
				return make([]*Value, k)
			}
			t, err := c.Un("relax.split", v, Attr("indices_or_sections", int64(k)), Attr("axis", int64(1)))
			if err != nil {
				f.err = err
				return make([]*Value, k)
			}
			out := make([]*Value, k)
			for i := range out {
				out[i] = c.Item(t, i)
			}
			return out
		}
		vec := func(v *Value, k int64) *Value { return span(v, 0, k*H, (k+1)*H) } // elements [k*H, (k+1)*H) of a 1-D value
		transpose := func(v *Value) *Value { return f.un("relax.permute_dims", v, Attr("axes", []any{int64(1), int64(0)})) }
		zeros := func(dims ...int64) *Value {
			if f.err != nil {
				return nil
			}
			z, err := c.Scalar(0, x.DType())
			if err == nil {
				z, err = c.Emit("relax.broadcast_to", []ir.Expr{z.Expr, staticShape(dims)})
			}
			f.err = err
			return z
		}
		// xpart is columns [lo, hi) of step t's B rows of a (S*B, gates*H)
		// input projection: one slice.
		xrows := f.reshapeTo(x, S*B, I)
		xpart := func(xp *Value, t, lo, hi int64) *Value {
			b0, b1, stride := t*B, (t+1)*B, int64(1)
			if layout != 0 {
				b0, b1, stride = t, t+(B-1)*S+1, S
			}
			if lo == 0 && hi == gates*H {
				return slice(xp, []int64{0}, []int64{b0}, []int64{b1}, []int64{stride})
			}
			return slice(xp, []int64{0, 1}, []int64{b0, lo}, []int64{b1, hi}, []int64{stride, 1})
		}
		initH, initC := n.Input(5), n.Input(6)
		if layout != 0 {
			if initH != nil {
				initH = f.un("relax.permute_dims", initH, Attr("axes", []any{int64(1), int64(0), int64(2)}))
			}
			if initC != nil {
				initC = f.un("relax.permute_dims", initC, Attr("axes", []any{int64(1), int64(0), int64(2)}))
			}
		}
		var ys, hs, cs []*Value
		for d := int64(0); d < dirs; d++ {
			// Input part of every step: X·Wᵀ + Wb + Rb, (S*B, gates*H).
			xp := f.bin("relax.matmul", xrows, transpose(at(w, 0, d)))
			var rbh *Value // GRU's Rbh under linear_before_reset=1
			if b := n.Input(3); b != nil {
				bd := at(b, 0, d)
				wb, rb := span(bd, 0, 0, gates*H), span(bd, 0, gates*H, 2*gates*H)
				if lbr { // Rbh stays with h·Rhᵀ: zeros in its place (a where, which folds; a concat would not)
					rbh = vec(rb, 2)
					mask := make([]bool, 3*H)
					for i := range 2 * H {
						mask[i] = true
					}
					m, err := runtime.FromSlice(mask, 3*H)
					if err != nil {
						return nil, err
					}
					rb = f.where(c.Const(m), rb, f.k(0, rb))
				}
				xp = f.bin("relax.add", xp, f.bin("relax.add", wb, rb))
			}
			// Recurrent weights, transposed: all gates, or GRU's z and r
			// gates (rT) and its h gate (rTh).
			rd := at(r, 0, d)
			var rT, rTh *Value
			if kind == "GRU" {
				rT, rTh = transpose(span(rd, 0, 0, 2*H)), transpose(span(rd, 0, 2*H, 3*H))
			} else {
				rT = transpose(rd)
			}
			var pi, po, pf *Value // LSTM's peepholes
			if p := n.Input(7); kind == "LSTM" && p != nil {
				pd := at(p, 0, d)
				pi, po, pf = vec(pd, 0), vec(pd, 1), vec(pd, 2)
			}
			var h, cell *Value
			if initH != nil {
				h = at(initH, 0, d)
			} else {
				h = zeros(B, H)
			}
			cell = h
			if kind == "LSTM" && initC != nil {
				cell = at(initC, 0, d)
			} else if kind == "LSTM" {
				cell = zeros(B, H)
			}
			if f.err != nil {
				return nil, f.err
			}
			reverse := direction == "reverse" || d == 1
			steps := make([]*Value, S)
			for i := int64(0); i < S; i++ {
				t := i
				if reverse {
					t = S - 1 - i
				}
				switch kind {
				case "RNN":
					h = f.un("relax.tanh", f.bin("relax.add", xpart(xp, t, 0, H), f.bin("relax.matmul", h, rT)))
				case "GRU":
					zr := f.un("relax.sigmoid", f.bin("relax.add", xpart(xp, t, 0, 2*H), f.bin("relax.matmul", h, rT)))
					zrs := split(zr, 2)
					z, rg := zrs[0], zrs[1]
					var hr *Value
					if lbr {
						hr = f.bin("relax.matmul", h, rTh)
						if rbh != nil {
							hr = f.bin("relax.add", hr, rbh)
						}
						hr = f.bin("relax.multiply", rg, hr)
					} else {
						hr = f.bin("relax.matmul", f.bin("relax.multiply", rg, h), rTh)
					}
					hh := f.un("relax.tanh", f.bin("relax.add", xpart(xp, t, 2*H, 3*H), hr))
					h = f.bin("relax.add", f.bin("relax.multiply", f.bin("relax.subtract", f.k(1, z), z), hh), f.bin("relax.multiply", z, h))
				case "LSTM":
					pre := f.bin("relax.add", xpart(xp, t, 0, 4*H), f.bin("relax.matmul", h, rT))
					var ig, og, fg *Value
					if pi == nil { // one sigmoid over all gates (c's result unused)
						g := split(f.un("relax.sigmoid", pre), 4)
						ig, og, fg = g[0], g[1], g[2]
					} else {
						ig = f.un("relax.sigmoid", f.bin("relax.add", cols(pre, 0), f.bin("relax.multiply", pi, cell)))
						fg = f.un("relax.sigmoid", f.bin("relax.add", cols(pre, 2), f.bin("relax.multiply", pf, cell)))
					}
					cell = f.bin("relax.add", f.bin("relax.multiply", fg, cell), f.bin("relax.multiply", ig, f.un("relax.tanh", cols(pre, 3))))
					if pi != nil {
						og = f.un("relax.sigmoid", f.bin("relax.add", cols(pre, 1), f.bin("relax.multiply", po, cell)))
					}
					h = f.bin("relax.multiply", og, f.un("relax.tanh", cell))
				}
				if f.err != nil {
					return nil, f.err
				}
				steps[t] = h
			}
			y, err := c.stackAt(steps, 0) // (S, B, H)
			if err != nil {
				return nil, err
			}
			ys, hs, cs = append(ys, y), append(hs, h), append(cs, cell)
		}
		stack := func(vs []*Value, axis int64) *Value { // one direction: a new axis, no copy
			if len(vs) == 1 {
				return f.un("relax.expand_dims", vs[0], Attr("axis", []any{axis}))
			}
			if f.err != nil {
				return nil
			}
			v, err := c.stackAt(vs, axis)
			f.err = err
			return v
		}
		outs := []*Value{stack(ys, 1), stack(hs, 0)} // Y (S, dirs, B, H), Y_h (dirs, B, H)
		if kind == "LSTM" {
			outs = append(outs, stack(cs, 0)) // Y_c
		}
		if layout != 0 {
			outs[0] = f.un("relax.permute_dims", outs[0], Attr("axes", []any{int64(2), int64(0), int64(1), int64(3)}))
			for i := 1; i < len(outs); i++ {
				outs[i] = f.un("relax.permute_dims", outs[i], Attr("axes", []any{int64(1), int64(0), int64(2)}))
			}
		}
		return outs, f.err
	}
}
