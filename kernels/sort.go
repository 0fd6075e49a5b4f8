package kernels

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/relaxgo/relaxgo/runtime"
)

// sortLanes calls f for every 1-D lane of a tensor of shape along axis:
// base is the flat offset of the lane's first element and stride the step
// between its elements.
func sortLanes(shape []int64, axis int, f func(base, stride int)) {
	outer, inner := 1, 1
	for i := 0; i < axis; i++ {
		outer *= int(shape[i])
	}
	for i := axis + 1; i < len(shape); i++ {
		inner *= int(shape[i])
	}
	n := int(shape[axis])
	for o := 0; o < outer; o++ {
		for in := 0; in < inner; in++ {
			f(o*n*inner+in, inner)
		}
	}
}

// sortedOrder returns the indices that sort the lane stably (ties keep index
// order, as TVM's std::stable_sort does), ascending or descending.
func sortedOrder[T cmp.Ordered](x []T, base, stride, n int, descending bool, idx []int) []int {
	idx = idx[:0]
	for i := 0; i < n; i++ {
		idx = append(idx, i)
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		va, vb := x[base+a*stride], x[base+b*stride]
		if descending {
			return cmp.Compare(vb, va)
		}
		return cmp.Compare(va, vb)
	})
	return idx
}

// sortKernel sorts x along axis into values (when not nil) and indices (when
// not nil; int32 or int64), keeping the first k of each lane (k = lane length
// for sort and argsort).
func sortKernel(name string, x, values, indices *runtime.Tensor, axis int64, descending bool, k int) error {
	if x == nil {
		return fmt.Errorf("%s: nil tensor", name)
	}
	shape := x.Shape()
	if len(shape) == 0 {
		return fmt.Errorf("%s: needs a tensor of rank >= 1", name)
	}
	ax, err := normAxis(name, axis, len(shape))
	if err != nil {
		return err
	}
	n := int(shape[ax])
	if k < 0 || k > n {
		k = n
	}
	oshape := append([]int64{}, shape...)
	oshape[ax] = int64(k)
	if values != nil {
		if err := checkOut(name, values, oshape, x.DType()); err != nil {
			return err
		}
	}
	if indices != nil {
		if indices.DType() != runtime.Int32 && indices.DType() != runtime.Int64 {
			return fmt.Errorf("%s: indices must be int32 or int64, got %s", name, indices.DType())
		}
		if err := checkOut(name, indices, oshape, indices.DType()); err != nil {
			return err
		}
	}
	switch x.DType() {
	case runtime.Float32:
		return sortTyped(elems[float32](x), values, indices, shape, oshape, ax, descending, k)
	case runtime.Float64:
		return sortTyped(elems[float64](x), values, indices, shape, oshape, ax, descending, k)
	case runtime.Int32:
		return sortTyped(elems[int32](x), values, indices, shape, oshape, ax, descending, k)
	case runtime.Int64:
		return sortTyped(elems[int64](x), values, indices, shape, oshape, ax, descending, k)
	}
	return fmt.Errorf("%s: unsupported dtype %s", name, x.DType())
}

func sortTyped[T cmp.Ordered](x []T, values, indices *runtime.Tensor, shape, oshape []int64, ax int, descending bool, k int) error {
	n := int(shape[ax])
	var vals []T
	if values != nil {
		vals = elems[T](values)
	}
	idx := make([]int, 0, n)
	// Output lanes have length k; walk input and output lanes together.
	var outBases []int
	sortLanes(oshape, ax, func(base, _ int) { outBases = append(outBases, base) })
	lane := 0
	sortLanes(shape, ax, func(base, stride int) {
		idx = sortedOrder(x, base, stride, n, descending, idx)
		ob := outBases[lane]
		lane++
		for j := 0; j < k; j++ {
			o := ob + j*stride
			if vals != nil {
				vals[o] = x[base+idx[j]*stride]
			}
			if indices != nil {
				if indices.DType() == runtime.Int32 {
					indices.Int32s()[o] = int32(idx[j])
				} else {
					indices.Int64s()[o] = int64(idx[j])
				}
			}
		}
	})
	return nil
}

// Sort sorts x along axis (Relax sort).
func Sort(out, x *runtime.Tensor, axis int64, descending bool) error {
	return sortKernel("sort", x, out, nil, axis, descending, -1)
}

// Argsort returns the indices that sort x along axis (Relax argsort).
func Argsort(out, x *runtime.Tensor, axis int64, descending bool) error {
	return sortKernel("argsort", x, nil, out, axis, descending, -1)
}

// TopK returns the k largest (or smallest) values of x along axis and their
// indices (Relax topk); values or indices may be nil.
func TopK(values, indices, x *runtime.Tensor, k, axis int64, largest bool) error {
	if x != nil && x.NDim() > 0 {
		ax, err := normAxis("topk", axis, x.NDim())
		if err != nil {
			return err
		}
		if k < 1 || k > x.Shape()[ax] {
			k = x.Shape()[ax] // TVM: k < 1 means all
		}
	}
	return sortKernel("topk", x, values, indices, axis, largest, int(k))
}

func init() {
	register("sort", "x, axis (int64), descending (bool), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs(Prefix+"sort", args)
		p.count(4)
		x, axis, desc, out := p.tensor(0), p.int(1), p.bool(2), p.tensor(3)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(Sort(out, x, axis, desc))
	})
	register("argsort", "x, axis (int64), descending (bool), dtype (DataType), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs(Prefix+"argsort", args)
		p.count(5)
		x, axis, desc, out := p.tensor(0), p.int(1), p.bool(2), p.tensor(4)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(Argsort(out, x, axis, desc))
	})
	register("topk", "data, k (int64), axis (int64), ret_type (string: both, values, indices), largest (bool), dtype (DataType), out... (values then indices for both)", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs(Prefix+"topk", args)
		if !p.atLeast(7) {
			return nil, p.err
		}
		x, k, axis, ret, largest := p.tensor(0), p.int(1), p.int(2), p.string(3), p.bool(4)
		var values, indices *runtime.Tensor
		switch ret {
		case "both":
			p.count(8)
			values, indices = p.tensor(6), p.tensor(7)
		case "values":
			p.count(7)
			values = p.tensor(6)
		case "indices":
			p.count(7)
			indices = p.tensor(6)
		default:
			p.fail("ret_type must be both, values or indices, got %q", ret)
		}
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(TopK(values, indices, x, k, axis, largest))
	})
}
