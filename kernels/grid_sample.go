package kernels

import (
	"fmt"
	"math"

	"github.com/relaxgo/relaxgo/runtime"
)

// GridSample is Relax image.grid_sample for NCHW data as TVM's topi computes
// it: grid (N, 2, H_out, W_out) holds normalized (x, y) in [-1, 1], mapped to
// pixel coordinates (corners with align_corners, else pixel edges); padding
// zeros, border (clamp) or reflection; bilinear, nearest (round half to
// even) or bicubic (A = -0.75). float32 arithmetic (float16 data is
// widened, and the result rounded).
func GridSample(out, data, grid *runtime.Tensor, method, layout, padding string, alignCorners bool) error {
	const name = "image.grid_sample"
	if err := checkRank(name, out, data, grid); err != nil {
		return err
	}
	if data.DType() == runtime.Float16 || grid.DType() == runtime.Float16 || out.DType() == runtime.Float16 {
		return viaFloat32Multi([]*runtime.Tensor{out}, []*runtime.Tensor{data, grid}, func(o, i []*runtime.Tensor) error {
			return GridSample(o[0], i[0], i[1], method, layout, padding, alignCorners)
		})
	}
	if layout == "NCDHW" {
		return gridSample3D(out, data, grid, method, padding, alignCorners)
	}
	if layout != "NCHW" {
		return fmt.Errorf("%s: layout %q is not supported (NCHW, NCDHW)", name, layout)
	}
	if data.DType() != runtime.Float32 || grid.DType() != runtime.Float32 {
		return fmt.Errorf("%s: only float32 is supported, got %s and %s", name, data.DType(), grid.DType())
	}
	ds, gs := data.Shape(), grid.Shape()
	if len(ds) != 4 || len(gs) != 4 || gs[0] != ds[0] || gs[1] != 2 {
		return fmt.Errorf("%s: want data (N, C, H, W) and grid (N, 2, H_out, W_out), got %s and %s", name, data, grid)
	}
	if err := checkOut(name, out, []int64{ds[0], ds[1], gs[2], gs[3]}, data.DType()); err != nil {
		return err
	}
	switch padding {
	case "zeros", "border", "reflection":
	default:
		return fmt.Errorf("%s: unknown padding_mode %q", name, padding)
	}
	n, c, h, w := int(ds[0]), int(ds[1]), int(ds[2]), int(ds[3])
	oh, ow := int(gs[2]), int(gs[3])
	src, gr, dst := data.Float32s(), grid.Float32s(), out.Float32s()
	fh, fw := float32(h), float32(w)
	unnorm := func(v, size float32) float32 {
		if alignCorners {
			return (v + 1) * (size - 1) / 2
		}
		return -0.5 + (v+1)*size/2
	}
	clip := gridClip
	reflect := func(v, size float32) float32 { return gridReflect(v, size, alignCorners) }
	pad := func(v, size float32) float32 { return gridPad(v, size, padding, alignCorners) }
	for b := 0; b < n; b++ {
		for ch := 0; ch < c; ch++ {
			img := src[(b*c+ch)*h*w:]
			px := func(y, x int) float32 {
				if y < 0 || x < 0 || y >= h || x >= w {
					return 0
				}
				return img[y*w+x]
			}
			for i := 0; i < oh; i++ {
				for j := 0; j < ow; j++ {
					gx := gr[((b*2+0)*oh+i)*ow+j]
					gy := gr[((b*2+1)*oh+i)*ow+j]
					y, x := unnorm(gy, fh), unnorm(gx, fw)
					var v float32
					switch method {
					case "bilinear":
						y, x = pad(y, fh), pad(x, fw)
						y0, x0 := int(int32(float32(math.Floor(float64(y))))), int(int32(float32(math.Floor(float64(x)))))
						ty, tx := y-float32(y0), x-float32(x0)
						v = px(y0, x0)*(1-ty)*(1-tx) + px(y0, x0+1)*(1-ty)*tx + px(y0+1, x0)*ty*(1-tx) + px(y0+1, x0+1)*ty*tx
					case "nearest":
						y, x = pad(y, fh), pad(x, fw)
						v = px(int(int32(math.RoundToEven(float64(y)))), int(int32(math.RoundToEven(float64(x)))))
					case "bicubic":
						yf, xf := float32(math.Floor(float64(y))), float32(math.Floor(float64(x)))
						ty, tx := y-yf, x-xf
						idx := func(k, size float32) int {
							switch padding {
							case "border":
								k = clip(k, size)
							case "reflection":
								k = clip(reflect(k, size), size)
							}
							return int(int32(k))
						}
						var coef [4]float32
						for r := 0; r < 4; r++ {
							yy := idx(yf-1+float32(r), fh)
							var p [4]float32
							for q := 0; q < 4; q++ {
								p[q] = px(yy, idx(xf-1+float32(q), fw))
							}
							coef[r] = cubicInterp(p, tx)
						}
						v = cubicInterp(coef, ty)
					default:
						return fmt.Errorf("%s: unknown method %q", name, method)
					}
					dst[((b*c+ch)*oh+i)*ow+j] = v
				}
			}
		}
	}
	return nil
}

func gridClip(v, size float32) float32 { return min(max(v, 0), size-1) }

