package onnx

import (
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// RoiAlign (opset 10/16) with a fixed sampling_ratio, following ONNX's
// reference (onnxruntime's algorithm): sample points of every bin are
// computed at run time from the rois, each is bilinearly interpolated from
// four taps gathered with take (out-of-range samples count as 0), and the
// samples are averaged, or for mode max the largest weighted tap is kept.

func convRoiAlign(c *Ctx, n *Node) ([]*Value, error) {
	x, rois, bidx := n.In[0], n.In[1], n.In[2]
	xd, ok1 := x.StaticDims()
	rd, ok2 := rois.StaticDims()
	if !ok1 || !ok2 || len(xd) != 4 || len(rd) != 2 || rd[1] != 4 {
		return nil, n.unsupported("static X (N,C,H,W) and rois (R,4) are required")
	}
	if !x.DType().IsFloat() {
		return nil, n.unsupported("dtype %s", x.DType())
	}
	N, C, H, W := xd[0], xd[1], xd[2], xd[3]
	R := rd[0]
	oh, ow := n.Int("output_height", 1), n.Int("output_width", 1)
	sr := n.Int("sampling_ratio", 0)
	if sr <= 0 {
		return nil, n.unsupported("adaptive sampling_ratio (it depends on the roi sizes)")
	}
	if oh < 1 || ow < 1 || R < 1 || R*oh*ow*sr*sr*C > 1<<24 {
		return nil, n.unsupported("output %dx%d for %d rois", oh, ow, R)
	}
	mode := n.Str("mode", "avg")
	if mode != "avg" && mode != "max" {
		return nil, n.unsupported("mode=%q", mode)
	}
	ctm := "output_half_pixel"
	if n.Opset >= 16 {
		ctm = n.Str("coordinate_transformation_mode", "half_pixel")
	}
	halfPixel := ctm == "half_pixel"
	if !halfPixel && ctm != "output_half_pixel" {
		return nil, n.unsupported("coordinate_transformation_mode=%q", ctm)
	}
	scale := n.Float("spatial_scale", 1)
	dt := x.DType()
	f := &formula{c: c}
	rf := rois
	if rf.DType() != dt {
		rf = f.un("relax.astype", rf, Attr("dtype", dt))
	}
	col := func(i int64) *Value { // (R, 1)
		if f.err != nil {
			return nil
		}
		v, err := c.Emit("relax.strided_slice", []ir.Expr{rf.Expr, &ir.Tuple{Fields: []ir.Expr{primInt(1)}},
			&ir.Tuple{Fields: []ir.Expr{primInt(i)}}, &ir.Tuple{Fields: []ir.Expr{primInt(i + 1)}}, &ir.Tuple{Fields: []ir.Expr{primInt(1)}}})
		f.err = err
		return v
	}
	off := 0.0
	if halfPixel {
		off = 0.5
	}
	start := func(v *Value) *Value {
		return f.bin("relax.subtract", f.bin("relax.multiply", v, f.k(scale, v)), f.k(off, v))
	}
	x1, y1, x2, y2 := start(col(0)), start(col(1)), start(col(2)), start(col(3))
	rw, rh := f.bin("relax.subtract", x2, x1), f.bin("relax.subtract", y2, y1)
	if !halfPixel {
		rw = f.bin("relax.maximum", rw, f.k(1, rw))
		rh = f.bin("relax.maximum", rh, f.k(1, rh))
	}
	// Sample offsets in units of a bin: p + (i + 0.5)/sr for bin p, sample i.
	frac := func(o int64) *Value {
		t, err := runtime.NewTensor([]int64{1, o * sr}, dt)
		if err != nil {
			f.err = err
			return nil
		}
		for p := int64(0); p < o; p++ {
			for i := int64(0); i < sr; i++ {
				if err := setElem(t, int(p*sr+i), float64(p)+(float64(i)+0.5)/float64(sr)); err != nil {
					f.err = err
				}
			}
		}
		return c.Const(t)
	}
	if f.err != nil {
		return nil, f.err
	}
	ys := f.bin("relax.add", y1, f.bin("relax.multiply", frac(oh), f.bin("relax.divide", rh, f.k(float64(oh), rh)))) // (R, oh*sr)
	xs := f.bin("relax.add", x1, f.bin("relax.multiply", frac(ow), f.bin("relax.divide", rw, f.k(float64(ow), rw)))) // (R, ow*sr)
	Hs, Ws := oh*sr, ow*sr
	ys, xs = f.reshapeTo(ys, R, Hs, 1), f.reshapeTo(xs, R, 1, Ws)
	// Per axis: validity, low/high taps and the fractional weight.
	axis := func(v *Value, size int64) (valid, lo, hi, l *Value) {
		valid = f.bin("relax.logical_and", f.bin("relax.greater_equal", v, f.k(-1, v)), f.bin("relax.less_equal", v, f.k(float64(size), v)))
		v = f.bin("relax.maximum", v, f.k(0, v))
		fl := f.un("relax.floor", v)
		top := f.bin("relax.greater_equal", fl, f.k(float64(size-1), v))
		lo = f.where(top, f.k(float64(size-1), v), fl)
		hi = f.where(top, lo, f.bin("relax.add", lo, f.k(1, v)))
		v = f.where(top, lo, v)
		l = f.bin("relax.subtract", v, lo)
		return
	}
	vy, yl, yh, ly := axis(ys, H)
	vx, xl, xh, lx := axis(xs, W)
	if f.err != nil {
		return nil, f.err
	}
	valid := f.un("relax.astype", f.bin("relax.logical_and", vy, vx), Attr("dtype", dt)) // (R, Hs, Ws)
	hy, hx := f.bin("relax.subtract", f.k(1, ly), ly), f.bin("relax.subtract", f.k(1, lx), lx)
	bi, err := c.Cast(bidx, runtime.Int64)
	if err != nil {
		return nil, err
	}
	bi = f.bin("relax.minimum", f.bin("relax.maximum", bi, c.ConstInts([]int64{0})), c.ConstInts([]int64{N - 1})) // keep the gather in range
	base := f.bin("relax.multiply", f.reshapeTo(bi, R, 1, 1), c.ConstInts([]int64{H * W}))
	xc := f.un("relax.permute_dims", f.reshapeTo(x, N, C, H*W), Attr("axes", []any{int64(1), int64(0), int64(2)}))
	xc = f.reshapeTo(xc, C, N*H*W)
	tap := func(yy, xx, w *Value) *Value {
		idx := f.bin("relax.add", base, f.un("relax.astype",
			f.bin("relax.add", f.bin("relax.multiply", yy, f.k(float64(W), yy)), xx), Attr("dtype", runtime.Int64)))
		if f.err != nil {
			return nil
		}
		v, err := c.Emit("relax.take", []ir.Expr{xc.Expr, idx.Expr}, Attr("axis", int64(1))) // (C, R, Hs, Ws)
		if err != nil {
			f.err = err
			return nil
		}
		return f.bin("relax.multiply", v, f.bin("relax.multiply", w, valid))
	}
	t1 := tap(yl, xl, f.bin("relax.multiply", hy, hx))
	t2 := tap(yl, xh, f.bin("relax.multiply", hy, lx))
	t3 := tap(yh, xl, f.bin("relax.multiply", ly, hx))
	t4 := tap(yh, xh, f.bin("relax.multiply", ly, lx))
	var s *Value
	red := []any{int64(3), int64(5)}
	if mode == "avg" {
		s = f.bin("relax.add", f.bin("relax.add", t1, t2), f.bin("relax.add", t3, t4))
		s = f.un("relax.sum", f.reshapeTo(s, C, R, oh, sr, ow, sr), Attr("axis", red), Attr("keepdims", false))
		s = f.bin("relax.divide", s, f.k(float64(sr*sr), s))
	} else {
		s = f.bin("relax.maximum", f.bin("relax.maximum", t1, t2), f.bin("relax.maximum", t3, t4))
		s = f.un("relax.max", f.reshapeTo(s, C, R, oh, sr, ow, sr), Attr("axis", red), Attr("keepdims", false))
	}
	y := f.un("relax.permute_dims", s, Attr("axes", []any{int64(1), int64(0), int64(2), int64(3)}))
	return one(y, f.err)
}
