package kernels

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// refPool2D follows TVM's topi pool_impl_nd literally: pad (with ceil-mode
// tail offset), reduce windows, and divide by TVM's num_el formulas. x is
// NCHW.
func refPool2D(xv []float64, n, c, h, w int, k, s, d, pad [4]int, ceil, incl, isMax bool) ([]float64, int, int) {
	// k = (kh, kw), s = (sh, sw), d = (dh, dw), pad = (top, left, bottom, right)
	dims := [2]int{h, w}
	var outD [2]int
	var offset [2]int
	for i := 0; i < 2; i++ {
		head, tail := pad[i], pad[i+2]
		if ceil {
			offset[i] = s[i] - 1
			tail += offset[i]
		}
		num := dims[i] - (k[i]-1)*d[i] - 1 + head + tail
		raw := num/s[i] + 1
		if ceil && (raw-1)*s[i] >= dims[i]+head {
			raw--
		}
		outD[i] = raw
	}
	oh, ow := outD[0], outD[1]
	at := func(b, ch, y, x int) (float64, bool) {
		if y < 0 || y >= h || x < 0 || x >= w {
			return 0, false
		}
		return xv[((b*c+ch)*h+y)*w+x], true
	}
	out := make([]float64, n*c*oh*ow)
	for b := 0; b < n; b++ {
		for ch := 0; ch < c; ch++ {
			for oy := 0; oy < oh; oy++ {
				for ox := 0; ox < ow; ox++ {
					acc := 0.0
					if isMax {
						acc = -math.MaxFloat32
					}
					for ky := 0; ky < k[0]; ky++ {
						for kx := 0; kx < k[1]; kx++ {
							v, ok := at(b, ch, oy*s[0]+ky*d[0]-pad[0], ox*s[1]+kx*d[1]-pad[1])
							if !ok {
								if isMax {
									v = -math.MaxFloat32
								} else {
									v = 0
								}
							}
							if isMax {
								acc = math.Max(acc, v)
							} else {
								acc += v
							}
						}
					}
					if !isMax {
						numEl := 1
						pos := [2]int{oy, ox}
						for i := 0; i < 2; i++ {
							start := pos[i]*s[i] - pad[i]
							end := start + (k[i]-1)*d[i]
							if incl {
								end = min(end, dims[i]+pad[i+2]-1)
								numEl *= (end-start)/d[i] + 1
							} else {
								jumps := max((d[i]-1-start)/d[i], 0)
								end = min(end, dims[i]-1)
								numEl *= (end-(start+d[i]*jumps))/d[i] + 1
							}
						}
						acc /= float64(max(numEl, 1))
					}
					out[((b*c+ch)*oh+oy)*ow+ox] = acc
				}
			}
		}
	}
	return out, oh, ow
}

// nchwToNHWC transposes values of an NCHW tensor to NHWC order.
func nchwToNHWC(v []float64, n, c, h, w int) []float64 {
	out := make([]float64, len(v))
	for b := 0; b < n; b++ {
		for ch := 0; ch < c; ch++ {
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					out[((b*h+y)*w+x)*c+ch] = v[((b*c+ch)*h+y)*w+x]
				}
			}
		}
	}
	return out
}

