package onnx

import (
	"fmt"
	"math"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// More operators: Pad, CumProd, RMS/Group/Lp normalization, Hardmax, LpPool,
// EyeLike, DepthToSpace/SpaceToDepth, NegativeLogLikelihoodLoss and
// SoftmaxCrossEntropyLoss (inference semantics).

func init() {
	registerN("CumProd", 1, 2, func(c *Ctx, n *Node) ([]*Value, error) {
		ax, ok := n.In[1].Ints()
		if !ok || len(ax) != 1 {
			return nil, n.unsupported("axis must be a known scalar")
		}
		axis, err := normAxis(n, ax[0], n.In[0].Rank())
		if err != nil {
			return nil, err
		}
		x := n.In[0]
		rev := n.Int("reverse", 0) != 0
		f := &formula{c: c}
		if rev {
			x = f.un("relax.flip", x, Attr("axis", int64(axis)))
		}
		y := f.un("relax.cumprod", x, Attr("axis", int64(axis)), Attr("exclusive", n.Int("exclusive", 0) != 0))
		if rev {
			y = f.un("relax.flip", y, Attr("axis", int64(axis)))
		}
		return one(y, f.err)
	})
	registerN("RMSNormalization", 23, 2, func(c *Ctx, n *Node) ([]*Value, error) {
		x, scale := n.In[0], n.In[1]
		r := x.Rank()
		axis, err := normAxis(n, n.Int("axis", -1), r)
		if err != nil {
			return nil, err
		}
		var axes []int64
		for i := axis; i < r; i++ {
			axes = append(axes, int64(i))
		}
		f := &formula{c: c}
		ms := f.un("relax.mean", f.bin("relax.multiply", x, x), Attr("axis", intsAny(axes)), Attr("keepdims", true))
		y := f.bin("relax.divide", x, f.un("relax.sqrt", f.bin("relax.add", ms, f.k(n.Float("epsilon", 1e-5), x))))
		return one(f.bin("relax.multiply", y, scale), f.err)
	})
	registerN("LpNormalization", 1, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		x := n.In[0]
		axis, err := normAxis(n, n.Int("axis", -1), x.Rank())
		if err != nil {
			return nil, err
		}
		keep := []ir.Attr{Attr("axis", []any{int64(axis)}), Attr("keepdims", true)}
		f := &formula{c: c}
		var norm *Value
		switch p := n.Int("p", 2); p {
		case 1:
			norm = f.un("relax.sum", f.un("relax.abs", x), keep...)
		case 2:
			norm = f.un("relax.sqrt", f.un("relax.sum", f.bin("relax.multiply", x, x), keep...))
		default:
			return nil, n.unsupported("p=%d", p)
		}
		// A zero norm gives zeros, as ONNX's reference does.
		norm = f.where(f.bin("relax.equal", norm, f.k(0, x)), f.k(1, x), norm)
		return one(f.bin("relax.divide", x, norm), f.err)
	})
	registerN("LpPool", 1, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		x := n.In[0]
		g, err := readGeometry(n, x, nil)
		if err != nil {
			return nil, err
		}
		if n.Int("ceil_mode", 0) != 0 {
			return nil, n.unsupported("ceil_mode=1")
		}
		p := float64(n.Int("p", 2))
		if n.Opset < 2 {
			p = n.Float("p", 2)
		}
		sp := len(g.kernel)
		f := &formula{c: c}
		xp := f.bin("relax.power", f.un("relax.abs", x), f.k(p, x))
		if f.err != nil {
			return nil, f.err
		}
		var avg *Value
		if sp == 3 {
			avg, err = poolTaps(c, n, xp, g, "avg", false, true)
		} else {
			avg, err = c.Un(fmt.Sprintf("relax.nn.avg_pool%dd", sp), xp, Attr("pool_size", intsAny(g.kernel)),
				Attr("strides", intsAny(g.strides)), Attr("padding", intsAny(g.pads)), Attr("dilation", intsAny(g.dilations)),
				Attr("count_include_pad", true))
		}
		if err != nil {
			return nil, err
		}
		k := int64(1)
		for _, d := range g.kernel {
			k *= d
		}
		y := f.bin("relax.power", f.bin("relax.multiply", avg, f.k(float64(k), x)), f.k(1/p, x))
		return one(y, f.err)
	})
	registerN("Hardmax", 1, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		x := n.In[0]
		dims, ok := x.StaticDims()
		if !ok {
			return nil, n.unsupported("input shape must be static")
		}
		if n.Opset < 13 {
			axis, err := normAxis(n, n.Int("axis", 1), len(dims))
			if err != nil {
				return nil, err
			}
			a, b := int64(1), int64(1)
			for i, d := range dims {
				if i < axis {
					a *= d
				} else {
					b *= d
				}
			}
			f := &formula{c: c}
			flat, err := c.Emit("relax.reshape", []ir.Expr{x.Expr, shapeExpr([]ir.PrimExpr{ir.Int64(a), ir.Int64(b)})})
			if err != nil {
				return nil, err
			}
			y := hardmax(c, f, flat, 1, b)
			if f.err != nil {
				return nil, f.err
			}
			return one(c.Emit("relax.reshape", []ir.Expr{y.Expr, shapeExpr(x.Dims())}))
		}
		axis, err := normAxis(n, n.Int("axis", -1), len(dims))
		if err != nil {
			return nil, err
		}
		f := &formula{c: c}
		y := hardmax(c, f, x, axis, dims[axis])
		return one(y, f.err)
	})
	registerN("EyeLike", 9, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		dims, ok := n.In[0].StaticDims()
		if !ok || len(dims) != 2 {
			return nil, n.unsupported("input must be 2-D with a static shape")
		}
		if dims[0]*dims[1] > maxFoldElems {
			return nil, n.unsupported("a %dx%d identity is too large to build at import time", dims[0], dims[1])
		}
		dt := n.In[0].DType()
		if n.Has("dtype") {
			var err error
			if dt, err = DType(int32(n.Int("dtype", 1))); err != nil {
				return nil, n.unsupported("%v", err)
			}
		}
		t, err := runtime.NewTensor(dims, dt)
		if err != nil {
			return nil, err
		}
		k := n.Int("k", 0)
		for i := int64(0); i < dims[0]; i++ {
			if j := i + k; j >= 0 && j < dims[1] {
				if err := setElem(t, int(i*dims[1]+j), 1); err != nil {
					return nil, n.unsupported("%v", err)
				}
			}
		}
		return []*Value{c.Const(t)}, nil
	})
	Register("DepthToSpace", 1, convDepthSpace(true))
	Register("SpaceToDepth", 1, convDepthSpace(false))
	registerN("NegativeLogLikelihoodLoss", 12, 2, func(c *Ctx, n *Node) ([]*Value, error) {
		return one(nllLoss(c, n, n.In[0], n.In[1], n.Input(2)))
	})
	registerN("SoftmaxCrossEntropyLoss", 12, 2, func(c *Ctx, n *Node) ([]*Value, error) {
		logp, err := c.Un("relax.nn.log_softmax", n.In[0], Attr("axis", int64(1)))
		if err != nil {
			return nil, err
		}
		loss, err := nllLoss(c, n, logp, n.In[1], n.Input(2))
		if err != nil {
			return nil, err
		}
		return []*Value{loss, logp}, nil
	})
}

