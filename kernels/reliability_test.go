package kernels

import (
	"math"
	"sync/atomic"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// Regression tests for the kernel items of issue "Reliability": every
// reproducer gets an error back, never a panic or a SIGSEGV.

// TestMatmulJobPropagatesErrors: a batch item whose operand data is shorter
// than its shape is reported by run, through ParallelFor's chunks, instead
// of being dropped (the old `_ = sgemmEx(...)` left C unwritten).
func TestMatmulJobPropagatesErrors(t *testing.T) {
	defer SetNumThreads(0)
	for _, th := range []int{1, 2, 4} {
		SetNumThreads(th)
		const nb, m, n, k = 16, 2, 2, 2
		j := matmulJobPool.Get()
		j.m, j.n, j.k, j.lda, j.ldb = m, n, k, k, n
		j.aoff, j.boff = j.aoff[:0], j.boff[:0]
		for i := 0; i < nb; i++ {
			j.aoff = append(j.aoff, i*m*k)
			j.boff = append(j.boff, 0)
		}
		j.af = make([]float32, nb*m*k-3) // the last item's A is short
		j.bf = make([]float32, k*n)
		j.cf = make([]float32, nb*m*n)
		j.err.reset()
		ParallelFor(nb, 1, j.fn)
		if j.err.get() == nil {
			t.Errorf("threads=%d: short operand not reported", th)
		}
		// An offset past the data is an error too, not a slice panic.
		j.err.reset()
		j.aoff[nb-1] = len(j.af) + 100
		j.run(nb-1, nb)
		if j.err.get() == nil {
			t.Errorf("threads=%d: offset past the data not reported", th)
		}
		j.release()
	}
}

// TestParallelForNegativeN: a negative n is an empty range (like a for loop
// with a negative bound): fn is never called.
func TestParallelForNegativeN(t *testing.T) {
	defer SetNumThreads(0)
	for _, th := range []int{1, 4} {
		SetNumThreads(th)
		for _, n := range []int{-1, -1000, math.MinInt} {
			for _, grain := range []int{-5, 0, 1, 1000} {
				var calls atomic.Int32
				ParallelFor(n, grain, func(lo, hi int) { calls.Add(1) })
				if calls.Load() != 0 {
					t.Errorf("threads=%d ParallelFor(%d, %d): fn called %d times", th, n, grain, calls.Load())
				}
			}
		}
	}
}

// TestMatmulEmptyDepthZeroes: k == 0 gives an all-zero product. The batch
// loop used to drop the error of a zero stride (lda = k = 0) and leave the
// output unwritten.
func TestMatmulEmptyDepthZeroes(t *testing.T) {
	for _, sh := range [][2][]int64{
		{{0}, {0}},
		{{2, 0}, {0, 3}},
		{{4, 2, 0}, {4, 0, 3}},
	} {
		a := runtime.MustNewTensor(sh[0], runtime.Float32)
		b := runtime.MustNewTensor(sh[1], runtime.Float32)
		os, err := MatmulShape(sh[0], sh[1])
		if err != nil {
			t.Fatal(err)
		}
		out := runtime.MustNewTensor(os, runtime.Float32)
		for i := range out.Float32s() {
			out.Float32s()[i] = 7
		}
		if err := Matmul(out, a, b); err != nil {
			t.Errorf("%v x %v: %v", sh[0], sh[1], err)
			continue
		}
		for i, v := range out.Float32s() {
			if v != 0 {
				t.Errorf("%v x %v: out[%d] = %v, want 0", sh[0], sh[1], i, v)
				break
			}
		}
	}
}

// TestConvSizeOverflowRejected: convolution output sizes are computed from
// shapes and attributes; an overflowing dilation used to wrap the dilated
// kernel extent d*(k-1)+1 to -1, so a 4x4 input with a 3x1 kernel and
// dilation MaxInt64 "had" a 6x4 output, and the call returned nil with
// garbage. Every overflow is now an error.
func TestConvSizeOverflowRejected(t *testing.T) {
	f32 := runtime.Float32
	x := runtime.MustNewTensor([]int64{1, 1, 4, 4}, f32)
	w := runtime.MustNewTensor([]int64{1, 1, 3, 1}, f32)
	out := runtime.MustNewTensor([]int64{1, 1, 6, 4}, f32)
	if err := Conv2D(out, x, w, Conv2DAttrs{Dilation: []int64{math.MaxInt64, 1}}); err == nil {
		t.Error("conv2d with dilation MaxInt64 accepted")
	}
	for _, a := range []Conv2DAttrs{
		{Padding: []int64{math.MaxInt64, 0, math.MaxInt64, 0}},
		{Strides: []int64{math.MaxInt64, 1}, Dilation: []int64{math.MaxInt64 / 2, 1}},
	} {
		if err := Conv2D(out, x, w, a); err == nil {
			t.Errorf("conv2d %+v accepted", a)
		}
	}
	for _, a := range []Conv2DTransposeAttrs{
		{Strides: []int64{math.MaxInt64/3 + 1, 1}},
		{Dilation: []int64{math.MaxInt64, 1}},
		{Padding: []int64{math.MaxInt64, 0, math.MaxInt64, 0}},
	} {
		wt := runtime.MustNewTensor([]int64{1, 1, 3, 1}, f32)
		if err := Conv2DTranspose(out, x, wt, a); err == nil {
			t.Errorf("conv2d_transpose %+v accepted", a)
		}
	}
	x3 := runtime.MustNewTensor([]int64{1, 1, 4, 4, 4}, f32)
	w3 := runtime.MustNewTensor([]int64{1, 1, 3, 1, 1}, f32)
	o3 := runtime.MustNewTensor([]int64{1, 1, 6, 4, 4}, f32)
	for _, a := range []Conv2DTransposeAttrs{
		{Dilation: []int64{math.MaxInt64, 1, 1}},
		{Strides: []int64{0, 1, 1}},
		{Padding: []int64{-1, 0, 0}},
	} {
		if err := Conv3D(o3, x3, w3, a); err == nil {
			t.Errorf("conv3d %+v accepted", a)
		}
		if err := Conv3DTranspose(o3, x3, w3, a); err == nil {
			t.Errorf("conv3d_transpose %+v accepted", a)
		}
	}
}
