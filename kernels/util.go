package kernels

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/runtime/half"
)

// maxRank bounds the rank of tensors handled by the shape machinery, so that
// index and stride vectors live in fixed-size arrays on the stack and
// steady-state kernel calls do not allocate. Relax models stay far below it.
const maxRank = 16

// number is the set of element types arithmetic kernels are instantiated for.
type number interface {
	~float32 | ~float64 | ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// integer is the set of integer element types.
type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// floating is the set of floating-point element types with native Go support.
type floating interface{ ~float32 | ~float64 }

// elems views t's data as []T without checking the dtype; callers dispatch on
// the dtype first. A zero-sized tensor gives an empty slice.
func elems[T any](t *runtime.Tensor) []T {
	b := t.Bytes()
	var z T
	sz := int(unsafe.Sizeof(z))
	if len(b) < sz {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/sz)
}

// sameData reports whether two tensors view the very same bytes (in-place use).
func sameData(a, b *runtime.Tensor) bool {
	x, y := a.Bytes(), b.Bytes()
	if len(x) == 0 || len(x) != len(y) {
		return false
	}
	return &x[0] == &y[0]
}

// prod is the product of dims (1 for an empty list).
func prod(dims []int64) int64 {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	return n
}

// checkOut verifies that the preallocated output has the shape and dtype the
// op computes.
func checkOut(op string, out *runtime.Tensor, shape []int64, dt runtime.DataType) error {
	if out == nil {
		return fmt.Errorf("%s: output tensor is nil", op)
	}
	if out.DType() != dt {
		return fmt.Errorf("%s: output dtype is %s, want %s", op, out.DType(), dt)
	}
	if !slices.Equal(out.Shape(), shape) {
		return fmt.Errorf("%s: output shape is %s, want %s", op, shapeStr(out.Shape()), shapeStr(shape))
	}
	return nil
}

// checkRank rejects tensors whose rank exceeds maxRank.
func checkRank(op string, ts ...*runtime.Tensor) error {
	for _, t := range ts {
		if t == nil {
			return fmt.Errorf("%s: tensor argument is nil", op)
		}
		if t.NDim() > maxRank {
			return fmt.Errorf("%s: rank %d exceeds the supported maximum of %d", op, t.NDim(), maxRank)
		}
	}
	return nil
}

// normAxis maps a possibly negative axis into [0, ndim).
func normAxis(op string, axis int64, ndim int) (int, error) {
	a := axis
	if a < 0 {
		a += int64(ndim)
	}
	if a < 0 || a >= int64(ndim) {
		return 0, fmt.Errorf("%s: axis %d is out of range for rank %d", op, axis, ndim)
	}
	return int(a), nil
}

// axisMask normalizes a list of axes (nil = all) into a bit mask, rejecting
// duplicates and out-of-range axes.
func axisMask(op string, axes []int64, ndim int) (uint32, error) {
	if axes == nil {
		return uint32(1)<<uint(ndim) - 1, nil
	}
	var m uint32
	for _, ax := range axes {
		a, err := normAxis(op, ax, ndim)
		if err != nil {
			return 0, err
		}
		if m&(1<<uint(a)) != 0 {
			return 0, fmt.Errorf("%s: axis %d repeated", op, ax)
		}
		m |= 1 << uint(a)
	}
	return m, nil
}

// stridesOf fills st with the row-major element strides of shape.
func stridesOf(shape []int64, st []int64) {
	s := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = s
		s *= shape[i]
	}
}

// parThreshold is the element count below which elementwise kernels run on the
// calling goroutine (no scheduling, no allocation).
const parThreshold = 1 << 16

// parGrain is the chunk size for splitting elementwise work.
const parGrain = 1 << 14

// heavyParThreshold and heavyParGrain are parThreshold and parGrain for
// elementwise work with a transcendental step (exp, tanh, erf, sigmoid,
// the GELUs, SiLU, log, sqrt, the trigonometric functions) and for the
// softmax: those cost 0.5-1.5 ns an element in the SIMD kernels, against
// a few hundredths for an add, so a second thread pays from fewer
// elements. BenchmarkEwHeavyThreads, 2 threads, AVX-512 Intel Xeon,
// medians of four alternated runs, µs before → after: the erf GELU chain
// on 16K elements 25.1 → 13.3, on 8K 11.4 → 10.2; nn.gelu on 16K 15.8 →
// 8.9 (4K stays on one thread, 5.4 and 5.7).
const (
	heavyParThreshold = 1 << 13
	heavyParGrain     = 1 << 12
)