func hardmax(c *Ctx, f *formula, x *Value, axis int, depth int64) *Value {
	i := f.un("relax.argmax", x, Attr("axis", int64(axis)), Attr("keepdims", false))
	if f.err != nil {
		return nil
	}
	dt := x.DType()
	on, off := &ir.FloatImm{Value: 1, Type: dt}, &ir.FloatImm{Value: 0, Type: dt}
	pv := func(e *ir.FloatImm) *ir.PrimValue {
		p := &ir.PrimValue{Value: e}
		p.SetSInfo(&ir.PrimSInfo{DType: dt, Value: e})
		return p
	}
	y, err := c.Emit("relax.one_hot", []ir.Expr{i.Expr, pv(on), pv(off)}, Attr("depth", depth), Attr("axis", int64(axis)))
	f.err = err
	return y
}

func convPad(c *Ctx, n *Node) ([]*Value, error) {
	x := n.In[0]
	r := x.Rank()
	var pads []int64
	value := 0.0
	if n.Opset < 11 {
		pads = n.Ints("pads", n.Ints("paddings", nil))
		value = n.Float("value", 0)
	} else {
		p, ok := n.Input(1).Ints()
		if !ok {
			return nil, n.unsupported("pads must be known at import time")
		}
		pads = p
		if v := n.Input(2); v != nil {
			fs, ok := v.Floats()
			if !ok || len(fs) > 1 {
				return nil, n.unsupported("constant_value must be known at import time")
			}
			if len(fs) == 1 {
				value = fs[0]
			}
		}
	}
	axes := make([]int64, r)
	for i := range axes {
		axes[i] = int64(i)
	}
	if v := n.Input(3); v != nil && n.Opset >= 18 {
		a, ok := v.Ints()
		if !ok {
			return nil, n.unsupported("axes must be known at import time")
		}
		axes = a
	}
	if len(pads) != 2*len(axes) {
		return nil, fmt.Errorf("pads has %d values for %d axes", len(pads), len(axes))
	}
	width := make([]int64, 2*r)
	var crop bool
	for i, a := range axes {
		k, err := normAxis(n, a, r)
		if err != nil {
			return nil, err
		}
		width[2*k], width[2*k+1] = pads[i], pads[len(axes)+i]
		crop = crop || pads[i] < 0 || pads[len(axes)+i] < 0
	}
	mode := n.Str("mode", "constant")
	relaxMode := map[string]string{"constant": "constant", "reflect": "reflect", "edge": "edge", "wrap": "circular"}[mode]
	if relaxMode == "" {
		return nil, n.unsupported("mode=%q", mode)
	}
	pos := make([]int64, len(width))
	for i, w := range width {
		pos[i] = max(w, 0)
	}
	y := x
	var err error
	if !allZero(pos) {
		if !x.DType().IsFloat() && value != math.Trunc(value) {
			return nil, n.unsupported("fractional pad value for an integer tensor")
		}
		if y, err = c.Un("relax.nn.pad", x, Attr("pad_width", intsAny(pos)), Attr("pad_value", value), Attr("pad_mode", relaxMode)); err != nil {
			return nil, err
		}
	}
	if crop {
		dims, ok := y.StaticDims()
		if !ok {
			return nil, n.unsupported("negative pads with a non-static shape")
		}
		var ax, b, e []int64
		for i := 0; i < r; i++ {
			if width[2*i] < 0 || width[2*i+1] < 0 {
				ax = append(ax, int64(i))
				b = append(b, -min(width[2*i], 0))
				e = append(e, dims[i]+min(width[2*i+1], 0))
			}
		}
		return one(c.Emit("relax.strided_slice", []ir.Expr{y.Expr, primInts(ax...), primInts(b...), primInts(e...), primInts(onesLike(ax)...)}))
	}
	if y == x {
		return identity(c, n)
	}
	return one(y, nil)
}

