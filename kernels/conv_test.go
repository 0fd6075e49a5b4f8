package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
)

// convRef is an independent float64 reference for conv2d (transposed=false)
// and conv2d_transpose, taking padding as (top, left, bottom, right).
func convRef(x, w *runtime.Tensor, s, p, d [4]int, groups int, transposed bool, outPad [2]int) ([]int64, []float64) {
	xs, ws := x.Shape(), w.Shape()
	N, C, H, W := int(xs[0]), int(xs[1]), int(xs[2]), int(xs[3])
	KH, KW := int(ws[2]), int(ws[3])
	if !transposed {
		O := int(ws[0])
		OH := (H+p[0]+p[2]-d[0]*(KH-1)-1)/s[0] + 1
		OW := (W+p[1]+p[3]-d[1]*(KW-1)-1)/s[1] + 1
		cg, og := C/groups, O/groups
		res := make([]float64, N*O*OH*OW)
		for n := 0; n < N; n++ {
			for o := 0; o < O; o++ {
				for y := 0; y < OH; y++ {
					for xo := 0; xo < OW; xo++ {
						var acc float64
						for c := 0; c < cg; c++ {
							for i := 0; i < KH; i++ {
								for j := 0; j < KW; j++ {
									ih, iw := y*s[0]-p[0]+i*d[0], xo*s[1]-p[1]+j*d[1]
									if ih < 0 || ih >= H || iw < 0 || iw >= W {
										continue
									}
									acc += laAt(x, ((n*C+(o/og)*cg+c)*H+ih)*W+iw) * laAt(w, ((o*cg+c)*KH+i)*KW+j)
								}
							}
						}
						res[((n*O+o)*OH+y)*OW+xo] = acc
					}
				}
			}
		}
		return []int64{int64(N), int64(O), int64(OH), int64(OW)}, res
	}
	og := int(ws[1])
	O := og * groups
	cg := C / groups
	OH := (H-1)*s[0] - p[0] - p[2] + d[0]*(KH-1) + outPad[0] + 1
	OW := (W-1)*s[1] - p[1] - p[3] + d[1]*(KW-1) + outPad[1] + 1
	res := make([]float64, N*O*OH*OW)
	for n := 0; n < N; n++ {
		for c := 0; c < C; c++ {
			g := c / cg
			for ih := 0; ih < H; ih++ {
				for iw := 0; iw < W; iw++ {
					for o := 0; o < og; o++ {
						for i := 0; i < KH; i++ {
							for j := 0; j < KW; j++ {
								y, xo := ih*s[0]-p[0]+i*d[0], iw*s[1]-p[1]+j*d[1]
								if y < 0 || y >= OH || xo < 0 || xo >= OW {
									continue
								}
								res[((n*O+g*og+o)*OH+y)*OW+xo] += laAt(x, ((n*C+c)*H+ih)*W+iw) * laAt(w, ((c*og+o)*KH+i)*KW+j)
							}
						}
					}
				}
			}
		}
	}
	return []int64{int64(N), int64(O), int64(OH), int64(OW)}, res
}

func convCompare(t *testing.T, what string, out *runtime.Tensor, want []float64, tol float64) {
	t.Helper()
	for i, w := range want {
		if g := laAt(out, i); math.Abs(g-w) > tol {
			t.Fatalf("%s: out[%d] = %v want %v", what, i, g, w)
		}
	}
}

type convCase struct {
	n, c, h, w, o, kh, kw int
	s, d                  [2]int
	pad                   []int64
	groups                int
}

func (c convCase) pad4() [4]int {
	p, _ := convPad4("test", c.pad)
	return p
}