func TestPool2D(t *testing.T) {
	// hand-computed
	x := mustT(t, []int64{1, 1, 4, 4}, f32)
	for i := 0; i < 16; i++ {
		setF(x, i, float64(i+1))
	}
	out := mustT(t, []int64{1, 1, 2, 2}, f32)
	mustCall(t, "nn.max_pool2d", x, shp(2, 2), shp(2, 2), shp(0, 0, 0, 0), shp(1, 1), false, false, "NCHW", "NCHW", out)
	expectClose(t, "max_pool2d hand", out, []float64{6, 8, 14, 16}, 0, 0)
	mustCall(t, "nn.avg_pool2d", x, shp(2, 2), shp(2, 2), shp(0, 0, 0, 0), shp(1, 1), false, false, "NCHW", nil, out)
	expectClose(t, "avg_pool2d hand", out, []float64{3.5, 5.5, 11.5, 13.5}, 0, 0)

	cases := []struct {
		n, c, h, w int
		k, s, d    [2]int
		pad        [4]int
		ceil       bool
	}{
		{1, 8, 16, 16, [2]int{2, 2}, [2]int{2, 2}, [2]int{1, 1}, [4]int{}, false},
		{2, 3, 7, 9, [2]int{3, 3}, [2]int{2, 2}, [2]int{1, 1}, [4]int{1, 1, 1, 1}, false},
		{2, 3, 7, 9, [2]int{3, 3}, [2]int{2, 2}, [2]int{1, 1}, [4]int{1, 1, 1, 1}, true},
		{1, 2, 17, 33, [2]int{3, 2}, [2]int{3, 2}, [2]int{2, 1}, [4]int{0, 1, 2, 0}, true},
		{1, 1, 1, 1, [2]int{1, 1}, [2]int{1, 1}, [2]int{1, 1}, [4]int{}, false},
		{1, 2, 5, 5, [2]int{2, 2}, [2]int{3, 3}, [2]int{1, 1}, [4]int{0, 0, 0, 0}, true},
		{1, 2, 6, 6, [2]int{3, 3}, [2]int{1, 1}, [2]int{1, 1}, [4]int{2, 2, 2, 2}, false},
		{1, 64, 40, 40, [2]int{3, 3}, [2]int{1, 1}, [2]int{1, 1}, [4]int{1, 1, 1, 1}, false}, // parallel
		// stride 1 without padding (an exported pool after its pad): whole planes at once
		{1, 3, 9, 11, [2]int{3, 3}, [2]int{1, 1}, [2]int{1, 1}, [4]int{}, false},
		{2, 2, 10, 9, [2]int{2, 3}, [2]int{1, 1}, [2]int{2, 1}, [4]int{}, false},
		{1, 2, 7, 8, [2]int{3, 2}, [2]int{1, 1}, [2]int{1, 2}, [4]int{}, true},
	}
	for _, c := range cases {
		for _, dt := range []runtime.DataType{f32, f64, f16} {
			x := randT(t, 8, []int64{int64(c.n), int64(c.c), int64(c.h), int64(c.w)}, dt, -3, 3)
			xv := vals(x)
			for _, isMax := range []bool{true, false} {
				for _, incl := range []bool{false, true} {
					if isMax && incl {
						continue
					}
					want, oh, ow := refPool2D(xv, c.n, c.c, c.h, c.w, [4]int{c.k[0], c.k[1]}, [4]int{c.s[0], c.s[1]},
						[4]int{c.d[0], c.d[1]}, c.pad, c.ceil, incl, isMax)
					op := "nn.avg_pool2d"
					if isMax {
						op = "nn.max_pool2d"
					}
					for i := range want {
						want[i] = roundTo(dt, want[i])
					}
					rtol, atol := tolFor(dt)
					var nchwOut []float64 // NCHW's result (its row paths), to hold NHWC's (the general loop) to, bit for bit
					for _, layout := range []string{"NCHW", "NHWC"} {
						var os []int64
						xin := x
						w := want
						if layout == "NCHW" {
							os = []int64{int64(c.n), int64(c.c), int64(oh), int64(ow)}
						} else {
							xs := []int64{int64(c.n), int64(c.h), int64(c.w), int64(c.c)}
							os = []int64{int64(c.n), int64(oh), int64(ow), int64(c.c)}
							xin = fromF(t, dt, nchwToNHWC(xv, c.n, c.c, c.h, c.w), xs...)
							w = nchwToNHWC(want, c.n, c.c, oh, ow)
						}
						out := mustT(t, os, dt)
						mustCall(t, op, xin, shp(int64(c.k[0]), int64(c.k[1])), shp(int64(c.s[0]), int64(c.s[1])),
							shp(int64(c.pad[0]), int64(c.pad[1]), int64(c.pad[2]), int64(c.pad[3])), shp(int64(c.d[0]), int64(c.d[1])),
							c.ceil, incl, layout, layout, out)
						expectClose(t, name(op, " ", dt, " ", layout, " ", c, " incl=", incl), out, w, rtol, atol)
						if layout == "NCHW" {
							nchwOut = vals(out)
						} else if got := nchwToNHWC(nchwOut, c.n, c.c, oh, ow); !slices.Equal(got, vals(out)) {
							t.Errorf("%s %s %v incl=%v: NCHW and NHWC results differ", op, dt, c, incl)
						}
					}
				}
			}
		}
	}
	// output shape mismatch and bad layouts are errors
	if err := call("nn.max_pool2d", x, shp(2, 2), shp(2, 2), shp(0, 0, 0, 0), shp(1, 1), false, false, "NCHW", "NCHW", mustT(t, []int64{1, 1, 3, 3}, f32)); err == nil {
		t.Error("max_pool2d wrong output shape: want error")
	}
	if err := call("nn.max_pool2d", x, shp(2, 2), shp(2, 2), shp(0, 0, 0, 0), shp(1, 1), false, false, "NCWH", "NCWH", out); err == nil {
		t.Error("max_pool2d unknown layout: want error")
	}
}

