package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
)

// TestGemmColSplitB pins which products split a pre-packed B's columns
// over the threads: the mlp's (64 rows, 784x1024 and 1024x1024 weights)
// do, the transformer's (128 rows, 256x256, 256x1024, 1024x256) do not;
// TestSgemmPackedBitIdentical's 24x520x400 and 128x400x200 take one
// split each.
func TestGemmColSplitB(t *testing.T) {
	for _, c := range []struct {
		m, n, k int
		want    bool
	}{
		{64, 1024, 784, true}, {64, 1024, 1024, true}, {8, 3072, 768, true}, {24, 520, 400, true},
		{128, 256, 256, false}, {128, 1024, 256, false}, {128, 256, 1024, false}, {197, 768, 768, false}, {128, 400, 200, false},
	} {
		if got := gemmColSplitB(c.m, c.n, c.k); got != c.want {
			t.Errorf("gemmColSplitB(%d, %d, %d) = %v, want %v", c.m, c.n, c.k, got, c.want)
		}
	}
}

// TestSgemmPackedBitIdentical checks that SgemmPacked gives exactly Sgemm's
// bits, on every SIMD level, for odd sizes, both B layouts, beta, epilogues
// and thread counts, without writing outside C.
func TestSgemmPackedBitIdentical(t *testing.T) {
	defer SetNumThreads(0)
	forEachLevel(t, func(l asm.Level) {
		r := rand.New(rand.NewSource(7))
		for _, s := range [][3]int{{1, 1, 1}, {1, 77, 300}, {3, 200, 40}, {4, 23, 9}, {5, 17, 33}, {7, 65, 260}, {8, 100, 513}, {13, 4100, 7}, {64, 130, 257}, {40, 300, 300}, {150, 33, 600},
			// C past 2*gemmSliceBytes: column slices, A packed once.
			{67, 2000, 260}, {131, 1003, 270},
			// One row block and enough panels: 2 threads split B's columns
			// (a large B) or A's rows (gemmColSplitB).
			{24, 520, 400}, {128, 400, 200},
			// Whole 8x32 tiles over several depth blocks: A read in place
			// (rowA), each block at its own columns of A.
			{128, 256, 1024}, {64, 96, 700}} {
			m, n, k := s[0], s[1], s[2]
			for _, transB := range []bool{false, true} {
				for _, beta := range []float32{0, 0.5} {
					ldb := n + 3
					if transB {
						ldb = k + 3
					}
					a := gemmRandF32(r, m*k)
					b := gemmRandF32(r, max(n, k)*ldb)
					c0 := gemmRandF32(r, m*n)
					ep := &GemmEpilogue{ColBias: gemmRandF32(r, n), Relu: beta != 0}
					pb, err := PackB(transB, k, n, b, ldb)
					if err != nil {
						t.Fatal(err)
					}
					for _, th := range []int{1, 2} {
						if th > 1 && 4*m*n > 2*gemmSliceBytes {
							continue // sliced at 1 thread only
						}
						SetNumThreads(th)
						want := append([]float32(nil), c0...)
						if err := SgemmEx(false, transB, m, n, k, 1.5, a, k, b, ldb, beta, want, n, ep); err != nil {
							t.Fatal(err)
						}
						buf := make([]float32, m*n+2*gemmGuard)
						for i := range buf {
							buf[i] = float32(math.NaN())
						}
						got := buf[gemmGuard : gemmGuard+m*n]
						copy(got, c0)
						if err := SgemmPacked(false, m, 1.5, a, k, pb, beta, got, n, ep); err != nil {
							t.Fatal(err)
						}
						what := fmt.Sprintf("%s m=%d n=%d k=%d transB=%v beta=%v threads=%d", l, m, n, k, transB, beta, th)
						for i := range want {
							if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
								t.Fatalf("%s: c[%d] = %v, Sgemm gives %v", what, i, got[i], want[i])
							}
						}
						for i := 0; i < gemmGuard; i++ {
							if buf[i] == buf[i] || buf[len(buf)-1-i] == buf[len(buf)-1-i] {
								t.Fatalf("%s: wrote outside C", what)
							}
						}
					}
				}
			}
		}
	})
}

