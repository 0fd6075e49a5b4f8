package kernels

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
)

func TestParallelForCoversRange(t *testing.T) {
	defer SetNumThreads(0)
	for _, th := range []int{1, 2, 3, 8} {
		SetNumThreads(th)
		for _, n := range []int{0, 1, 7, 17, 33, 257, 10000} {
			for _, grain := range []int{0, 1, 5, 64, 100000} {
				hits := make([]int32, n)
				var calls atomic.Int32
				ParallelFor(n, grain, func(lo, hi int) {
					calls.Add(1)
					if lo >= hi {
						t.Errorf("empty chunk [%d,%d)", lo, hi)
					}
					if grain > 0 && hi-lo < grain && (lo != 0 || hi != n) {
						t.Errorf("chunk [%d,%d) shorter than grain %d", lo, hi, grain)
					}
					for i := lo; i < hi; i++ {
						atomic.AddInt32(&hits[i], 1)
					}
				})
				for i, h := range hits {
					if h != 1 {
						t.Fatalf("threads=%d n=%d grain=%d: index %d hit %d times", th, n, grain, i, h)
					}
				}
			}
		}
	}
}

// TestParallelForChunksEven checks ParallelFor's split: chunks of at least
// grain, as even as can be, as many as a multiple of
// the threads where there are enough, so that threads taking the next chunk
// as they finish (the caller from the front, the helpers from the back)
// end with shares one index apart at most (10 items on 2 threads: 5 and 5,
// not 6 and 4).
func TestParallelForChunksEven(t *testing.T) {
	for th := 1; th <= 8; th++ {
		for n := 1; n <= 120; n++ {
			for grain := 1; grain <= 7; grain++ {
				nch := parallelChunks(n, grain, th)
				if nch <= 1 {
					continue
				}
				if nch > 4*th || nch*grain > n || nch >= th && nch%th != 0 {
					t.Fatalf("threads=%d n=%d grain=%d: %d chunks", th, n, grain, nch)
				}
				short, long, next := n, 0, 0
				for c := 0; c < nch; c++ {
					lo, hi := chunkBounds(n, nch, th, c)
					short, long = min(short, hi-lo), max(long, hi-lo)
					if lo != next || hi-lo < grain || long-short > 1 {
						t.Fatalf("threads=%d n=%d grain=%d: chunk %d of %d is [%d,%d)", th, n, grain, c, nch, lo, hi)
					}
					next = hi
				}
				// The caller (thread 0) claims from the front, the
				// helpers from the back; the thread that finishes first
				// claims next.
				shares := make([]int, th)
				front, back := 0, nch-1
				for front <= back {
					least := 0
					for i := range shares {
						if shares[i] < shares[least] {
							least = i
						}
					}
					c := back
					if least == 0 {
						c, front = front, front+1
					} else {
						back--
					}
					lo, hi := chunkBounds(n, nch, th, c)
					shares[least] += hi - lo
				}
				if next != n || slices.Max(shares)-slices.Min(shares[:min(th, nch)]) > 1 {
					t.Fatalf("threads=%d n=%d grain=%d: %d chunks end at %d, shares %v", th, n, grain, nch, next, shares)
				}
			}
		}
	}
}

// TestParallelForClaimEnds checks the claiming order: the caller takes
// chunks from the front, a helper from the back (so that each thread's
// chunks are a contiguous run of the range, the same run call after call:
// its output lines stay in that core's cache).
func TestParallelForClaimEnds(t *testing.T) {
	for _, back := range []bool{false, true} {
		var los []int
		j := &pjob{fn: func(lo, hi int) { los = append(los, lo) }, n: 10, threads: 2, nchunks: 4, fin: make(chan struct{}, 1)}
		j.runFrom(back)
		want := []int{0, 3, 5, 7} // chunks [0,3) [3,5) [5,7) [7,10)
		if back {
			slices.Reverse(want)
		}
		if !slices.Equal(los, want) {
			t.Errorf("back=%v: chunks claimed at %v, want %v", back, los, want)
		}
	}
}

func TestParallelForNested(t *testing.T) {
	defer SetNumThreads(0)
	SetNumThreads(4)
	var total atomic.Int64
	ParallelFor(16, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ParallelFor(100, 3, func(lo, hi int) { total.Add(int64(hi - lo)) })
		}
	})
	if total.Load() != 1600 {
		t.Fatalf("nested total %d, want 1600", total.Load())
	}
}

func TestParallelForPanic(t *testing.T) {
	defer SetNumThreads(0)
	SetNumThreads(2)
	defer func() {
		if recover() == nil {
			t.Fatal("panic not propagated")
		}
	}()
	ParallelFor(100, 1, func(lo, hi int) {
		if lo == 0 {
			panic("boom")
		}
	})
}

func BenchmarkParallelForSmall(b *testing.B) {
	defer SetNumThreads(0)
	SetNumThreads(2)
	buf := make([]float32, 4096)
	for i := 0; i < b.N; i++ {
		ParallelFor(len(buf), 512, func(lo, hi int) {
			for k := lo; k < hi; k++ {
				buf[k] += 1
			}
		})
	}
}

// parallelSink keeps BenchmarkParallelForItems' work from being optimized away.
var parallelSink atomic.Uint64

// BenchmarkParallelForItems is ParallelFor over 10 equal items of about 5 µs
// each (a dependent multiply-add chain) at 1 and 2 threads: a convolution's
// column chunks (cnn_64x64's 3->32 on 64² makes 10). The 2-thread time is
// the busiest thread's share plus the wake-up and hand-off.
func BenchmarkParallelForItems(b *testing.B) {
	defer SetNumThreads(0)
	item := func(lo, hi int) {
		x := 1.0
		for i := 0; i < (hi-lo)*4000; i++ {
			x = x*1.0000001 + 1e-9
		}
		parallelSink.Add(uint64(x))
	}
	for _, th := range []int{1, 2} {
		b.Run(fmt.Sprintf("items=10/threads=%d", th), func(b *testing.B) {
			SetNumThreads(th)
			for i := 0; i < b.N; i++ {
				ParallelFor(10, 1, item)
			}
		})
	}
}
