package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/asm"
)

func gemmRandF32(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = r.Float32()*2 - 1
	}
	return x
}

// refGemm is the plain triple loop in float64.
func refGemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) []float64 {
	out := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				av := a[i*lda+p]
				if transA {
					av = a[p*lda+i]
				}
				bv := b[p*ldb+j]
				if transB {
					bv = b[j*ldb+p]
				}
				s += float64(av) * float64(bv)
			}
			v := float64(alpha) * s
			if beta != 0 {
				v += float64(beta) * float64(c[i*ldc+j])
			}
			out[i*n+j] = v
		}
	}
	return out
}

const gemmGuard = 23

func TestSgemmAgainstReference(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	sizes := [][3]int{{0, 5, 3}, {5, 0, 3}, {4, 5, 0}, {1, 1, 1}, {7, 17, 33}, {17, 7, 1}, {33, 33, 33}, {1, 257, 17},
		{257, 1, 7}, {15, 33, 300}, {30, 65, 257}, {200, 70, 520}, {14, 32, 256}, {6, 16, 16}}
	forEachLevel(t, func(l asm.Level) {
		for _, sz := range sizes {
			m, n, k := sz[0], sz[1], sz[2]
			for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
				for _, ab := range [][2]float32{{1, 0}, {0.5, 1}, {-1, -0.5}} {
					alpha, beta := ab[0], ab[1]
					lda := k + 3
					if tr[0] {
						lda = m + 2
					}
					ldb := n + 1
					if tr[1] {
						ldb = k + 4
					}
					ldc := n + 5
					a := gemmRandF32(r, max(m, k)*lda)
					b := gemmRandF32(r, max(n, k)*ldb)
					cbuf := gemmRandF32(r, m*ldc+2*gemmGuard)
					c := cbuf[gemmGuard : gemmGuard+m*ldc]
					orig := append([]float32(nil), cbuf...)
					if beta == 0 && m > 0 && n > 0 {
						c[0] = float32(math.NaN())
					}
					want := refGemm(tr[0], tr[1], m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
					if err := Sgemm(tr[0], tr[1], m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); err != nil {
						t.Fatal(err)
					}
					what := fmt.Sprintf("%s m=%d n=%d k=%d trans=%v alpha=%v beta=%v", l, m, n, k, tr, alpha, beta)
					for i := range cbuf {
						inC := i >= gemmGuard && i < gemmGuard+m*ldc && (i-gemmGuard)%ldc < n
						if !inC && cbuf[i] != orig[i] {
							t.Fatalf("%s: wrote outside C at buffer index %d", what, i)
						}
					}
					for i := 0; i < m; i++ {
						for j := 0; j < n; j++ {
							if d := math.Abs(float64(c[i*ldc+j]) - want[i*n+j]); d > 1e-5*float64(k+1) {
								t.Fatalf("%s: C[%d][%d] = %v want %v", what, i, j, c[i*ldc+j], want[i*n+j])
							}
						}
					}
				}
			}
		}
	})
}

func TestSgemmDeterministicAcrossThreads(t *testing.T) {
	defer SetNumThreads(0)
	r := rand.New(rand.NewSource(2))
	for _, sz := range [][3]int{{300, 200, 600}, {5, 3000, 70}, {1000, 9, 33}, {8, 2000, 300}, {3, 3001, 1000}, {100, 701, 100}} {
		m, n, k := sz[0], sz[1], sz[2]
		a, b := gemmRandF32(r, m*k), gemmRandF32(r, k*n)
		var first []float32
		for _, th := range []int{1, 2, 3, 7} {
			SetNumThreads(th)
			c := make([]float32, m*n)
			if err := Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n); err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = c
				continue
			}
			for i := range c {
				if math.Float32bits(c[i]) != math.Float32bits(first[i]) {
					t.Fatalf("%v threads=%d: C[%d] = %v, 1 thread gave %v", sz, th, i, c[i], first[i])
				}
			}
		}
	}
}

