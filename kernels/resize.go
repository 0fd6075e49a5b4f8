package kernels

import (
	"fmt"
	"math"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/internal/freelist"
	"github.com/relaxgo/relaxgo/runtime"
)

// Resize2DAttrs are Relax image.resize2d's attributes.
type Resize2DAttrs struct {
	// ROI is [start_h, start_w, end_h, end_w], used by tf_crop_and_resize.
	ROI                          []float64
	Layout                       string // NCHW or NHWC
	Method                       string // nearest_neighbor, linear or cubic
	CoordinateTransformationMode string // half_pixel, align_corners, asymmetric, pytorch_half_pixel, tf_half_pixel_for_nn, tf_crop_and_resize
	RoundingMethod               string // round, round_prefer_floor, round_prefer_ceil, floor, ceil ("" picks TVM's default)
	CubicAlpha                   float64
	CubicExclude                 bool
	ExtrapolationValue           float64
}

// resizeAxis maps output coordinates of one axis to input coordinates as
// TVM's topi resize does (float32 arithmetic).
type resizeAxis struct {
	in, out       int
	mode          string
	start, end    float32 // roi
	intDiv        bool    // nearest + asymmetric with an integer upscale
	scale         float32
	alignScale    float32
	cropStep      float32
	upscaleFactor int
}

func newResizeAxis(in, out int, mode, method string, start, end float64) resizeAxis {
	a := resizeAxis{in: in, out: out, mode: mode, start: float32(start), end: float32(end)}
	a.scale = float32(in) / float32(out)
	if out > 1 {
		a.alignScale = float32(in-1) / float32(out-1)
		a.cropStep = (a.end - a.start) * float32(in-1) / float32(out-1)
	}
	// TVM divides by the integer scale factor when an integer upscale makes it exact.
	if method == "nearest_neighbor" && mode == "asymmetric" && in > 0 && out%in == 0 {
		div := out / in
		if float64(div) <= 1/(1e-5*float64(in)+1e-5) {
			a.intDiv, a.upscaleFactor = true, div
		}
	}
	return a
}

func (a *resizeAxis) coord(x int) float32 {
	fx := float32(x)
	switch a.mode {
	case "half_pixel":
		return (fx+0.5)*a.scale - 0.5
	case "align_corners":
		return a.alignScale * fx
	case "asymmetric":
		return a.scale * fx
	case "pytorch_half_pixel":
		if a.out > 1 {
			return (fx+0.5)*a.scale - 0.5
		}
		return 0
	case "tf_half_pixel_for_nn":
		return (fx + 0.5) * a.scale
	default: // tf_crop_and_resize
		if a.out > 1 {
			return a.start*float32(a.in-1) + fx*a.cropStep
		}
		return 0.5 * (a.start + a.end) * float32(a.in-1)
	}
}

// nearest returns the input index for output index x.
func (a *resizeAxis) nearest(x int, rounding string) int {
	if a.intDiv {
		return x / a.upscaleFactor
	}
	v := a.coord(x)
	var r float32
	switch rounding {
	case "round":
		r = float32(math.RoundToEven(float64(v)))
	case "round_prefer_floor":
		r = float32(math.Ceil(float64(v - 0.5)))
	case "round_prefer_ceil":
		r = float32(math.Floor(float64(v + 0.5)))
	case "floor":
		r = float32(math.Floor(float64(v + 1e-5)))
	default: // ceil
		r = float32(math.Ceil(float64(v - 1e-5)))
	}
	return int(int32(r))
}

func clampIdx(i, n int) int { return max(0, min(i, n-1)) }

func cubicWeights(t, alpha float32) [4]float32 {
	t2, t3 := t*t, t*t*t
	return [4]float32{
		alpha * (t3 - 2*t2 + t),
		(alpha+2)*t3 - (3+alpha)*t2 + 1,
		-(alpha+2)*t3 + (3+2*alpha)*t2 - alpha*t,
		-alpha*t3 + alpha*t2,
	}
}

// Resize2D resizes x (NCHW or NHWC, float32) to out's spatial size with
// Relax image.resize2d's semantics (TVM topi's resize2d).
func Resize2D(out, x *runtime.Tensor, a Resize2DAttrs) error { return resize2D(out, x, a, a.ROI) }

