package kernels

import (
	"fmt"
	"math"

	"github.com/relaxgo/relaxgo/runtime"
)

// Resize3D resizes x (NCDHW or NDHWC; float32, float16 computed in float32) to out's spatial size with
// Relax image.resize3d's semantics (TVM topi's resize3d): nearest_neighbor or
// linear (trilinear: along W, then H, then D) with the coordinate
// transformations of resize2d. cubic is not supported.
func Resize3D(out, x *runtime.Tensor, a Resize2DAttrs) error {
	const name = "image.resize3d"
	if err := checkRank(name, out, x); err != nil {
		return err
	}
	if x.DType() == runtime.Float16 || out.DType() == runtime.Float16 {
		return viaFloat32Multi([]*runtime.Tensor{out}, []*runtime.Tensor{x}, func(o, i []*runtime.Tensor) error { return Resize3D(o[0], i[0], a) })
	}
	if x.DType() != runtime.Float32 || out.DType() != runtime.Float32 {
		return fmt.Errorf("%s: only float32 is supported, got %s -> %s", name, x.DType(), out.DType())
	}
	_, ci, sp, err := spatial3D(name, a.Layout)
	if err != nil {
		return err
	}
	xs, os := x.Shape(), out.Shape()
	if len(xs) != 5 || len(os) != 5 || os[0] != xs[0] || os[ci] != xs[ci] {
		return fmt.Errorf("%s: output %v does not match input %v", name, os, xs)
	}
	switch a.CoordinateTransformationMode {
	case "half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn", "tf_crop_and_resize":
	default:
		return fmt.Errorf("%s: unknown coordinate_transformation_mode %q", name, a.CoordinateTransformationMode)
	}
	if a.Method != "nearest_neighbor" && a.Method != "linear" {
		return fmt.Errorf("%s: method %q is not supported (nearest_neighbor, linear)", name, a.Method)
	}
	rounding := a.RoundingMethod
	if rounding == "" {
		rounding = "floor"
		if a.CoordinateTransformationMode == "align_corners" {
			rounding = "round"
		}
	}
	var roi [6]float64
	if len(a.ROI) != 0 && len(a.ROI) != 6 {
		return fmt.Errorf("%s: roi must have 6 values, got %v", name, a.ROI)
	}
	copy(roi[:], a.ROI)
	if prod(os) == 0 {
		return nil
	}
	var ax [3]resizeAxis
	var in [3]int
	for i, d := range sp {
		in[i] = int(xs[d])
		if in[i] == 0 {
			return fmt.Errorf("%s: cannot resize an empty volume %v", name, xs)
		}
		ax[i] = newResizeAxis(in[i], int(os[d]), a.CoordinateTransformationMode, a.Method, roi[i], roi[i+3])
	}
	var xst, ost [5]int64
	stridesOf(xs, xst[:])
	stridesOf(os, ost[:])
	src, dst := x.Float32s(), out.Float32s()
	extrap := float32(a.ExtrapolationValue)
	crop := a.CoordinateTransformationMode == "tf_crop_and_resize"
	var pos [5]int64
	for o := range dst {
		rem := int64(o)
		for d := 4; d >= 0; d-- {
			pos[d] = rem % os[d]
			rem /= os[d]
		}
		base := pos[0]*xst[0] + pos[ci]*xst[ci]
		px := func(z, y, w int) float32 {
			return src[base+int64(clampIdx(z, in[0]))*xst[sp[0]]+int64(clampIdx(y, in[1]))*xst[sp[1]]+int64(clampIdx(w, in[2]))*xst[sp[2]]]
		}
		var v float32
		if a.Method == "nearest_neighbor" {
			v = px(ax[0].nearest(int(pos[sp[0]]), rounding), ax[1].nearest(int(pos[sp[1]]), rounding), ax[2].nearest(int(pos[sp[2]]), rounding))
		} else {
			var c [3]float32
			var i0 [3]int
			var t [3]float32
			for i, d := range sp {
				c[i] = ax[i].coord(int(pos[d]))
				i0[i] = int(int32(float32(math.Floor(float64(c[i])))))
				t[i] = c[i] - float32(i0[i])
			}
			var ll [2]float32
			for dz := 0; dz < 2; dz++ {
				var l [2]float32
				for dy := 0; dy < 2; dy++ {
					l[dy] = px(i0[0]+dz, i0[1]+dy, i0[2])*(1-t[2]) + px(i0[0]+dz, i0[1]+dy, i0[2]+1)*t[2]
				}
				ll[dz] = l[0]*(1-t[1]) + l[1]*t[1]
			}
			v = ll[0]*(1-t[0]) + ll[1]*t[0]
		}
		if crop {
			for i, d := range sp {
				if cc := ax[i].coord(int(pos[d])); cc < 0 || cc > float32(in[i]-1) {
					v = extrap
				}
			}
		}
		dst[o] = v
	}
	return nil
}

func init() {
	register("image.resize3d", "data, size (Shape), roi (Tuple of float or nil), layout (string), method (string), coordinate_transformation_mode (string), rounding_method (string), cubic_alpha (float64), cubic_exclude (int64), extrapolation_value (float64), out_dtype (DataType or nil), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(Prefix+"image.resize3d", args)
			p.count(12)
			x := p.tensor(0)
			a, roi := resizeAttrs(&p, args, nil)
			a.ROI = roi
			out := p.tensor(11)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(Resize3D(out, x, a))
		})
}