// gridReflect reflects a pixel coordinate into the image as TVM's topi does.
func gridReflect(v, size float32, alignCorners bool) float32 {
	span, start := size, float32(-0.5)
	if alignCorners {
		span, start = size-1, 0
	}
	if (v >= start && v <= span+start) || span <= 0 {
		return v
	}
	a := float32(math.Abs(float64(start - v)))
	times := float32(int32(a) / int32(span))
	extra := a - times*span
	if int32(times)%2 == 0 {
		return extra + start
	}
	return span - extra + start
}

// gridPad applies padding_mode to a pixel coordinate (zeros leaves it).
func gridPad(v, size float32, padding string, alignCorners bool) float32 {
	switch padding {
	case "reflection":
		return gridClip(gridReflect(v, size, alignCorners), size)
	case "border":
		return gridClip(v, size)
	}
	return v
}

// gridSample3D is grid_sample for NCDHW data and (N, 3, D, H, W) grids
// (x, y, z): trilinear ("bilinear") or nearest, float32.
func gridSample3D(out, data, grid *runtime.Tensor, method, padding string, alignCorners bool) error {
	const name = "image.grid_sample"
	if data.DType() != runtime.Float32 || grid.DType() != runtime.Float32 {
		return fmt.Errorf("%s: only float32 is supported, got %s and %s", name, data.DType(), grid.DType())
	}
	ds, gs := data.Shape(), grid.Shape()
	if len(ds) != 5 || len(gs) != 5 || gs[0] != ds[0] || gs[1] != 3 {
		return fmt.Errorf("%s: want data (N, C, D, H, W) and grid (N, 3, D_out, H_out, W_out), got %s and %s", name, data, grid)
	}
	if err := checkOut(name, out, []int64{ds[0], ds[1], gs[2], gs[3], gs[4]}, data.DType()); err != nil {
		return err
	}
	if method != "bilinear" && method != "nearest" {
		return fmt.Errorf("%s: method %q is not supported for NCDHW (bilinear, nearest)", name, method)
	}
	n, c, dd, h, w := int(ds[0]), int(ds[1]), int(ds[2]), int(ds[3]), int(ds[4])
	od, oh, ow := int(gs[2]), int(gs[3]), int(gs[4])
	sp := od * oh * ow
	src, gr, dst := data.Float32s(), grid.Float32s(), out.Float32s()
	unnorm := func(v float32, size int) float32 {
		if alignCorners {
			return (v + 1) * float32(size-1) / 2
		}
		return -0.5 + (v+1)*float32(size)/2
	}
	floor := func(v float32) int { return int(int32(float32(math.Floor(float64(v))))) }
	for b := 0; b < n; b++ {
		for ch := 0; ch < c; ch++ {
			img := src[(b*c+ch)*dd*h*w:]
			px := func(z, y, x int) float32 {
				if z < 0 || y < 0 || x < 0 || z >= dd || y >= h || x >= w {
					return 0
				}
				return img[(z*h+y)*w+x]
			}
			for p := 0; p < sp; p++ {
				gx, gy, gz := gr[(b*3+0)*sp+p], gr[(b*3+1)*sp+p], gr[(b*3+2)*sp+p]
				z := gridPad(unnorm(gz, dd), float32(dd), padding, alignCorners)
				y := gridPad(unnorm(gy, h), float32(h), padding, alignCorners)
				x := gridPad(unnorm(gx, w), float32(w), padding, alignCorners)
				var v float32
				if method == "nearest" {
					v = px(int(int32(math.RoundToEven(float64(z)))), int(int32(math.RoundToEven(float64(y)))), int(int32(math.RoundToEven(float64(x)))))
				} else {
					z0, y0, x0 := floor(z), floor(y), floor(x)
					tz, ty, tx := z-float32(z0), y-float32(y0), x-float32(x0)
					// TVM's term order.
					v = px(z0, y0, x0)*(1-tx)*(1-ty)*(1-tz) +
						px(z0, y0, x0+1)*tx*(1-ty)*(1-tz) +
						px(z0+1, y0+1, x0)*(1-tx)*ty*tz +
						px(z0+1, y0+1, x0+1)*tx*ty*tz +
						px(z0, y0+1, x0)*(1-tx)*ty*(1-tz) +
						px(z0+1, y0, x0+1)*tx*(1-ty)*tz +
						px(z0+1, y0, x0)*(1-tx)*(1-ty)*tz +
						px(z0, y0+1, x0+1)*tx*ty*(1-tz)
				}
				dst[(b*c+ch)*sp+p] = v
			}
		}
	}
	return nil
}

// cubicInterp is TVM's (and PyTorch's) cubic convolution with A = -0.75.
func cubicInterp(p [4]float32, t float32) float32 {
	const a = -0.75
	w1 := func(f float32) float32 { return ((a+2)*f-(a+3))*f*f + 1 }
	w2 := func(f float32) float32 { return ((a*f-5*a)*f+8*a)*f - 4*a }
	return p[0]*w2(t+1) + p[1]*w1(t) + p[2]*w1(1-t) + p[3]*w2(2-t)
}

func init() {
	register("image.grid_sample", "data, grid, method (string: bilinear, nearest, bicubic), layout (string: NCHW), padding_mode (string: zeros, border, reflection), align_corners (bool), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(Prefix+"image.grid_sample", args)
			p.count(7)
			x, g, m, l, pm, ac, out := p.tensor(0), p.tensor(1), p.string(2), p.string(3), p.string(4), p.bool(5), p.tensor(6)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(GridSample(out, x, g, m, l, pm, ac))
		})
}
