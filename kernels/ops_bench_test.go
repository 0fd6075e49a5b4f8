package kernels

import (
	"fmt"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// Benchmarks of the operator library (run: go test -run '^$' -bench 'Op' -benchtime 20x ./kernels/).

func benchThreads(b *testing.B, threads int, f func(b *testing.B)) {
	b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
		SetNumThreads(threads)
		defer SetNumThreads(0)
		f(b)
	})
}

// BenchmarkOpAdd is float32 add of two 4M-element tensors (and a bias add);
// GB/s counts the bytes read and written.
func BenchmarkOpAdd(b *testing.B) {
	const n = 1 << 22
	x := randT(b, 1, []int64{n}, f32, -1, 1)
	y := randT(b, 2, []int64{n}, f32, -1, 1)
	out := mustT(b, []int64{n}, f32)
	for _, th := range []int{1, 2} {
		benchThreads(b, th, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(3 * 4 * n)
			for i := 0; i < b.N; i++ {
				if err := Add(out, x, y); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(3*4*n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "GB/s")
		})
	}
	bias := randT(b, 3, []int64{1024}, f32, -1, 1)
	x2 := randT(b, 4, []int64{4096, 1024}, f32, -1, 1)
	out2 := mustT(b, []int64{4096, 1024}, f32)
	b.Run("bias(4096x1024+1024)", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := Add(out2, x2, bias); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(2*4*4096*1024)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "GB/s")
	})
}

// BenchmarkOpExp is float32 exp over 1M elements.
func BenchmarkOpExp(b *testing.B) {
	const n = 1 << 20
	x := randT(b, 1, []int64{n}, f32, -10, 10)
	out := mustT(b, []int64{n}, f32)
	for _, th := range []int{1, 2} {
		benchThreads(b, th, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := Exp(out, x); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "Gelem/s")
		})
	}
}

// BenchmarkOpSoftmax is row softmax over the last axis, short rows (a
// classifier's, dynamic_batch's 64x8) in place too, and attention-sized
// ones, at 1 and 2 threads.
func BenchmarkOpSoftmax(b *testing.B) {
	for _, s := range [][3]int64{{64, 8, 0}, {64, 8, 1}, {64, 13, 0}, {64, 16, 0}, {64, 128, 0}, {128, 128, 0}, {512, 128, 0}, {1024, 1024, 0}} {
		x := randT(b, 1, s[:2], f32, -5, 5)
		out, name := mustT(b, s[:2], f32), fmt.Sprintf("%dx%d", s[0], s[1])
		if s[2] == 1 {
			out, name = x, name+"/in-place"
		}
		b.Run(name, func(b *testing.B) {
			for _, th := range []int{1, 2} {
				benchThreads(b, th, func(b *testing.B) {
					b.ReportAllocs()
					for i := 0; i < b.N; i++ {
						if err := Softmax(out, x, -1); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(s[0]*s[1])*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "Gelem/s")
				})
			}
		})
	}
}

// BenchmarkOpLayerNorm is layer_norm over the last axis: 768 wide rows, the
// short rows of a small transformer (8x32, asm.LayerNormShortF32) and
// compare.sh's transformer's 128x256, at 1 and 2 threads.
func BenchmarkOpLayerNorm(b *testing.B) {
	defer SetNumThreads(0)
	for _, s := range [][2]int64{{8, 768}, {1024, 768}, {8, 32}, {128, 256}} {
		rows, w := s[0], s[1]
		x := randT(b, 1, []int64{rows, w}, f32, -5, 5)
		g := randT(b, 2, []int64{w}, f32, 0.5, 1.5)
		be := randT(b, 3, []int64{w}, f32, -1, 1)
		out := mustT(b, []int64{rows, w}, f32)
		attrs := LayerNormAttrs{Axes: []int64{-1}, Epsilon: 1e-5, Center: true, Scale: true}
		for _, th := range []int{1, 2} {
			b.Run(fmt.Sprintf("%dx%d/threads=%d", rows, w, th), func(b *testing.B) {
				SetNumThreads(th)
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if err := LayerNorm(out, x, g, be, attrs); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(rows*w)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "Gelem/s")
			})
		}
	}
}

