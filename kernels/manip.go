package kernels

import (
	"fmt"
	"slices"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
)

// copyInto copies x's bytes into out (same element count and dtype), unless
// they already share storage.
func copyInto(name string, out, x *runtime.Tensor, shape []int64) error {
	if x == nil {
		return fmt.Errorf("%s: nil input", name)
	}
	if err := checkOut(name, out, shape, x.DType()); err != nil {
		return err
	}
	if out.NumElements() != x.NumElements() {
		return fmt.Errorf("%s: cannot reshape %d elements into %s", name, x.NumElements(), shapeStr(shape))
	}
	if !sameData(out, x) {
		copy(out.Bytes(), x.Bytes())
	}
	return nil
}

// Reshape copies x into out, whose shape must equal shape (which may contain
// one -1, inferred from the element count) and have as many elements as x.
// When out and x share storage nothing is copied.
func Reshape(out, x *runtime.Tensor, shape []int64) error {
	const name = "reshape"
	if x == nil || out == nil {
		return fmt.Errorf("%s: nil tensor", name)
	}
	if len(shape) > maxRank {
		return fmt.Errorf("%s: rank %d exceeds the supported maximum of %d", name, len(shape), maxRank)
	}
	var buf [maxRank]int64
	s := buf[:len(shape)]
	copy(s, shape)
	infer := -1
	known := int64(1)
	for i, d := range s {
		switch {
		case d == -1 && infer < 0:
			infer = i
		case d < 0:
			return fmt.Errorf("%s: invalid target shape %s", name, shapeStr(shape))
		default:
			known *= d
		}
	}
	n := x.NumElements()
	if infer >= 0 {
		if known == 0 || n%known != 0 {
			return fmt.Errorf("%s: cannot infer -1 in %s for %d elements", name, shapeStr(shape), n)
		}
		s[infer] = n / known
	} else if known != n {
		return fmt.Errorf("%s: target shape %s has %d elements, input %s has %d",
			name, shapeStr(shape), known, shapeStr(x.Shape()), n)
	}
	return copyInto(name, out, x, s)
}

// Flatten copies x into the 1-D out of x.NumElements() elements.
func Flatten(out, x *runtime.Tensor) error {
	if x == nil {
		return fmt.Errorf("flatten: nil input")
	}
	s := [1]int64{x.NumElements()}
	return copyInto("flatten", out, x, s[:])
}

// Squeeze removes the size-1 dims listed in axis (all size-1 dims when axis
// is nil). A listed axis whose size is not 1 is kept, as in TVM and PyTorch.
func Squeeze(out, x *runtime.Tensor, axis []int64) error {
	const name = "squeeze"
	if err := checkRank(name, x); err != nil {
		return err
	}
	nd := x.NDim()
	var mask uint32
	if axis == nil {
		for i, d := range x.Shape() {
			if d == 1 {
				mask |= 1 << uint(i)
			}
		}
	} else {
		m, err := axisMask(name, axis, nd)
		if err != nil {
			return err
		}
		for i, d := range x.Shape() {
			if m&(1<<uint(i)) != 0 && d == 1 {
				mask |= 1 << uint(i)
			}
		}
	}
	var buf [maxRank]int64
	s := buf[:0]
	for i, d := range x.Shape() {
		if mask&(1<<uint(i)) == 0 {
			s = append(s, d)
		}
	}
	return copyInto(name, out, x, s)
}

// ExpandDims inserts size-1 dims at the positions axis of the output (negative
// positions count from the output's end).
func ExpandDims(out, x *runtime.Tensor, axis []int64) error {
	const name = "expand_dims"
	if err := checkRank(name, x); err != nil {
		return err
	}
	ond := x.NDim() + len(axis)
	if ond > maxRank {
		return fmt.Errorf("%s: rank %d exceeds the supported maximum of %d", name, ond, maxRank)
	}
	mask, err := axisMask(name, axis, ond)
	if err != nil {
		return err
	}
	var buf [maxRank]int64
	s := buf[:ond]
	k := 0
	for i := range s {
		if mask&(1<<uint(i)) != 0 {
			s[i] = 1
		} else {
			s[i] = x.Shape()[k]
			k++
		}
	}
	return copyInto(name, out, x, s)
}

