package kernels

import "testing"

func BenchmarkZZSoftmaxRows8(b *testing.B) {
	x := make([]float32, 64*8)
	for i := range x {
		x[i] = float32(i%13) * 0.3
	}
	o := make([]float32, len(x))
	for i := 0; i < b.N; i++ {
		softmaxRowsF32(o, x, 8)
	}
}