var conv2dCases = []convCase{
	{1, 1, 1, 1, 1, 1, 1, [2]int{1, 1}, [2]int{1, 1}, nil, 1},
	{2, 3, 7, 7, 5, 3, 3, [2]int{1, 1}, [2]int{1, 1}, []int64{1}, 1},
	{1, 4, 17, 13, 8, 3, 2, [2]int{2, 1}, [2]int{1, 2}, []int64{1, 0, 2, 3}, 2},
	{1, 6, 33, 9, 6, 3, 3, [2]int{1, 2}, [2]int{2, 1}, []int64{2, 1}, 6},       // depthwise
	{2, 3, 9, 17, 12, 5, 3, [2]int{2, 2}, [2]int{1, 1}, []int64{2}, 3},         // depthwise, multiplier 4
	{1, 7, 17, 17, 33, 1, 1, [2]int{1, 1}, [2]int{1, 1}, nil, 1},               // pointwise GEMM
	{1, 17, 7, 7, 5, 1, 1, [2]int{2, 2}, [2]int{1, 1}, []int64{0, 0, 1, 1}, 1}, // strided 1x1
	{2, 9, 11, 13, 7, 1, 1, [2]int{2, 3}, [2]int{1, 2}, nil, 1},                // strided 1x1 without padding: subsampled, pointwise
	{1, 64, 28, 28, 32, 1, 1, [2]int{2, 2}, [2]int{1, 1}, nil, 1},              // a ResNet shortcut's shape
	{0, 3, 7, 7, 5, 3, 3, [2]int{1, 1}, [2]int{1, 1}, nil, 1},
	{1, 0, 7, 7, 5, 3, 3, [2]int{1, 1}, [2]int{1, 1}, nil, 1},
	{1, 3, 1, 257, 4, 1, 7, [2]int{1, 3}, [2]int{1, 1}, []int64{0, 3}, 1},
	{1, 64, 100, 100, 4, 3, 3, [2]int{1, 1}, [2]int{1, 1}, []int64{1}, 1}, // im2col in column blocks
}

func TestConv2D(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, dt := range []runtime.DataType{runtime.Float32, runtime.Float64, runtime.Int32, runtime.Int64} {
		for ci, c := range conv2dCases {
			if dt != runtime.Float32 && c.c == 64 {
				continue
			}
			x := laRandTensor(r, []int64{int64(c.n), int64(c.c), int64(c.h), int64(c.w)}, dt)
			cg := 0
			if c.groups > 0 {
				cg = c.c / c.groups
			}
			w := laRandTensor(r, []int64{int64(c.o), int64(cg), int64(c.kh), int64(c.kw)}, dt)
			p := c.pad4()
			shape, want := convRef(x, w, [4]int{c.s[0], c.s[1]}, p, [4]int{c.d[0], c.d[1]}, c.groups, false, [2]int{})
			out := runtime.MustNewTensor(shape, dt)
			attrs := Conv2DAttrs{Strides: []int64{int64(c.s[0]), int64(c.s[1])}, Padding: c.pad,
				Dilation: []int64{int64(c.d[0]), int64(c.d[1])}, Groups: int64(c.groups), DataLayout: "NCHW", KernelLayout: "OIHW", OutDType: runtime.Void}
			if err := Conv2D(out, x, w, attrs); err != nil {
				t.Fatalf("%s case %d: %v", dt, ci, err)
			}
			convCompare(t, fmt.Sprintf("%s case %d %+v", dt, ci, c), out, want, 1e-4*float64(cg*c.kh*c.kw+1))
		}
	}
}