// parLimits returns the element count from which elementwise work is split
// over the threads, and its chunk size: heavy for work with a
// transcendental step.
func parLimits(heavy bool) (threshold, grain int) {
	if heavy {
		return heavyParThreshold, heavyParGrain
	}
	return parThreshold, parGrain
}

// parFor runs fn over [0, n) in chunks of at least grain elements, on the
// shared worker pool when there is enough work. Each index lands in exactly one
// chunk, so results do not depend on the thread count as long as fn does not
// combine values across indices.
func parFor(n, grain int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	if grain < 1 {
		grain = 1
	}
	if n <= grain || NumThreads() <= 1 {
		fn(0, n)
		return
	}
	ParallelFor(n, grain, fn)
}

// halfToF32 widens a float16 slice into dst.
func halfToF32(dst []float32, src []uint16) {
	for i, h := range src {
		dst[i] = half.Float16ToFloat32(h)
	}
}

// f32ToHalf narrows a float32 slice into float16 bits.
func f32ToHalf(dst []uint16, src []float32) {
	for i, f := range src {
		dst[i] = half.Float32ToFloat16(f)
	}
}

// widen returns t's float16 data as a fresh float32 slice.
func widen(t *runtime.Tensor) []float32 {
	h := elems[uint16](t)
	f := make([]float32, len(h))
	halfToF32(f, h)
	return f
}

// asF32Tensor makes a float32 copy of a float16 tensor (same shape).
func asF32Tensor(t *runtime.Tensor) (*runtime.Tensor, error) {
	o, err := runtime.NewTensor(t.Shape(), runtime.Float32)
	if err != nil {
		return nil, err
	}
	halfToF32(elems[float32](o), elems[uint16](t))
	return o, nil
}

// storeF32AsHalf narrows a float32 tensor into the float16 tensor dst.
func storeF32AsHalf(dst, src *runtime.Tensor) {
	f32ToHalf(elems[uint16](dst), elems[float32](src))
}

// viaFloat32 runs fn on float32 copies of float16 tensors: inputs are widened,
// fn computes into a float32 output, which is narrowed into out. Tensors of
// other dtypes are passed through unchanged.
func viaFloat32(out *runtime.Tensor, ins []*runtime.Tensor, fn func(out *runtime.Tensor, ins []*runtime.Tensor) error) error {
	var buf [4]*runtime.Tensor
	wide := buf[:0]
	for _, t := range ins {
		if t != nil && t.DType() == runtime.Float16 {
			w, err := asF32Tensor(t)
			if err != nil {
				return err
			}
			t = w
		}
		wide = append(wide, t)
	}
	o := out
	if out.DType() == runtime.Float16 {
		w, err := runtime.NewTensor(out.Shape(), runtime.Float32)
		if err != nil {
			return err
		}
		o = w
	}
	if err := fn(o, wide); err != nil {
		return err
	}
	if o != out {
		storeF32AsHalf(out, o)
	}
	return nil
}

// shapeStr formats a shape for error messages without letting the slice
// escape (so callers can keep shape buffers on the stack).
func shapeStr(s []int64) string { return runtime.Shape(s).String() }

// isF32 reports whether the element type T is float32. (Boxing a zero value
// does not allocate.)
func isF32[T any]() bool {
	var z T
	_, ok := any(z).(float32)
	return ok
}

// as32 reinterprets s as []float32 without copying or allocating. Callers
// use it only after isF32 reports true.
func as32[T any](s []T) []float32 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// unravelIndex writes the row-major multi-index of flat element i of shape
// into pos (len(pos) == len(shape)).
func unravelIndex(pos []int64, i int64, shape []int64) {
	for d := len(shape) - 1; d >= 0; d-- {
		pos[d] = i % shape[d]
		i /= shape[d]
	}
}
