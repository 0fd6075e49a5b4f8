package onnx

import (
	"fmt"
	"math"
	"sort"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// resizeSeparable is Resize (opset 11+) for the cases relax.image.resize2d
// does not cover (antialias, keep_aspect_ratio_policy, tf_crop_and_resize,
// half_pixel_symmetric, scales giving non-integral sizes, ranks other than 4,
// round_prefer_ceil): ONNX's reference interpolates one axis at a time with
// coefficients that depend only on that axis's output coordinate, so each
// axis is a constant (out x in) matrix computed at import time (a gather of
// one index per output for nearest), applied from the innermost axis out.

const resizeMatLimit = 1 << 24

type resizeAxis struct {
	axis    int
	in, out int64
	scale   float64
	roi     [2]float64
}

func resizeSeparable(c *Ctx, n *Node, x *Value, dims []int64) ([]*Value, error) {
	if n.Op != "Resize" || n.Opset < 11 {
		return nil, n.unsupported("this Resize form needs opset 11 or later")
	}
	r := len(dims)
	mode := n.Str("mode", "nearest")
	ctm := n.Str("coordinate_transformation_mode", "half_pixel")
	antialias := n.Int("antialias", 0) != 0
	switch mode {
	case "nearest":
		if antialias {
			return nil, n.unsupported("antialias with mode nearest")
		}
	case "linear", "cubic":
	default:
		return nil, n.unsupported("mode=%q", mode)
	}
	switch ctm {
	case "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize":
	default:
		return nil, n.unsupported("coordinate_transformation_mode=%q", ctm)
	}
	nearestMode := n.Str("nearest_mode", "round_prefer_floor")
	switch nearestMode {
	case "round_prefer_floor", "round_prefer_ceil", "floor", "ceil":
	default:
		return nil, n.unsupported("nearest_mode=%q", nearestMode)
	}
	axes := n.Ints("axes", nil)
	if axes == nil {
		for i := 0; i < r; i++ {
			axes = append(axes, int64(i))
		}
	}
	seen := map[int64]bool{}
	for i, a := range axes {
		if a < 0 {
			a += int64(r)
		}
		if a < 0 || a >= int64(r) || seen[a] {
			return nil, fmt.Errorf("axes %v out of range or repeated", n.Ints("axes", nil))
		}
		seen[a] = true
		axes[i] = a
	}
	var scales []float64
	var sizes []int64
	if v := n.Input(2); v != nil {
		s, ok := v.Floats()
		if !ok {
			return nil, n.unsupported("scales must be known at import time")
		}
		if len(s) > 0 {
			scales = s
		}
	}
	if v := n.Input(3); v != nil {
		s, ok := v.Ints()
		if !ok {
			return nil, n.unsupported("sizes must be known at import time")
		}
		if len(s) > 0 {
			sizes = s
		}
	}
	if (scales == nil) == (sizes == nil) {
		return nil, n.unsupported("exactly one of scales and sizes must be given")
	}
	if scales != nil && len(scales) != len(axes) || sizes != nil && len(sizes) != len(axes) {
		return nil, fmt.Errorf("scales %v / sizes %v do not match %d axes", scales, sizes, len(axes))
	}
	var roi []float64
	if ctm == "tf_crop_and_resize" {
		v := n.Input(1)
		if v == nil {
			return nil, n.unsupported("tf_crop_and_resize needs roi")
		}
		rv, ok := v.Floats()
		if !ok {
			return nil, n.unsupported("roi must be known at import time")
		}
		if len(rv) != 2*len(axes) {
			return nil, fmt.Errorf("roi %v does not match %d axes", rv, len(axes))
		}
		roi = rv
	}
	// Per-axis output sizes and scale factors, as the reference computes them.
	ax := make([]resizeAxis, len(axes))
	for i, a := range axes {
		ax[i] = resizeAxis{axis: int(a), in: dims[a], roi: [2]float64{0, 1}}
		if roi != nil {
			ax[i].roi = [2]float64{roi[i], roi[len(axes)+i]}
		}
		if scales != nil {
			if !(scales[i] > 0) || math.IsInf(scales[i], 0) {
				return nil, fmt.Errorf("scales %v must be positive", scales)
			}
			ax[i].scale = scales[i]
			ax[i].out = int64(scales[i] * float64(dims[a]))
		} else {
			if sizes[i] < 0 {
				return nil, fmt.Errorf("sizes %v must be non-negative", sizes)
			}
			ax[i].out = sizes[i]
			if dims[a] == 0 {
				return nil, n.unsupported("resizing an empty axis")
			}
			ax[i].scale = float64(sizes[i]) / float64(dims[a])
		}
	}
	if sizes != nil {
		if kar := n.Str("keep_aspect_ratio_policy", "stretch"); kar != "stretch" {
			s := ax[0].scale
			for _, a := range ax[1:] {
				if kar == "not_larger" {
					s = math.Min(s, a.scale)
				} else if kar == "not_smaller" {
					s = math.Max(s, a.scale)
				} else {
					return nil, n.unsupported("keep_aspect_ratio_policy=%q", kar)
				}
			}
			if kar != "not_larger" && kar != "not_smaller" {
				return nil, n.unsupported("keep_aspect_ratio_policy=%q", kar)
			}
			for i := range ax {
				ax[i].scale = s
				ax[i].out = int64(s*float64(ax[i].in) + 0.5)
			}
		}
	}
	dt := x.DType()
	if !dt.IsFloat() && mode != "nearest" {
		return nil, n.unsupported("%s interpolation of %s", mode, dt)
	}
	A := n.Float("cubic_coeff_a", -0.75)
	excl := n.Int("exclude_outside", 0) != 0
	extrap := n.Float("extrapolation_value", 0)
	cur := x
	cd := append([]int64{}, dims...)
	for i := len(ax) - 1; i >= 0; i-- {
		a := ax[i]
		if a.out == a.in && a.scale == 1 && ctm != "tf_crop_and_resize" && !antialias {
			continue // identity along this axis
		}
		if a.out < 0 || a.in < 1 || a.out*a.in > resizeMatLimit {
			return nil, n.unsupported("resizing an axis of %d to %d", a.in, a.out)
		}
		W := make([]float64, a.out*a.in)
		bias := make([]float64, a.out)
		hasBias := false
		for o := int64(0); o < a.out; o++ {
			coeffs, idxs, out := resizeCoeffs(a, o, ctm, mode, nearestMode, antialias, A, excl)
			if out {
				bias[o] = extrap
				hasBias = true
				continue
			}
			for k, cf := range coeffs {
				j := idxs[k]
				if j < 0 {
					j = 0
				}
				if j > a.in-1 {
					j = a.in - 1
				}
				W[o*a.in+j] += cf
			}
		}
		var err error
		cur, err = applyResizeAxis(c, cur, cd, a, W, bias, hasBias, mode == "nearest")
		if err != nil {
			return nil, err
		}
		cd[a.axis] = a.out
	}
	if cur == x {
		return one(c.Emit("relax.reshape", []ir.Expr{x.Expr, shapeExpr(staticPrims(dims))}))
	}
	return []*Value{cur}, nil
}

func staticPrims(d []int64) []ir.PrimExpr {
	p := make([]ir.PrimExpr, len(d))
	for i, v := range d {
		p[i] = ir.Int64(v)
	}
	return p
}

// resizeCoeffs follows ONNX's reference _interpolate_1d_with_x for output
// coordinate o: the coefficients and the (unclamped) input indices they
// weigh, or out=true when tf_crop_and_resize extrapolates.
func resizeCoeffs(a resizeAxis, o int64, ctm, mode, nearestMode string, antialias bool, A float64, excl bool) ([]float64, []int64, bool) {
	inW := float64(a.in)
	outW := a.scale * inW
	x := float64(o)
	var xo float64
	switch ctm {
	case "align_corners":
		if outW == 1 {
			xo = 0
		} else {
			xo = x * (inW - 1) / (outW - 1)
		}
	case "asymmetric":
		xo = x / a.scale
	case "tf_crop_and_resize":
		if outW == 1 {
			xo = (a.roi[1] - a.roi[0]) * (inW - 1) / 2
		} else {
			xo = x * (a.roi[1] - a.roi[0]) * (inW - 1) / (outW - 1)
		}
		xo += a.roi[0] * (inW - 1)
		if xo < 0 || xo > inW-1 {
			return nil, nil, true
		}
	case "pytorch_half_pixel":
		if outW == 1 {
			xo = -0.5
		} else {
			xo = (x+0.5)/a.scale - 0.5
		}
	case "half_pixel":
		xo = (x+0.5)/a.scale - 0.5
	case "half_pixel_symmetric":
		adj := float64(a.out) / outW
		center := inW / 2
		xo = center*(1-adj) + (x+0.5)/a.scale - 0.5
	}
	fl := math.Floor(xo)
	ratio := xo - fl
	if xo == fl {
		ratio = 1
	}
	var coeffs []float64
	switch mode {
	case "nearest":
		switch {
		case ratio == 1:
			coeffs = []float64{0, 1}
		case nearestMode == "round_prefer_floor":
			coeffs = []float64{b2f(ratio <= 0.5), b2f(ratio > 0.5)}
		case nearestMode == "round_prefer_ceil":
			coeffs = []float64{b2f(ratio < 0.5), b2f(ratio >= 0.5)}
		case nearestMode == "floor":
			coeffs = []float64{1, 0}
		default:
			coeffs = []float64{0, 1}
		}
	case "linear":
		if antialias {
			s := math.Min(a.scale, 1)
			start := int64(math.Floor(-1/s) + 1)
			foot := 2 - 2*start
			sum := 0.0
			for i := int64(0); i < foot; i++ {
				v := 1 - math.Abs((float64(start+i)-ratio)*s)
				v = math.Max(0, math.Min(1, v))
				coeffs = append(coeffs, v)
				sum += v
			}
			for i := range coeffs {
				coeffs[i] /= sum
			}
		} else {
			coeffs = []float64{1 - ratio, ratio}
		}
	case "cubic":
		if antialias {
			s := math.Min(a.scale, 1)
			iStart := int64(math.Floor(-2/s) + 1)
			iEnd := 2 - iStart
			sum := 0.0
			for i := iStart; i < iEnd; i++ {
				v := cubicKernel(s*(float64(i)-ratio), A)
				coeffs = append(coeffs, v)
				sum += v
			}
			for i := range coeffs {
				coeffs[i] /= sum
			}
		} else {
			r1, q := ratio+1, 1-ratio
			coeffs = []float64{
				((A*r1-5*A)*r1+8*A)*r1 - 4*A,
				((A+2)*ratio-(A+3))*ratio*ratio + 1,
				((A+2)*q-(A+3))*q*q + 1,
				((A*(q+1)-5*A)*(q+1)+8*A)*(q+1) - 4*A,
			}
		}
	}
	// The len(coeffs) nearest indices of the edge-padded input, preferring
	// the smaller on ties, in ascending order.
	k := int64(len(coeffs))
	pad := (k + 1) / 2
	xp := xo + float64(pad)
	limit := a.in + 2*pad
	lo := int64(math.Floor(xp)) - k - 1
	hi := int64(math.Floor(xp)) + k + 1
	if lo < 0 {
		lo = 0
	}
	if hi > limit-1 {
		hi = limit - 1
	}
	var cand []int64
	for i := lo; i <= hi; i++ {
		cand = append(cand, i)
	}
	sort.SliceStable(cand, func(i, j int) bool {
		di, dj := math.Abs(xp-float64(cand[i])), math.Abs(xp-float64(cand[j]))
		if di != dj {
			return di < dj
		}
		return cand[i] < cand[j]
	})
	if int64(len(cand)) > k {
		cand = cand[:k]
	}
	sort.Slice(cand, func(i, j int) bool { return cand[i] < cand[j] })
	idxs := make([]int64, len(cand))
	for i, v := range cand {
		idxs[i] = v - pad
	}
	coeffs = coeffs[:len(idxs)]
	if excl {
		sum := 0.0
		for i, j := range idxs {
			if j < 0 || j >= a.in {
				coeffs[i] = 0
			}
			sum += coeffs[i]
		}
		if sum != 0 {
			for i := range coeffs {
				coeffs[i] /= sum
			}
		}
	}
	return coeffs, idxs, false
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func cubicKernel(x, A float64) float64 {
	x = math.Abs(x)
	switch {
	case x <= 1:
		return (A+2)*x*x*x - (A+3)*x*x + 1
	case x < 2:
		return A*x*x*x - 5*A*x*x + 8*A*x - 4*A
	}
	return 0
}

// applyResizeAxis maps axis a of x (static dims d) through W (out x in) plus
// bias; nearest rows (one weight of 1) become a take.
func applyResizeAxis(c *Ctx, x *Value, d []int64, a resizeAxis, W, bias []float64, hasBias, nearest bool) (*Value, error) {
	if nearest && !hasBias {
		idx := make([]int64, a.out)
		for o := int64(0); o < a.out; o++ {
			for j := int64(0); j < a.in; j++ {
				if W[o*a.in+j] != 0 {
					idx[o] = j
				}
			}
		}
		return c.Emit("relax.take", []ir.Expr{x.Expr, c.ConstInts(idx).Expr}, Attr("axis", int64(a.axis)))
	}
	dt := x.DType()
	pre, post := int64(1), int64(1)
	for i, v := range d {
		if i < a.axis {
			pre *= v
		} else if i > a.axis {
			post *= v
		}
	}
	f := &formula{c: c}
	reshape := func(v *Value, s []int64) *Value {
		if f.err != nil {
			return nil
		}
		r, err := c.Emit("relax.reshape", []ir.Expr{v.Expr, shapeExpr(staticPrims(s))})
		f.err = err
		return r
	}
	wt, err := runtime.NewTensor([]int64{a.out, a.in}, runtime.Float32)
	if err != nil {
		return nil, err
	}
	for i, v := range W {
		wt.Float32s()[i] = float32(v)
	}
	wc, err := c.Cast(c.Const(wt), dt)
	if err != nil {
		return nil, err
	}
	y := f.bin("relax.matmul", wc, reshape(x, []int64{pre, a.in, post}))
	if hasBias {
		bt, err := runtime.NewTensor([]int64{a.out, 1}, dt)
		if err != nil {
			return nil, err
		}
		for i, v := range bias {
			if err := setElem(bt, i, v); err != nil {
				return nil, err
			}
		}
		y = f.bin("relax.add", y, c.Const(bt))
	}
	out := append([]int64{}, d...)
	out[a.axis] = a.out
	return reshape(y, out), f.err
}