func TestConv1D(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for _, c := range []struct {
		n, c, w, o, k, s, d, g int
		pad                    []int64
	}{{1, 3, 17, 5, 3, 1, 1, 1, []int64{1}}, {2, 4, 33, 8, 5, 2, 2, 2, []int64{2, 1}}, {1, 4, 7, 4, 3, 1, 1, 4, nil}, {1, 1, 1, 1, 1, 1, 1, 1, nil}} {
		for _, dt := range []runtime.DataType{runtime.Float32, runtime.Float64} {
			x := laRandTensor(r, []int64{int64(c.n), int64(c.c), int64(c.w)}, dt)
			w := laRandTensor(r, []int64{int64(c.o), int64(c.c / c.g), int64(c.k)}, dt)
			x4, _ := x.View([]int64{int64(c.n), int64(c.c), 1, int64(c.w)}, dt)
			w4, _ := w.View([]int64{int64(c.o), int64(c.c / c.g), 1, int64(c.k)}, dt)
			var p [4]int
			if len(c.pad) == 1 {
				p = [4]int{0, int(c.pad[0]), 0, int(c.pad[0])}
			} else if len(c.pad) == 2 {
				p = [4]int{0, int(c.pad[0]), 0, int(c.pad[1])}
			}
			shape, want := convRef(x4, w4, [4]int{1, c.s}, p, [4]int{1, c.d}, c.g, false, [2]int{})
			out := runtime.MustNewTensor([]int64{shape[0], shape[1], shape[3]}, dt)
			f, _ := runtime.Lookup("kernels.nn.conv1d")
			if _, err := f([]runtime.Value{x, w, runtime.Shape{int64(c.s)}, runtime.Shape(c.pad), runtime.Shape{int64(c.d)},
				int64(c.g), "NCW", "OIW", "", nil, out}); err != nil {
				t.Fatalf("%+v: %v", c, err)
			}
			convCompare(t, fmt.Sprintf("conv1d %s %+v", dt, c), out, want, 1e-4*float64(c.c*c.k))
		}
	}
}

func TestConv2DTranspose(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	cases := []struct {
		convCase
		outPad [2]int
	}{
		{convCase{1, 1, 1, 1, 1, 1, 1, [2]int{1, 1}, [2]int{1, 1}, nil, 1}, [2]int{}},
		{convCase{2, 3, 7, 5, 4, 3, 3, [2]int{2, 2}, [2]int{1, 1}, []int64{1}, 1}, [2]int{1, 0}},
		{convCase{1, 4, 9, 17, 6, 4, 3, [2]int{3, 1}, [2]int{1, 2}, []int64{1, 0, 2, 1}, 2}, [2]int{2, 1}},
		{convCase{1, 6, 7, 7, 6, 3, 3, [2]int{1, 1}, [2]int{1, 1}, []int64{1}, 6}, [2]int{}},
		{convCase{1, 17, 5, 3, 33, 2, 2, [2]int{2, 2}, [2]int{1, 1}, nil, 1}, [2]int{}},
		{convCase{0, 3, 5, 3, 3, 2, 2, [2]int{2, 2}, [2]int{1, 1}, nil, 1}, [2]int{}},
	}
	for _, dt := range []runtime.DataType{runtime.Float32, runtime.Float64, runtime.Int64} {
		for ci, c := range cases {
			og := c.o / c.groups
			x := laRandTensor(r, []int64{int64(c.n), int64(c.c), int64(c.h), int64(c.w)}, dt)
			w := laRandTensor(r, []int64{int64(c.c), int64(og), int64(c.kh), int64(c.kw)}, dt)
			shape, want := convRef(x, w, [4]int{c.s[0], c.s[1]}, c.pad4(), [4]int{c.d[0], c.d[1]}, c.groups, true, c.outPad)
			out := runtime.MustNewTensor(shape, dt)
			f, _ := runtime.Lookup("kernels.nn.conv2d_transpose")
			_, err := f([]runtime.Value{x, w, runtime.Shape{int64(c.s[0]), int64(c.s[1])}, runtime.Shape(c.pad),
				runtime.Shape{int64(c.outPad[0]), int64(c.outPad[1])}, runtime.Shape{int64(c.d[0]), int64(c.d[1])},
				int64(c.groups), "NCHW", "IOHW", "NCHW", dt, out})
			if err != nil {
				t.Fatalf("%s case %d: %v", dt, ci, err)
			}
			convCompare(t, fmt.Sprintf("transpose %s case %d", dt, ci), out, want, 1e-4*float64(c.c*c.kh*c.kw+1))
		}
	}
}

