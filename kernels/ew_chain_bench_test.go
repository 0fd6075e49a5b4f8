package kernels

import (
	"fmt"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// BenchmarkEwChainBatchNormRelu6 is MobileNetV2's batch norm + ReLU6 chain
// ((x - mean) * scale + shift, max 0, min 6; per-channel operands) on
// planes of its sizes, 1 thread.
func BenchmarkEwChainBatchNormRelu6(b *testing.B) {
	defer SetNumThreads(0)
	for _, c := range []struct{ ch, hw int64 }{{32, 112}, {144, 56}, {192, 28}, {576, 14}, {960, 7}} {
		b.Run(fmt.Sprintf("%dx%dx%d", c.ch, c.hw, c.hw), func(b *testing.B) {
			SetNumThreads(1)
			shape := []int64{1, c.ch, c.hw, c.hw}
			x := randT(b, 1, shape, f32, -3, 3)
			per := []int64{c.ch, 1, 1}
			mean, scale, shift := randT(b, 2, per, f32, -1, 1), randT(b, 3, per, f32, 0.5, 2), randT(b, 4, per, f32, -1, 1)
			zero, six := randT(b, 5, []int64{}, f32, 0, 0), randT(b, 6, []int64{}, f32, 6, 6)
			out := mustT(b, shape, f32)
			f, _ := runtime.Lookup(EwChainKernel)
			args := []runtime.Value{x, runtime.Shape{2 * ewSub, 2 * ewMul, 2 * ewAdd, 2 * ewMax, 2 * ewMin}, mean, scale, shift, zero, six, out}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := f(args); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(x.NumElements())*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "Gelem/s")
		})
	}
}

// BenchmarkEwChainResidual is ResNet's chain after a block's second
// convolution, 1 thread: batch norm (three per-channel steps), the residual
// add and relu, by rows (run) and in blocks of short rows (runShort).
func BenchmarkEwChainResidual(b *testing.B) {
	defer SetNumThreads(0)
	defer func() { ewBlocksOn = true }()
	for _, c := range []struct{ ch, hw int64 }{{512, 7}, {256, 14}, {128, 28}, {64, 56}} {
		shape := []int64{1, c.ch, c.hw, c.hw}
		x, res := randT(b, 1, shape, f32, -3, 3), randT(b, 7, shape, f32, -3, 3)
		per := []int64{c.ch, 1, 1}
		mean, scale, shift := randT(b, 2, per, f32, -1, 1), randT(b, 3, per, f32, 0.5, 2), randT(b, 4, per, f32, -1, 1)
		out := mustT(b, shape, f32)
		f, _ := runtime.Lookup(EwChainKernel)
		args := []runtime.Value{x, runtime.Shape{2 * ewSub, 2 * ewMul, 2 * ewAdd, 2 * ewAdd, EwChainRelu}, mean, scale, shift, res, out}
		for _, blocks := range []bool{true, false} {
			mode := map[bool]string{true: "blocks", false: "rows"}[blocks]
			b.Run(fmt.Sprintf("%dx%dx%d/%s", c.ch, c.hw, c.hw, mode), func(b *testing.B) {
				SetNumThreads(1)
				ewBlocksOn = blocks
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := f(args); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(x.NumElements())*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "Gelem/s")
			})
		}
	}
}

// BenchmarkEwChainErfGelu is the GELU PyTorch exports to ONNX, x/sqrt2,
// erf, +1, x*, *0.5, on a small encoder's and BERT-base's FFN activations,
// 1 thread: as FuseElementwiseChains now fuses it (one chain call with an
// erf step) and as it ran before (divide, erf, then a chain of the rest).
func BenchmarkEwChainErfGelu(b *testing.B) {
	defer SetNumThreads(0)
	for _, shape := range [][]int64{{32, 512}, {128, 3072}} {
		x := randT(b, 1, shape, f32, -3, 3)
		c, one, half := randT(b, 2, []int64{}, f32, 1.4142135, 1.4142135), randT(b, 3, []int64{}, f32, 1, 1), randT(b, 4, []int64{}, f32, 0.5, 0.5)
		t1, t2, out := mustT(b, shape, f32), mustT(b, shape, f32), mustT(b, shape, f32)
		chain, _ := runtime.Lookup(EwChainKernel)
		div, _ := runtime.Lookup(Prefix + "divide")
		erf, _ := runtime.Lookup(Prefix + "erf")
		for _, fused := range []bool{true, false} {
			b.Run(fmt.Sprintf("%dx%d/fused=%v", shape[0], shape[1], fused), func(b *testing.B) {
				SetNumThreads(1)
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					var err error
					if fused {
						_, err = chain([]runtime.Value{x, runtime.Shape{2 * ewDiv, EwChainErf, 2 * ewAdd, 2*ewMul + 1, 2 * ewMul}, c, one, x, half, out})
					} else {
						if _, err = div([]runtime.Value{x, c, t1}); err == nil {
							if _, err = erf([]runtime.Value{t1, t2}); err == nil {
								_, err = chain([]runtime.Value{t2, runtime.Shape{2 * ewAdd, 2*ewMul + 1, 2 * ewMul}, one, x, half, out})
							}
						}
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(x.NumElements())*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "Gelem/s")
			})
		}
	}
}

