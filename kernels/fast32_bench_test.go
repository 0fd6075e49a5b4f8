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
// on rows with NaN, infinities and signed zeros, in place too, at every
// SIMD level (rows of a vector or less take asm.SoftmaxSmallF32 there).
func TestSoftmaxRowsF32MatchesRows(t *testing.T) {
	defer func(l asm.Level) { _ = asm.SetLevel(l) }(asm.CurrentLevel())
	for l := asm.LevelGo; l <= asm.MaxLevel(); l++ {
		if err := asm.SetLevel(l); err != nil {
			t.Fatal(err)
		}
		softmaxRowsMatchRows(t, l)
	}
}

func softmaxRowsMatchRows(t *testing.T, l asm.Level) {
	r := rand.New(rand.NewSource(31))
	for k, n := range []int{1, 2, 3, 7, 8, 9, 10, 15, 16, 17, 24, 32, 33, 40, 48, 56, 63, 64, 128, 136, 504, 32, 56, 128} {
		rows := 1 + r.Intn(20)
		x := make([]float32, rows*n)
		spread := float64(1 + r.Intn(3)*20)
		for i := range x {
			x[i] = float32(r.NormFloat64() * spread)
			if k >= 21 && i%n > (i/n)%n {
				x[i] = float32(math.Inf(-1)) // a causal mask's row
				continue
			}
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
				t.Fatalf("%s n=%d [%d]: rows %v, in place %v, row by row %v", l, n, i, got[i], inPlace[i], want[i])
			}
		}
	}
}

// TestSoftmaxZeroMaxSign checks that the row maximum's unfixed zero sign
// (asm.MaxRowF32) changes no bit of softmax or log-softmax: rows at most
// zero with both zeros, NaN-free, against the same formula with Go's max
// (+0 over -0), at every SIMD level.
func TestSoftmaxZeroMaxSign(t *testing.T) {
	defer func(l asm.Level) { _ = asm.SetLevel(l) }(asm.CurrentLevel())
	r := rand.New(rand.NewSource(32))
	signDiffers := 0
	for l := asm.LevelGo; l <= asm.MaxLevel(); l++ {
		if err := asm.SetLevel(l); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{16, 17, 32, 40, 100, 300} {
			for it := 0; it < 20; it++ {
				x := make([]float32, n)
				for i := range x {
					switch r.Intn(3) {
					case 0:
						x[i] = float32(math.Copysign(0, -1))
					case 1:
						x[i] = 0
					default:
						x[i] = -r.Float32() * 5
					}
				}
				m := maxFast32(x) // Go's max: +0 if any +0
				if am, _ := asm.MaxRowF32(x); math.Float32bits(am) != math.Float32bits(m) {
					signDiffers++
				}
				for _, log := range []bool{false, true} {
					got := make([]float32, n)
					softmaxRowF32(log, got, x)
					want := make([]float32, n)
					asm.SubScalarF32(want, x, m)
					if !log {
						asm.ExpF32(want, want)
						asm.MulScalarF32(want, want, 1/sum32(want))
					} else {
						var buf [logSoftmaxChunk]float32
						var s float32
						for lo := 0; lo < n; lo += logSoftmaxChunk {
							t := buf[:min(lo+logSoftmaxChunk, n)-lo]
							asm.SubScalarF32(t, x[lo:lo+len(t)], m)
							asm.ExpF32(t, t)
							s += sum32(t)
						}
						asm.SubScalarF32(want, x, m+float32(math.Log(float64(s))))
					}
					for i := range want {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s n=%d log=%v [%d]: %08x, with Go's max %08x", l, n, log, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
						}
					}
				}
			}
		}
	}
	if asm.MaxLevel() != asm.LevelGo && signDiffers == 0 {
		t.Error("asm.MaxRowF32 never returned the other zero: the case is not exercised")
	}
}