// PermuteDims transposes x: out.shape[i] = x.shape[axes[i]]. axes nil reverses
// the dims.
func PermuteDims(out, x *runtime.Tensor, axes []int64) error {
	const name = "permute_dims"
	if err := checkRank(name, x, out); err != nil {
		return err
	}
	nd := x.NDim()
	var pbuf [maxRank]int
	perm := pbuf[:nd]
	if axes == nil {
		for i := range perm {
			perm[i] = nd - 1 - i
		}
	} else {
		if len(axes) != nd {
			return fmt.Errorf("%s: %d axes for a rank-%d tensor", name, len(axes), nd)
		}
		var seen uint32
		for i, a := range axes {
			ax, err := normAxis(name, a, nd)
			if err != nil {
				return err
			}
			if seen&(1<<uint(ax)) != 0 {
				return fmt.Errorf("%s: axis %d repeated", name, a)
			}
			seen |= 1 << uint(ax)
			perm[i] = ax
		}
	}
	var sbuf, dbuf, stbuf [maxRank]int64
	xs := x.Shape()
	stridesOf(xs, sbuf[:nd])
	dims, st := dbuf[:nd], stbuf[:nd]
	for i, p := range perm {
		dims[i] = xs[p]
		st[i] = sbuf[p]
	}
	if err := checkOut(name, out, dims, x.DType()); err != nil {
		return err
	}
	if out.NumElements() == 0 {
		return nil
	}
	p := stridedPlan(dims, st)
	// batched 2-D transpose fast path: coalesced dims (b, r, c) with x laid out (b, c, r)
	if p.nd >= 2 && p.st[0][p.nd-1] == p.dims[p.nd-2] && p.st[0][p.nd-2] == 1 &&
		(p.nd == 2 || (p.nd == 3 && p.st[0][0] == p.dims[1]*p.dims[2])) {
		r, c := p.dims[p.nd-2], p.dims[p.nd-1]
		b := 1
		if p.nd == 3 {
			b = p.dims[0]
		}
		switch x.DType().ElemBytes() {
		case 1:
			transposeBatch(elems[uint8](out), elems[uint8](x), b, c, r)
		case 2:
			transposeBatch(elems[uint16](out), elems[uint16](x), b, c, r)
		case 4:
			transposeBatch32(elems[float32](out), elems[float32](x), b, c, r)
		case 8:
			transposeBatch(elems[uint64](out), elems[uint64](x), b, c, r)
		}
		return nil
	}
	if p.nd >= 2 && p.st[0][p.nd-2] == 1 && p.dims[p.nd-1] <= 16 && x.DType().ElemBytes() == 4 && !asm.OverlapF32(elems[float32](out), elems[float32](x)) {
		interleaveRows32(elems[float32](out), elems[float32](x), &p)
		return nil
	}
	return gatherStrided(out, x, &p, 0)
}

// interleaveRows32 runs a permutation whose coalesced output ends in (r, c)
// with c small, reading r contiguous elements from each of c rows lds
// apart and interleaving them: a pixel shuffle's (depth to space) last
// axes, NCHW to NHWC of a few channels. The general gather took 5-8 ns an
// element there. Two rows go through asm.Interleave2F32. It only moves
// bits, so any 4-byte type comes out unchanged.
func interleaveRows32(o, x []float32, p *bplan) {
	nd := p.nd
	r, c, lds := p.dims[nd-2], p.dims[nd-1], p.st[0][nd-1]
	var idx [maxRank]int
	blk := r * c
	for off := 0; off < len(o); off += blk {
		src := 0
		for d := 0; d < nd-2; d++ {
			src += idx[d] * p.st[0][d]
		}
		dst := o[off : off+blk]
		if c == 2 {
			asm.Interleave2F32(dst, x[src:src+r], x[src+lds:src+lds+r])
		} else {
			for cc := 0; cc < c; cc++ {
				row := x[src+cc*lds : src+cc*lds+r]
				for rr, v := range row {
					dst[rr*c+cc] = v
				}
			}
		}
		for d := nd - 3; d >= 0; d-- {
			if idx[d]++; idx[d] < p.dims[d] {
				break
			}
			idx[d] = 0
		}
	}
}

// transposeBatch transposes b matrices of shape (rows, cols).
func transposeBatch[T any](o, x []T, b, rows, cols int) {
	m := rows * cols
	for i := 0; i < b; i++ {
		transpose2D(o[i*m:(i+1)*m], x[i*m:(i+1)*m], rows, cols)
	}
}