func TestSgemmPackedErrors(t *testing.T) {
	if _, err := PackB(false, 3, 4, make([]float32, 11), 4); err == nil {
		t.Error("short B accepted")
	}
	pb, err := PackB(false, 3, 4, make([]float32, 12), 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := SgemmPacked(false, 2, 1, make([]float32, 5), 3, pb, 0, make([]float32, 8), 4, nil); err == nil {
		t.Error("short A accepted")
	}
	if err := SgemmPacked(false, 2, 1, make([]float32, 6), 3, pb, 0, make([]float32, 7), 4, nil); err == nil {
		t.Error("short C accepted")
	}
}

// TestMatmulRegisteredConstant checks that matmul and matmul_bias with a
// registered constant weight (packed once, cached) give the unpacked bits.
// Few rows (m <= gemmSmallRows) read B in place instead of its packing;
// 16 to 120 rows against 45 columns run on the wide tile where the level
// has it.
func TestMatmulRegisteredConstant(t *testing.T) {
	for _, c := range []struct {
		tb   bool
		rows []int64
	}{{false, []int64{2, 9}}, {true, []int64{2, 9}}, {false, []int64{1, 1}}, {false, []int64{1, 5}}, {true, []int64{1, 3}},
		{false, []int64{1, 16}}, {true, []int64{2, 12}}, {false, []int64{3, 40}}} { // the wide tile, at AVX-512
		tb := c.tb
		x := randT(t, 1, append(c.rows, 70), runtime.Float32, -1, 1)
		wshape := []int64{70, 45}
		if tb {
			wshape = []int64{45, 70}
		}
		w := randT(t, 2, wshape, runtime.Float32, -1, 1)
		bias := randT(t, 3, []int64{45}, runtime.Float32, -1, 1)
		want := mustT(t, append(c.rows, 45), runtime.Float32)
		got := mustT(t, append(c.rows, 45), runtime.Float32)
		run := func(out *runtime.Tensor) {
			if tb {
				if err := MatmulTransposed(out, x, w, false, true); err != nil {
					t.Fatal(err)
				}
			} else if err := MatmulBias(out, x, w, bias, true, runtime.Void); err != nil {
				t.Fatal(err)
			}
		}
		run(want)
		RegisterConstant(w)
		run(got)
		run(got) // cached
		rows := int(c.rows[0] * c.rows[1])
		if constPackedB(w, tb, gemmUseWide(rows, 45)) == nil {
			t.Fatal("constant weight was not packed")
		}
		UnregisterConstant(w)
		wf, gf := want.Float32s(), got.Float32s()
		for i := range wf {
			if math.Float32bits(wf[i]) != math.Float32bits(gf[i]) {
				t.Fatalf("transB=%v rows %v: [%d] packed %v, unpacked %v", tb, c.rows, i, gf[i], wf[i])
			}
		}
	}
}

// BenchmarkSgemmPacked compares Sgemm with SgemmPacked (B packed once) on
// mlp-like shapes, 1 thread, and SgemmPacked at 2 threads.
func BenchmarkSgemmPacked(b *testing.B) {
	defer SetNumThreads(0)
	for _, s := range [][3]int{{64, 1024, 784}, {1, 768, 768}, {8, 3072, 768}, {128, 768, 3072}, {197, 3072, 768}, {128, 256, 1024}, {128, 1024, 256}} {
		m, n, k := s[0], s[1], s[2]
		r := rand.New(rand.NewSource(1))
		x, y, z := gemmRandF32(r, m*k), gemmRandF32(r, k*n), make([]float32, m*n)
		pb, err := PackB(false, k, n, y, n)
		if err != nil {
			b.Fatal(err)
		}
		for _, tp := range []struct {
			threads int
			packed  bool
		}{{1, false}, {1, true}, {2, true}} {
			packed := tp.packed
			b.Run(fmt.Sprintf("m=%d/n=%d/k=%d/packed=%v/threads=%d", m, n, k, packed, tp.threads), func(b *testing.B) {
				SetNumThreads(tp.threads)
				for i := 0; i < b.N; i++ {
					var err error
					if packed {
						err = SgemmPacked(false, m, 1, x, k, pb, 0, z, n, nil)
					} else {
						err = Sgemm(false, false, m, n, k, 1, x, k, y, n, 0, z, n)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkMatmulConstant is a model's linear layer: matmul of an m-row
// activation with a registered constant weight (k x n), 1 thread.
func BenchmarkMatmulConstant(b *testing.B) {
	benchMatmulConstant(b, [][3]int{{8, 32, 32}, {8, 64, 32}, {8, 32, 64}, {1, 768, 768}, {1, 3072, 768}, {1, 1000, 1280}, {8, 768, 768}, {64, 768, 768}, {128, 256, 256}, {128, 1024, 256}, {128, 256, 1024}}, false)
}

// BenchmarkMatmulConstantCold is BenchmarkMatmulConstant on one-row
// products with the caches flushed before each call: the weight streams
// from memory, as a classifier's does at the end of a network
// (MobileNetV2's 1280x1000, 5 MB).
func BenchmarkMatmulConstantCold(b *testing.B) {
	benchMatmulConstant(b, [][3]int{{1, 1000, 1280}, {1, 3072, 768}, {8, 3072, 768}}, true)
}

func benchMatmulConstant(b *testing.B, shapes [][3]int, cold bool) {
	defer SetNumThreads(0)
	var flush cacheFlusher
	if cold {
		flush = newCacheFlusher()
	}
	for _, s := range shapes {
		m, n, k := s[0], s[1], s[2]
		x := randT(b, 1, []int64{int64(m), int64(k)}, runtime.Float32, -1, 1)
		w := randT(b, 2, []int64{int64(k), int64(n)}, runtime.Float32, -1, 1)
		out := mustT(b, []int64{int64(m), int64(n)}, runtime.Float32)
		RegisterConstant(w)
		b.Run(fmt.Sprintf("m=%d/n=%d/k=%d", m, n, k), func(b *testing.B) {
			SetNumThreads(1)
			b.ReportAllocs()
			if err := Matmul(out, x, w); err != nil { // packs the weight
				b.Fatal(err)
			}
			for i := 0; i < b.N; i++ {
				if cold {
					flush.flush(b)
				}
				if err := Matmul(out, x, w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		UnregisterConstant(w)
	}
}

// TestGemmDepthBlocks checks the depth blocks every path shares: gemmKC
// each, the rest one block where it is at most gemmKCMax.
func TestGemmDepthBlocks(t *testing.T) {
	for _, c := range []struct {
		k    int
		want []int
	}{
		{1, []int{1}}, {256, []int{256}}, {288, []int{288}}, {320, []int{320}}, {321, []int{256, 65}},
		{576, []int{256, 320}}, {577, []int{256, 256, 65}}, {784, []int{256, 256, 272}}, {1152, []int{256, 256, 256, 256, 128}},
	} {
		var got []int
		for pc := 0; pc < c.k; pc += gemmDepth(pc, c.k) {
			got = append(got, gemmDepth(pc, c.k))
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("k=%d: blocks %v, want %v", c.k, got, c.want)
		}
	}
}