// resize2D is Resize2D with the roi apart from a, whose strings leak to the
// pooled job: the packed function's roi, in its own array, then stays on
// its stack (it was three allocations a call).
func resize2D(out, x *runtime.Tensor, a Resize2DAttrs, roiIn []float64) error {
	const name = "image.resize2d"
	if out == nil || x == nil {
		return fmt.Errorf("%s: nil tensor", name)
	}
	if x.DType() != runtime.Float32 || out.DType() != runtime.Float32 {
		return fmt.Errorf("%s: only float32 is supported, got %s -> %s", name, x.DType(), out.DType())
	}
	xs, os := x.Shape(), out.Shape()
	if len(xs) != 4 || len(os) != 4 {
		return fmt.Errorf("%s: want 4-D tensors, got %v and %v", name, xs, os)
	}
	var n, c, h, w, oh, ow int
	switch a.Layout {
	case "NCHW":
		n, c, h, w, oh, ow = int(xs[0]), int(xs[1]), int(xs[2]), int(xs[3]), int(os[2]), int(os[3])
		if os[0] != xs[0] || os[1] != xs[1] {
			return fmt.Errorf("%s: output %v does not match input %v", name, os, xs)
		}
	case "NHWC":
		n, h, w, c, oh, ow = int(xs[0]), int(xs[1]), int(xs[2]), int(xs[3]), int(os[1]), int(os[2])
		if os[0] != xs[0] || os[3] != xs[3] {
			return fmt.Errorf("%s: output %v does not match input %v", name, os, xs)
		}
	default:
		return fmt.Errorf("%s: layout %q is not supported (NCHW, NHWC)", name, a.Layout)
	}
	switch a.CoordinateTransformationMode {
	case "half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn", "tf_crop_and_resize":
	default:
		return fmt.Errorf("%s: unknown coordinate_transformation_mode %q", name, a.CoordinateTransformationMode)
	}
	rounding := a.RoundingMethod
	if rounding == "" {
		rounding = "floor"
		if a.CoordinateTransformationMode == "align_corners" {
			rounding = "round"
		}
	}
	switch rounding {
	case "round", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil":
	default:
		return fmt.Errorf("%s: unknown rounding_method %q", name, a.RoundingMethod)
	}
	switch a.Method {
	case "nearest_neighbor", "linear", "cubic":
	default:
		return fmt.Errorf("%s: unknown method %q", name, a.Method)
	}
	roi := [4]float64{}
	if len(roiIn) != 0 && len(roiIn) != 4 {
		return fmt.Errorf("%s: roi must have 4 values, got %d", name, len(roiIn))
	}
	copy(roi[:], roiIn)
	if n*c*oh*ow == 0 {
		return nil
	}
	if h == 0 || w == 0 {
		return fmt.Errorf("%s: cannot resize an empty image %v", name, xs)
	}
	ay := newResizeAxis(h, oh, a.CoordinateTransformationMode, a.Method, roi[0], roi[2])
	ax := newResizeAxis(w, ow, a.CoordinateTransformationMode, a.Method, roi[1], roi[3])
	src, dst := x.Float32s(), out.Float32s()
	// Strides of (batch, channel, row, column) in input and output.
	var sn, sc, sh, sw, dn, dc, dh, dw int
	if a.Layout == "NCHW" {
		sn, sc, sh, sw = c*h*w, h*w, w, 1
		dn, dc, dh, dw = c*oh*ow, oh*ow, ow, 1
	} else {
		sn, sc, sh, sw = h*w*c, 1, w*c, c
		dn, dc, dh, dw = oh*ow*c, 1, ow*c, c
	}
	j := resizeJobPool.Get()
	defer func() {
		j.src, j.dst = nil, nil
		resizeJobPool.Put(j)
	}()
	j.src, j.dst, j.c, j.h, j.w, j.oh, j.ow = src, dst, c, h, w, oh, ow
	j.sn, j.sc, j.sh, j.sw, j.dn, j.dc, j.dh, j.dw = sn, sc, sh, sw, dn, dc, dh, dw
	j.method, j.crop, j.extrap = a.Method, a.CoordinateTransformationMode == "tf_crop_and_resize", float32(a.ExtrapolationValue)
	j.ty.fill(&ay, h, a.Method, rounding, float32(a.CubicAlpha), a.CubicExclude)
	j.tx.fill(&ax, w, a.Method, rounding, float32(a.CubicAlpha), a.CubicExclude)
	ParallelFor(n*c, max(1, 4096/max(1, oh*ow)), j.fn)
	return nil
}

// resizeTable is one axis's part of every output coordinate, computed once
// a call instead of once an element: the input indices each output index
// reads (clamped; taps per output: 1 nearest, 2 linear, 4 cubic), their
// weights, and whether the coordinate falls outside the input
// (tf_crop_and_resize's extrapolation).
type resizeTable struct {
	idx     []int
	wt      []float32
	outside []bool
}

