package kernels

import (
	"math"
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
