package kernels

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/relaxgo/relaxgo/runtime"
)

// BenchmarkConvPoolSequence is cnn_64x64's layers one after another, as the
// model runs them: the 3->32 3x3 convolution on 64² (bias, relu), the 2x2
// max pool, the 32->64 3x3/2 convolution (bias, relu), at 1 and 2 threads,
// each layer timed (median µs). Each layer reads what the one before wrote,
// from whichever core wrote it, which a layer timed alone does not show.
func BenchmarkConvPoolSequence(b *testing.B) {
	defer SetNumThreads(0)
	fused, _ := runtime.Lookup(Conv2DChainKernel)
	layer := func(x *runtime.Tensor, in, o, hw, s int64) ([]runtime.Value, *runtime.Tensor) {
		w := randT(b, 2, []int64{o, in, 3, 3}, f32, -1, 1)
		bias := randT(b, 3, []int64{1, o, 1, 1}, f32, -1, 1)
		RegisterConstant(w)
		RegisterConstant(bias)
		b.Cleanup(func() { UnregisterConstant(w); UnregisterConstant(bias) })
		oh := (hw+2-3)/s + 1
		out := mustT(b, []int64{1, o, oh, oh}, f32)
		return []runtime.Value{x, w, runtime.Shape{s, s}, runtime.Shape{1, 1, 1, 1}, runtime.Shape{1, 1}, int64(1),
			"NCHW", "OIHW", "NCHW", nil, runtime.Shape{0, EwChainRelu}, bias, out}, out
	}
	x := randT(b, 1, []int64{1, 3, 64, 64}, f32, -1, 1)
	a1, o1 := layer(x, 3, 32, 64, 1)
	p := mustT(b, []int64{1, 32, 32, 32}, f32)
	pa := Pool2DAttrs{PoolSize: []int64{2, 2}, Strides: []int64{2, 2}, Dilation: []int64{1, 1}, Padding: []int64{0, 0, 0, 0}, Layout: "NCHW", OutLayout: "NCHW"}
	a2, _ := layer(p, 32, 64, 32, 2)
	for _, th := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", th), func(b *testing.B) {
			SetNumThreads(th)
			b.ReportAllocs()
			d := [][]time.Duration{make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)}
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if _, err := fused(a1); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if err := MaxPool2D(p, o1, pa); err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				if _, err := fused(a2); err != nil {
					b.Fatal(err)
				}
				t3 := time.Now()
				d[0], d[1], d[2] = append(d[0], t1.Sub(t0)), append(d[1], t2.Sub(t1)), append(d[2], t3.Sub(t2))
			}
			for k, name := range []string{"conv1-µs", "pool-µs", "conv2-µs"} {
				slices.Sort(d[k])
				b.ReportMetric(float64(d[k][len(d[k])/2].Nanoseconds())/1e3, name)
			}
		})
	}
}
