package onnx

import (
	"fmt"

	"github.com/relaxgo/relaxgo/ir"
)

// RNN, GRU and LSTM unrolled over a static sequence length, with the default
// activations (sigmoid/tanh), forward, reverse or bidirectional, layout 0 or 1.
// sequence_lens must be absent or all equal to the sequence length.

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
		if layout != 0 {
			x = f.un("relax.permute_dims", x, Attr("axes", []any{int64(1), int64(0), int64(2)}))
		}
		if f.err != nil {
			return nil, f.err
		}
		xd, ok := x.StaticDims()
		wd, ok2 := w.StaticDims()
		if !ok || !ok2 || len(xd) != 3 || len(wd) != 3 {
			return nil, n.unsupported("inputs must have static shapes")
		}
		S, B := xd[0], xd[1]
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
		at := func(v *Value, axis int, i int64) *Value {
			if f.err != nil || v == nil {
				return nil
			}
			s, err := c.sliceAt(v, axis, i)
			f.err = err
			return s
		}
		cols := func(v *Value, k int64) *Value { // gate k of a (B, gates*H) value
			if f.err != nil {
				return nil
			}
			s, err := c.Emit("relax.strided_slice", []ir.Expr{v.Expr, &ir.Tuple{Fields: []ir.Expr{primInt(1)}},
				&ir.Tuple{Fields: []ir.Expr{primInt(k * H)}}, &ir.Tuple{Fields: []ir.Expr{primInt((k + 1) * H)}}, &ir.Tuple{Fields: []ir.Expr{primInt(1)}}})
			f.err = err
			return s
		}
		vec := func(v *Value, k int64) *Value { // elements [k*H, (k+1)*H) of a 1-D value
			if f.err != nil || v == nil {
				return nil
			}
			s, err := c.Emit("relax.strided_slice", []ir.Expr{v.Expr, &ir.Tuple{Fields: []ir.Expr{primInt(0)}},
				&ir.Tuple{Fields: []ir.Expr{primInt(k * H)}}, &ir.Tuple{Fields: []ir.Expr{primInt((k + 1) * H)}}, &ir.Tuple{Fields: []ir.Expr{primInt(1)}}})
			f.err = err
			return s
		}
		add := func(a, b *Value) *Value {
			if b == nil {
				return a
			}
			return f.bin("relax.add", a, b)
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
			wT := f.un("relax.permute_dims", at(w, 0, d), Attr("axes", []any{int64(1), int64(0)}))
			rT := f.un("relax.permute_dims", at(r, 0, d), Attr("axes", []any{int64(1), int64(0)}))
			var bw [2]*Value // input and recurrence biases, each (gates*H)
			if b := n.Input(3); b != nil {
				bd := at(b, 0, d)
				for k := int64(0); k < 2 && f.err == nil; k++ {
					s, err := c.Emit("relax.strided_slice", []ir.Expr{bd.Expr, &ir.Tuple{Fields: []ir.Expr{primInt(0)}},
						&ir.Tuple{Fields: []ir.Expr{primInt(k * gates * H)}}, &ir.Tuple{Fields: []ir.Expr{primInt((k + 1) * gates * H)}},
						&ir.Tuple{Fields: []ir.Expr{primInt(1)}}})
					f.err = err
					bw[k] = s
				}
			}
			var p *Value
			if kind == "LSTM" {
				p = n.Input(7)
				if p != nil {
					p = at(p, 0, d)
				}
			}
			var h, cell *Value
			if initH != nil {
				h = at(initH, 0, d)
			} else {
				z, err := c.Scalar(0, x.DType())
				if err != nil {
					return nil, err
				}
				h, err = c.Emit("relax.broadcast_to", []ir.Expr{z.Expr, staticShape([]int64{B, H})})
				if err != nil {
					return nil, err
				}
			}
			cell = h
			if kind == "LSTM" && initC != nil {
				cell = at(initC, 0, d)
			} else if kind == "LSTM" {
				z, _ := c.Scalar(0, x.DType())
				var err error
				if cell, err = c.Emit("relax.broadcast_to", []ir.Expr{z.Expr, staticShape([]int64{B, H})}); err != nil {
					return nil, err
				}
			}
			reverse := direction == "reverse" || d == 1
			steps := make([]*Value, S)
			for i := int64(0); i < S; i++ {
				t := i
				if reverse {
					t = S - 1 - i
				}
				xt := at(x, 0, t)
				xw := f.bin("relax.matmul", xt, wT)
				hr := f.bin("relax.matmul", h, rT)
				if f.err != nil {
					return nil, f.err
				}
				gx := func(k int64) *Value { return add(cols(xw, k), vec(bw[0], k)) }
				gh := func(k int64) *Value { return add(cols(hr, k), vec(bw[1], k)) }
				switch kind {
				case "RNN":
					h = f.un("relax.tanh", f.bin("relax.add", gx(0), gh(0)))
				case "GRU":
					z := f.un("relax.sigmoid", f.bin("relax.add", gx(0), gh(0)))
					rg := f.un("relax.sigmoid", f.bin("relax.add", gx(1), gh(1)))
					var hh *Value
					if n.Int("linear_before_reset", 0) != 0 {
						hh = f.un("relax.tanh", f.bin("relax.add", gx(2), f.bin("relax.multiply", rg, gh(2))))
					} else {
						rh := f.bin("relax.multiply", rg, h)
						if f.err != nil {
							return nil, f.err
						}
						rr := f.bin("relax.matmul", rh, rT)
						hh = f.un("relax.tanh", f.bin("relax.add", gx(2), add(cols(rr, 2), vec(bw[1], 2))))
					}
					h = f.bin("relax.add", f.bin("relax.multiply", f.bin("relax.subtract", f.k(1, z), z), hh), f.bin("relax.multiply", z, h))
				case "LSTM":
					pre := func(k int64) *Value { return f.bin("relax.add", gx(k), gh(k)) }
					ig, og, fg, cg := pre(0), pre(1), pre(2), pre(3)
					if p != nil {
						ig = f.bin("relax.add", ig, f.bin("relax.multiply", vec(p, 0), cell))
						fg = f.bin("relax.add", fg, f.bin("relax.multiply", vec(p, 2), cell))
					}
					ig, fg = f.un("relax.sigmoid", ig), f.un("relax.sigmoid", fg)
					cell = f.bin("relax.add", f.bin("relax.multiply", fg, cell), f.bin("relax.multiply", ig, f.un("relax.tanh", cg)))
					if p != nil {
						og = f.bin("relax.add", og, f.bin("relax.multiply", vec(p, 1), cell))
					}
					h = f.bin("relax.multiply", f.un("relax.sigmoid", og), f.un("relax.tanh", cell))
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
		Y, err := c.stackAt(ys, 1) // (S, dirs, B, H)
		if err != nil {
			return nil, err
		}
		Yh, err := c.stackAt(hs, 0) // (dirs, B, H)
		if err != nil {
			return nil, err
		}
		outs := []*Value{Y, Yh}
		if kind == "LSTM" {
			Yc, err := c.stackAt(cs, 0)
			if err != nil {
				return nil, err
			}
			outs = append(outs, Yc)
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