// transposeBatch32 is transposeBatch for 4-byte elements: groups of eight
// rows go through asm.PackAF32's 8x8 transposes, the rest through Go
// loops. PackAF32 only moves bits, so any 4-byte type (and every NaN
// payload) comes out unchanged. The decoder's attention transposes: 2.4%
// of its profile in the generic loops.
func transposeBatch32(o, x []float32, b, rows, cols int) {
	m := rows * cols
	for i := 0; i < b; i++ {
		oi, xi := o[i*m:(i+1)*m], x[i*m:(i+1)*m]
		r := 0
		for ; r+8 <= rows; r += 8 {
			asm.PackAF32(8, oi[r:], rows, xi[r*cols:], cols, cols)
		}
		for ; r < rows; r++ {
			for c, v := range xi[r*cols : (r+1)*cols] {
				oi[c*rows+r] = v
			}
		}
	}
}

// BroadcastTo broadcasts x to shape (NumPy rules, x's rank <= len(shape)).
func BroadcastTo(out, x *runtime.Tensor, shape []int64) error {
	const name = "broadcast_to"
	if err := checkRank(name, x); err != nil {
		return err
	}
	if len(shape) > maxRank || len(shape) < x.NDim() {
		return fmt.Errorf("%s: cannot broadcast %s to %s", name, shapeStr(x.Shape()), shapeStr(shape))
	}
	if err := checkOut(name, out, shape, x.DType()); err != nil {
		return err
	}
	var sbuf, stbuf [maxRank]int64
	xs := x.Shape()
	stridesOf(xs, sbuf[:len(xs)])
	st := stbuf[:len(shape)]
	off := len(shape) - len(xs)
	for i := range shape {
		if i < off {
			continue
		}
		d := xs[i-off]
		switch {
		case d == shape[i]:
			st[i] = sbuf[i-off]
		case d == 1:
			st[i] = 0
		default:
			return fmt.Errorf("%s: cannot broadcast %s to %s", name, shapeStr(xs), shapeStr(shape))
		}
	}
	if out.NumElements() == 0 {
		return nil
	}
	p := stridedPlan(shape, st)
	return gatherStrided(out, x, &p, 0)
}

// Flip reverses x along axis.
func Flip(out, x *runtime.Tensor, axis int64) error {
	const name = "flip"
	if err := checkRank(name, x); err != nil {
		return err
	}
	ax, err := normAxis(name, axis, x.NDim())
	if err != nil {
		return err
	}
	if err := checkOut(name, out, x.Shape(), x.DType()); err != nil {
		return err
	}
	if out.NumElements() == 0 {
		return nil
	}
	var sbuf [maxRank]int64
	xs := x.Shape()
	st := sbuf[:len(xs)]
	stridesOf(xs, st)
	base := (xs[ax] - 1) * st[ax]
	st[ax] = -st[ax]
	p := stridedPlan(xs, st)
	return gatherStrided(out, x, &p, int(base))
}

// Tile repeats x reps[i] times along each dim; when len(reps) and x's rank
// differ the shorter is padded with leading 1s (NumPy's tile).
func Tile(out, x *runtime.Tensor, reps []int64) error {
	const name = "tile"
	if err := checkRank(name, x); err != nil {
		return err
	}
	nd := max(len(reps), x.NDim())
	if 2*nd > maxRank {
		return fmt.Errorf("%s: rank %d exceeds the supported maximum of %d", name, nd, maxRank/2)
	}
	var xb, rb, ob, sb, db, stb [maxRank]int64
	xs, rs := xb[:nd], rb[:nd]
	for i := range xs {
		xs[i], rs[i] = 1, 1
	}
	copy(xs[nd-x.NDim():], x.Shape())
	copy(rs[nd-len(reps):], reps)
	for _, r := range rs {
		if r < 0 {
			return fmt.Errorf("%s: negative repeat count in %s", name, shapeStr(reps))
		}
	}
	os := ob[:nd]
	for i := range os {
		os[i] = xs[i] * rs[i]
	}
	if err := checkOut(name, out, os, x.DType()); err != nil {
		return err
	}
	if out.NumElements() == 0 {
		return nil
	}
	st := sb[:nd]
	stridesOf(xs, st)
	dims, strides := db[:2*nd], stb[:2*nd]
	for i := 0; i < nd; i++ {
		dims[2*i], strides[2*i] = rs[i], 0
		dims[2*i+1], strides[2*i+1] = xs[i], st[i]
	}
	p := stridedPlan(dims, strides)
	return gatherStrided(out, x, &p, 0)
}

