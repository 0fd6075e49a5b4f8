package kernels

import (
	"testing"
	"github.com/relaxgo/relaxgo/runtime"
)

func BenchmarkZZChain(b *testing.B) {
	defer SetNumThreads(NumThreads())
	SetNumThreads(1)
	for _, sh := range [][]int64{{1, 96, 112, 112}, {1, 672, 14, 14}} {
		n := int(sh[0] * sh[1] * sh[2] * sh[3])
		xd := make([]float32, n)
		for i := range xd {
			xd[i] = float32(i%97)/17 - 3
		}
		x, _ := runtime.NewTensor(sh, runtime.Float32)
		copy(x.Float32s(), xd)
		out, _ := runtime.NewTensor(sh, runtime.Float32)
		bias, _ := runtime.NewTensor([]int64{1, sh[1], 1, 1}, runtime.Float32)
		for _, c := range []struct {
			name  string
			codes []int64
			ops   []*runtime.Tensor
		}{{"sig_mul", []int64{104, 5}, []*runtime.Tensor{x}}, {"xsig", []int64{108}, nil}, {"bias_xsig", []int64{0, 108}, []*runtime.Tensor{bias}}, {"bias", []int64{0}, []*runtime.Tensor{bias}}} {
			b.Run(c.name+shapeStr(sh), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if err := ewChain(out, x, c.codes, c.ops); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
