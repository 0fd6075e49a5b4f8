package openblas

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/kernels"
)

// cases are the square sizes and the inference shapes (M rows of
// activations against a K x N weight) of kernels.BenchmarkSgemmShapes.
var cases = func() []struct{ m, n, k, threads int } {
	cs := []struct{ m, n, k, threads int }{{256, 256, 256, 1}, {1024, 1024, 1024, 1}, {1024, 1024, 1024, 2}}
	for _, m := range []int{1, 8, 64, 128} {
		for _, nk := range [][2]int{{768, 768}, {1024, 1024}, {3072, 768}, {768, 3072}} {
			cs = append(cs, struct{ m, n, k, threads int }{m, nk[0], nk[1], 1})
		}
	}
	return cs
}()

func operands(m, n, k int) (a, b, c []float32) {
	r := rand.New(rand.NewSource(1))
	a, b, c = make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
	for i := range a {
		a[i] = r.Float32()*2 - 1
	}
	for i := range b {
		b[i] = r.Float32()*2 - 1
	}
	return
}

func report(b *testing.B, m, n, k int) {
	b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkSgemm runs relaxgo (B as given, and B packed once as for a model's
// constant weights) and OpenBLAS on the same operands, alternating per case so
// that machine noise hits them alike.
func BenchmarkSgemm(b *testing.B) {
	defer kernels.SetNumThreads(0)
	for _, c := range cases {
		m, n, k := c.m, c.n, c.k
		x, y, z := operands(m, n, k)
		shape := fmt.Sprintf("m=%d/n=%d/k=%d/threads=%d", m, n, k, c.threads)
		b.Run("impl=relaxgo/"+shape, func(b *testing.B) {
			kernels.SetNumThreads(c.threads)
			for i := 0; i < b.N; i++ {
				if err := kernels.Sgemm(false, false, m, n, k, 1, x, k, y, n, 0, z, n); err != nil {
					b.Fatal(err)
				}
			}
			report(b, m, n, k)
		})
		// A model's weights are constants: generated packages pack them once
		// (kernels.RegisterConstants), so a layer runs SgemmPacked.
		pb, err := kernels.PackB(false, k, n, y, n)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("impl=prepacked/"+shape, func(b *testing.B) {
			kernels.SetNumThreads(c.threads)
			for i := 0; i < b.N; i++ {
				if err := kernels.SgemmPacked(false, m, 1, x, k, pb, 0, z, n, nil); err != nil {
					b.Fatal(err)
				}
			}
			report(b, m, n, k)
		})
		b.Run("impl=openblas/"+shape, func(b *testing.B) {
			SetThreads(c.threads)
			for i := 0; i < b.N; i++ {
				SgemmMNK(m, n, k, x, y, z)
			}
			report(b, m, n, k)
		})
	}
}

func TestSameResult(t *testing.T) {
	for _, s := range [][3]int{{129, 129, 129}, {1, 77, 300}, {8, 100, 65}} {
		m, n, k := s[0], s[1], s[2]
		x, y, z := operands(m, n, k)
		w := make([]float32, m*n)
		SgemmMNK(m, n, k, x, y, z)
		if err := kernels.Sgemm(false, false, m, n, k, 1, x, k, y, n, 0, w, n); err != nil {
			t.Fatal(err)
		}
		for i := range z {
			if math.Abs(float64(z[i]-w[i])) > 1e-4 {
				t.Fatalf("%v [%d] relaxgo %v, OpenBLAS %v", s, i, w[i], z[i])
			}
		}
	}
}