// Repeat repeats each element of x repeats times along axis; with hasAxis
// false x is flattened first (NumPy's repeat).
func Repeat(out, x *runtime.Tensor, repeats int64, axis int64, hasAxis bool) error {
	const name = "repeat"
	if err := checkRank(name, x); err != nil {
		return err
	}
	if repeats < 0 {
		return fmt.Errorf("%s: negative repeats %d", name, repeats)
	}
	if x.NDim()+1 > maxRank {
		return fmt.Errorf("%s: rank too large", name)
	}
	var db, sb, ob, xst [maxRank]int64
	if !hasAxis {
		n := x.NumElements()
		os := [1]int64{n * repeats}
		if err := checkOut(name, out, os[:], x.DType()); err != nil {
			return err
		}
		dims := db[:2]
		st := sb[:2]
		dims[0], dims[1] = n, repeats
		st[0], st[1] = 1, 0
		p := stridedPlan(dims, st)
		return gatherStrided(out, x, &p, 0)
	}
	ax, err := normAxis(name, axis, x.NDim())
	if err != nil {
		return err
	}
	xs := x.Shape()
	os := ob[:len(xs)]
	copy(os, xs)
	os[ax] *= repeats
	if err := checkOut(name, out, os, x.DType()); err != nil {
		return err
	}
	if out.NumElements() == 0 {
		return nil
	}
	stridesOf(xs, xst[:len(xs)])
	dims, st := db[:0], sb[:0]
	for i, d := range xs {
		dims = append(dims, d)
		st = append(st, xst[i])
		if i == ax {
			dims = append(dims, repeats)
			st = append(st, 0)
		}
	}
	p := stridedPlan(dims, st)
	return gatherStrided(out, x, &p, 0)
}

// StridedSliceAttrs are the arguments of Relax's strided_slice: per listed
// axis, a begin, end and (optional, default 1) stride, with Python slice
// semantics (negative indices count from the end, out-of-range values clamp).
type StridedSliceAttrs struct {
	Axes, Begin, End, Strides []int64
	AssumeInbound             bool
}

// StridedSlice slices x per attrs.
func StridedSlice(out, x *runtime.Tensor, attrs StridedSliceAttrs) error {
	const name = "strided_slice"
	if err := checkRank(name, x); err != nil {
		return err
	}
	nd := x.NDim()
	if len(attrs.Begin) != len(attrs.Axes) || len(attrs.End) != len(attrs.Axes) ||
		(attrs.Strides != nil && len(attrs.Strides) != len(attrs.Axes)) {
		return fmt.Errorf("%s: axes, begin, end and strides have lengths %d, %d, %d, %d",
			name, len(attrs.Axes), len(attrs.Begin), len(attrs.End), len(attrs.Strides))
	}
	xs := x.Shape()
	var stb, ob, db [maxRank]int64
	st := stb[:nd]
	stridesOf(xs, st)
	os, dst := ob[:nd], db[:nd]
	copy(os, xs)
	copy(dst, st)
	base := int64(0)
	var seen uint32
	for k, a := range attrs.Axes {
		ax, err := normAxis(name, a, nd)
		if err != nil {
			return err
		}
		if seen&(1<<uint(ax)) != 0 {
			return fmt.Errorf("%s: axis %d repeated", name, a)
		}
		seen |= 1 << uint(ax)
		step := int64(1)
		if attrs.Strides != nil {
			step = attrs.Strides[k]
		}
		if step == 0 {
			return fmt.Errorf("%s: stride 0 on axis %d", name, a)
		}
		n := xs[ax]
		b := canonIndex(attrs.Begin[k], n, step)
		e := canonIndex(attrs.End[k], n, step)
		var cnt int64
		if step > 0 && e > b {
			cnt = (e - b + step - 1) / step
		} else if step < 0 && b > e {
			cnt = (b - e + (-step) - 1) / (-step)
		}
		os[ax] = cnt
		if cnt > 0 {
			base += b * st[ax]
		}
		dst[ax] = st[ax] * step
	}
	if err := checkOut(name, out, os, x.DType()); err != nil {
		return err
	}
	if out.NumElements() == 0 {
		return nil
	}
	p := stridedPlan(os, dst)
	return gatherStrided(out, x, &p, int(base))
}