// TestSgemmTilesBitIdentical runs Sgemm (and SgemmPacked) on shapes whose
// tile choice differs between levels (the wide 8x48 and middle 8x32 tiles at
// AVX-512, 14x32, 6x16, the pure-Go 4x16; depths over one block; edge tiles)
// with a bias and relu epilogue, at 1 and 2 threads, and requires the same
// bits from every level: the tiles change which products share a kernel
// call, never an element's arithmetic.
func TestSgemmTilesBitIdentical(t *testing.T) {
	defer SetNumThreads(0)
	start := asm.CurrentLevel()
	defer func() { _ = asm.SetLevel(start) }()
	r := rand.New(rand.NewSource(8))
	for _, sz := range [][3]int{{64, 1024, 300}, {128, 768, 40}, {16, 45, 70}, {120, 97, 513}, {9, 200, 31}, {40, 48, 256},
		{96, 4200, 40},                                 // more columns than one B block (gemmNC)
		{8, 500, 300}, {6, 1037, 257}, {3, 700, 200}} { // the small-M path with B over directPrefetchFloats
		m, n, k := sz[0], sz[1], sz[2]
		a, b := gemmRandF32(r, m*k), gemmRandF32(r, k*n)
		bias := gemmRandF32(r, n)
		var first []float32
		for l := asm.LevelGo; l <= asm.MaxLevel(); l++ {
			if err := asm.SetLevel(l); err != nil {
				t.Fatal(err)
			}
			for _, th := range []int{1, 2} {
				SetNumThreads(th)
				ep := &GemmEpilogue{ColBias: bias, Relu: true}
				c := make([]float32, m*n)
				if err := SgemmEx(false, false, m, n, k, 1, a, k, b, n, 0, c, n, ep); err != nil {
					t.Fatal(err)
				}
				pc := make([]float32, m*n)
				var pb *PackedB
				if gemmUseWide(m, n) {
					_, wnr, _ := asm.SgemmTileWide()
					pb = packBFor(false, k, n, b, n, wnr)
				} else {
					var err error
					if pb, err = PackB(false, k, n, b, n); err != nil {
						t.Fatal(err)
					}
				}
				if err := SgemmPacked(false, m, 1, a, k, pb, 0, pc, n, ep); err != nil {
					t.Fatal(err)
				}
				if first == nil {
					first = c
				}
				for i := range c {
					if math.Float32bits(c[i]) != math.Float32bits(first[i]) || math.Float32bits(pc[i]) != math.Float32bits(first[i]) {
						t.Fatalf("%v at %s, %d threads: C[%d] = %v (packed B %v), %s gave %v", sz, l, th, i, c[i], pc[i], asm.LevelGo, first[i])
					}
				}
			}
		}
	}
}

func TestSgemmEpilogue(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	m, n, k := 37, 45, 300
	a, b := gemmRandF32(r, m*k), gemmRandF32(r, k*n)
	rb, cb := gemmRandF32(r, m), gemmRandF32(r, n)
	c := make([]float32, m*n)
	if err := SgemmEx(false, false, m, n, k, 1, a, k, b, n, 0, c, n, &GemmEpilogue{RowBias: rb, ColBias: cb, Relu: true}); err != nil {
		t.Fatal(err)
	}
	want := refGemm(false, false, m, n, k, 1, a, k, b, n, 0, nil, n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			w := math.Max(0, want[i*n+j]+float64(rb[i])+float64(cb[j]))
			if math.Abs(float64(c[i*n+j])-w) > 1e-4 {
				t.Fatalf("C[%d][%d] = %v want %v", i, j, c[i*n+j], w)
			}
		}
	}
}

func TestSgemmErrors(t *testing.T) {
	a := make([]float32, 10)
	for _, f := range []func() error{
		func() error { return Sgemm(false, false, -1, 2, 2, 1, a, 2, a, 2, 0, a, 2) },
		func() error { return Sgemm(false, false, 4, 4, 4, 1, a, 4, a, 4, 0, a, 4) },
		func() error { return Sgemm(false, false, 2, 2, 2, 1, a, 1, a, 2, 0, a, 2) },
		func() error { return Sgemm(false, true, 2, 3, 2, 1, a, 2, a, 2, 0, a, 2) },
	} {
		if err := f(); err == nil {
			t.Error("bad arguments accepted")
		}
	}
}