// BenchmarkOpMisc covers other common ops on mid-sized tensors.
func BenchmarkOpMisc(b *testing.B) {
	x := randT(b, 1, []int64{256, 1024}, f32, -3, 3)
	out := mustT(b, []int64{256, 1024}, f32)
	outT := mustT(b, []int64{1024, 256}, f32)
	sum := mustT(b, []int64{256}, f32)
	flat := mustT(b, []int64{256 * 1024}, f32)
	// A small transformer's head split and attention scale.
	heads := randT(b, 2, []int64{1, 8, 4, 8}, f32, -3, 3)
	split := mustT(b, []int64{1, 4, 8, 8}, f32)
	scale := randT(b, 3, []int64{}, f32, 0, 1)
	scaled := mustT(b, []int64{1, 8, 4, 8}, f32)
	two := randT(b, 4, []int64{}, f32, 2, 2)
	cases := []struct {
		name string
		fn   func() error
	}{
		{"relu", func() error { return Relu(out, x) }},
		{"gelu", func() error { return Gelu(out, x) }},
		{"sum_last", func() error { return Sum(sum, x, []int64{-1}, false) }},
		{"permute_2d", func() error { return PermuteDims(outT, x, nil) }},
		{"reshape", func() error { return Reshape(flat, x, runtime.Shape{-1}) }},
		{"permute_head", func() error { return PermuteDims(split, heads, []int64{0, 2, 1, 3}) }},
		{"mul_scalar_1x4x8x8", func() error { return Multiply(scaled, heads, scale) }},
		{"pow2", func() error { return Power(out, x, two) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := c.fn(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOpGlobalAvgPool is a global average pool (adaptive to 1x1) of
// many small planes: cnn_64x64's 64 of 16x16, ResNet-18's 512 of 7x7,
// MobileNetV2's 1280 of 7x7 (all sums at once, sum32Rows).
func BenchmarkOpGlobalAvgPool(b *testing.B) {
	for _, s := range [][]int64{{1, 64, 16, 16}, {1, 512, 7, 7}, {1, 1280, 7, 7}} {
		x := randT(b, 1, s, f32, -1, 1)
		out := mustT(b, []int64{s[0], s[1], 1, 1}, f32)
		size := []int64{1, 1}
		b.Run(fmt.Sprintf("%dx%dx%d", s[1], s[2], s[3]), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := AdaptiveAvgPool2D(out, x, size, "NCHW", "NCHW"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOpMaxPool2D is squeezenet's first pooling (3x3, stride 2, ceil
// mode), resnet's (3x3, stride 2, padding 1), 2x2 windows at stride 2 and
// GoogLeNet's pools (3x3 at stride 1 with padding 1 on small planes, 3x3
// at stride 2 and 2x2 in ceil mode, rows of 7 and 14).
func BenchmarkOpMaxPool2D(b *testing.B) {
	benchPool2D(b, MaxPool2D, []int{1, 2}, []poolBench{
		{"squeezenet_64x111x111", []int64{1, 64, 111, 111}, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{2, 2}, CeilMode: true}},
		{"resnet_64x112x112", []int64{1, 64, 112, 112}, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{2, 2}, Padding: []int64{1, 1}}},
		{"cnn_2x2_32x64x64", []int64{1, 32, 64, 64}, Pool2DAttrs{PoolSize: []int64{2, 2}, Strides: []int64{2, 2}}},
		{"cnn_small_2x2_8x16x16", []int64{1, 8, 16, 16}, Pool2DAttrs{PoolSize: []int64{2, 2}, Strides: []int64{2, 2}}},
		{"googlenet_3x3s1p1_512x14x14", []int64{1, 512, 14, 14}, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{1, 1}, Padding: []int64{1, 1}, CeilMode: true}},
		{"googlenet_3x3s1p1_192x28x28", []int64{1, 192, 28, 28}, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{1, 1}, Padding: []int64{1, 1}, CeilMode: true}},
		{"googlenet_3x3s2_64x112x112", []int64{1, 64, 112, 112}, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{2, 2}, CeilMode: true}},
		{"googlenet_3x3s1p1_832x7x7", []int64{1, 832, 7, 7}, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{1, 1}, Padding: []int64{1, 1}, CeilMode: true}},
		{"googlenet_2x2s2_832x14x14", []int64{1, 832, 14, 14}, Pool2DAttrs{PoolSize: []int64{2, 2}, Strides: []int64{2, 2}, CeilMode: true}},
		{"googlenet_3x3s2_480x28x28", []int64{1, 480, 28, 28}, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{2, 2}, CeilMode: true}},
	})
}

// poolBench is one pooling benchmark's layer: its input shape and attributes.
type poolBench struct {
	name  string
	shape []int64
	attrs Pool2DAttrs
}

// benchPool2D times run (MaxPool2D or AvgPool2D) on each case at each
// thread count: ns per call and window taps per ns.
func benchPool2D(b *testing.B, run func(out, x *runtime.Tensor, a Pool2DAttrs) error, threads []int, cases []poolBench) {
	defer SetNumThreads(0)
	for _, c := range cases {
		x := randT(b, 1, c.shape, f32, -5, 5)
		a := c.attrs
		g, err := resolvePool2D("bench", x, &a)
		if err != nil {
			b.Fatal(err)
		}
		out := mustT(b, g.outShape[:], f32)
		for _, th := range threads {
			b.Run(fmt.Sprintf("%s/threads=%d", c.name, th), func(b *testing.B) {
				SetNumThreads(th)
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if err := run(out, x, c.attrs); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(out.NumElements()*c.attrs.PoolSize[0]*c.attrs.PoolSize[1])*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "Gtaps/s")
			})
		}
	}
}

// BenchmarkOpPad is Inception-v3's zero padding before its average pools
// (ONNX AveragePool with count_include_pad imports as pad + avg_pool2d),
// its 3x3 convolutions' explicit pads, and an edge pad, at 1 and 2
// threads: ns per call and output elements per ns.
func BenchmarkOpPad(b *testing.B) {
	defer SetNumThreads(0)
	for _, c := range []struct {
		name  string
		shape []int64
		attrs PadAttrs
	}{
		{"zero_768x17x17", []int64{1, 768, 17, 17}, PadAttrs{PadWidth: []int64{0, 0, 0, 0, 1, 1, 1, 1}}},
		{"zero_2048x8x8", []int64{1, 2048, 8, 8}, PadAttrs{PadWidth: []int64{0, 0, 0, 0, 1, 1, 1, 1}}},
		{"zero_64x112x112", []int64{1, 64, 112, 112}, PadAttrs{PadWidth: []int64{0, 0, 0, 0, 3, 3, 3, 3}}},
		{"edge_64x56x56", []int64{1, 64, 56, 56}, PadAttrs{PadWidth: []int64{0, 0, 0, 0, 1, 1, 1, 1}, PadMode: "edge"}},
	} {
		x := randT(b, 1, c.shape, f32, -5, 5)
		os := make([]int64, len(c.shape))
		for i := range os {
			os[i] = c.shape[i] + c.attrs.PadWidth[2*i] + c.attrs.PadWidth[2*i+1]
		}
		out := mustT(b, os, f32)
		for _, th := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d", c.name, th), func(b *testing.B) {
				SetNumThreads(th)
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if err := Pad(out, x, c.attrs); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(out.NumElements())*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "Gelem/s")
			})
		}
	}
}

