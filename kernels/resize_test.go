package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func resize(t *testing.T, x []float32, h, w, oh, ow int, method, mode, rounding string) []float32 {
	t.Helper()
	in, _ := runtime.FromSlice(x, 1, 1, int64(h), int64(w))
	out := runtime.MustNewTensor([]int64{1, 1, int64(oh), int64(ow)}, runtime.Float32)
	mustCall(t, "image.resize2d", in, runtime.Shape{int64(oh), int64(ow)}, nil, "NCHW", method, mode, rounding, -0.5, int64(0), 0.0, nil, out)
	return out.Float32s()
}

func TestResize2DKnownValues(t *testing.T) {
	img := []float32{1, 2, 3, 4}
	for _, tc := range []struct {
		name                   string
		oh, ow                 int
		method, mode, rounding string
		want                   []float32
	}{
		// PyTorch interpolate(bilinear, align_corners=False) of [[1,2],[3,4]] to 4x4.
		{"bilinear half_pixel", 4, 4, "linear", "half_pixel", "round", []float32{
			1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4}},
		{"bilinear align_corners", 3, 3, "linear", "align_corners", "round", []float32{1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}},
		{"nearest asymmetric floor", 4, 4, "nearest_neighbor", "asymmetric", "floor", []float32{
			1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}},
		// half_pixel 2 -> 3: input coordinates -1/6, 1/2, 7/6; 1/2 rounds half to even (0).
		{"nearest half_pixel round", 3, 3, "nearest_neighbor", "half_pixel", "round", []float32{1, 1, 2, 1, 1, 2, 3, 3, 4}},
		{"nearest half_pixel round_prefer_ceil", 3, 3, "nearest_neighbor", "half_pixel", "round_prefer_ceil", []float32{1, 2, 2, 3, 4, 4, 3, 4, 4}},
		{"downscale nearest", 1, 1, "nearest_neighbor", "asymmetric", "floor", []float32{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := resize(t, img, 2, 2, tc.oh, tc.ow, tc.method, tc.mode, tc.rounding)
			for i := range tc.want {
				if math.Abs(float64(got[i]-tc.want[i])) > 1e-6 {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestResize2DCubicAndLayouts(t *testing.T) {
	const h, w, oh, ow = 3, 5, 7, 4
	x := make([]float32, 2*h*w)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)))
	}
	nchw, _ := runtime.FromSlice(x, 1, 2, h, w)
	out := runtime.MustNewTensor([]int64{1, 2, oh, ow}, runtime.Float32)
	a := Resize2DAttrs{Layout: "NCHW", Method: "cubic", CoordinateTransformationMode: "half_pixel", RoundingMethod: "round", CubicAlpha: -0.75}
	if err := Resize2D(out, nchw, a); err != nil {
		t.Fatal(err)
	}
	// Reference: the cubic convolution written out in float64.
	at := func(c, y, xx int) float64 {
		return float64(x[c*h*w+max(0, min(y, h-1))*w+max(0, min(xx, w-1))])
	}
	wts := func(t, al float64) [4]float64 {
		return [4]float64{al * (t*t*t - 2*t*t + t), (al+2)*t*t*t - (3+al)*t*t + 1, -(al+2)*t*t*t + (3+2*al)*t*t - al*t, -al*t*t*t + al*t*t}
	}
	for c := 0; c < 2; c++ {
		for y := 0; y < oh; y++ {
			for xx := 0; xx < ow; xx++ {
				iy := (float64(y)+0.5)*h/oh - 0.5
				ix := (float64(xx)+0.5)*w/ow - 0.5
				y0, x0 := math.Floor(iy), math.Floor(ix)
				wy, wx := wts(iy-y0, -0.75), wts(ix-x0, -0.75)
				var want float64
				for j := 0; j < 4; j++ {
					for i := 0; i < 4; i++ {
						want += at(c, int(y0)+j-1, int(x0)+i-1) * wx[i] * wy[j]
					}
				}
				if got := float64(out.Float32s()[c*oh*ow+y*ow+xx]); math.Abs(got-want) > 1e-5 {
					t.Fatalf("cubic [%d %d %d] = %v, want %v", c, y, xx, got, want)
				}
			}
		}
	}
	// NHWC gives the same values, transposed.
	nhwcData := make([]float32, len(x))
	for c := 0; c < 2; c++ {
		for i := 0; i < h*w; i++ {
			nhwcData[i*2+c] = x[c*h*w+i]
		}
	}
	nhwc, _ := runtime.FromSlice(nhwcData, 1, h, w, 2)
	out2 := runtime.MustNewTensor([]int64{1, oh, ow, 2}, runtime.Float32)
	a.Layout = "NHWC"
	if err := Resize2D(out2, nhwc, a); err != nil {
		t.Fatal(err)
	}
	for c := 0; c < 2; c++ {
		for i := 0; i < oh*ow; i++ {
			if out2.Float32s()[i*2+c] != out.Float32s()[c*oh*ow+i] {
				t.Fatalf("NHWC and NCHW differ at channel %d, pixel %d", c, i)
			}
		}
	}
}

func TestResize2DErrors(t *testing.T) {
	x := runtime.MustNewTensor([]int64{1, 1, 2, 2}, runtime.Float32)
	out := runtime.MustNewTensor([]int64{1, 1, 4, 4}, runtime.Float32)
	for name, args := range map[string][]runtime.Value{
		"method":   {x, runtime.Shape{4, 4}, nil, "NCHW", "area", "half_pixel", "round", -0.5, int64(0), 0.0, nil, out},
		"mode":     {x, runtime.Shape{4, 4}, nil, "NCHW", "linear", "crop", "round", -0.5, int64(0), 0.0, nil, out},
		"layout":   {x, runtime.Shape{4, 4}, nil, "NCWH", "linear", "half_pixel", "round", -0.5, int64(0), 0.0, nil, out},
		"size":     {x, runtime.Shape{3, 4}, nil, "NCHW", "linear", "half_pixel", "round", -0.5, int64(0), 0.0, nil, out},
		"rounding": {x, runtime.Shape{4, 4}, nil, "NCHW", "nearest_neighbor", "half_pixel", "up", -0.5, int64(0), 0.0, nil, out},
	} {
		if err := call("image.resize2d", args...); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestResizeROIArgs checks the roi argument both packed resizes share
// (resizeAttrs): none, a tuple of numbers and a shape are taken (an
// identity-size nearest resize copies its input), a tuple holding a string
// or a roi of another type is refused, for resize2d and resize3d.
func TestResizeROIArgs(t *testing.T) {
	for _, c := range []struct {
		op    string
		shape []int64
	}{{"image.resize2d", []int64{1, 1, 2, 3}}, {"image.resize3d", []int64{1, 1, 2, 3, 2}}} {
		n := 1
		for _, d := range c.shape {
			n *= int(d)
		}
		xs := make([]float32, n)
		for i := range xs {
			xs[i] = float32(i + 1)
		}
		x, _ := runtime.FromSlice(xs, c.shape...)
		size := runtime.Shape(c.shape[2:])
		zeros := make(runtime.Tuple, 2*len(size))
		for i := range zeros {
			zeros[i] = 0.0
		}
		layout := map[int]string{4: "NCHW", 5: "NCDHW"}[len(c.shape)]
		for name, roi := range map[string]runtime.Value{"nil": nil, "tuple": zeros, "shape": make(runtime.Shape, 2*len(size))} {
			out := runtime.MustNewTensor(c.shape, runtime.Float32)
			mustCall(t, c.op, x, size, roi, layout, "nearest_neighbor", "asymmetric", "floor", -0.5, int64(0), 0.0, nil, out)
			for i, v := range out.Float32s() {
				if v != xs[i] {
					t.Fatalf("%s roi %s: [%d] = %v, want %v", c.op, name, i, v, xs[i])
				}
			}
		}
		out := runtime.MustNewTensor(c.shape, runtime.Float32)
		for name, roi := range map[string]runtime.Value{"string in tuple": runtime.Tuple{0.0, "x"}, "string": "roi"} {
			if err := call(c.op, x, size, roi, layout, "nearest_neighbor", "asymmetric", "floor", -0.5, int64(0), 0.0, nil, out); err == nil {
				t.Errorf("%s roi %s: accepted", c.op, name)
			}
		}
	}
}

// resizeElementwise is Resize2D's arithmetic element by element, each output
// coordinate mapped on its own (as the kernel computed it before its axis
// tables): the reference TestResize2DTablesMatchElementwise holds the
// tables to, bit for bit. NCHW, one image.
func resizeElementwise(src []float32, c, h, w, oh, ow int, a Resize2DAttrs, rounding string) []float32 {
	ay := newResizeAxis(h, oh, a.CoordinateTransformationMode, a.Method, a.ROI[0], a.ROI[2])
	ax := newResizeAxis(w, ow, a.CoordinateTransformationMode, a.Method, a.ROI[1], a.ROI[3])
	dst := make([]float32, c*oh*ow)
	for ci := 0; ci < c; ci++ {
		in, o := src[ci*h*w:], dst[ci*oh*ow:]
		px := func(y, x int) float32 { return in[clampIdx(y, h)*w+clampIdx(x, w)] }
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
				default:
					iy, ix := ay.coord(y), ax.coord(x)
					fy, fx := float32(math.Floor(float64(iy))), float32(math.Floor(float64(ix)))
					y0, x0 := int(int32(fy)), int(int32(fx))
					wy, wx := cubicWeights(iy-fy, float32(a.CubicAlpha)), cubicWeights(ix-fx, float32(a.CubicAlpha))
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
				if a.CoordinateTransformationMode == "tf_crop_and_resize" {
					iy, ix := ay.coord(y), ax.coord(x)
					if iy < 0 || iy > float32(h-1) || ix < 0 || ix > float32(w-1) {
						v = float32(a.ExtrapolationValue)
					}
				}
				o[y*ow+x] = v
			}
		}
	}
	return dst
}

// TestResize2DTablesMatchElementwise runs every method, coordinate mode
// and rounding on up- and downscales (integer factors, odd sizes, one
// pixel), cubic with and without excluding outside taps, and crops with
// extrapolation, against resizeElementwise: every bit must match; NHWC must
// give NCHW's values transposed.
func TestResize2DTablesMatchElementwise(t *testing.T) {
	defer SetNumThreads(0)
	r := rand.New(rand.NewSource(4))
	sizes := [][4]int{{8, 8, 32, 32}, {5, 7, 11, 3}, {9, 6, 4, 4}, {1, 1, 3, 5}, {6, 4, 6, 4}, {7, 7, 1, 1}}
	for _, method := range []string{"nearest_neighbor", "linear", "cubic"} {
		for _, mode := range []string{"half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn", "tf_crop_and_resize"} {
			for _, rounding := range []string{"round", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil"} {
				if method != "nearest_neighbor" && rounding != "round" {
					continue
				}
				for si, sz := range sizes {
					h, w, oh, ow := sz[0], sz[1], sz[2], sz[3]
					const c = 3
					x := make([]float32, c*h*w)
					for i := range x {
						x[i] = r.Float32()*4 - 2
					}
					a := Resize2DAttrs{Layout: "NCHW", Method: method, CoordinateTransformationMode: mode, RoundingMethod: rounding,
						CubicAlpha: -0.5 - 0.25*float64(si%2), CubicExclude: si%2 == 1, ExtrapolationValue: -7,
						ROI: []float64{0.1, 0.2, 0.9, 0.7}}
					want := resizeElementwise(x, c, h, w, oh, ow, a, rounding)
					in, _ := runtime.FromSlice(x, 1, c, int64(h), int64(w))
					out := runtime.MustNewTensor([]int64{1, c, int64(oh), int64(ow)}, runtime.Float32)
					SetNumThreads(1 + si%2)
					if err := Resize2D(out, in, a); err != nil {
						t.Fatal(err)
					}
					what := fmt.Sprintf("%s/%s/%s %dx%d->%dx%d", method, mode, rounding, h, w, oh, ow)
					got := out.Float32s()
					for i := range want {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s: [%d] %v, elementwise %v", what, i, got[i], want[i])
						}
					}
					// NHWC: the same values, channels last.
					xt := make([]float32, len(x))
					for ci := 0; ci < c; ci++ {
						for p := 0; p < h*w; p++ {
							xt[p*c+ci] = x[ci*h*w+p]
						}
					}
					inT, _ := runtime.FromSlice(xt, 1, int64(h), int64(w), c)
					outT := runtime.MustNewTensor([]int64{1, int64(oh), int64(ow), c}, runtime.Float32)
					a.Layout = "NHWC"
					if err := Resize2D(outT, inT, a); err != nil {
						t.Fatal(err)
					}
					gt := outT.Float32s()
					for ci := 0; ci < c; ci++ {
						for p := 0; p < oh*ow; p++ {
							if math.Float32bits(gt[p*c+ci]) != math.Float32bits(want[ci*oh*ow+p]) {
								t.Fatalf("%s NHWC: channel %d position %d: %v, want %v", what, ci, p, gt[p*c+ci], want[ci*oh*ow+p])
							}
						}
					}
				}
			}
		}
	}
}