// canonIndex applies Python slice clamping for extent n and step's sign.
func canonIndex(i, n, step int64) int64 {
	if i < 0 {
		i += n
	}
	lo, hi := int64(0), n
	if step < 0 {
		lo, hi = -1, n-1
	}
	if i < lo {
		i = lo
	}
	if i > hi {
		i = hi
	}
	return i
}

// Concat joins xs along axis; hasAxis false flattens every input first.
func Concat(out *runtime.Tensor, xs []*runtime.Tensor, axis int64, hasAxis bool) error {
	const name = "concat"
	if len(xs) == 0 {
		return fmt.Errorf("%s: no inputs", name)
	}
	if err := checkRank(name, xs...); err != nil {
		return err
	}
	dt := xs[0].DType()
	if !hasAxis {
		var total int64
		for _, t := range xs {
			if t.DType() != dt {
				return fmt.Errorf("%s: input dtypes differ: %s and %s", name, dt, t.DType())
			}
			total += t.NumElements()
		}
		s := [1]int64{total}
		if err := checkOut(name, out, s[:], dt); err != nil {
			return err
		}
		ob := out.Bytes()
		off := 0
		for _, t := range xs {
			off += copy(ob[off:], t.Bytes())
		}
		return nil
	}
	first := xs[0].Shape()
	nd := len(first)
	ax, err := normAxis(name, axis, nd)
	if err != nil {
		return err
	}
	var ob [maxRank]int64
	os := ob[:nd]
	copy(os, first)
	os[ax] = 0
	for i, t := range xs {
		if t.DType() != dt {
			return fmt.Errorf("%s: input dtypes differ: %s and %s", name, dt, t.DType())
		}
		s := t.Shape()
		if len(s) != nd {
			return fmt.Errorf("%s: input %d has rank %d, want %d", name, i, len(s), nd)
		}
		for k := range s {
			if k != ax && s[k] != first[k] {
				return fmt.Errorf("%s: input %d has shape %s, incompatible with %s off axis %d",
					name, i, shapeStr(s), shapeStr(first), ax)
			}
		}
		os[ax] += s[ax]
	}
	if err := checkOut(name, out, os, dt); err != nil {
		return err
	}
	eb := int64(dt.ElemBytes())
	outer, _, inner := splitAxis(os, ax)
	ob2 := out.Bytes()
	rowOut := os[ax] * int64(inner) * eb
	off := int64(0)
	for _, t := range xs {
		chunk := t.Shape()[ax] * int64(inner) * eb
		tb := t.Bytes()
		for o := 0; o < outer; o++ {
			copy(ob2[int64(o)*rowOut+off:], tb[int64(o)*chunk:int64(o+1)*chunk])
		}
		off += chunk
	}
	return nil
}

// Stack joins same-shaped xs along a new axis.
func Stack(out *runtime.Tensor, xs []*runtime.Tensor, axis int64) error {
	const name = "stack"
	if len(xs) == 0 {
		return fmt.Errorf("%s: no inputs", name)
	}
	if err := checkRank(name, xs...); err != nil {
		return err
	}
	first := xs[0].Shape()
	dt := xs[0].DType()
	nd := len(first) + 1
	if nd > maxRank {
		return fmt.Errorf("%s: rank too large", name)
	}
	ax, err := normAxis(name, axis, nd)
	if err != nil {
		return err
	}
	for i, t := range xs {
		if t.DType() != dt || !slices.Equal(t.Shape(), first) {
			return fmt.Errorf("%s: input %d is %s, want %s", name, i, t, xs[0])
		}
	}
	var ob [maxRank]int64
	os := ob[:0]
	os = append(os, first[:ax]...)
	os = append(os, int64(len(xs)))
	os = append(os, first[ax:]...)
	if err := checkOut(name, out, os, dt); err != nil {
		return err
	}
	eb := int64(dt.ElemBytes())
	outer := prod(first[:ax])
	chunk := prod(first[ax:]) * eb
	o := out.Bytes()
	for b := int64(0); b < outer; b++ {
		for k, t := range xs {
			copy(o[(b*int64(len(xs))+int64(k))*chunk:], t.Bytes()[b*chunk:(b+1)*chunk])
		}
	}
	return nil
}

