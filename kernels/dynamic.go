package kernels

import (
	"fmt"

	"github.com/relaxgo/relaxgo/runtime"
)

// Kernels whose output shape depends on input values. They allocate and
// return their result (packed convention of call_pure_packed) instead of
// filling a preallocated output, and are registered under "kernels.relaxgo.".

// Nonzero returns the indices of x's nonzero elements as an int64 tensor of
// shape (ndim, count), in row-major order (numpy.nonzero stacked; TVM's
// relax.nonzero). A 0-d x counts as 1-D.
func Nonzero(x *runtime.Tensor) (*runtime.Tensor, error) {
	const name = "nonzero"
	if err := checkRank(name, x); err != nil {
		return nil, err
	}
	shape := x.Shape()
	if len(shape) == 0 {
		shape = []int64{1}
	}
	n := int(x.NumElements())
	var hits []int
	for i := 0; i < n; i++ {
		if x.DType().IsFloat() {
			if elemFloat(x, i) != 0 {
				hits = append(hits, i)
			}
		} else if elemInt(x, i) != 0 {
			hits = append(hits, i)
		}
	}
	out, err := runtime.NewTensor([]int64{int64(len(shape)), int64(len(hits))}, runtime.Int64)
	if err != nil {
		return nil, err
	}
	o := out.Int64s()
	for k, i := range hits {
		rem := int64(i)
		for d := len(shape) - 1; d >= 0; d-- {
			o[d*len(hits)+k] = rem % shape[d]
			rem /= shape[d]
		}
	}
	return out, nil
}

// DynamicStridedSlice slices x with one begin, end and stride per axis taken
// from 1-D integer tensors (Relax dynamic_strided_slice; Python slice
// semantics as strided_slice) and returns the new tensor.
func DynamicStridedSlice(x, begin, end, strides *runtime.Tensor) (*runtime.Tensor, error) {
	const name = "dynamic_strided_slice"
	if err := checkRank(name, x, begin, end, strides); err != nil {
		return nil, err
	}
	nd := x.NDim()
	vecs := make([][]int64, 3)
	for k, t := range []*runtime.Tensor{begin, end, strides} {
		if t.NDim() != 1 || int(t.NumElements()) != nd || t.DType().IsFloat() {
			return nil, fmt.Errorf("%s: begin, end and strides must be 1-D integer tensors of %d entries, got %s", name, nd, t)
		}
		vecs[k] = make([]int64, nd)
		for i := range vecs[k] {
			vecs[k][i] = elemInt(t, i)
		}
	}
	axes := make([]int64, nd)
	shape := make([]int64, nd)
	for i := range axes {
		axes[i] = int64(i)
		step := vecs[2][i]
		if step == 0 {
			return nil, fmt.Errorf("%s: stride 0 on axis %d", name, i)
		}
		n := x.Shape()[i]
		b, e := canonIndex(vecs[0][i], n, step), canonIndex(vecs[1][i], n, step)
		if step > 0 && e > b {
			shape[i] = (e - b + step - 1) / step
		} else if step < 0 && b > e {
			shape[i] = (b - e - step - 1) / (-step)
		}
	}
	out, err := runtime.NewTensor(shape, x.DType())
	if err != nil {
		return nil, err
	}
	err = StridedSlice(out, x, StridedSliceAttrs{Axes: axes, Begin: vecs[0], End: vecs[1], Strides: vecs[2]})
	return out, err
}

func init() {
	runtime.MustRegister(Prefix+"relaxgo.nonzero", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs(Prefix+"relaxgo.nonzero", args)
		p.count(1)
		x := p.tensor(0)
		if p.err != nil {
			return nil, p.err
		}
		out, err := Nonzero(x)
		if err != nil {
			return nil, wrapErr(err)
		}
		return out, nil
	})
	runtime.MustRegister(Prefix+"relaxgo.dynamic_strided_slice", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs(Prefix+"relaxgo.dynamic_strided_slice", args)
		p.count(4)
		x, b, e, s := p.tensor(0), p.tensor(1), p.tensor(2), p.tensor(3)
		if p.err != nil {
			return nil, p.err
		}
		out, err := DynamicStridedSlice(x, b, e, s)
		if err != nil {
			return nil, wrapErr(err)
		}
		return out, nil
	})
}