// fill computes the table of axis a (input extent n) for method: the
// per-element arithmetic of topi's resize, done once per output index.
func (t *resizeTable) fill(a *resizeAxis, n int, method, rounding string, alpha float32, exclude bool) {
	taps := 4 // cubic
	switch method {
	case "nearest_neighbor":
		taps = 1
	case "linear":
		taps = 2
	}
	t.idx = growInts(t.idx, a.out*taps)
	t.wt = growF32(t.wt, a.out*taps)
	if cap(t.outside) < a.out {
		t.outside = make([]bool, a.out)
	}
	t.outside = t.outside[:a.out]
	for o := 0; o < a.out; o++ {
		i := a.coord(o)
		t.outside[o] = i < 0 || i > float32(n-1)
		switch method {
		case "nearest_neighbor":
			t.idx[o] = clampIdx(a.nearest(o, rounding), n)
		case "linear":
			i0 := int(int32(float32(math.Floor(float64(i)))))
			l := i - float32(i0)
			t.idx[2*o], t.idx[2*o+1] = clampIdx(i0, n), clampIdx(i0+1, n)
			t.wt[2*o], t.wt[2*o+1] = 1-l, l
		default: // cubic
			f := float32(math.Floor(float64(i)))
			i0 := int(int32(f))
			wts := cubicWeights(i-f, alpha)
			if exclude {
				excludeOutside(&wts, i0, n)
			}
			for k := 0; k < 4; k++ {
				t.idx[4*o+k], t.wt[4*o+k] = clampIdx(i0+k-1, n), wts[k]
			}
		}
	}
}

// linearRows is planes for linear resizing with contiguous output rows
// (NCHW): each input row's horizontal interpolation, r[x0]*wx0 + r[x1]*wx1,
// is computed once per plane and kept while output rows use it (an
// upscale reads each input row for several), and an output row is then
// h0*wy0 + h1*wy1 in vector passes: the same float32 operations as the
// element loop, so the same bits.
func (j *resizeJob) linearRows(lo, hi int) {
	ty, tx := &j.ty, &j.tx
	ow := j.ow
	sb := getScratch(4 * ow)
	defer putScratch(sb)
	buf := *sb
	rows := [2][]float32{buf[:ow], buf[ow : 2*ow]}
	t0, t1 := buf[2*ow:3*ow], buf[3*ow:4*ow]
	for nc := lo; nc < hi; nc++ {
		bi, ci := nc/j.c, nc%j.c
		in := j.src[bi*j.sn+ci*j.sc:]
		o := j.dst[bi*j.dn+ci*j.dc:]
		key := [2]int{-1, -1} // the input row each of rows holds
		row := func(iy, keep int) []float32 {
			for k := range key {
				if key[k] == iy {
					return rows[k]
				}
			}
			k := 0
			if key[0] == keep {
				k = 1 // the other row is still needed
			}
			key[k] = iy
			r, h := in[iy*j.sh:], rows[k]
			for x := range h {
				x0, x1 := tx.idx[2*x]*j.sw, tx.idx[2*x+1]*j.sw
				h[x] = r[x0]*tx.wt[2*x] + r[x1]*tx.wt[2*x+1]
			}
			return h
		}
		for y := 0; y < j.oh; y++ {
			iy0, iy1 := ty.idx[2*y], ty.idx[2*y+1]
			h0 := row(iy0, iy1)
			h1 := row(iy1, iy0)
			orow := o[y*j.dh : y*j.dh+ow]
			asm.MulScalarF32(t0, h0, ty.wt[2*y])
			asm.MulScalarF32(t1, h1, ty.wt[2*y+1])
			asm.AddF32(orow, t0, t1)
			j.extrapolate(orow, y)
		}
	}
}

// extrapolate sets output row y's elements (dw apart in orow) whose
// coordinate falls outside the input to the extrapolation value
// (tf_crop_and_resize; no-op otherwise).
func (j *resizeJob) extrapolate(orow []float32, y int) {
	if !j.crop {
		return
	}
	for x := 0; x < j.ow; x++ {
		if j.ty.outside[y] || j.tx.outside[x] {
			orow[x*j.dw] = j.extrap
		}
	}
}