func TestAdaptiveAvgPool2D(t *testing.T) {
	cases := []struct {
		h, w   int
		osize  []int64
		oh, ow int
	}{
		{4, 4, []int64{1, 1}, 1, 1}, {7, 9, []int64{3, 4}, 3, 4}, {5, 5, nil, 5, 5}, {6, 10, []int64{4}, 4, 4},
		{3, 3, []int64{5, 5}, 5, 5},
	}
	for _, c := range cases {
		for _, dt := range []runtime.DataType{f32, f64, f16} {
			x := randT(t, 1, []int64{2, 3, int64(c.h), int64(c.w)}, dt, -3, 3)
			xv := vals(x)
			want := make([]float64, 2*3*c.oh*c.ow)
			for bc := 0; bc < 6; bc++ {
				for oy := 0; oy < c.oh; oy++ {
					y0, y1 := int(math.Floor(float64(oy*c.h)/float64(c.oh))), int(math.Ceil(float64((oy+1)*c.h)/float64(c.oh)))
					for ox := 0; ox < c.ow; ox++ {
						x0, x1 := int(math.Floor(float64(ox*c.w)/float64(c.ow))), int(math.Ceil(float64((ox+1)*c.w)/float64(c.ow)))
						s := 0.0
						for y := y0; y < y1; y++ {
							for xx := x0; xx < x1; xx++ {
								s += xv[(bc*c.h+y)*c.w+xx]
							}
						}
						want[(bc*c.oh+oy)*c.ow+ox] = roundTo(dt, s/float64((y1-y0)*(x1-x0)))
					}
				}
			}
			out := mustT(t, []int64{2, 3, int64(c.oh), int64(c.ow)}, dt)
			var osz runtime.Value
			if c.osize != nil {
				osz = runtime.Shape(c.osize)
			}
			mustCall(t, "nn.adaptive_avg_pool2d", x, osz, "NCHW", "NCHW", out)
			rtol, atol := tolFor(dt)
			expectClose(t, name("adaptive_avg_pool2d ", dt, c), out, want, rtol, atol)
			xn := fromF(t, dt, nchwToNHWC(xv, 2, 3, c.h, c.w), 2, int64(c.h), int64(c.w), 3)
			on := mustT(t, []int64{2, int64(c.oh), int64(c.ow), 3}, dt)
			mustCall(t, "nn.adaptive_avg_pool2d", xn, osz, "NHWC", nil, on)
			expectClose(t, name("adaptive_avg_pool2d NHWC ", dt, c), on, nchwToNHWC(want, 2, 3, c.oh, c.ow), rtol, atol)
		}
	}
}

