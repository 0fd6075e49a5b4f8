package onnx

import (
	"math"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// poolTaps is max or average pooling of any rank with static shapes, for the
// ranks without a pooling kernel (3-D): the taps of every window are gathered
// with one take (taps outside the input read an appended -inf or 0), then
// reduced. ceil_mode drops a last window starting in the right padding, and
// count_include_pad counts the taps inside the explicitly padded input, as
// ONNX's reference does.
func poolTaps(c *Ctx, n *Node, x *Value, g *geometry, kind string, ceil, includePad bool) (*Value, error) {
	xd, ok := x.StaticDims()
	sp := len(g.kernel)
	if !ok || len(xd) != sp+2 {
		return nil, n.unsupported("%d-D pooling needs a static input shape", sp)
	}
	if !x.DType().IsFloat() {
		return nil, n.unsupported("%d-D pooling of %s", sp, x.DType())
	}
	N, C := xd[0], xd[1]
	in := xd[2:]
	out := make([]int64, sp)
	for i := 0; i < sp; i++ {
		span := in[i] + g.pads[i] + g.pads[sp+i] - ((g.kernel[i]-1)*g.dilations[i] + 1)
		if span < 0 {
			return nil, n.unsupported("kernel larger than the padded input")
		}
		out[i] = span/g.strides[i] + 1
		if ceil {
			out[i] = (span+g.strides[i]-1)/g.strides[i] + 1
			if (out[i]-1)*g.strides[i] >= in[i]+g.pads[i] {
				out[i]--
			}
		}
	}
	P, K, S := prod(out), prod(g.kernel), prod(in)
	if P*K > 1<<24 {
		return nil, n.unsupported("too many window taps (%d)", P*K)
	}
	taps, err := runtime.NewTensor([]int64{P, K}, runtime.Int64)
	if err != nil {
		return nil, err
	}
	counts := make([]float64, P)
	tv := taps.Int64s()
	oc := make([]int64, sp)
	kc := make([]int64, sp)
	for p := int64(0); p < P; p++ {
		unravel(p, out, oc)
		for k := int64(0); k < K; k++ {
			unravel(k, g.kernel, kc)
			flat, valid, padded := int64(0), true, true
			for i := 0; i < sp; i++ {
				co := oc[i]*g.strides[i] - g.pads[i] + kc[i]*g.dilations[i]
				valid = valid && co >= 0 && co < in[i]
				padded = padded && co >= -g.pads[i] && co < in[i]+g.pads[sp+i]
				flat = flat*in[i] + co
			}
			if valid {
				tv[p*K+k] = flat
			} else {
				tv[p*K+k] = S
			}
			if valid || includePad && padded {
				counts[p]++
			}
		}
	}
	fill := 0.0
	if kind == "max" {
		fill = math.Inf(-1)
	}
	f := &formula{c: c}
	win, err := tapWindows(c, x, N, C, S, fill, taps) // (N, C, P, K)
	if err != nil {
		return nil, err
	}
	var y *Value
	if kind == "max" {
		y = f.un("relax.max", win, Attr("axis", []any{int64(3)}), Attr("keepdims", false))
	} else {
		ct, err := runtime.NewTensor([]int64{P}, x.DType())
		if err != nil {
			return nil, err
		}
		for i, v := range counts {
			if v == 0 {
				v = 1
			}
			if err := setElem(ct, i, v); err != nil {
				return nil, err
			}
		}
		y = f.bin("relax.divide", f.un("relax.sum", win, Attr("axis", []any{int64(3)}), Attr("keepdims", false)), c.Const(ct))
	}
	if f.err != nil {
		return nil, f.err
	}
	return c.Emit("relax.reshape", []ir.Expr{y.Expr, staticShape(append([]int64{N, C}, out...))})
}

// tapWindows gathers pooling windows: x (N, C, spatial...) is flattened to
// (N, C, S), one column of fill appended, and taps (P, K), whose entries are
// flat positions or S for a tap outside the input, taken along that axis:
// (N, C, P, K).
func tapWindows(c *Ctx, x *Value, N, C, S int64, fill float64, taps *runtime.Tensor) (*Value, error) {
	xf, err := c.Emit("relax.reshape", []ir.Expr{x.Expr, staticShape([]int64{N, C, S})})
	if err != nil {
		return nil, err
	}
	k, err := c.Scalar(fill, x.DType())
	if err != nil {
		return nil, err
	}
	padv, err := c.Emit("relax.full", []ir.Expr{staticShape([]int64{N, C, 1}), k.Expr}, Attr("dtype", x.DType()))
	if err != nil {
		return nil, err
	}
	xp, err := c.Emit("relax.concat", []ir.Expr{&ir.Tuple{Fields: []ir.Expr{xf.Expr, padv.Expr}}}, Attr("axis", int64(2)))
	if err != nil {
		return nil, err
	}
	return c.Emit("relax.take", []ir.Expr{xp.Expr, c.Const(taps).Expr}, Attr("axis", int64(2)))
}

// unravel writes the row-major coordinates of flat index i in dims to c.
func unravel(i int64, dims, c []int64) {
	for a := len(dims) - 1; a >= 0; a-- {
		c[a] = i % dims[a]
		i /= dims[a]
	}
}