// BenchmarkEwHeavyThreads is elementwise work with a transcendental step on
// 1 and 2 threads, by size: nn.gelu (one unary kernel) and the erf GELU
// chain of BenchmarkEwChainErfGelu (an encoder's FFN activation is 16K
// elements). Below heavyParThreshold elements both stay on one thread.
func BenchmarkEwHeavyThreads(b *testing.B) {
	defer SetNumThreads(0)
	gelu, _ := runtime.Lookup(Prefix + "nn.gelu")
	chain, _ := runtime.Lookup(EwChainKernel)
	c, one, half := randT(b, 2, []int64{}, f32, 1.4142135, 1.4142135), randT(b, 3, []int64{}, f32, 1, 1), randT(b, 4, []int64{}, f32, 0.5, 0.5)
	for _, n := range []int64{4096, 8192, 16384, 32768, 131072} {
		x := randT(b, 1, []int64{n / 512, 512}, f32, -3, 3)
		out := mustT(b, []int64{n / 512, 512}, f32)
		for _, op := range []string{"gelu", "erfchain"} {
			for _, th := range []int{1, 2} {
				b.Run(fmt.Sprintf("%s/n=%d/threads=%d", op, n, th), func(b *testing.B) {
					SetNumThreads(th)
					b.ReportAllocs()
					for i := 0; i < b.N; i++ {
						var err error
						if op == "gelu" {
							_, err = gelu([]runtime.Value{x, out})
						} else {
							_, err = chain([]runtime.Value{x, runtime.Shape{2 * ewDiv, EwChainErf, 2 * ewAdd, 2*ewMul + 1, 2 * ewMul}, c, one, x, half, out})
						}
						if err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "Gelem/s")
				})
			}
		}
	}
}

// BenchmarkEwChainSilu is EfficientNet-B0's SiLU after a convolution, on
// planes of its sizes, 1 thread: as the export writes it (a sigmoid step,
// then the product with the chain's input), as one step
// (EwChainXSigmoid), and with the bias before it in the same chain (rows
// of a plane, in blocks when short).
func BenchmarkEwChainSilu(b *testing.B) {
	defer SetNumThreads(0)
	for _, c := range []struct{ ch, hw int64 }{{96, 112}, {144, 56}, {672, 14}, {1152, 7}} {
		shape := []int64{1, c.ch, c.hw, c.hw}
		x := randT(b, 1, shape, f32, -4, 4)
		bias := randT(b, 2, []int64{c.ch, 1, 1}, f32, -1, 1)
		out := mustT(b, shape, f32)
		f, _ := runtime.Lookup(EwChainKernel)
		for _, v := range []struct {
			name string
			args []runtime.Value
		}{
			{"sigmoid,multiply", []runtime.Value{x, runtime.Shape{EwChainSigmoid, 2*ewMul + 1}, x, out}},
			{"xsigmoid", []runtime.Value{x, runtime.Shape{EwChainXSigmoid}, out}},
			{"bias,xsigmoid", []runtime.Value{x, runtime.Shape{2 * ewAdd, EwChainXSigmoid}, bias, out}},
		} {
			b.Run(fmt.Sprintf("%dx%dx%d/%s", c.ch, c.hw, c.hw, v.name), func(b *testing.B) {
				SetNumThreads(1)
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := f(v.args); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(x.NumElements())*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "Gelem/s")
			})
		}
	}
}