func TestPad(t *testing.T) {
	x := randT(t, 2, []int64{3, 4}, f32, -3, 3)
	xv := vals(x)
	pw := []int64{2, 1, 3, 2}
	os := []int64{6, 9}
	modes := map[string]func(i, n int) int{
		"constant": func(i, n int) int {
			if i < 0 || i >= n {
				return -1
			}
			return i
		},
		"edge": func(i, n int) int { return min(max(i, 0), n-1) },
		"reflect": func(i, n int) int {
			for i < 0 || i >= n {
				if i < 0 {
					i = -i
				}
				if i >= n {
					i = 2*(n-1) - i
				}
			}
			return i
		},
		"circular": func(i, n int) int { return ((i % n) + n) % n },
	}
	for mode, f := range modes {
		out := mustT(t, os, f32)
		mustCall(t, "nn.pad", x, runtime.Shape(pw), 1.5, mode, out)
		want := refGather(xv, os, func(idx []int) int {
			r, c := f(idx[0]-2, 3), f(idx[1]-3, 4)
			if r < 0 || c < 0 {
				return -1
			}
			return r*4 + c
		}, 1.5)
		expectClose(t, "pad "+mode, out, want, 0, 0)
	}
	// attribute order pad_value, pad_mode (Relax) and pad_mode, pad_value both work
	out := mustT(t, os, f32)
	mustCall(t, "nn.pad", x, runtime.Shape(pw), "constant", 0.0, out)
	mustCall(t, "nn.pad", x, runtime.Shape(pw), 0.0, "constant", out)
	if err := call("nn.pad", x, shp(1, 1), 0.0, "constant", out); err == nil {
		t.Error("pad with short pad_width: want error")
	}
	xi := randT(t, 3, []int64{2, 2, 2}, i64, 0, 0)
	oi := mustT(t, []int64{2, 4, 2}, i64)
	mustCall(t, "nn.pad", xi, shp(0, 0, 1, 1, 0, 0), int64(7), "constant", oi)
	// 3-D, last-axis crops (negative widths) and pads wider than the row,
	// every mode that allows them, against the index maps.
	x3 := randT(t, 4, []int64{2, 3, 5}, f32, -3, 3)
	x3v := vals(x3)
	for _, c := range []struct {
		mode string
		pw   []int64
	}{
		{"constant", []int64{0, 1, -1, 1, 2, -2}}, {"constant", []int64{1, 0, 0, 2, -3, 9}},
		{"constant", []int64{0, 0, 0, 0, -5, 2}}, {"edge", []int64{1, 0, 0, 2, 7, 1}},
		{"reflect", []int64{1, 1, 2, 0, 4, 3}}, {"circular", []int64{0, 1, 1, 1, 6, 2}},
	} {
		os3 := []int64{2 + c.pw[0] + c.pw[1], 3 + c.pw[2] + c.pw[3], 5 + c.pw[4] + c.pw[5]}
		out3 := mustT(t, os3, f32)
		mustCall(t, "nn.pad", x3, runtime.Shape(c.pw), 1.5, c.mode, out3)
		f := modes[c.mode]
		want := refGather(x3v, os3, func(idx []int) int {
			a, b, d := f(idx[0]-int(c.pw[0]), 2), f(idx[1]-int(c.pw[2]), 3), f(idx[2]-int(c.pw[4]), 5)
			if a < 0 || b < 0 || d < 0 {
				return -1
			}
			return (a*3+b)*5 + d
		}, 1.5)
		expectClose(t, fmt.Sprintf("pad %s %v", c.mode, c.pw), out3, want, 0, 0)
	}
	// Every element size (the rows move as 1-, 2-, 4- and 8-byte words), a
	// rank-4 pad of the outer axes as well as the plane's, and the pad value
	// converted to the dtype.
	for _, dt := range []runtime.DataType{f64, f16, i32, i64, bl, runtime.Int8, runtime.UInt8, runtime.UInt16} {
		x4 := randT(t, 5, []int64{2, 1, 3, 2}, dt, -3, 3)
		x4v := vals(x4)
		pw4 := []int64{1, 0, 0, 1, 2, 1, 1, 1}
		os4 := []int64{3, 2, 6, 4}
		fill := 2.0
		if dt.IsBool() {
			fill = 1
		}
		for _, mode := range []string{"constant", "edge", "reflect"} {
			if mode == "reflect" {
				pw4 = []int64{0, 0, 0, 0, 2, 1, 1, 1} // reflect needs axes longer than their padding
				os4 = []int64{2, 1, 6, 4}
			}
			out4 := mustT(t, os4, dt)
			mustCall(t, "nn.pad", x4, runtime.Shape(pw4), fill, mode, out4)
			f := modes[mode]
			want := refGather(x4v, os4, func(idx []int) int {
				a, b := f(idx[0]-int(pw4[0]), 2), f(idx[1]-int(pw4[2]), 1)
				c, d := f(idx[2]-int(pw4[4]), 3), f(idx[3]-int(pw4[6]), 2)
				if a < 0 || b < 0 || c < 0 || d < 0 {
					return -1
				}
				return ((a*1+b)*3+c)*2 + d
			}, fill)
			expectClose(t, fmt.Sprintf("pad %s %s", dt, mode), out4, want, 0, 0)
		}
	}
	// An output large enough to split over two threads, rows starting
	// mid-index of the outer axes in each chunk.
	defer SetNumThreads(0)
	SetNumThreads(2)
	xb := randT(t, 6, []int64{3, 97, 201}, f32, -3, 3)
	xbv := vals(xb)
	pwb := []int64{1, 2, 2, 1, 3, 1}
	osb := []int64{6, 100, 205}
	for _, mode := range []string{"constant", "edge"} {
		outb := mustT(t, osb, f32)
		mustCall(t, "nn.pad", xb, runtime.Shape(pwb), 1.5, mode, outb)
		f := modes[mode]
		want := refGather(xbv, osb, func(idx []int) int {
			a, b, c := f(idx[0]-1, 3), f(idx[1]-2, 97), f(idx[2]-3, 201)
			if a < 0 || b < 0 || c < 0 {
				return -1
			}
			return (a*97+b)*201 + c
		}, 1.5)
		expectClose(t, "pad 2 threads "+mode, outb, want, 0, 0)
	}
}

