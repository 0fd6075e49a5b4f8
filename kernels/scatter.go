package kernels

import (
	"fmt"
	"slices"

	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/runtime/half"
)

// Scatter kernels: scatter_elements, scatter_nd, index_put, slice_scatter.
// Each copies data into out and then applies the updates in the order TVM's
// legalization (topi) applies them, so duplicate indices resolve the same way.

// scatterReducer returns a function applying one update, out[dst] = f(out[dst],
// upd[src]), for reduction red (update, add, mul, mean, min, max).
func scatterReducer(out, upd *runtime.Tensor, red string) (func(dst, src int), error) {
	switch red {
	case "update", "add", "mul", "mean", "min", "max":
	default:
		return nil, fmt.Errorf("unsupported reduction %q", red)
	}
	if out.DType() != upd.DType() {
		return nil, fmt.Errorf("updates dtype %s does not match data %s", upd.DType(), out.DType())
	}
	switch out.DType() {
	case runtime.Float32:
		return reducerOf(elems[float32](out), elems[float32](upd), red), nil
	case runtime.Float64:
		return reducerOf(elems[float64](out), elems[float64](upd), red), nil
	case runtime.Int8:
		return reducerOf(elems[int8](out), elems[int8](upd), red), nil
	case runtime.Int16:
		return reducerOf(elems[int16](out), elems[int16](upd), red), nil
	case runtime.Int32:
		return reducerOf(elems[int32](out), elems[int32](upd), red), nil
	case runtime.Int64:
		return reducerOf(elems[int64](out), elems[int64](upd), red), nil
	case runtime.UInt8:
		return reducerOf(elems[uint8](out), elems[uint8](upd), red), nil
	case runtime.UInt16:
		return reducerOf(elems[uint16](out), elems[uint16](upd), red), nil
	case runtime.UInt32:
		return reducerOf(elems[uint32](out), elems[uint32](upd), red), nil
	case runtime.UInt64:
		return reducerOf(elems[uint64](out), elems[uint64](upd), red), nil
	case runtime.Float16:
		// float16 arithmetic: compute in float32, round each result to float16.
		o, u := elems[uint16](out), elems[uint16](upd)
		f := func(a, b float32) float32 { return b }
		switch red {
		case "add":
			f = func(a, b float32) float32 { return a + b }
		case "mul":
			f = func(a, b float32) float32 { return a * b }
		case "mean":
			f = func(a, b float32) float32 { return half.RoundFloat16(a+b) / 2 }
		case "min":
			f = func(a, b float32) float32 { return min(a, b) }
		case "max":
			f = func(a, b float32) float32 { return max(a, b) }
		}
		return func(dst, src int) {
			o[dst] = half.Float32ToFloat16(f(half.Float16ToFloat32(o[dst]), half.Float16ToFloat32(u[src])))
		}, nil
	case runtime.Bool:
		// bool arithmetic: add and max are or, mul and min are and.
		o, u := elems[bool](out), elems[bool](upd)
		switch red {
		case "update":
			return func(dst, src int) { o[dst] = u[src] }, nil
		case "add", "max":
			return func(dst, src int) { o[dst] = o[dst] || u[src] }, nil
		case "mul", "min":
			return func(dst, src int) { o[dst] = o[dst] && u[src] }, nil
		}
		return nil, fmt.Errorf("reduction %q is not supported for bool", red)
	}
	return nil, fmt.Errorf("unsupported dtype %s", out.DType())
}

func reducerOf[T number](o, u []T, red string) func(dst, src int) {
	switch red {
	case "add":
		return func(dst, src int) { o[dst] += u[src] }
	case "mul":
		return func(dst, src int) { o[dst] *= u[src] }
	case "mean":
		return func(dst, src int) { o[dst] = (o[dst] + u[src]) / 2 }
	case "min":
		return func(dst, src int) { o[dst] = min(o[dst], u[src]) }
	case "max":
		return func(dst, src int) { o[dst] = max(o[dst], u[src]) }
	}
	return func(dst, src int) { o[dst] = u[src] }
}

// scatterInit checks out against data and copies data into it.
func scatterInit(name string, out, data *runtime.Tensor) error {
	if err := checkRank(name, out, data); err != nil {
		return err
	}
	if err := checkOut(name, out, data.Shape(), data.DType()); err != nil {
		return err
	}
	if !sameData(out, data) {
		copy(out.Bytes(), data.Bytes())
	}
	return nil
}

// wrapIndex maps a possibly negative index into [0, n).
func wrapIndex(name string, k, n int64) (int64, error) {
	if k < 0 {
		k += n
	}
	if k < 0 || k >= n {
		return 0, fmt.Errorf("%s: index %d is out of range for an axis of size %d", name, k, n)
	}
	return k, nil
}