func TestConvPackedAndErrors(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	f, ok := runtime.Lookup("kernels.nn.conv2d")
	if !ok {
		t.Fatal("kernels.nn.conv2d not registered")
	}
	x := laRandTensor(r, []int64{1, 4, 8, 8}, runtime.Float32)
	w := laRandTensor(r, []int64{6, 2, 3, 3}, runtime.Float32)
	out := runtime.MustNewTensor([]int64{1, 6, 8, 8}, runtime.Float32)
	ok1 := []runtime.Value{x, w, runtime.Shape{1, 1}, runtime.Shape{1, 1, 1, 1}, runtime.Shape{1, 1}, int64(2), "NCHW", "OIHW", "", runtime.Float32, out}
	if _, err := f(ok1); err != nil {
		t.Fatal(err)
	}
	mod := func(i int, v runtime.Value) []runtime.Value {
		a := append([]runtime.Value(nil), ok1...)
		a[i] = v
		return a
	}
	for i, args := range [][]runtime.Value{
		ok1[:10],
		mod(0, int64(1)),
		mod(2, "x"),
		mod(3, runtime.Shape{1, 1, 1}),
		mod(5, int64(3)),
		mod(6, "NHWC"),
		mod(7, "HWIO"),
		mod(8, "NHWC"),
		mod(9, runtime.Float64),
		mod(10, runtime.MustNewTensor([]int64{1, 6, 7, 8}, runtime.Float32)),
		mod(1, laRandTensor(r, []int64{6, 2, 3, 3}, runtime.Float64)),
		mod(1, laRandTensor(r, []int64{6, 2, 9, 9}, runtime.Float32)),
		mod(2, runtime.Shape{0, 1}),
	} {
		if _, err := f(args); err == nil {
			t.Errorf("bad conv2d call %d accepted", i)
		}
	}
	ft, _ := runtime.Lookup("kernels.nn.conv2d_transpose")
	xt := laRandTensor(r, []int64{1, 2, 4, 4}, runtime.Float32)
	wt := laRandTensor(r, []int64{2, 3, 3, 3}, runtime.Float32)
	ot := runtime.MustNewTensor([]int64{1, 3, 10, 10}, runtime.Float32)
	if _, err := ft([]runtime.Value{xt, wt, runtime.Shape{2, 2}, runtime.Shape{0, 0}, runtime.Shape{2, 2}, runtime.Shape{1, 1},
		int64(1), "NCHW", "IOHW", "NCHW", nil, ot}); err == nil {
		t.Error("output_padding >= stride accepted")
	}
}