func allZero(v []int64) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

func convGroupNorm(c *Ctx, n *Node) ([]*Value, error) {
	x, scale, bias := n.In[0], n.In[1], n.In[2]
	dims, ok := x.StaticDims()
	if !ok || len(dims) < 3 {
		return nil, n.unsupported("input must have a static shape of rank >= 3")
	}
	g := n.Int("num_groups", 0)
	if g <= 0 || dims[1]%g != 0 {
		return nil, n.unsupported("num_groups=%d for %d channels", g, dims[1])
	}
	f := &formula{c: c}
	if n.Opset < 21 {
		// scale and bias are per group: repeat them per channel.
		rep := dims[1] / g
		scale = f.un("relax.repeat", scale, Attr("repeats", rep), Attr("axis", int64(0)))
		bias = f.un("relax.repeat", bias, Attr("repeats", rep), Attr("axis", int64(0)))
		if f.err != nil {
			return nil, f.err
		}
	}
	rest := int64(1)
	for _, d := range dims[2:] {
		rest *= d
	}
	grouped, err := c.Emit("relax.reshape", []ir.Expr{x.Expr, shapeExpr([]ir.PrimExpr{ir.Int64(dims[0]), ir.Int64(g), ir.Int64(dims[1] / g * rest)})})
	if err != nil {
		return nil, err
	}
	keep := []ir.Attr{Attr("axis", []any{int64(2)}), Attr("keepdims", true)}
	mean := f.un("relax.mean", grouped, keep...)
	d := f.bin("relax.subtract", grouped, mean)
	v := f.un("relax.mean", f.bin("relax.multiply", d, d), keep...)
	norm := f.bin("relax.divide", d, f.un("relax.sqrt", f.bin("relax.add", v, f.k(n.Float("epsilon", 1e-5), x))))
	if f.err != nil {
		return nil, f.err
	}
	back, err := c.Emit("relax.reshape", []ir.Expr{norm.Expr, shapeExpr(x.Dims())})
	if err != nil {
		return nil, err
	}
	s, err := c.channelShape(scale, len(dims))
	if err != nil {
		return nil, err
	}
	b, err := c.channelShape(bias, len(dims))
	if err != nil {
		return nil, err
	}
	return one(f.bin("relax.add", f.bin("relax.multiply", back, s), b), f.err)
}

