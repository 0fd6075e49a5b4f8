package kernels

import (
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
					if grain > 0 && hi-lo < grain && hi != n {
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