// BenchmarkOpAvgPool2D is DenseNet-121's transitions (2x2, stride 2) and
// Inception-v3's 3x3/1 pools (over an explicitly padded input, as ONNX
// exports count_include_pad pools, and with the padding in the pool), 1
// thread.
func BenchmarkOpAvgPool2D(b *testing.B) {
	benchPool2D(b, AvgPool2D, []int{1}, []poolBench{
		{"densenet_2x2s2_128x56x56", []int64{1, 128, 56, 56}, Pool2DAttrs{PoolSize: []int64{2, 2}, Strides: []int64{2, 2}}},
		{"densenet_2x2s2_256x28x28", []int64{1, 256, 28, 28}, Pool2DAttrs{PoolSize: []int64{2, 2}, Strides: []int64{2, 2}}},
		{"inception_3x3_768x19x19", []int64{1, 768, 19, 19}, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{1, 1}}},
		{"inception_3x3p1_768x17x17", []int64{1, 768, 17, 17}, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{1, 1}, Padding: []int64{1, 1}, CountIncludePad: true}},
		{"inception_3x3p1_288x35x35", []int64{1, 288, 35, 35}, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{1, 1}, Padding: []int64{1, 1}, CountIncludePad: true}},
		{"inception_3x3p1_2048x8x8", []int64{1, 2048, 8, 8}, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{1, 1}, Padding: []int64{1, 1}, CountIncludePad: true}},
		{"exclpad_3x3p1_768x17x17", []int64{1, 768, 17, 17}, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{1, 1}, Padding: []int64{1, 1}}},
		{"exclpad_3x3s2p1_64x56x56", []int64{1, 64, 56, 56}, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{2, 2}, Padding: []int64{1, 1}}},
		{"exclpad_5x5p2_64x28x28", []int64{1, 64, 28, 28}, Pool2DAttrs{PoolSize: []int64{5, 5}, Strides: []int64{1, 1}, Padding: []int64{2, 2}}},
		{"ceil_2x2s2_64x27x27", []int64{1, 64, 27, 27}, Pool2DAttrs{PoolSize: []int64{2, 2}, Strides: []int64{2, 2}, CeilMode: true}},
	})
}
