package kernels

import (
	"fmt"
	"unsafe"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
)

// stridedPlan builds a one-input plan for writing a contiguous output of shape
// dims whose element at multi-index i is x[base + sum(i[k]*strides[k])].
// Size-1 dims are dropped and mergeable neighbours coalesced.
func stridedPlan(dims, strides []int64) bplan {
	var p bplan
	p.n = 1
	for i := range dims {
		if dims[i] == 1 {
			continue
		}
		d, s := int(dims[i]), int(strides[i])
		if p.nd > 0 && p.st[0][p.nd-1] == s*d {
			p.dims[p.nd-1] *= d
			p.st[0][p.nd-1] = s
			continue
		}
		p.dims[p.nd] = d
		p.st[0][p.nd] = s
		p.nd++
	}
	if p.nd == 0 {
		p.nd = 1
		p.dims[0] = 1
	}
	p.inner = p.dims[p.nd-1]
	p.rows = 1
	for i := 0; i < p.nd-1; i++ {
		p.rows *= p.dims[i]
	}
	return p
}

// gatherStrided fills out (contiguous) from x following plan p and base
// offset base (in elements), dispatching on the element size.
func gatherStrided(out, x *runtime.Tensor, p *bplan, base int) error {
	if out.NumElements() == 0 {
		return nil
	}
	switch x.DType().ElemBytes() {
	case 1:
		runGather(p, base, elems[uint8](out), elems[uint8](x))
	case 2:
		runGather(p, base, elems[uint16](out), elems[uint16](x))
	case 4:
		gather32(p, base, elems[float32](out), elems[float32](x))
	case 8:
		runGather(p, base, elems[uint64](out), elems[uint64](x))
	default:
		return fmt.Errorf("unsupported element size %d", x.DType().ElemBytes())
	}
	return nil
}

// gather32 is gatherStrided for 4-byte elements, on slices: rows copied a
// block at a time (gatherBlocks32) where the plan allows, else row by row.
// It only moves bits.
func gather32(p *bplan, base int, o, x []float32) {
	if gatherBlocksOK(p, base) && !asm.OverlapF32(o, x) {
		gatherBlocks32(p, base, o, x)
		return
	}
	runGather(p, base, asUint32s(o), asUint32s(x))
}

// asUint32s is x's elements as their bits.
func asUint32s(x []float32) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

func runGather[T any](p *bplan, base int, o, x []T) {
	total := p.rows * p.inner
	if total < parThreshold || p.rows == 1 || NumThreads() <= 1 {
		gatherRows(p, base, o, x, 0, p.rows)
		return
	}
	pool := poolFor[gatherJob[T]]()
	j := pool.Get()
	j.p, j.base, j.o, j.x = *p, base, o, x
	parFor(j.p.rows, rowGrain(j.p.inner), j.fn)
	j.o, j.x = nil, nil
	pool.Put(j)
}

// gatherBlocksOK reports whether gatherBlocks32 can run plan p: rows
// contiguous in x, every stride non-negative, and small enough for one
// thread (runGather splits larger ones).
func gatherBlocksOK(p *bplan, base int) bool {
	if p.nd < 2 || p.st[0][p.nd-1] != 1 || base < 0 || (p.rows*p.inner >= parThreshold && NumThreads() > 1) {
		return false
	}
	for d := 0; d < p.nd; d++ {
		if p.st[0][d] < 0 {
			return false
		}
	}
	return true
}

// gatherBlocks32 is gatherRows for 4-byte elements with contiguous rows:
// the rows of each index of the outer dimensions but the innermost one are
// one asm.CopyBlocksF32 call (that dimension's blocks of rows), not a
// memmove a row (the rows of a head split, permute_dims(0, 2, 1, 3) of
// (1, 8, 4, 8), are 8 elements: -bench OpMisc/permute_head). It only moves
// bits, so any 4-byte type comes out unchanged.
func gatherBlocks32(p *bplan, base int, o, x []float32) {
	inner, nd := p.inner, p.nd
	rows, stride := p.dims[nd-2], p.st[0][nd-2]
	blocks, bstride, outer := 1, 0, nd-2
	if outer > 0 {
		outer--
		blocks, bstride = p.dims[outer], p.st[0][outer]
	}
	var idx [maxRank]int
	off := base
	for r := 0; r < p.rows; r += blocks * rows {
		asm.CopyBlocksF32(o[r*inner:], rows*inner, inner, x[off:], bstride, stride, blocks, rows, inner)
		// The next index of the outer dimensions (an odometer).
		for d := outer - 1; d >= 0; d-- {
			idx[d]++
			off += p.st[0][d]
			if idx[d] < p.dims[d] {
				break
			}
			off -= idx[d] * p.st[0][d]
			idx[d] = 0
		}
	}
}