// BenchmarkSoftmaxShortRows times the short-row softmax on an attention's
// score rows: 128 rows of n (4 heads of n tokens), plain and under a causal
// mask (-Inf past the diagonal, whose exponentials underflow).
func BenchmarkSoftmaxShortRows(b *testing.B) {
	for _, n := range []int{16, 32, 56} {
		for _, causal := range []bool{false, true} {
			x := make([]float32, 128*n)
			o := make([]float32, 128*n)
			r := rand.New(rand.NewSource(1))
			for i := range x {
				x[i] = float32(r.NormFloat64() * 2)
				if causal && i%n > (i/n)%n {
					x[i] = float32(math.Inf(-1))
				}
			}
			b.Run(fmt.Sprintf("n=%d/causal=%v", n, causal), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					softmaxRowsF32(o, x, n)
				}
				b.ReportMetric(float64(len(x))*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "Gelem/s")
			})
		}
	}
}

// BenchmarkSoftmaxScoreRows times nn.softmax over the last axis of
// attention scores whose rows are not a multiple of 8 long: Swin-T's
// 7x7 windows (64 windows x 3 heads of 49 rows of 49) and ViT-B/16's 197
// tokens (12 heads), 1 thread.
func BenchmarkSoftmaxScoreRows(b *testing.B) {
	defer SetNumThreads(0)
	for _, shape := range [][]int64{{64, 3, 49, 49}, {12, 197, 197}} {
		x := randT(b, 1, shape, f32, -6, 6)
		out := mustT(b, shape, f32)
		b.Run(fmt.Sprint(shape), func(b *testing.B) {
			SetNumThreads(1)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := Softmax(out, x, -1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(x.NumElements())*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "Gelem/s")
		})
	}
}

// TestSum32RowsMatchesSum32 requires sum32Rows to give sum32's bits row by
// row at every SIMD level: rows of NaN payloads, infinities and signed
// zeros, lengths with and without a tail (and past asmSumMin), strides
// past the rows, row counts around asm.Sum8RowsF32's groups of four and
// sum32Rows' chunks, and destination elements past the rows left alone.
func TestSum32RowsMatchesSum32(t *testing.T) {
	defer func(l asm.Level) { _ = asm.SetLevel(l) }(asm.CurrentLevel())
	r := rand.New(rand.NewSource(33))
	sp := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)),
		math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00123), math.Float32frombits(0x7fa00000)}
	for l := asm.LevelGo; l <= asm.MaxLevel(); l++ {
		if err := asm.SetLevel(l); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 7, 8, 9, 49, 64, 169, 196, 256, 511, 512, 700} {
			for _, rows := range []int{1, 3, 4, 5, 31, 32, 33, 70} {
				for _, special := range []bool{false, true} {
					stride := n + r.Intn(3)
					x := make([]float32, (rows-1)*stride+n)
					for i := range x {
						x[i] = float32(r.NormFloat64())
						if special && r.Intn(40) == 0 {
							x[i] = sp[r.Intn(len(sp))]
						}
					}
					got := make([]float32, rows+1)
					got[rows] = 3
					sum32Rows(got[:rows], x, stride, n)
					for i := 0; i < rows; i++ {
						want := sum32(x[i*stride : i*stride+n])
						if math.Float32bits(got[i]) != math.Float32bits(want) {
							t.Fatalf("%s n=%d rows=%d stride=%d row %d: %08x, sum32 %08x", l, n, rows, stride, i, math.Float32bits(got[i]), math.Float32bits(want))
						}
					}
					if got[rows] != 3 {
						t.Fatalf("%s n=%d rows=%d: wrote past the rows", l, n, rows)
					}
				}
			}
		}
	}
}

// BenchmarkSum32Rows times the sums of many short contiguous rows (a global
// average pool's planes, a mean over the last axes): sum32 a row at a time
// against sum32Rows, same bits.
func BenchmarkSum32Rows(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	for _, s := range [][2]int{{64, 256}, {512, 49}, {1280, 49}, {1000, 169}, {576, 196}} {
		rows, n := s[0], s[1]
		x, dst := make([]float32, rows*n), make([]float32, rows)
		for i := range x {
			x[i] = r.Float32() - 0.5
		}
		for _, path := range []string{"rowwise", "rows"} {
			b.Run(fmt.Sprintf("%dx%d/%s", rows, n, path), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if path == "rows" {
						sum32Rows(dst, x, n, n)
						continue
					}
					for i := range dst {
						dst[i] = sum32(x[i*n : (i+1)*n])
					}
				}
				b.ReportMetric(float64(rows*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
			})
		}
	}
}