// BenchmarkConv2DShapes are the convolutions of the scaled CNN benchmark
// (bench/ort cnn_64x64_c32_64): 3->32 channels on 64x64, then 32->64 with
// stride 2 on 32x32, and a 1x1 (pointwise) 64->128 on 28x28.
func BenchmarkConv2DShapes(b *testing.B) {
	defer SetNumThreads(0)
	for _, c := range []struct {
		name          string
		ci, co, hw, k int
		stride, pad   int64
	}{
		{"3x3_3x32_64x64", 3, 32, 64, 3, 1, 1},
		{"3x3s2_32x64_32x32", 32, 64, 32, 3, 2, 1},
		{"1x1_64x128_28x28", 64, 128, 28, 1, 1, 0},
	} {
		for _, th := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d", c.name, th), func(b *testing.B) {
				SetNumThreads(th)
				r := rand.New(rand.NewSource(1))
				oh := (c.hw+2*int(c.pad)-c.k)/int(c.stride) + 1
				x := laRandTensor(r, []int64{1, int64(c.ci), int64(c.hw), int64(c.hw)}, runtime.Float32)
				w := laRandTensor(r, []int64{int64(c.co), int64(c.ci), int64(c.k), int64(c.k)}, runtime.Float32)
				out := runtime.MustNewTensor([]int64{1, int64(c.co), int64(oh), int64(oh)}, runtime.Float32)
				attrs := Conv2DAttrs{Strides: []int64{c.stride, c.stride}, Padding: []int64{c.pad, c.pad, c.pad, c.pad}, Dilation: []int64{1, 1}, Groups: 1}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := Conv2D(out, x, w, attrs); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(2*float64(c.co*c.ci*c.k*c.k*oh*oh)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkConv2D is a ResNet-style 3x3, 64->64 channel convolution on 56x56.
func BenchmarkConv2D(b *testing.B) {
	defer SetNumThreads(0)
	for _, th := range []int{1, 2} {
		b.Run(fmt.Sprintf("3x3_64x64_56x56/threads=%d", th), func(b *testing.B) {
			SetNumThreads(th)
			r := rand.New(rand.NewSource(1))
			x := laRandTensor(r, []int64{1, 64, 56, 56}, runtime.Float32)
			w := laRandTensor(r, []int64{64, 64, 3, 3}, runtime.Float32)
			out := runtime.MustNewTensor([]int64{1, 64, 56, 56}, runtime.Float32)
			attrs := Conv2DAttrs{Strides: []int64{1, 1}, Padding: []int64{1, 1, 1, 1}, Dilation: []int64{1, 1}, Groups: 1}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := Conv2D(out, x, w, attrs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(2*64*64*9*56*56*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkConv2DDepthwise are MobileNetV2's 3x3 depthwise convolutions
// (224x224 input): channels, input size and stride of each distinct layer.
func BenchmarkConv2DDepthwise(b *testing.B) {
	defer SetNumThreads(0)
	for _, c := range []struct{ ch, hw, stride int }{
		{32, 112, 1}, {96, 112, 2}, {144, 56, 1}, {144, 56, 2}, {192, 28, 1}, {192, 28, 2},
		{384, 14, 1}, {576, 14, 1}, {576, 14, 2}, {960, 7, 1},
	} {
		for _, th := range []int{1, 2} {
			b.Run(fmt.Sprintf("%dch_%dx%d_s%d/threads=%d", c.ch, c.hw, c.hw, c.stride, th), func(b *testing.B) {
				SetNumThreads(th)
				x, w, out, attrs := depthwiseLayer(c.ch, c.hw, c.stride)
				oh := int(out.Shape()[2])
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := Conv2D(out, x, w, attrs); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(2*float64(c.ch*9*oh*oh)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkConv2DDepthwiseCold is BenchmarkConv2DDepthwise's layers on
// 112x112 planes (the planar kernels') at one thread with the caches
// flushed before each call (outside the timer), as a network's
// activations are when its working set outgrows the L3.
func BenchmarkConv2DDepthwiseCold(b *testing.B) {
	defer SetNumThreads(0)
	SetNumThreads(1)
	flush := newCacheFlusher()
	for _, c := range []struct{ ch, hw, stride int }{{32, 112, 1}, {96, 112, 2}, {144, 56, 1}, {144, 56, 2}, {192, 28, 1}} {
		b.Run(fmt.Sprintf("%dch_%dx%d_s%d", c.ch, c.hw, c.hw, c.stride), func(b *testing.B) {
			x, w, out, attrs := depthwiseLayer(c.ch, c.hw, c.stride)
			for i := 0; i < b.N; i++ {
				flush.flush(b)
				if err := Conv2D(out, x, w, attrs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// depthwiseLayer makes a 3x3 depthwise convolution's operands (padding 1):
// ch channels of hw x hw at stride, random input and weights.
func depthwiseLayer(ch, hw, stride int) (x, w, out *runtime.Tensor, attrs Conv2DAttrs) {
	r := rand.New(rand.NewSource(1))
	oh := (hw+2-3)/stride + 1
	x = laRandTensor(r, []int64{1, int64(ch), int64(hw), int64(hw)}, runtime.Float32)
	w = laRandTensor(r, []int64{int64(ch), 1, 3, 3}, runtime.Float32)
	out = runtime.MustNewTensor([]int64{1, int64(ch), int64(oh), int64(oh)}, runtime.Float32)
	s := int64(stride)
	attrs = Conv2DAttrs{Strides: []int64{s, s}, Padding: []int64{1, 1, 1, 1}, Dilation: []int64{1, 1}, Groups: int64(ch)}
	return x, w, out, attrs
}

// TestDepthwiseTapMatchesRows checks the phase-split TapSum depthwise path
// against the row loops (which skip padding) bit for bit, over strides,
// dilations, asymmetric paddings, channel multipliers and plane sizes, with
// ±0 and subnormal inputs; and that a non-finite weight takes the row loops
// (where padding contributes nothing, not NaN). With one output channel per
// input channel it checks the channel-blocked path (dwNCUse), whole blocks
// and partial ones, at every SIMD level; and, with the planar path forced
// wherever its kernels take the shape (dwPlanarForced), that path, on
// 3x3 windows over planes up to 80 wide.
func TestDepthwiseTapMatchesRows(t *testing.T) {
	defer func() { dwPlanarForced = 0 }()
	for _, forced := range []int{-1, 1} {
		dwPlanarForced = forced
		forEachLevel(t, func(l asm.Level) { testDepthwiseTapMatchesRows(t, l) })
	}
}

func testDepthwiseTapMatchesRows(t *testing.T, l asm.Level) {
	r := rand.New(rand.NewSource(5))
	for k := 0; k < 300; k++ {
		g := conv2dGeom{n: 1 + r.Intn(2), h: 1 + r.Intn(12), w: 1 + r.Intn(12), kh: 1 + r.Intn(4), kw: 1 + r.Intn(4),
			sh: 1 + r.Intn(3), sw: 1 + r.Intn(3), dh: 1 + r.Intn(2), dw: 1 + r.Intn(2),
			pt: r.Intn(3), pb: r.Intn(3), pl: r.Intn(3), pr: r.Intn(3)}
		if dwPlanarForced > 0 && k%2 == 0 {
			// The planar kernels' windows: 3x3, column stride 1 or 2.
			g.kh, g.kw, g.dh, g.dw, g.sw, g.w = 3, 3, 1, 1, 1+r.Intn(2), 1+r.Intn(80)
		}
		g.c = 1 + r.Intn(4)
		if k%3 == 0 {
			g.c = 5 + r.Intn(36) // whole and partial blocks of 8 and 16 channels
		}
		g.g = g.c
		g.o = g.c * (1 + r.Intn(2))
		eh, ew := g.dh*(g.kh-1)+1, g.dw*(g.kw-1)+1
		if g.h+g.pt+g.pb < eh || g.w+g.pl+g.pr < ew {
			continue
		}
		g.oh, g.ow = (g.h+g.pt+g.pb-eh)/g.sh+1, (g.w+g.pl+g.pr-ew)/g.sw+1
		x := make([]float32, g.n*g.c*g.h*g.w)
		for i := range x {
			x[i] = float32(r.NormFloat64())
			switch r.Intn(10) {
			case 0:
				x[i] = float32(math.Copysign(0, -1))
			case 1:
				x[i] = 1e-44
			}
		}
		w := make([]float32, g.o*g.kh*g.kw)
		for i := range w {
			w[i] = float32(r.NormFloat64())
		}
		if k%10 == 9 {
			w[r.Intn(len(w))] = float32(math.Inf(1))
		}
		got := make([]float32, g.n*g.o*g.oh*g.ow)
		conv2dDepthwiseF32(&g, got, x, w, nil, nil)
		want := make([]float32, len(got))
		j := &convDWJob{g: g, out: want, x: x, w: w}
		j.planes(0, g.n*g.o)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s case %d %+v (blocked path %v, planar forced %d): [%d] %v, rows %v", l, k, g, dwNCUse(&g), dwPlanarForced, i, got[i], want[i])
			}
		}
	}
}

// TestSubsample checks the strided 1x1 convolution's copy of the positions
// it reads against the element-by-element definition: column strides 1 to 3
// (2 takes the deinterleaving kernel), row strides 1 to 3, odd and even
// widths (an odd width's last column after the kernel), one and several
// planes, with a guard band after dst.
func TestSubsample(t *testing.T) {
	for _, c := range []struct{ n, c, h, w, sh, sw int }{
		{1, 3, 56, 56, 2, 2}, {1, 2, 7, 7, 2, 2}, {2, 3, 9, 13, 3, 2}, {1, 1, 1, 1, 2, 2}, {1, 4, 5, 2, 1, 2},
		{1, 2, 6, 9, 2, 1}, {1, 2, 11, 10, 1, 3}, {3, 1, 4, 3, 2, 2},
	} {
		g := conv2dGeom{n: c.n, c: c.c, h: c.h, w: c.w, sh: c.sh, sw: c.sw}
		g.oh, g.ow = (c.h-1)/c.sh+1, (c.w-1)/c.sw+1
		x := make([]float32, c.n*c.c*c.h*c.w)
		for i := range x {
			x[i] = float32(i)
		}
		const guard = 9
		n := c.n * c.c * g.oh * g.ow
		dst := make([]float32, n+guard)
		for i := range dst {
			dst[i] = -1
		}
		subsample(dst[:n], x, &g)
		for p := 0; p < c.n*c.c; p++ {
			for oy := 0; oy < g.oh; oy++ {
				for ox := 0; ox < g.ow; ox++ {
					want := x[p*c.h*c.w+oy*c.sh*c.w+ox*c.sw]
					if got := dst[p*g.oh*g.ow+oy*g.ow+ox]; got != want {
						t.Fatalf("%+v: plane %d (%d, %d): %v, want %v", c, p, oy, ox, got, want)
					}
				}
			}
		}
		for i := n; i < len(dst); i++ {
			if dst[i] != -1 {
				t.Fatalf("%+v: wrote past dst at %d", c, i)
			}
		}
	}
}

// TestDWPlanarPick checks which depthwise convolutions take the planar
// path: rows of 112 and more at every assembly level; below that, where
// the blocked kernel takes the plane (AVX-512 and AVX2), output rows of at
// least dwPlanarBlockedMinWidth; never at the Go level, never a window
// other than 3x3 undilated.
func TestDWPlanarPick(t *testing.T) {
	forEachLevel(t, func(l asm.Level) {
		for _, c := range []struct {
			hw, s, k, d int
			avx512      bool // planar at AVX-512
			avx2        bool // planar at AVX2
		}{
			{112, 1, 3, 1, true, true}, {112, 2, 3, 1, true, true},
			{56, 1, 3, 1, true, true}, {56, 2, 3, 1, true, true}, {28, 1, 3, 1, true, true},
			{28, 2, 3, 1, false, false}, {14, 1, 3, 1, false, false}, {7, 1, 3, 1, false, false},
			{56, 1, 5, 1, false, false}, {56, 1, 3, 2, false, false},
		} {
			p := (c.k - 1) / 2 * c.d
			g := convGeomFor(1, 1, c.hw, c.hw, c.k, c.k, c.s, c.s, c.d, c.d, p, p, p, p)
			g.c, g.o, g.g = 32, 32, 32
			want := c.avx512 && l == asm.LevelAVX512 || c.avx2 && l == asm.LevelAVX2
			if got := dwPlanarPick(&g) != nil; got != want {
				t.Errorf("%s: %dx%d stride %d window %d dilation %d: planar %v, want %v", l, c.hw, c.hw, c.s, c.k, c.d, got, want)
			}
		}
	})
}
