package kernels

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/asm"
)

var benchSink32 float32

// BenchmarkReduceRow32 compares the Go row reductions of fast32.go with the
// asm package's (64 partial sums / maxima), by row length.
func BenchmarkReduceRow32(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{16, 64, 256, 768, 4096} {
		x, y := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i] = r.Float32()-0.5, r.Float32()-0.5
		}
		for _, c := range []struct {
			name string
			f    func() float32
		}{
			{"sum/go", func() float32 { return sum32(x) }},
			{"sum/asm", func() float32 { return asm.ReduceSumF32(x) }},
			{"dot/go", func() float32 { return dot32(x, y) }},
			{"dot/asm", func() float32 { return asm.DotF32(x, y) }},
			{"max/go", func() float32 { return max32(x) }},
			{"max/asm", func() float32 { return asm.ReduceMaxF32(x) }},
		} {
			b.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					benchSink32 = c.f()
				}
			})
		}
	}
}
