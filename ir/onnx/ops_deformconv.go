package onnx

import (
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// DeformConv (opset 19), 2-D with static shapes, following ONNX's reference:
// every kernel tap samples the input at its offset position with bilinear
// interpolation (taps outside the image read 0), gathered at run time and
// optionally scaled by the mask; the sampled columns are then contracted
// with the weights per group by a matmul.

func convDeformConv(c *Ctx, n *Node) ([]*Value, error) {
	x, w, offset := n.In[0], n.In[1], n.In[2]
	bias, mask := n.Input(3), n.Input(4)
	xd, ok1 := x.StaticDims()
	wd, ok2 := w.StaticDims()
	od, ok3 := offset.StaticDims()
	if !ok1 || !ok2 || !ok3 || len(xd) != 4 || len(wd) != 4 || len(od) != 4 {
		return nil, n.unsupported("only 2-D inputs with static shapes are supported")
	}
	if !x.DType().IsFloat() {
		return nil, n.unsupported("dtype %s", x.DType())
	}
	N, C, H, W := xd[0], xd[1], xd[2], xd[3]
	Cout, Cg, kH, kW := wd[0], wd[1], wd[2], wd[3]
	G, OG := n.Int("group", 1), n.Int("offset_group", 1)
	if ks := n.Ints("kernel_shape", nil); ks != nil && (len(ks) != 2 || ks[0] != kH || ks[1] != kW) {
		return nil, n.unsupported("kernel_shape %v differs from the weights' %v", ks, wd[2:])
	}
	if G < 1 || OG < 1 || C%G != 0 || C%OG != 0 || Cg != C/G || Cout%G != 0 {
		return nil, n.unsupported("group %d, offset_group %d for %d channels", G, OG, C)
	}
	st, dil := n.Ints("strides", []int64{1, 1}), n.Ints("dilations", []int64{1, 1})
	pads := n.Ints("pads", []int64{0, 0, 0, 0})
	if len(st) != 2 || len(dil) != 2 || len(pads) != 4 {
		return nil, n.unsupported("strides, dilations and pads must be 2-D")
	}
	for _, a := range []struct {
		name string
		v    []int64
		lo   int64
	}{{"strides", st, 1}, {"dilations", dil, 1}, {"pads", pads, 0}} {
		if err := checkRange(n, a.name, a.v, a.lo); err != nil {
			return nil, err
		}
	}
	oH := (H+pads[0]+pads[2]-((kH-1)*dil[0]+1))/st[0] + 1
	oW := (W+pads[1]+pads[3]-((kW-1)*dil[1]+1))/st[1] + 1
	K, P := kH*kW, oH*oW
	if oH < 1 || oW < 1 || od[0] != N || od[1] != OG*2*K || od[2] != oH || od[3] != oW {
		return nil, n.unsupported("offset shape %v for output %dx%d", od, oH, oW)
	}
	if N*C*K*P > 1<<24 {
		return nil, n.unsupported("too many samples")
	}
	dt := x.DType()
	// Base sampling positions (K, P) without the offsets.
	by, err := runtime.NewTensor([]int64{1, 1, K, P}, dt)
	if err != nil {
		return nil, err
	}
	bx, err := runtime.NewTensor([]int64{1, 1, K, P}, dt)
	if err != nil {
		return nil, err
	}
	for i := int64(0); i < kH; i++ {
		for j := int64(0); j < kW; j++ {
			for a := int64(0); a < oH; a++ {
				for b := int64(0); b < oW; b++ {
					at := int((i*kW+j)*P + a*oW + b)
					if err := setElem(by, at, float64(a*st[0]-pads[0]+i*dil[0])); err != nil {
						return nil, err
					}
					if err := setElem(bx, at, float64(b*st[1]-pads[1]+j*dil[1])); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	f := &formula{c: c}
	sl := func(v *Value, axis, i int64) *Value {
		if f.err != nil {
			return nil
		}
		r, err := c.sliceAt(v, int(axis), i)
		f.err = err
		return r
	}
	off := f.reshapeTo(offset, N, OG, K, 2, P)
	hy := f.bin("relax.add", sl(off, 3, 0), c.Const(by)) // (N, OG, K, P)
	wx := f.bin("relax.add", sl(off, 3, 1), c.Const(bx))
	y0, x0 := f.un("relax.floor", hy), f.un("relax.floor", wx)
	ly, lx := f.bin("relax.subtract", hy, y0), f.bin("relax.subtract", wx, x0)
	one := func(v *Value) *Value { return f.bin("relax.subtract", f.k(1, v), v) }
	Cog := C / OG
	xr := f.reshapeTo(x, N, OG, Cog, H*W)
	tap := func(yy, xx, wt *Value) *Value {
		in := f.bin("relax.logical_and",
			f.bin("relax.logical_and", f.bin("relax.greater_equal", yy, f.k(0, yy)), f.bin("relax.less_equal", yy, f.k(float64(H-1), yy))),
			f.bin("relax.logical_and", f.bin("relax.greater_equal", xx, f.k(0, xx)), f.bin("relax.less_equal", xx, f.k(float64(W-1), xx))))
		cy := f.bin("relax.minimum", f.bin("relax.maximum", yy, f.k(0, yy)), f.k(float64(H-1), yy))
		cx := f.bin("relax.minimum", f.bin("relax.maximum", xx, f.k(0, xx)), f.k(float64(W-1), xx))
		idx := f.un("relax.astype", f.bin("relax.add", f.bin("relax.multiply", cy, f.k(float64(W), cy)), cx), Attr("dtype", runtime.Int64))
		idx = f.reshapeTo(idx, N, OG, 1, K*P)
		if f.err != nil {
			return nil
		}
		b, err := c.Emit("relax.broadcast_to", []ir.Expr{idx.Expr, staticShape([]int64{N, OG, Cog, K * P})})
		if err != nil {
			f.err = err
			return nil
		}
		v, err := c.Emit("relax.gather_elements", []ir.Expr{xr.Expr, b.Expr}, Attr("axis", int64(3)))
		if err != nil {
			f.err = err
			return nil
		}
		wm := f.bin("relax.multiply", wt, f.un("relax.astype", in, Attr("dtype", dt)))
		return f.bin("relax.multiply", v, f.reshapeTo(wm, N, OG, 1, K*P))
	}
	y1, x1 := f.bin("relax.add", y0, f.k(1, y0)), f.bin("relax.add", x0, f.k(1, x0))
	s := f.bin("relax.add",
		f.bin("relax.add", tap(y0, x0, f.bin("relax.multiply", one(ly), one(lx))), tap(y0, x1, f.bin("relax.multiply", one(ly), lx))),
		f.bin("relax.add", tap(y1, x0, f.bin("relax.multiply", ly, one(lx))), tap(y1, x1, f.bin("relax.multiply", ly, lx))))
	if mask != nil {
		s = f.bin("relax.multiply", s, f.reshapeTo(mask, N, OG, 1, K*P))
	}
	cols := f.reshapeTo(s, N, G, Cg*K, P)
	wm := f.reshapeTo(w, G, Cout/G, Cg*K)
	y := f.reshapeTo(f.bin("relax.matmul", wm, cols), N, Cout, oH, oW)
	if bias != nil {
		y = f.bin("relax.add", y, f.reshapeTo(bias, 1, Cout, 1, 1))
	}
	return []*Value{y}, f.err
}