func TestCreation(t *testing.T) {
	for _, dt := range []runtime.DataType{f32, f64, f16, i32, i64, bl, runtime.UInt8} {
		z := randT(t, 1, []int64{2, 3}, dt, 1, 2)
		mustCall(t, "zeros", shp(2, 3), dt, z)
		expectClose(t, "zeros", z, make([]float64, 6), 0, 0)
		mustCall(t, "ones", shp(2, 3), dt, z)
		expectClose(t, "ones", z, []float64{1, 1, 1, 1, 1, 1}, 0, 0)
		mustCall(t, "zeros_like", z, nil, z)
		expectClose(t, "zeros_like", z, make([]float64, 6), 0, 0)
		mustCall(t, "ones_like", mustT(t, []int64{2, 3}, f32), dt, z)
		expectClose(t, "ones_like", z, []float64{1, 1, 1, 1, 1, 1}, 0, 0)
		v := 3.0
		if dt.IsBool() {
			v = 1
		}
		mustCall(t, "full", shp(2, 3), fromF(t, f32, []float64{v}), dt, z)
		expectClose(t, "full", z, []float64{v, v, v, v, v, v}, 0, 0)
		mustCall(t, "full_like", z, int64(0), nil, z)
		expectClose(t, "full_like", z, make([]float64, 6), 0, 0)
	}
	if err := call("zeros", shp(2, 3), f64, mustT(t, []int64{2, 3}, f32)); err == nil {
		t.Error("zeros with wrong dtype: want error")
	}
	big := mustT(t, []int64{2}, i64)
	mustCall(t, "full", shp(2), runtime.Scalar(int64(1)<<60+1), i64, big)
	if g, _ := runtime.ToSlice[int64](big); g[0] != 1<<60+1 {
		t.Errorf("full int64 exact: got %d", g[0])
	}
	// arange
	a := mustT(t, []int64{5}, i64)
	mustCall(t, "arange", int64(0), int64(10), int64(2), i64, a)
	expectClose(t, "arange int", a, []float64{0, 2, 4, 6, 8}, 0, 0)
	af := mustT(t, []int64{4}, f32)
	mustCall(t, "arange", 1.0, 0.0, -0.25, f32, af)
	expectClose(t, "arange float", af, []float64{1, 0.75, 0.5, 0.25}, 0, 0)
	if err := call("arange", int64(0), int64(10), int64(3), i64, a); err == nil {
		t.Error("arange wrong length: want error")
	}
	// tril / triu on batched and non-square matrices
	for _, k := range []int64{-1, 0, 2} {
		x := randT(t, 4, []int64{2, 3, 5}, f32, 1, 2)
		xv := vals(x)
		lo, up := mustT(t, []int64{2, 3, 5}, f32), mustT(t, []int64{2, 3, 5}, f32)
		mustCall(t, "tril", x, k, lo)
		mustCall(t, "triu", x, k, up)
		wl, wu := make([]float64, 30), make([]float64, 30)
		for i := range xv {
			idx := unravel(i, []int64{2, 3, 5})
			if int64(idx[2]) <= int64(idx[1])+k {
				wl[i] = xv[i]
			}
			if int64(idx[2]) >= int64(idx[1])+k {
				wu[i] = xv[i]
			}
		}
		expectClose(t, name("tril ", k), lo, wl, 0, 0)
		expectClose(t, name("triu ", k), up, wu, 0, 0)
	}
}