func convDepthSpace(toSpace bool) ConvFunc {
	return func(c *Ctx, n *Node) ([]*Value, error) {
		if err := needInputs(n, 1); err != nil {
			return nil, err
		}
		x := n.In[0]
		d, ok := x.StaticDims()
		if !ok || len(d) != 4 {
			return nil, n.unsupported("input must be 4-D with a static shape")
		}
		bs := n.Int("blocksize", 0)
		if bs <= 0 || bs > 1<<16 {
			return nil, n.unsupported("blocksize=%d", bs)
		}
		N, C, H, W := d[0], d[1], d[2], d[3]
		var s1, perm, s2 []int64
		if toSpace {
			if C%(bs*bs) != 0 {
				return nil, fmt.Errorf("channels %d not divisible by blocksize^2", C)
			}
			if n.Str("mode", "DCR") == "CRD" {
				s1, perm = []int64{N, C / (bs * bs), bs, bs, H, W}, []int64{0, 1, 4, 2, 5, 3}
			} else {
				s1, perm = []int64{N, bs, bs, C / (bs * bs), H, W}, []int64{0, 3, 4, 1, 5, 2}
			}
			s2 = []int64{N, C / (bs * bs), H * bs, W * bs}
		} else {
			if H%bs != 0 || W%bs != 0 {
				return nil, fmt.Errorf("spatial size not divisible by blocksize")
			}
			s1, perm = []int64{N, C, H / bs, bs, W / bs, bs}, []int64{0, 3, 5, 1, 2, 4}
			s2 = []int64{N, C * bs * bs, H / bs, W / bs}
		}
		dims := func(v []int64) *ir.ShapeExpr {
			out := make([]ir.PrimExpr, len(v))
			for i, x := range v {
				out[i] = ir.Int64(x)
			}
			return shapeExpr(out)
		}
		f := &formula{c: c}
		y, err := c.Emit("relax.reshape", []ir.Expr{x.Expr, dims(s1)})
		if err != nil {
			return nil, err
		}
		y = f.un("relax.permute_dims", y, Attr("axes", intsAny(perm)))
		if f.err != nil {
			return nil, f.err
		}
		return one(c.Emit("relax.reshape", []ir.Expr{y.Expr, dims(s2)}))
	}
}