// gatherRows copies output rows [lo, hi).
func gatherRows[T any](p *bplan, base int, o, x []T, lo, hi int) {
	inner := p.inner
	s := p.st[0][p.nd-1]
	var c bcur
	p.seek(&c, lo)
	for r := lo; r < hi; r++ {
		ro := o[r*inner : (r+1)*inner]
		xi := base + c.off[0]
		switch s {
		case 1:
			copy(ro, x[xi:xi+inner])
		case 0:
			v := x[xi]
			for i := range ro {
				ro[i] = v
			}
		default:
			for i := range ro {
				ro[i] = x[xi]
				xi += s
			}
		}
		p.next(&c)
	}
}

// transpose2D writes the (rows, cols) matrix x transposed into o (cols, rows)
// in cache-sized tiles.
func transpose2D[T any](o, x []T, rows, cols int) {
	const tile = 32
	for i0 := 0; i0 < rows; i0 += tile {
		i1 := min(i0+tile, rows)
		for j0 := 0; j0 < cols; j0 += tile {
			j1 := min(j0+tile, cols)
			for i := i0; i < i1; i++ {
				xr := x[i*cols : i*cols+cols]
				for j := j0; j < j1; j++ {
					o[j*rows+i] = xr[j]
				}
			}
		}
	}
}

// OneHot writes on where the last-axis (or axis) position equals the index
// and off elsewhere; out has indices' shape with depth inserted at axis.
func OneHot(out, indices *runtime.Tensor, on, off float64, depth, axis int64) error {
	const name = "one_hot"
	if indices == nil || out == nil {
		return fmt.Errorf("%s: nil tensor", name)
	}
	if indices.DType().IsFloat() {
		return fmt.Errorf("%s: indices must be integers, got %s", name, indices.DType())
	}
	nd := indices.NDim() + 1
	if axis < 0 {
		axis += int64(nd)
	}
	if axis < 0 || axis >= int64(nd) || depth < 0 {
		return fmt.Errorf("%s: invalid axis %d or depth %d", name, axis, depth)
	}
	os := make([]int64, 0, nd)
	os = append(os, indices.Shape()[:axis]...)
	os = append(os, depth)
	os = append(os, indices.Shape()[axis:]...)
	if err := checkOut(name, out, os, out.DType()); err != nil {
		return err
	}
	outer, _, inner := splitAxis(os, int(axis))
	for o := 0; o < outer; o++ {
		for d := 0; d < int(depth); d++ {
			for j := 0; j < inner; j++ {
				v := off
				if elemInt(indices, o*inner+j) == int64(d) {
					v = on
				}
				if err := setInt(out, (o*int(depth)+d)*inner+j, int64(v), v); err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
			}
		}
	}
	return nil
}

// GatherElements sets out[i...] = data[... indices[i...] at axis ...]
// (indices and out share a shape; negative indices count from the end).
func GatherElements(out, data, indices *runtime.Tensor, axis int64) error {
	const name = "gather_elements"
	if err := checkRank(name, out, data, indices); err != nil {
		return err
	}
	ax, err := normAxis(name, axis, data.NDim())
	if err != nil {
		return err
	}
	if indices.NDim() != data.NDim() || indices.DType().IsFloat() {
		return fmt.Errorf("%s: indices %s do not match data %s", name, indices, data)
	}
	if err := checkOut(name, out, indices.Shape(), data.DType()); err != nil {
		return err
	}
	ds, is := data.Shape(), indices.Shape()
	eb := data.DType().ElemBytes()
	ob, db := out.Bytes(), data.Bytes()
	n := int(indices.NumElements())
	idx := make([]int, len(is))
	for i := 0; i < n; i++ {
		k := elemInt(indices, i)
		if k < 0 {
			k += ds[ax]
		}
		if k < 0 || k >= ds[ax] {
			return fmt.Errorf("%s: index %d out of range for axis of size %d", name, elemInt(indices, i), ds[ax])
		}
		src := 0
		for d := range ds {
			v := idx[d]
			if d == ax {
				v = int(k)
			} else if int64(v) >= ds[d] {
				return fmt.Errorf("%s: indices shape %s exceeds data shape %s", name, shapeStr(is), shapeStr(ds))
			}
			src = src*int(ds[d]) + v
		}
		copy(ob[i*eb:(i+1)*eb], db[src*eb:(src+1)*eb])
		for d := len(is) - 1; d >= 0; d-- {
			idx[d]++
			if int64(idx[d]) < is[d] {
				break
			}
			idx[d] = 0
		}
	}
	return nil
}

func init() {
	register("one_hot", "indices, on_value (float64/int64 or scalar Tensor), off_value, depth (int64), axis (int64), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs("kernels.one_hot", args)
			p.count(6)
			ind, on, off, depth, axis, out := p.tensor(0), p.float(1), p.float(2), p.int(3), p.int(4), p.tensor(5)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(OneHot(out, ind, on, off, depth, axis))
		})
	register("gather_elements", "data, indices, axis (int64), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs("kernels.gather_elements", args)
		p.count(4)
		data, ind, axis, out := p.tensor(0), p.tensor(1), p.int(2), p.tensor(3)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(GatherElements(out, data, ind, axis))
	})
}
