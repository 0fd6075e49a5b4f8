package kernels

import (
	"fmt"
	"math"

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
func Resize2D(out, x *runtime.Tensor, a Resize2DAttrs) error {
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
	if len(a.ROI) != 0 && len(a.ROI) != 4 {
		return fmt.Errorf("%s: roi must have 4 values, got %v", name, a.ROI)
	}
	copy(roi[:], a.ROI)
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
	alpha, extrap := float32(a.CubicAlpha), float32(a.ExtrapolationValue)
	crop := a.CoordinateTransformationMode == "tf_crop_and_resize"
	ParallelFor(n*c, max(1, 4096/max(1, oh*ow)), func(lo, hi int) {
		for nc := lo; nc < hi; nc++ {
			bi, ci := nc/c, nc%c
			in := src[bi*sn+ci*sc:]
			o := dst[bi*dn+ci*dc:]
			px := func(y, x int) float32 { return in[clampIdx(y, h)*sh+clampIdx(x, w)*sw] }
			for y := 0; y < oh; y++ {
				for x := 0; x < ow; x++ {
					var v float32
					switch a.Method {
					case "nearest_neighbor":
						v = px(ay.nearest(y, rounding), ax.nearest(x, rounding))
					case "linear":
						iy, ix := ay.coord(y), ax.coord(x)
						y0, x0 := int(int32(float32(math.Floor(float64(iy))))), int(int32(float32(math.Floor(float64(ix)))))
						yl, xl := iy-float32(y0), ix-float32(x0)
						top := px(y0, x0)*(1-xl) + px(y0, x0+1)*xl
						bottom := px(y0+1, x0)*(1-xl) + px(y0+1, x0+1)*xl
						v = top*(1-yl) + bottom*yl
					default: // cubic
						iy, ix := ay.coord(y), ax.coord(x)
						fy, fx := float32(math.Floor(float64(iy))), float32(math.Floor(float64(ix)))
						y0, x0 := int(int32(fy)), int(int32(fx))
						wy, wx := cubicWeights(iy-fy, alpha), cubicWeights(ix-fx, alpha)
						if a.CubicExclude {
							excludeOutside(&wx, x0, w)
							excludeOutside(&wy, y0, h)
						}
						for j := 0; j < 4; j++ {
							var row float32
							for i := 0; i < 4; i++ {
								row += px(y0+j-1, x0+i-1) * wx[i]
							}
							v += row * wy[j]
						}
					}
					if crop {
						iy, ix := ay.coord(y), ax.coord(x)
						if iy < 0 || iy > float32(h-1) || ix < 0 || ix > float32(w-1) {
							v = extrap
						}
					}
					o[y*dh+x*dw] = v
				}
			}
		}
	})
	return nil
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
			a := resizeAttrs(&p, args)
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
			return nil, wrapErr(Resize2D(out, x, a))
		})
}

// resizeAttrs reads the attributes resize2d and resize3d share, arguments 2
// (roi) to 9, failing p on a bad roi.
func resizeAttrs(p *pargs, args []runtime.Value) Resize2DAttrs {
	a := Resize2DAttrs{Layout: p.string(3), Method: p.string(4), CoordinateTransformationMode: p.string(5),
		RoundingMethod: p.string(6), CubicAlpha: p.float(7), CubicExclude: p.int(8) != 0, ExtrapolationValue: p.float(9)}
	if p.err != nil || args[2] == nil {
		return a
	}
	switch r := args[2].(type) {
	case runtime.Tuple:
		for _, v := range r {
			f, ok := tupleFloat(v)
			if !ok {
				p.fail("argument 2 (roi) must hold numbers, got %s", runtime.TypeName(v))
				break
			}
			a.ROI = append(a.ROI, f)
		}
	case runtime.Shape:
		for _, v := range r {
			a.ROI = append(a.ROI, float64(v))
		}
	default:
		p.fail("argument 2 (roi) must be a tuple of floats, got %s", runtime.TypeName(args[2]))
	}
	return a
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