// growInts returns s resized to n, reallocated when too small.
func growInts(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

// resizeJob is one Resize2D call: its geometry and axis tables. Pooled (the
// tables' memory stays with it), fn bound once.
type resizeJob struct {
	src, dst        []float32
	c, h, w, oh, ow int
	sn, sc, sh, sw  int
	dn, dc, dh, dw  int
	method          string
	crop            bool
	extrap          float32
	ty, tx          resizeTable
	fn              func(lo, hi int)
}

var resizeJobPool = freelist.List[*resizeJob]{New: func() *resizeJob {
	j := new(resizeJob)
	j.fn = j.planes
	return j
}}

// planes resizes the (image, channel) planes [lo, hi) with the tables, each
// element by the float32 operations of topi's resize in its order.
func (j *resizeJob) planes(lo, hi int) {
	if j.method == "linear" && j.dw == 1 {
		j.linearRows(lo, hi)
		return
	}
	ty, tx := &j.ty, &j.tx
	for nc := lo; nc < hi; nc++ {
		bi, ci := nc/j.c, nc%j.c
		in := j.src[bi*j.sn+ci*j.sc:]
		o := j.dst[bi*j.dn+ci*j.dc:]
		for y := 0; y < j.oh; y++ {
			orow := o[y*j.dh:]
			switch j.method {
			case "nearest_neighbor":
				if y > 0 && ty.idx[y] == ty.idx[y-1] && j.dw == 1 && !j.crop {
					copy(orow[:j.ow], o[(y-1)*j.dh:(y-1)*j.dh+j.ow]) // the same input row again
					continue
				}
				r := in[ty.idx[y]*j.sh:]
				for x := 0; x < j.ow; x++ {
					orow[x*j.dw] = r[tx.idx[x]*j.sw]
				}
			case "linear":
				r0, r1 := in[ty.idx[2*y]*j.sh:], in[ty.idx[2*y+1]*j.sh:]
				wy0, wy1 := ty.wt[2*y], ty.wt[2*y+1]
				for x := 0; x < j.ow; x++ {
					x0, x1 := tx.idx[2*x]*j.sw, tx.idx[2*x+1]*j.sw
					wx0, wx1 := tx.wt[2*x], tx.wt[2*x+1]
					top := r0[x0]*wx0 + r0[x1]*wx1
					bottom := r1[x0]*wx0 + r1[x1]*wx1
					orow[x*j.dw] = top*wy0 + bottom*wy1
				}
			default: // cubic
				for x := 0; x < j.ow; x++ {
					var v float32
					for k := 0; k < 4; k++ {
						r := in[ty.idx[4*y+k]*j.sh:]
						var row float32
						for i := 0; i < 4; i++ {
							row += r[tx.idx[4*x+i]*j.sw] * tx.wt[4*x+i]
						}
						v += row * ty.wt[4*y+k]
					}
					orow[x*j.dw] = v
				}
			}
			j.extrapolate(orow, y)
		}
	}
}

// excludeOutside zeroes cubic weights of taps outside the image and renormalizes.
func excludeOutside(wt *[4]float32, i0, n int) {
	var sum float32
	for i := 0; i < 4; i++ {
		if i0-1+i < 0 || i0+i > n {
			wt[i] = 0
		}
		sum += wt[i]
	}
	for i := range wt {
		wt[i] /= sum
	}
}

func init() {
	register("image.resize2d", "data, size (Shape), roi (Tuple of float or nil), layout (string), method (string), coordinate_transformation_mode (string), rounding_method (string), cubic_alpha (float64), cubic_exclude (int64), extrapolation_value (float64), out_dtype (DataType or nil), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(Prefix+"image.resize2d", args)
			p.count(12)
			x := p.tensor(0)
			var rbuf [4]float64
			a, roi := resizeAttrs(&p, args, rbuf[:0])
			size := p.ints(1)
			out := p.tensor(11)
			if p.err != nil {
				return nil, p.err
			}
			if len(size) != 2 {
				return nil, fmt.Errorf("kernels.image.resize2d: size must have 2 values, got %v", size)
			}
			os := out.Shape()
			hAxis := 2
			if a.Layout == "NHWC" {
				hAxis = 1
			}
			if len(os) != 4 || os[hAxis] != size[0] || os[hAxis+1] != size[1] {
				return nil, fmt.Errorf("kernels.image.resize2d: output shape %v does not have size %v", os, size)
			}
			return nil, wrapErr(resize2D(out, x, a, roi))
		})
}

// resizeAttrs reads the attributes resize2d and resize3d share, arguments 2
// (roi) to 9, failing p on a bad roi: the roi appended to roi (the
// caller's array), apart from the attributes.
func resizeAttrs(p *pargs, args []runtime.Value, roi []float64) (Resize2DAttrs, []float64) {
	a := Resize2DAttrs{Layout: p.string(3), Method: p.string(4), CoordinateTransformationMode: p.string(5),
		RoundingMethod: p.string(6), CubicAlpha: p.float(7), CubicExclude: p.int(8) != 0, ExtrapolationValue: p.float(9)}
	if p.err != nil || args[2] == nil {
		return a, nil
	}
	switch r := args[2].(type) {
	case runtime.Tuple:
		for _, v := range r {
			f, ok := tupleFloat(v)
			if !ok {
				p.fail("argument 2 (roi) must hold numbers, got %s", runtime.TypeName(v))
				break
			}
			roi = append(roi, f)
		}
	case runtime.Shape:
		for _, v := range r {
			roi = append(roi, float64(v))
		}
	default:
		p.fail("argument 2 (roi) must be a tuple of floats, got %s", runtime.TypeName(args[2]))
	}
	return a, roi
}

func tupleFloat(v runtime.Value) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	}
	return 0, false
}