// nllLoss computes ONNX NegativeLogLikelihoodLoss of log-probabilities
// logp (N, C, d...) against integer targets (N, d...), with optional class weights.
func nllLoss(c *Ctx, n *Node, logp, target, weight *Value) (*Value, error) {
	f := &formula{c: c}
	reduction := n.Str("reduction", "mean")
	tgt := target
	hasIgnore := n.Has("ignore_index")
	ignore := n.Int("ignore_index", 0)
	var keepMask *Value
	if hasIgnore {
		keepMask = f.bin("relax.not_equal", target, f.k(float64(ignore), target))
		tgt = f.where(keepMask, target, f.k(0, target))
	}
	idx := f.un("relax.expand_dims", tgt, Attr("axis", []any{int64(1)}))
	if f.err != nil {
		return nil, f.err
	}
	picked, err := c.Emit("relax.gather_elements", []ir.Expr{logp.Expr, idx.Expr}, Attr("axis", int64(1)))
	if err != nil {
		return nil, err
	}
	loss := f.un("relax.negative", f.un("relax.squeeze", picked, Attr("axis", []any{int64(1)})))
	var w *Value
	if weight != nil {
		var err error
		w, err = c.Emit("relax.take", []ir.Expr{weight.Expr, tgt.Expr}, Attr("axis", int64(0)))
		if err != nil {
			return nil, err
		}
	}
	if keepMask != nil {
		m := f.un("relax.astype", keepMask, Attr("dtype", logp.DType()))
		if w == nil {
			w = m
		} else {
			w = f.bin("relax.multiply", w, m)
		}
	}
	if w != nil {
		loss = f.bin("relax.multiply", loss, w)
	}
	if f.err != nil {
		return nil, f.err
	}
	switch reduction {
	case "none":
		return loss, nil
	case "sum":
		return c.Un("relax.sum", loss)
	case "mean":
		if w == nil {
			return c.Un("relax.mean", loss)
		}
		return f.bin("relax.divide", f.un("relax.sum", loss), f.un("relax.sum", w)), f.err
	}
	return nil, n.unsupported("reduction=%q", reduction)
}

func convCenterCropPad(c *Ctx, n *Node) ([]*Value, error) {
	x := n.In[0]
	dims, ok := x.StaticDims()
	if !ok {
		return nil, n.unsupported("input shape must be static")
	}
	target, ok := n.In[1].Ints()
	if !ok {
		return nil, n.unsupported("the shape must be known at import time")
	}
	r := len(dims)
	axes := n.Ints("axes", nil)
	if axes == nil {
		for i := 0; i < r; i++ {
			axes = append(axes, int64(i))
		}
	}
	if len(axes) != len(target) {
		return nil, fmt.Errorf("shape has %d values for %d axes", len(target), len(axes))
	}
	var sa, sb, se []int64
	pad := make([]int64, 2*r)
	for i, a := range axes {
		k, err := normAxis(n, a, r)
		if err != nil {
			return nil, err
		}
		d, t := dims[k], target[i]
		switch {
		case t < d:
			b := (d - t) / 2
			sa, sb, se = append(sa, int64(k)), append(sb, b), append(se, b+t)
		case t > d:
			pad[2*k] = (t - d) / 2
			pad[2*k+1] = t - d - (t-d)/2
		}
	}
	y := x
	var err error
	if len(sa) > 0 {
		if y, err = c.Emit("relax.strided_slice", []ir.Expr{y.Expr, primInts(sa...), primInts(sb...), primInts(se...), primInts(onesLike(sa)...)}); err != nil {
			return nil, err
		}
	}
	if !allZero(pad) {
		if y, err = c.Un("relax.nn.pad", y, Attr("pad_width", intsAny(pad)), Attr("pad_value", 0.0), Attr("pad_mode", "constant")); err != nil {
			return nil, err
		}
	}
	if y == x {
		return identity(c, n)
	}
	return []*Value{y}, nil
}

func onesLike(v []int64) []int64 {
	out := make([]int64, len(v))
	for i := range out {
		out[i] = 1
	}
	return out
}