// Split divides x along axis into len(outs) pieces: with sections > 0, pieces
// of ceil(n/sections) (the last one shorter); otherwise at the split points
// indices (Python slicing, clamped).
func Split(outs []*runtime.Tensor, x *runtime.Tensor, sections int64, indices []int64, axis int64) error {
	const name = "split"
	if err := checkRank(name, x); err != nil {
		return err
	}
	ax, err := normAxis(name, axis, x.NDim())
	if err != nil {
		return err
	}
	xs := x.Shape()
	n := xs[ax]
	var bb [17]int64 // bounds of up to 16 pieces without allocating
	bounds := bb[:0]
	if sections > 0 {
		if sections != int64(len(outs)) {
			return fmt.Errorf("%s: %d outputs for %d sections", name, len(outs), sections)
		}
		size := (n + sections - 1) / sections
		for i := int64(0); i < sections; i++ {
			bounds = append(bounds, min(i*size, n))
		}
		bounds = append(bounds, n)
	} else {
		if sections < 0 {
			return fmt.Errorf("%s: invalid sections %d", name, sections)
		}
		bounds = append(bounds, 0)
		for _, i := range indices {
			bounds = append(bounds, max(canonIndex(i, n, 1), bounds[len(bounds)-1]))
		}
		bounds = append(bounds, n)
	}
	if len(outs) != len(bounds)-1 {
		return fmt.Errorf("%s: %d outputs for %d pieces", name, len(outs), len(bounds)-1)
	}
	outer, _, inner := splitAxis(xs, ax)
	eb := int64(x.DType().ElemBytes())
	xb := x.Bytes()
	var sb [maxRank]int64
	shape := sb[:len(xs)]
	copy(shape, xs)
	for k, o := range outs {
		lo, hi := bounds[k], bounds[k+1]
		shape[ax] = hi - lo
		if err := checkOut(name, o, shape, x.DType()); err != nil {
			return fmt.Errorf("%w (output %d)", err, k)
		}
		ob := o.Bytes()
		chunk := (hi - lo) * int64(inner) * eb
		row := n * int64(inner) * eb
		for b := int64(0); b < int64(outer); b++ {
			src := b*row + lo*int64(inner)*eb
			copy(ob[b*chunk:(b+1)*chunk], xb[src:src+chunk])
		}
	}
	return nil
}

// Take gathers slices of x along axis at indices (int32 or int64). mode is
// "fast" (in-range indices; negative ones count from the end; out of range is
// an error), "clip" (clamp) or "wrap" (modulo). hasAxis false flattens x.
func Take(out, x, indices *runtime.Tensor, axis int64, hasAxis bool, mode string) error {
	const name = "take"
	if err := checkRank(name, x, indices); err != nil {
		return err
	}
	if indices.DType().IsFloat() || indices.DType().IsBool() {
		return fmt.Errorf("%s: indices must be integers, got %s", name, indices.DType())
	}
	xs := x.Shape()
	var flat [1]int64
	ax := 0
	if !hasAxis {
		flat[0] = x.NumElements()
		xs = flat[:]
	} else {
		a, err := normAxis(name, axis, x.NDim())
		if err != nil {
			return err
		}
		ax = a
	}
	if len(xs)-1+indices.NDim() > maxRank {
		return fmt.Errorf("%s: output rank too large", name)
	}
	var ob [maxRank]int64
	os := ob[:0]
	os = append(os, xs[:ax]...)
	os = append(os, indices.Shape()...)
	os = append(os, xs[ax+1:]...)
	if err := checkOut(name, out, os, x.DType()); err != nil {
		return err
	}
	outer, n, inner := splitAxis(xs, ax)
	ni := int(indices.NumElements())
	eb := x.DType().ElemBytes()
	chunk := inner * eb
	xb, o := x.Bytes(), out.Bytes()
	for j := 0; j < ni; j++ {
		idx := elemInt(indices, j)
		switch mode {
		case "clip":
			idx = max(0, min(idx, int64(n)-1))
		case "wrap":
			if n > 0 {
				idx %= int64(n)
				if idx < 0 {
					idx += int64(n)
				}
			}
		case "fast", "":
			if idx < 0 {
				idx += int64(n)
			}
		default:
			return fmt.Errorf("%s: unknown mode %q", name, mode)
		}
		if idx < 0 || idx >= int64(n) {
			return fmt.Errorf("%s: index %d out of range for axis of size %d", name, elemInt(indices, j), n)
		}
		for b := 0; b < outer; b++ {
			src := (b*n + int(idx)) * chunk
			dst := (b*ni + j) * chunk
			copy(o[dst:dst+chunk], xb[src:src+chunk])
		}
	}
	return nil
}

