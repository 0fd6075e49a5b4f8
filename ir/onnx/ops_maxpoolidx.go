package onnx

import (
	"math"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// maxPoolWithIndices is MaxPool with its Indices output (or storage_order=1),
// for 2-D inputs with static shapes: every window's taps are gathered with
// one take (padding taps read an appended -inf), the max and the first
// argmax are taken over the taps, and the argmax is mapped to the flat
// input index (row-major, or column-major with storage_order=1) plus the
// (n, c) plane offset, as ONNX's reference does.
func maxPoolWithIndices(c *Ctx, n *Node, x *Value, g *geometry) ([]*Value, error) {
	xd, ok := x.StaticDims()
	if !ok || len(xd) != 4 {
		return nil, n.unsupported("the Indices output needs a static 4-D input")
	}
	if n.Int("ceil_mode", 0) != 0 {
		return nil, n.unsupported("the Indices output with ceil_mode")
	}
	if !x.DType().IsFloat() {
		return nil, n.unsupported("the Indices output for %s", x.DType())
	}
	N, C, H, W := xd[0], xd[1], xd[2], xd[3]
	var out [2]int64
	for i := 0; i < 2; i++ {
		span := xd[2+i] + g.pads[i] + g.pads[2+i] - ((g.kernel[i]-1)*g.dilations[i] + 1)
		if span < 0 {
			return nil, n.unsupported("kernel larger than the padded input")
		}
		out[i] = span/g.strides[i] + 1
	}
	Ho, Wo := out[0], out[1]
	K := g.kernel[0] * g.kernel[1]
	P := Ho * Wo
	if P*K > 1<<22 {
		return nil, n.unsupported("too many window taps (%d)", P*K)
	}
	colMajor := n.Int("storage_order", 0) != 0
	taps, err := runtime.NewTensor([]int64{P, K}, runtime.Int64)
	if err != nil {
		return nil, err
	}
	flatIdx, err := runtime.NewTensor([]int64{1, 1, P, K}, runtime.Int64)
	if err != nil {
		return nil, err
	}
	tv, fv := taps.Int64s(), flatIdx.Int64s()
	for oh := int64(0); oh < Ho; oh++ {
		for ow := int64(0); ow < Wo; ow++ {
			p := oh*Wo + ow
			for kh := int64(0); kh < g.kernel[0]; kh++ {
				for kw := int64(0); kw < g.kernel[1]; kw++ {
					k := kh*g.kernel[1] + kw
					h := oh*g.strides[0] - g.pads[0] + kh*g.dilations[0]
					w := ow*g.strides[1] - g.pads[1] + kw*g.dilations[1]
					if h < 0 || h >= H || w < 0 || w >= W {
						tv[p*K+k] = H * W // the appended -inf
						continue
					}
					tv[p*K+k] = h*W + w
					if colMajor {
						fv[p*K+k] = w*H + h
					} else {
						fv[p*K+k] = h*W + w
					}
				}
			}
		}
	}
	off, err := runtime.NewTensor([]int64{N, C, 1}, runtime.Int64)
	if err != nil {
		return nil, err
	}
	for i := range off.Int64s() {
		off.Int64s()[i] = int64(i) * H * W
	}
	f := &formula{c: c}
	win, err := tapWindows(c, x, N, C, H*W, math.Inf(-1), taps) // (N, C, P, K)
	if err != nil {
		return nil, err
	}
	y := f.un("relax.max", win, Attr("axis", []any{int64(3)}), Attr("keepdims", false))
	arg := f.un("relax.argmax", win, Attr("axis", int64(3)), Attr("keepdims", true))
	if f.err != nil {
		return nil, f.err
	}
	tbl, err := c.Emit("relax.broadcast_to", []ir.Expr{c.Const(flatIdx).Expr, staticShape([]int64{N, C, P, K})})
	if err != nil {
		return nil, err
	}
	ai, err := c.Cast(arg, runtime.Int64)
	if err != nil {
		return nil, err
	}
	z, err := c.Emit("relax.gather_elements", []ir.Expr{tbl.Expr, ai.Expr}, Attr("axis", int64(3)))
	if err != nil {
		return nil, err
	}
	z, err = c.Emit("relax.reshape", []ir.Expr{z.Expr, staticShape([]int64{N, C, P})})
	if err != nil {
		return nil, err
	}
	z = f.bin("relax.add", z, c.Const(off))
	outShape := staticShape([]int64{N, C, Ho, Wo})
	var res []*Value
	for _, v := range []*Value{y, z} {
		if f.err != nil {
			return nil, f.err
		}
		r, err := c.Emit("relax.reshape", []ir.Expr{v.Expr, outShape})
		if err != nil {
			return nil, err
		}
		res = append(res, r)
	}
	return res, nil
}
