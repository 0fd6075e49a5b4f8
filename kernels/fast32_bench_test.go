package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/asm"
)

var benchSink32 float32

// BenchmarkReduceRow32 compares the Go row reductions of fast32.go with the
// asm package's (64 partial sums / maxima), by row length.
func BenchmarkReduceRow32(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{16, 64, 128, 256, 768, 4096} {
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
			{"maxfast/go", func() float32 { return maxFast32(x) }},
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

// TestSoftmaxRowsF32MatchesRows requires the short-row softmax (one
// exponential call for all rows) to give softmaxRowF32's bits row by row,
// on rows with NaN, infinities and signed zeros, in place too.
func TestSoftmaxRowsF32MatchesRows(t *testing.T) {
	r := rand.New(rand.NewSource(31))
	for _, n := range []int{1, 2, 7, 8, 9, 16, 33, 63} {
		rows := 1 + r.Intn(20)
		x := make([]float32, rows*n)
		for i := range x {
			x[i] = float32(r.NormFloat64() * 4)
			switch r.Intn(40) {
			case 0:
				x[i] = float32(math.NaN())
			case 1:
				x[i] = float32(math.Inf(1))
			case 2:
				x[i] = float32(math.Inf(-1))
			case 3:
				x[i] = float32(math.Copysign(0, -1))
			}
		}
		want := make([]float32, len(x))
		for i := 0; i < rows; i++ {
			softmaxRowF32(false, want[i*n:(i+1)*n], x[i*n:(i+1)*n])
		}
		got := make([]float32, len(x))
		softmaxRowsF32(got, x, n)
		inPlace := append([]float32(nil), x...)
		softmaxRowsF32(inPlace, inPlace, n)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) || math.Float32bits(inPlace[i]) != math.Float32bits(want[i]) {
				t.Fatalf("n=%d [%d]: rows %v, in place %v, row by row %v", n, i, got[i], inPlace[i], want[i])
			}
		}
	}
}
