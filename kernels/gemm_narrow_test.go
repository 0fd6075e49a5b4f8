package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
)

// withNarrowMax runs f with the narrow path's size limit set to max; 0
// turns the path off (one-strip products too).
func withNarrowMax(max int, f func()) {
	prev, prevOff := gemmNarrowMaxMNK, gemmNarrowOff
	gemmNarrowMaxMNK, gemmNarrowOff = max, max == 0
	defer func() { gemmNarrowMaxMNK, gemmNarrowOff = prev, prevOff }()
	f()
}

// TestGemmNarrowMatchesBlocked runs small products on the narrow path and on
// the blocked driver (its limit set to 0) and requires the same bits: odd
// sizes and strides, depth past one depth block (gemmDepth; 560 is 256 and a
// merged 304), both betas, alpha 1 and
// not, with and without an epilogue, the columns past n left alone; and
// products past gemmNarrowMaxMNK one strip wide (at 1 and 2 threads, which
// split their rows).
func TestGemmNarrowMatchesBlocked(t *testing.T) {
	defer SetNumThreads(0)
	r := rand.New(rand.NewSource(31))
	w := asm.SgemmNarrowWidth()
	for _, s := range [][4]int{{1, 1, 1, 1}, {1, 7, 3, 1}, {3, 5, 2, 1}, {8, 8, 8, 1}, {8, 32, 32, 1}, {9, 17, 13, 1}, {17, 33, 5, 1}, {2, 3, 600, 1}, {5, 9, 560, 1}, {64, 16, 30, 1},
		{64, w - 6, 1024, 1}, {64, w - 6, 1024, 2}, {203, 3, 700, 2}, {131, w, 300, 2}, {37, 1, 4000, 2}, {67, w - 1, 2000, 1}} {
		m, n, k := s[0], s[1], s[2]
		SetNumThreads(s[3])
		for _, beta := range []float32{0, 0.5} {
			for _, alpha := range []float32{1, -1.25} {
				for _, withEp := range []bool{false, true} {
					lda, ldb, ldc := k+1, n+3, n+2
					a, b := randVec(r, (m-1)*lda+k), randVec(r, (k-1)*ldb+n)
					c0 := randVec(r, (m-1)*ldc+n+1)
					var ep *GemmEpilogue
					if withEp {
						ep = &GemmEpilogue{ColBias: randVec(r, n), RowBias: randVec(r, m), Relu: true}
					}
					got, want := append([]float32(nil), c0...), append([]float32(nil), c0...)
					if !gemmNarrowOK(false, false, m, n, k, alpha, b) {
						t.Fatalf("%v: not on the narrow path", s)
					}
					if err := SgemmEx(false, false, m, n, k, alpha, a, lda, b, ldb, beta, got, ldc, ep); err != nil {
						t.Fatal(err)
					}
					withNarrowMax(0, func() {
						if err := SgemmEx(false, false, m, n, k, alpha, a, lda, b, ldb, beta, want, ldc, ep); err != nil {
							t.Fatal(err)
						}
					})
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%v alpha=%v beta=%v epilogue=%v: c[%d] = %v, blocked driver %v", s, alpha, beta, withEp, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

func randVec(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = r.Float32()*2 - 1
	}
	return x
}

// BenchmarkSgemmNarrow times small products on the narrow path and on the
// blocked driver, for choosing gemmNarrowMaxMNK.
func BenchmarkSgemmNarrow(b *testing.B) {
	defer SetNumThreads(0)
	SetNumThreads(1)
	r := rand.New(rand.NewSource(1))
	for _, s := range [][3]int{{8, 8, 8}, {8, 32, 32}, {8, 64, 64}, {32, 32, 32}, {16, 64, 64}, {64, 64, 32}, {64, 64, 64}, {8, 256, 64}, {128, 64, 64}, {128, 128, 128}, {64, 256, 256}, {1, 768, 768}, {8, 768, 768}, {256, 256, 256}} {
		m, n, k := s[0], s[1], s[2]
		x, w, c := randVec(r, m*k), randVec(r, k*n), make([]float32, m*n)
		for _, path := range []string{"narrow", "blocked"} {
			max := 1 << 30
			if path == "blocked" {
				max = 0
			}
			b.Run(fmt.Sprintf("%dx%dx%d/%s", m, n, k, path), func(b *testing.B) {
				withNarrowMax(max, func() {
					for i := 0; i < b.N; i++ {
						if err := Sgemm(false, false, m, n, k, 1, x, k, w, n, 0, c, n); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkSgemmNarrowColumns times products one narrow strip wide or a
// little more (a classifier's outputs) past gemmNarrowMaxMNK: on the narrow
// path, on the blocked driver, and as a model's matmul by a registered
// constant weight (whichever path it takes), at 1 and 2 threads.
func BenchmarkSgemmNarrowColumns(b *testing.B) {
	defer SetNumThreads(0)
	r := rand.New(rand.NewSource(1))
	for _, s := range [][3]int{{64, 10, 1024}, {128, 2, 768}, {32, 10, 512}, {64, 16, 1024}, {256, 10, 512}, {64, 24, 1024}, {64, 32, 1024}} {
		m, n, k := s[0], s[1], s[2]
		x, w, c := randVec(r, m*k), randVec(r, k*n), make([]float32, m*n)
		xt := randT(b, 1, []int64{int64(m), int64(k)}, runtime.Float32, -1, 1)
		wt := randT(b, 2, []int64{int64(k), int64(n)}, runtime.Float32, -1, 1)
		out := mustT(b, []int64{int64(m), int64(n)}, runtime.Float32)
		RegisterConstant(wt)
		for _, threads := range []int{1, 2} {
			for _, path := range []string{"narrow", "blocked", "const"} {
				b.Run(fmt.Sprintf("%dx%dx%d/%s/threads=%d", m, n, k, path, threads), func(b *testing.B) {
					SetNumThreads(threads)
					b.ReportAllocs()
					max := 1 << 30
					if path == "blocked" {
						max = 0
					}
					withNarrowMax(max, func() {
						for i := 0; i < b.N; i++ {
							var err error
							if path == "const" {
								err = Matmul(out, xt, wt)
							} else {
								err = Sgemm(false, false, m, n, k, 1, x, k, w, n, 0, c, n)
							}
							if err != nil {
								b.Fatal(err)
							}
						}
					})
					b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}