func init() {
	registerWithInts("reshape", "x, shape (Shape), out", Reshape)
	registerUnary("flatten", "x, out", Flatten)
	registerWithInts("squeeze", "x, axis (Shape or nil), out", Squeeze)
	registerWithInts("expand_dims", "x, axis (Shape or int64), out", ExpandDims)
	registerWithInts("permute_dims", "x, axes (Shape or nil = reverse), out", PermuteDims)
	registerWithInts("broadcast_to", "x, shape (Shape), out", BroadcastTo)
	register("flip", "data, axis (int64), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs("kernels.flip", args)
		p.count(3)
		x, axis, out := p.tensor(0), p.int(1), p.tensor(2)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(Flip(out, x, axis))
	})
	registerWithInts("tile", "data, repeats (Shape), out", Tile)
	register("repeat", "data, repeats (int64), axis (int64 or nil = flatten), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs("kernels.repeat", args)
		p.count(4)
		x, reps := p.tensor(0), p.int(1)
		axis, has := p.optInt(2)
		out := p.tensor(3)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(Repeat(out, x, reps, axis, has))
	})
	register("strided_slice", "x, axes (Shape), begin (Shape), end (Shape), strides (Shape or nil = ones), assume_inbound (bool), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs("kernels.strided_slice", args)
			if len(args) != 6 && len(args) != 7 {
				p.fail("want 6 or 7 arguments, got %d", len(args))
				return nil, p.err
			}
			a := StridedSliceAttrs{Axes: p.ints(1), Begin: p.ints(2), End: p.ints(3), Strides: p.ints(4)}
			if len(args) == 7 {
				a.AssumeInbound = p.bool(5)
			}
			x, out := p.tensor(0), p.tensor(len(args)-1)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(StridedSlice(out, x, a))
		})
	register("concat", "tensors (a Tuple, or the tensors themselves), axis (int64 or nil = flatten), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs("kernels.concat", args)
		var buf [16]*runtime.Tensor
		xs := p.tensorList(buf[:0])
		axis, has := p.optInt(len(args) - 2)
		out := p.tensor(len(args) - 1)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(Concat(out, xs, axis, has))
	})
	register("stack", "tensors (a Tuple, or the tensors themselves), axis (int64), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs("kernels.stack", args)
		var buf [16]*runtime.Tensor
		xs := p.tensorList(buf[:0])
		axis := int64(0)
		if a, ok := p.optInt(len(args) - 2); ok {
			axis = a
		}
		out := p.tensor(len(args) - 1)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(Stack(out, xs, axis))
	})
	register("split", "x, indices_or_sections (int64 sections or Shape of indices), axis (int64), out0, out1, ... (or one Tuple of outputs)",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs("kernels.split", args)
			if !p.atLeast(4) {
				return nil, p.err
			}
			x := p.tensor(0)
			var sections int64
			var indices []int64
			switch v := args[1].(type) {
			case runtime.Shape, []int64, runtime.Tuple:
				indices = p.ints(1)
				if indices == nil {
					indices = []int64{}
				}
			default:
				_ = v
				sections = p.int(1)
				if p.err == nil && sections <= 0 {
					p.fail("sections must be positive, got %d", sections)
				}
			}
			axis := p.int(2)
			var ob [16]*runtime.Tensor
			var outs []*runtime.Tensor
			if len(args) == 4 {
				outs = p.tensorsInto(3, ob[:0])
			} else {
				outs = ob[:0]
				for i := 3; i < len(args); i++ {
					outs = append(outs, p.tensor(i))
				}
			}
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(Split(outs, x, sections, indices, axis))
		})
	register("take", "x, indices, axis (int64 or nil = flatten), mode (string: fast, clip, wrap), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs("kernels.take", args)
			if len(args) != 4 && len(args) != 5 {
				p.fail("want 4 or 5 arguments, got %d", len(args))
				return nil, p.err
			}
			x, ind := p.tensor(0), p.tensor(1)
			axis, has := p.optInt(2)
			mode := "fast"
			if len(args) == 5 {
				mode = p.string(3)
			}
			out := p.tensor(len(args) - 1)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(Take(out, x, ind, axis, has, mode))
		})
}