// ScatterElements copies data into out and, for every element of indices,
// combines updates at that position into out at the same position with the
// axis coordinate replaced by the index (negative indices count from the
// end), in TVM's order: positions outside the axis in row-major order, then
// along the axis.
func ScatterElements(out, data, indices, updates *runtime.Tensor, axis int64, reduction string) error {
	const name = "scatter_elements"
	if err := checkRank(name, indices, updates); err != nil {
		return err
	}
	if err := scatterInit(name, out, data); err != nil {
		return err
	}
	ds, is := data.Shape(), indices.Shape()
	if len(is) != len(ds) || !slices.Equal(is, updates.Shape()) || indices.DType().IsFloat() {
		return fmt.Errorf("%s: indices %s and updates %s must have data's rank (%s) and one shape", name, indices, updates, shapeStr(ds))
	}
	ax, err := normAxis(name, axis, len(ds))
	if err != nil {
		return err
	}
	apply, err := scatterReducer(out, updates, reduction)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	for d := range is {
		if d != ax && is[d] > ds[d] {
			return fmt.Errorf("%s: indices shape %s exceeds data shape %s", name, shapeStr(is), shapeStr(ds))
		}
	}
	var dst, ist [maxRank]int64
	stridesOf(ds, dst[:len(ds)])
	stridesOf(is, ist[:len(is)])
	// Iterate the index positions outside the axis (row-major), then along it.
	outer := is[:len(is):len(is)]
	n := prod(is) / max(is[ax], 1)
	if is[ax] == 0 {
		return nil
	}
	var pos [maxRank]int64
	for r := int64(0); r < n; r++ {
		// pos = the r-th position with the axis coordinate 0.
		rem := r
		for d := len(outer) - 1; d >= 0; d-- {
			if d == ax {
				pos[d] = 0
				continue
			}
			pos[d] = rem % outer[d]
			rem /= outer[d]
		}
		var isrc, odst int64
		for d := range is {
			isrc += pos[d] * ist[d]
			if d != ax {
				odst += pos[d] * dst[d]
			}
		}
		for k := int64(0); k < is[ax]; k++ {
			src := isrc + k*ist[ax]
			idx, err := wrapIndex(name, elemInt(indices, int(src)), ds[ax])
			if err != nil {
				return err
			}
			apply(int(odst+idx*dst[ax]), int(src))
		}
	}
	return nil
}

// ScatterND copies data into out and, for every index tuple indices[i, :]
// (the last axis of indices has M <= rank(data) coordinates), combines the
// slice updates[i, ...] into out[idx..., ...] (TVM's scatter_nd: updates has
// shape indices.shape[:-1] + data.shape[M:]; negative coordinates count from
// the end).
func ScatterND(out, data, indices, updates *runtime.Tensor, reduction string) error {
	const name = "scatter_nd"
	if err := checkRank(name, indices, updates); err != nil {
		return err
	}
	if err := scatterInit(name, out, data); err != nil {
		return err
	}
	ds, is := data.Shape(), indices.Shape()
	if len(is) == 0 || indices.DType().IsFloat() {
		return fmt.Errorf("%s: indices must be an integer tensor of rank >= 1, got %s", name, indices)
	}
	m := int(is[len(is)-1])
	if m > len(ds) {
		return fmt.Errorf("%s: indices have %d coordinates, more than data's rank %d", name, m, len(ds))
	}
	want := append(append([]int64{}, is[:len(is)-1]...), ds[m:]...)
	if !slices.Equal(updates.Shape(), want) {
		return fmt.Errorf("%s: updates shape is %s, want %s", name, shapeStr(updates.Shape()), shapeStr(want))
	}
	apply, err := scatterReducer(out, updates, reduction)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	var st [maxRank]int64
	stridesOf(ds, st[:len(ds)])
	inner := prod(ds[m:])
	n := prod(is[:len(is)-1])
	for i := int64(0); i < n; i++ {
		var base int64
		for l := 0; l < m; l++ {
			k, err := wrapIndex(name, elemInt(indices, int(i*int64(m)+int64(l))), ds[l])
			if err != nil {
				return err
			}
			base += k * st[l]
		}
		for j := int64(0); j < inner; j++ {
			apply(int(base+j), int(i*inner+j))
		}
	}
	return nil
}