func TestRegistryTable(t *testing.T) {
	required := []string{"abs", "negative", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "erf",
		"floor", "ceil", "round", "sign", "square", "clip", "logical_not", "isnan", "isinf", "isfinite",
		"add", "subtract", "multiply", "divide", "floor_divide", "floor_mod", "power", "maximum", "minimum",
		"equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "where",
		"nn.relu", "nn.leakyrelu", "nn.gelu", "nn.gelu_tanh", "nn.silu", "nn.softmax", "nn.log_softmax",
		"nn.layer_norm", "nn.rms_norm", "nn.batch_norm", "nn.max_pool2d", "nn.avg_pool2d", "nn.adaptive_avg_pool2d",
		"nn.pad", "nn.dropout", "sum", "mean", "max", "min", "prod", "variance", "std", "argmax", "argmin",
		"reshape", "permute_dims", "concat", "split", "squeeze", "expand_dims", "flatten", "broadcast_to",
		"strided_slice", "take", "tile", "repeat", "flip", "astype", "stack",
		"zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "arange", "tril", "triu"}
	sup := map[string]bool{}
	for _, s := range Supported() {
		sup[s] = true
	}
	for _, op := range required {
		spec, ok := Lookup(op)
		if !ok || spec.Name != "kernels."+op || spec.Args == "" || !sup[op] {
			t.Errorf("op %q missing from the table or the registry", op)
		}
	}
	if err := Run("no_such_op"); err == nil {
		t.Error("Run of an unknown op: want error")
	}
}

func TestPool1D(t *testing.T) {
	x := randT(t, 1, []int64{2, 3, 17}, f32, -2, 2)
	xv := vals(x)
	for _, isMax := range []bool{true, false} {
		want, oh, ow := refPool2D(xv, 2, 3, 1, 17, [4]int{1, 3}, [4]int{1, 2}, [4]int{1, 1}, [4]int{0, 1, 0, 2}, true, false, isMax)
		if oh != 1 {
			t.Fatal(oh)
		}
		op := "nn.avg_pool1d"
		if isMax {
			op = "nn.max_pool1d"
		}
		o := mustT(t, []int64{2, 3, int64(ow)}, f32)
		mustCall(t, op, x, shp(3), shp(2), shp(1, 2), shp(1), true, false, "NCW", "NCW", o)
		expectClose(t, op, o, want, 1e-6, 1e-7)
		xn := fromF(t, f32, nchwToNHWC(xv, 2, 3, 1, 17), 2, 17, 3)
		on := mustT(t, []int64{2, int64(ow), 3}, f32)
		mustCall(t, op, xn, shp(3), shp(2), shp(1, 2), shp(1), true, false, "NWC", nil, on)
		expectClose(t, op+" NWC", on, nchwToNHWC(want, 2, 3, 1, ow), 1e-6, 1e-7)
	}
	_ = runtime.Float32
}
