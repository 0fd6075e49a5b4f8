package openblas

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/kernels"
)

var cases = []struct{ size, threads int }{{256, 1}, {1024, 1}, {1024, 2}}

func operands(n int) (a, b, c []float32) {
	r := rand.New(rand.NewSource(1))
	a, b, c = make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
	for i := range a {
		a[i], b[i] = r.Float32()*2-1, r.Float32()*2-1
	}
	return
}

func report(b *testing.B, n int) {
	b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkSgemm runs relaxgo and OpenBLAS on the same operands, alternating
// per case so that machine noise hits both alike.
func BenchmarkSgemm(b *testing.B) {
	defer kernels.SetNumThreads(0)
	for _, c := range cases {
		n := c.size
		x, y, z := operands(n)
		b.Run(fmt.Sprintf("impl=relaxgo/size=%d/threads=%d", n, c.threads), func(b *testing.B) {
			kernels.SetNumThreads(c.threads)
			for i := 0; i < b.N; i++ {
				if err := kernels.Sgemm(false, false, n, n, n, 1, x, n, y, n, 0, z, n); err != nil {
					b.Fatal(err)
				}
			}
			report(b, n)
		})
		b.Run(fmt.Sprintf("impl=openblas/size=%d/threads=%d", n, c.threads), func(b *testing.B) {
			SetThreads(c.threads)
			for i := 0; i < b.N; i++ {
				Sgemm(n, x, y, z)
			}
			report(b, n)
		})
	}
}

func TestSameResult(t *testing.T) {
	n := 129
	x, y, z := operands(n)
	w := make([]float32, n*n)
	Sgemm(n, x, y, z)
	if err := kernels.Sgemm(false, false, n, n, n, 1, x, n, y, n, 0, w, n); err != nil {
		t.Fatal(err)
	}
	for i := range z {
		if math.Abs(float64(z[i]-w[i])) > 1e-4 {
			t.Fatalf("[%d] relaxgo %v, OpenBLAS %v", i, w[i], z[i])
		}
	}
}