// IndexPut copies data into out and writes (or, with accumulate, adds) values
// at the positions given by one index tensor per data dimension; the index
// tensors broadcast together (NumPy rules) and values holds one element per
// broadcast position (or a single element for all of them).
func IndexPut(out, data *runtime.Tensor, indices []*runtime.Tensor, values *runtime.Tensor, accumulate bool) error {
	const name = "index_put"
	if err := checkRank(name, append([]*runtime.Tensor{values}, indices...)...); err != nil {
		return err
	}
	if err := scatterInit(name, out, data); err != nil {
		return err
	}
	ds := data.Shape()
	if len(indices) != len(ds) {
		return fmt.Errorf("%s: %d index tensors for data of rank %d", name, len(indices), len(ds))
	}
	var bshape []int64
	for _, t := range indices {
		if t.DType().IsFloat() {
			return fmt.Errorf("%s: index tensors must be integers, got %s", name, t.DType())
		}
		s := t.Shape()
		for len(bshape) < len(s) {
			bshape = append([]int64{1}, bshape...)
		}
		for i := range s {
			b := &bshape[len(bshape)-len(s)+i]
			switch d := s[i]; {
			case d == *b || d == 1:
			case *b == 1:
				*b = d
			default:
				return fmt.Errorf("%s: index shapes do not broadcast: %s", name, shapeStr(s))
			}
		}
	}
	total := prod(bshape)
	if values.NumElements() != total && values.NumElements() != 1 {
		return fmt.Errorf("%s: values has %d elements, want %d (or 1)", name, values.NumElements(), total)
	}
	red := "update"
	if accumulate {
		red = "add"
	}
	apply, err := scatterReducer(out, values, red)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	var st [maxRank]int64
	stridesOf(ds, st[:len(ds)])
	bpos := make([]int64, len(bshape))
	for k := int64(0); k < total; k++ {
		rem := k
		for i := len(bshape) - 1; i >= 0; i-- {
			bpos[i] = rem % bshape[i]
			rem /= bshape[i]
		}
		var flat int64
		for d, t := range indices {
			s := t.Shape()
			var off, stride int64 = 0, 1
			for i := len(s) - 1; i >= 0; i-- {
				if s[i] != 1 {
					off += bpos[len(bshape)-len(s)+i] * stride
				}
				stride *= s[i]
			}
			idx, err := wrapIndex(name, elemInt(t, int(off)), ds[d])
			if err != nil {
				return err
			}
			flat += idx * st[d]
		}
		src := k
		if values.NumElements() == 1 {
			src = 0
		}
		apply(int(flat), int(src))
	}
	return nil
}

// SliceScatter copies data into out and writes src into the positions
// start, start+step, ... (< end) along axis.
func SliceScatter(out, data, src *runtime.Tensor, start, end, step, axis int64) error {
	const name = "slice_scatter"
	if err := checkRank(name, src); err != nil {
		return err
	}
	if err := scatterInit(name, out, data); err != nil {
		return err
	}
	ds, ss := data.Shape(), src.Shape()
	ax, err := normAxis(name, axis, len(ds))
	if err != nil {
		return err
	}
	if step < 1 || start < 0 || end < start || end > ds[ax] {
		return fmt.Errorf("%s: slice %d:%d:%d is invalid for an axis of size %d", name, start, end, step, ds[ax])
	}
	want := append([]int64{}, ds...)
	want[ax] = (end - start + step - 1) / step
	if !slices.Equal(ss, want) || src.DType() != data.DType() {
		return fmt.Errorf("%s: src is %s, want shape %s and dtype %s", name, src, shapeStr(want), data.DType())
	}
	eb := int64(data.DType().ElemBytes())
	inner := prod(ds[ax+1:]) * eb
	outer := prod(ds[:ax])
	ob, sb := out.Bytes(), src.Bytes()
	for o := int64(0); o < outer; o++ {
		for j := int64(0); j < want[ax]; j++ {
			d := (o*ds[ax] + start + j*step) * inner
			s := (o*want[ax] + j) * inner
			copy(ob[d:d+inner], sb[s:s+inner])
		}
	}
	return nil
}

func init() {
	register("scatter_elements", "data, indices, updates, axis (int64), reduction (string: update, add, mul, mean, min, max), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(Prefix+"scatter_elements", args)
			p.count(6)
			data, ind, upd, axis, red, out := p.tensor(0), p.tensor(1), p.tensor(2), p.int(3), p.string(4), p.tensor(5)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(ScatterElements(out, data, ind, upd, axis, red))
		})
	register("scatter_nd", "data, indices, updates, reduction (string: update, add, mul, min, max), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(Prefix+"scatter_nd", args)
			p.count(5)
			data, ind, upd, red, out := p.tensor(0), p.tensor(1), p.tensor(2), p.string(3), p.tensor(4)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(ScatterND(out, data, ind, upd, red))
		})
	register("index_put", "data, indices (Tuple of Tensors, or one Tensor), values, accumulate (bool), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(Prefix+"index_put", args)
			p.count(5)
			data, ind, vals, acc, out := p.tensor(0), p.tensors(1), p.tensor(2), p.bool(3), p.tensor(4)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(IndexPut(out, data, ind, vals, acc))
		})
	register("slice_scatter", "input, src, start (int64), end (int64), step (int64), axis (int64), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(Prefix+"slice_scatter", args)
			p.count(7)
			data, src, start, end, step, axis, out := p.tensor(0), p.tensor(1), p.int(2), p.int(3), p.int(4), p.int(5), p.tensor(6)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(SliceScatter(out, data, src, start, end, step, axis))
		})
}