// BenchmarkSgemm measures square fp32 C = A·B.
func BenchmarkSgemm(b *testing.B) {
	defer SetNumThreads(0)
	for _, c := range []struct{ size, threads int }{{256, 1}, {1024, 1}, {1024, 2}} {
		b.Run(fmt.Sprintf("size=%d/threads=%d", c.size, c.threads), func(b *testing.B) {
			SetNumThreads(c.threads)
			n := c.size
			r := rand.New(rand.NewSource(1))
			x, y, z := gemmRandF32(r, n*n), gemmRandF32(r, n*n), make([]float32, n*n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := Sgemm(false, false, n, n, n, 1, x, n, y, n, 0, z, n); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkSgemmShapes measures inference shapes: M rows of activations
// against a K x N weight (C = A·B, 1 thread), the shapes of bench/openblas.
func BenchmarkSgemmShapes(b *testing.B) {
	defer SetNumThreads(0)
	for _, m := range []int{1, 8, 64, 128} {
		for _, nk := range [][2]int{{768, 768}, {1024, 1024}, {3072, 768}, {768, 3072}} {
			n, k := nk[0], nk[1]
			b.Run(fmt.Sprintf("m=%d/n=%d/k=%d", m, n, k), func(b *testing.B) { benchSgemmShape(b, m, n, k) })
		}
	}
}

// benchSgemmShape times C = A·B of m x k by k x n (B unpacked, as given) at
// 1 thread: GFLOP/s and allocations.
func benchSgemmShape(b *testing.B, m, n, k int) {
	SetNumThreads(1)
	r := rand.New(rand.NewSource(1))
	x, y, z := gemmRandF32(r, m*k), gemmRandF32(r, k*n), make([]float32, m*n)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := Sgemm(false, false, m, n, k, 1, x, k, y, n, 0, z, n); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkSgemmSmallM measures the small-M path (B read in place, not
// packed) at 1 thread: row counts that take each direct tile (4, 2, 1
// rows and their mixes) against a weight in L2 (256 x 256) and against
// ones the size of a transformer's feed-forward weights (768 x 3072 and
// 3072 x 768), whose rows are one page or more apart.
func BenchmarkSgemmSmallM(b *testing.B) {
	defer SetNumThreads(0)
	for _, m := range []int{2, 4, 6, 8} {
		for _, nk := range [][2]int{{256, 256}, {3072, 768}, {768, 3072}} {
			n, k := nk[0], nk[1]
			b.Run(fmt.Sprintf("m=%d/n=%d/k=%d", m, n, k), func(b *testing.B) { benchSgemmShape(b, m, n, k) })
		}
	}
}

// BenchmarkSgemmThreads compares 1 and 2 threads across sizes, from small
// products (which should stay on the calling goroutine) to large ones.
func BenchmarkSgemmThreads(b *testing.B) {
	defer SetNumThreads(0)
	for _, s := range [][3]int{{32, 128, 128}, {32, 256, 128}, {64, 128, 128}, {32, 512, 128}, {64, 64, 64}, {96, 96, 96}, {128, 128, 128}, {1, 768, 768}, {8, 768, 768}, {64, 768, 768}, {512, 512, 512}, {1024, 1024, 1024}} {
		m, n, k := s[0], s[1], s[2]
		r := rand.New(rand.NewSource(1))
		x, y, z := gemmRandF32(r, m*k), gemmRandF32(r, k*n), make([]float32, m*n)
		for _, th := range []int{1, 2} {
			b.Run(fmt.Sprintf("m=%d/n=%d/k=%d/threads=%d", m, n, k, th), func(b *testing.B) {
				SetNumThreads(th)
				for i := 0; i < b.N; i++ {
					if err := Sgemm(false, false, m, n, k, 1, x, k, y, n, 0, z, n); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// TestSgemmEpilogueBits checks the fused epilogue (row bias, column bias,
// relu), applied by groups of output panels, against the plain product
// followed by the same operations, bit for bit, over shapes with edge
// tiles, several column groups and depth blocks, at 1 and 2 threads.
func TestSgemmEpilogueBits(t *testing.T) {
	defer SetNumThreads(0)
	r := rand.New(rand.NewSource(13))
	for _, s := range [][3]int{{37, 45, 300}, {7, 300, 40}, {50, 1000, 70}, {200, 129, 600}, {1, 517, 33}, {130, 260, 16},
		{64, 8, 16}, {9, 3, 5}, {20, 15, 7}} { // rows under 16 columns: the Go loops
		m, n, k := s[0], s[1], s[2]
		a, b := gemmRandF32(r, m*k), gemmRandF32(r, k*n)
		rb, cb := gemmRandF32(r, m), gemmRandF32(r, n)
		// Special biases: NaN payloads, infinities and -0 meet the sums.
		for i, v := range []float32{float32(math.NaN()), float32(math.Inf(-1)), float32(math.Copysign(0, -1))} {
			if i < n {
				cb[n-1-i] = v
			}
			if i < m {
				rb[m-1-i] = v
			}
		}
		for _, th := range []int{1, 2} {
			SetNumThreads(th)
			for _, ep := range []*GemmEpilogue{{RowBias: rb, ColBias: cb, Relu: true}, {ColBias: cb}, {RowBias: rb}, {Relu: true}} {
				got, want := make([]float32, m*n), make([]float32, m*n)
				if err := SgemmEx(false, false, m, n, k, 1, a, k, b, n, 0, got, n, ep); err != nil {
					t.Fatal(err)
				}
				if err := Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, want, n); err != nil {
					t.Fatal(err)
				}
				for i := 0; i < m; i++ {
					row := want[i*n : (i+1)*n]
					if ep.RowBias != nil {
						asm.AddScalarF32(row, row, ep.RowBias[i])
					}
					if ep.ColBias != nil {
						asm.AddF32(row, row, ep.ColBias)
					}
					if ep.Relu {
						asm.ReluF32(row, row)
					}
				}
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%dx%dx%d threads %d %+v: [%d] fused %v, separate %v", m, n, k, th, ep != nil, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// BenchmarkPackA times packing a 128x256 A into panels of each tile height
// (14 and 8 at AVX-512, 6 at AVX2), the per-call cost of a product whose A
// is an activation.
func BenchmarkPackA(b *testing.B) {
	const m, k = 128, 256
	a := make([]float32, m*k)
	for _, mr := range []int{14, 8, 6} {
		dst := make([]float32, 16*k)
		b.Run(fmt.Sprintf("mr=%d", mr), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for ip := 0; ip*mr < m; ip++ {
					gemmPackA(false, a, k, ip*mr, min(mr, m-ip*mr), 0, k, mr, dst)
				}
			}
			b.ReportMetric(float64(m*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
		})
	}
}

// BenchmarkPackB times packing a whole B (K x N, row-major, larger than
// the L2) into the panels of each tile width, a depth block at a time as
// the blocked driver does when B is not a pre-packed constant (an
// activation, bench/openblas's unpacked shapes): GB/s of B.
func BenchmarkPackB(b *testing.B) {
	for _, nk := range [][2]int{{1024, 1024}, {3072, 768}} {
		n, k := nk[0], nk[1]
		y := gemmRandF32(rand.New(rand.NewSource(1)), k*n)
		for _, nr := range []int{16, 32, 48} {
			b.Run(fmt.Sprintf("n=%d/k=%d/nr=%d", n, k, nr), func(b *testing.B) {
				j := &gemmJob{n: n, b: gemmB{b: y, ldb: n}, nr: nr, cur: gemmBlock{ncur: n, npanels: (n + nr - 1) / nr}}
				j.cur.bpack = make([]float32, gemmKCMax*j.cur.npanels*nr)
				for i := 0; i < b.N; i++ {
					for pc := 0; pc < k; pc += j.cur.kc {
						j.cur.pc, j.cur.kc = pc, gemmDepth(pc, k)
						j.packPanels(0, j.cur.npanels)
					}
				}
				b.ReportMetric(float64(k*n*4)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
			})
		}
	}
}

// BenchmarkSgemmTransB times products whose B is stored transposed (n x k,
// a key matrix in attention scores, ONNX Gemm with transB on an
// activation) against the same product with B stored k x n, 1 thread: the
// difference is packing B through transposes.
func BenchmarkSgemmTransB(b *testing.B) {
	defer SetNumThreads(0)
	for _, s := range [][3]int{{128, 128, 64}, {64, 768, 768}, {197, 197, 64}} {
		m, n, k := s[0], s[1], s[2]
		r := rand.New(rand.NewSource(1))
		x, y, z := gemmRandF32(r, m*k), gemmRandF32(r, k*n), make([]float32, m*n)
		for _, tb := range []bool{false, true} {
			b.Run(fmt.Sprintf("m=%d/n=%d/k=%d/transB=%v", m, n, k, tb), func(b *testing.B) {
				SetNumThreads(1)
				ldb := n
				if tb {
					ldb = k
				}
				for i := 0; i < b.N; i++ {
					if err := Sgemm(false, tb, m, n, k, 1, x, k, y, ldb, 0, z, n); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkMachineCopy times copy() by working set (source and
// destination of size bytes each, 256 KiB to 8 MiB): where the machine's
// caches end, to read the memory-bound figures against (an Intel Xeon of
// the twenty-third stop fell from 29-32 GB/s at 256 KiB to 2.6-5.0 GB/s
// from 1 MiB on, its L3 no faster than memory).
func BenchmarkMachineCopy(b *testing.B) {
	for _, size := range []int{256 << 10, 512 << 10, 1 << 20, 2 << 20, 8 << 20} {
		b.Run(fmt.Sprintf("KiB=%d", size>>10), func(b *testing.B) {
			src, dst := make([]byte, size), make([]byte, size)
			for i := range src {
				src[i] = byte(i)
			}
			b.SetBytes(int64(size))
			for i := 0; i < b.N; i++ {
				copy(dst, src)
			}
		})
	}
}
