package kernels

import (
	"fmt"
	"math"

	"github.com/relaxgo/relaxgo/asm"

	"github.com/relaxgo/relaxgo/runtime"
)

// rop identifies a reduction.
type rop uint8

const (
	rSum rop = iota
	rMean
	rMax
	rMin
	rProd
	rVar
	rStd
	rArgmax
	rArgmin
	numRops
)

var ropNames = [numRops]string{
	rSum: "sum", rMean: "mean", rMax: "max", rMin: "min", rProd: "prod",
	rVar: "variance", rStd: "std", rArgmax: "argmax", rArgmin: "argmin",
}

// Sum sums x over axes (nil = all), keeping reduced dims as 1 when keepdims.
func Sum(out, x *runtime.Tensor, axes []int64, keepdims bool) error {
	return reduce(rSum, out, x, axes, keepdims)
}

// Mean averages x over axes (integer dtypes truncate).
func Mean(out, x *runtime.Tensor, axes []int64, keepdims bool) error {
	return reduce(rMean, out, x, axes, keepdims)
}

// Max takes the maximum over axes (NaN propagates).
func Max(out, x *runtime.Tensor, axes []int64, keepdims bool) error {
	return reduce(rMax, out, x, axes, keepdims)
}

// Min takes the minimum over axes (NaN propagates).
func Min(out, x *runtime.Tensor, axes []int64, keepdims bool) error {
	return reduce(rMin, out, x, axes, keepdims)
}

// Prod multiplies over axes.
func Prod(out, x *runtime.Tensor, axes []int64, keepdims bool) error {
	return reduce(rProd, out, x, axes, keepdims)
}

// Variance computes the population variance mean((x - mean(x))^2) over axes.
func Variance(out, x *runtime.Tensor, axes []int64, keepdims bool) error {
	return reduce(rVar, out, x, axes, keepdims)
}

// Std computes sqrt(Variance).
func Std(out, x *runtime.Tensor, axes []int64, keepdims bool) error {
	return reduce(rStd, out, x, axes, keepdims)
}

// Argmax gives the int64 index of the first maximum along axis (over the
// flattened tensor when hasAxis is false).
func Argmax(out, x *runtime.Tensor, axis int64, hasAxis, keepdims bool) error {
	return argReduce(rArgmax, out, x, axis, hasAxis, keepdims)
}

// Argmin gives the int64 index of the first minimum along axis.
func Argmin(out, x *runtime.Tensor, axis int64, hasAxis, keepdims bool) error {
	return argReduce(rArgmin, out, x, axis, hasAxis, keepdims)
}

func argReduce(op rop, out, x *runtime.Tensor, axis int64, hasAxis, keepdims bool) error {
	if !hasAxis {
		return reduce(op, out, x, nil, keepdims)
	}
	a := [1]int64{axis}
	return reduce(op, out, x, a[:], keepdims)
}

// reduce validates and runs a reduction.
func reduce(op rop, out, x *runtime.Tensor, axes []int64, keepdims bool) error {
	name := ropNames[op]
	if err := checkRank(name, out, x); err != nil {
		return err
	}
	nd := x.NDim()
	mask, err := axisMask(name, axes, nd)
	if err != nil {
		return err
	}
	xs := x.Shape()
	var ob [maxRank]int64
	os := ob[:0]
	for i, d := range xs {
		if mask&(1<<uint(i)) == 0 {
			os = append(os, d)
		} else if keepdims {
			os = append(os, 1)
		}
	}
	odt := x.DType()
	if op == rArgmax || op == rArgmin {
		odt = runtime.Int64
	}
	if err := checkOut(name, out, os, odt); err != nil {
		return err
	}
	// reduced count and the (outer, r, inner) structure after coalescing
	var dims, red [maxRank]int
	k := 0
	rcount := 1
	for i, d := range xs {
		isRed := mask&(1<<uint(i)) != 0
		if isRed {
			rcount *= int(d)
		}
		if d == 1 {
			continue
		}
		r := 0
		if isRed {
			r = 1
		}
		if k > 0 && red[k-1] == r {
			dims[k-1] *= int(d)
			continue
		}
		dims[k], red[k] = int(d), r
		k++
	}
	if out.NumElements() == 0 {
		return nil
	}
	if rcount == 0 {
		switch op {
		case rSum:
			return fillValue(out, 0)
		case rProd:
			return fillValue(out, 1)
		case rMean, rVar, rStd:
			return fillValue(out, math.NaN())
		}
		return fmt.Errorf("%s: reduction over an empty axis", name)
	}
	outer, inner := 1, 1
	switch {
	case k == 0 || (k == 1 && red[0] == 1):
		// everything reduced
	case k == 1:
		// nothing reduced (only size-1 axes): copy through the row reducer
		outer = dims[0]
	case k == 2 && red[0] == 0 && red[1] == 1:
		outer = dims[0]
	case (op == rSum || op == rMean || op == rMax || op == rMin || op == rProd) &&
		((k == 2 && red[0] == 1) || (k == 3 && red[0] == 0 && red[1] == 1)):
		if k == 2 {
			inner = dims[1]
		} else {
			outer, inner = dims[0], dims[2]
		}
	default:
		return reduceGeneral(op, out, x, mask)
	}
	if x.DType() == runtime.Float16 {
		return viaFloat32(out, []*runtime.Tensor{x}, func(o *runtime.Tensor, in []*runtime.Tensor) error {
			return reduce(op, o, in[0], axes, keepdims)
		})
	}
	if inner == 1 {
		return reduceRowsDispatch(op, out, x, outer, rcount)
	}
	return reduceColsDispatch(op, out, x, outer, rcount, inner)
}

// reduceGeneral moves the reduced axes last (a copy) and reduces rows.
func reduceGeneral(op rop, out, x *runtime.Tensor, mask uint32) error {
	nd := x.NDim()
	perm := make([]int64, 0, nd)
	shape := make([]int64, 0, nd)
	rcount := 1
	for i := 0; i < nd; i++ {
		if mask&(1<<uint(i)) == 0 {
			perm = append(perm, int64(i))
			shape = append(shape, x.Shape()[i])
		}
	}
	for i := 0; i < nd; i++ {
		if mask&(1<<uint(i)) != 0 {
			perm = append(perm, int64(i))
			shape = append(shape, x.Shape()[i])
			rcount *= int(x.Shape()[i])
		}
	}
	t, err := runtime.NewTensor(shape, x.DType())
	if err != nil {
		return err
	}
	if err := PermuteDims(t, x, perm); err != nil {
		return err
	}
	if x.DType() == runtime.Float16 {
		w, err := asF32Tensor(t)
		if err != nil {
			return err
		}
		o := out
		if out.DType() == runtime.Float16 {
			o, err = runtime.NewTensor(out.Shape(), runtime.Float32)
			if err != nil {
				return err
			}
		}
		if err := reduceRowsDispatch(op, o, w, int(out.NumElements()), rcount); err != nil {
			return err
		}
		if o != out {
			storeF32AsHalf(out, o)
		}
		return nil
	}
	return reduceRowsDispatch(op, out, t, int(out.NumElements()), rcount)
}

func reduceRowsDispatch(op rop, out, x *runtime.Tensor, rows, r int) error {
	if op == rArgmax || op == rArgmin {
		o := elems[int64](out)
		switch x.DType() {
		case runtime.Float32:
			argRows(op, o, elems[float32](x), rows, r)
		case runtime.Float64:
			argRows(op, o, elems[float64](x), rows, r)
		case runtime.Int8:
			argRows(op, o, elems[int8](x), rows, r)
		case runtime.Int16:
			argRows(op, o, elems[int16](x), rows, r)
		case runtime.Int32:
			argRows(op, o, elems[int32](x), rows, r)
		case runtime.Int64:
			argRows(op, o, elems[int64](x), rows, r)
		case runtime.UInt8, runtime.Bool:
			argRows(op, o, elems[uint8](x), rows, r)
		case runtime.UInt16:
			argRows(op, o, elems[uint16](x), rows, r)
		case runtime.UInt32:
			argRows(op, o, elems[uint32](x), rows, r)
		case runtime.UInt64:
			argRows(op, o, elems[uint64](x), rows, r)
		default:
			return fmt.Errorf("%s: unsupported dtype %s", ropNames[op], x.DType())
		}
		return nil
	}
	switch x.DType() {
	case runtime.Float32:
		runReduce(op, elems[float32](out), elems[float32](x), rows, r, floatRows[float32])
	case runtime.Float64:
		runReduce(op, elems[float64](out), elems[float64](x), rows, r, floatRows[float64])
	case runtime.Int8:
		runReduce(op, elems[int8](out), elems[int8](x), rows, r, intRows[int8])
	case runtime.Int16:
		runReduce(op, elems[int16](out), elems[int16](x), rows, r, intRows[int16])
	case runtime.Int32:
		runReduce(op, elems[int32](out), elems[int32](x), rows, r, intRows[int32])
	case runtime.Int64:
		runReduce(op, elems[int64](out), elems[int64](x), rows, r, intRows[int64])
	case runtime.UInt8:
		runReduce(op, elems[uint8](out), elems[uint8](x), rows, r, intRows[uint8])
	case runtime.UInt16:
		runReduce(op, elems[uint16](out), elems[uint16](x), rows, r, intRows[uint16])
	case runtime.UInt32:
		runReduce(op, elems[uint32](out), elems[uint32](x), rows, r, intRows[uint32])
	case runtime.UInt64:
		runReduce(op, elems[uint64](out), elems[uint64](x), rows, r, intRows[uint64])
	case runtime.Bool:
		if op == rMax || op == rMin || op == rProd {
			runReduce(op, elems[uint8](out), elems[uint8](x), rows, r, intRows[uint8])
			return nil
		}
		return fmt.Errorf("%s: unsupported dtype bool", ropNames[op])
	default:
		return fmt.Errorf("%s: unsupported dtype %s", ropNames[op], x.DType())
	}
	return nil
}

// runReduce reduces rows of length r, in parallel over rows when large (each
// row is reduced by one goroutine, so results do not depend on threads).
func runReduce[T any](op rop, o, x []T, rows, r int, f func(rop, []T, []T, int, int, int)) {
	if rows*r < parThreshold || rows == 1 || NumThreads() <= 1 {
		f(op, o, x, r, 0, rows)
		return
	}
	pool := poolFor[reduceJob[T]]()
	j := pool.Get()
	j.op, j.o, j.x, j.r, j.f = op, o, x, r, f
	parFor(rows, rowGrain(r), j.fn)
	j.o, j.x, j.f = nil, nil, nil
	pool.Put(j)
}

// floatRows reduces rows [lo, hi) of length r; sums accumulate in float64.
func floatRows[T floating](op rop, o, x []T, r, lo, hi int) {
	if isF32[T]() && (op == rSum || op == rMean) {
		of := as32(o)[lo:hi]
		sum32Rows(of, as32(x)[lo*r:], r, r)
		if op == rMean {
			for i, s := range of {
				of[i] = s / float32(r)
			}
		}
		return
	}
	if isF32[T]() && op == rMax {
		of, xf := as32(o), as32(x)
		for i := lo; i < hi; i++ {
			of[i] = max32(xf[i*r : (i+1)*r])
		}
		return
	}
	for i := lo; i < hi; i++ {
		row := x[i*r : (i+1)*r]
		switch op {
		case rSum, rMean:
			var s float64
			if isF32[T]() {
				s = sumF32(as32(row))
			} else {
				for _, v := range row {
					s += float64(v)
				}
			}
			if op == rMean {
				s /= float64(r)
			}
			o[i] = T(s)
		case rProd:
			p := 1.0
			for _, v := range row {
				p *= float64(v)
			}
			o[i] = T(p)
		case rMax:
			m := row[0]
			for _, v := range row[1:] {
				if v > m || v != v {
					m = v
					if v != v {
						break
					}
				}
			}
			o[i] = m
		case rMin:
			m := row[0]
			for _, v := range row[1:] {
				if v < m || v != v {
					m = v
					if v != v {
						break
					}
				}
			}
			o[i] = m
		case rVar, rStd:
			var s float64
			for _, v := range row {
				s += float64(v)
			}
			mean := s / float64(r)
			var q float64
			for _, v := range row {
				d := float64(v) - mean
				q += d * d
			}
			q /= float64(r)
			if op == rStd {
				q = math.Sqrt(q)
			}
			o[i] = T(q)
		}
	}
}

// sumF32 sums float32s in float64 with four independent accumulators.
func sumF32(x []float32) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += float64(x[i])
		s1 += float64(x[i+1])
		s2 += float64(x[i+2])
		s3 += float64(x[i+3])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// intRows reduces integer rows [lo, hi) of length r in int64 (wrapping to T).
func intRows[T integer](op rop, o, x []T, r, lo, hi int) {
	for i := lo; i < hi; i++ {
		row := x[i*r : (i+1)*r]
		switch op {
		case rSum, rMean:
			var s T
			for _, v := range row {
				s += v
			}
			if op == rMean {
				s /= T(r)
			}
			o[i] = s
		case rProd:
			p := T(1)
			for _, v := range row {
				p *= v
			}
			o[i] = p
		case rMax:
			m := row[0]
			for _, v := range row[1:] {
				m = max(m, v)
			}
			o[i] = m
		case rMin:
			m := row[0]
			for _, v := range row[1:] {
				m = min(m, v)
			}
			o[i] = m
		case rVar, rStd:
			var s float64
			for _, v := range row {
				s += float64(v)
			}
			mean := s / float64(r)
			var q float64
			for _, v := range row {
				d := float64(v) - mean
				q += d * d
			}
			q /= float64(r)
			if op == rStd {
				q = math.Sqrt(q)
			}
			o[i] = T(q)
		}
	}
}

// argRows finds the first extreme of rows [0, rows) of length r (a NaN counts
// as the extreme, as in NumPy).
func argRows[T number](op rop, o []int64, x []T, rows, r int) {
	for i := 0; i < rows; i++ {
		row := x[i*r : (i+1)*r]
		best, bi := row[0], 0
		if best == best {
			for j, v := range row[1:] {
				if v != v {
					bi = j + 1
					break
				}
				if (op == rArgmax && v > best) || (op == rArgmin && v < best) {
					best, bi = v, j+1
				}
			}
		}
		o[i] = int64(bi)
	}
}

// reduceColsDispatch reduces the middle axis of an (outer, r, inner) view.
func reduceColsDispatch(op rop, out, x *runtime.Tensor, outer, r, inner int) error {
	switch x.DType() {
	case runtime.Float32:
		colsReduce(op, elems[float32](out), elems[float32](x), outer, r, inner)
	case runtime.Float64:
		colsReduce(op, elems[float64](out), elems[float64](x), outer, r, inner)
	case runtime.Int8:
		colsReduce(op, elems[int8](out), elems[int8](x), outer, r, inner)
	case runtime.Int16:
		colsReduce(op, elems[int16](out), elems[int16](x), outer, r, inner)
	case runtime.Int32:
		colsReduce(op, elems[int32](out), elems[int32](x), outer, r, inner)
	case runtime.Int64:
		colsReduce(op, elems[int64](out), elems[int64](x), outer, r, inner)
	case runtime.UInt8:
		colsReduce(op, elems[uint8](out), elems[uint8](x), outer, r, inner)
	case runtime.UInt16:
		colsReduce(op, elems[uint16](out), elems[uint16](x), outer, r, inner)
	case runtime.UInt32:
		colsReduce(op, elems[uint32](out), elems[uint32](x), outer, r, inner)
	case runtime.UInt64:
		colsReduce(op, elems[uint64](out), elems[uint64](x), outer, r, inner)
	case runtime.Bool:
		if op == rMax || op == rMin || op == rProd {
			colsReduce(op, elems[uint8](out), elems[uint8](x), outer, r, inner)
			return nil
		}
		return fmt.Errorf("%s: unsupported dtype bool", ropNames[op])
	default:
		return fmt.Errorf("%s: unsupported dtype %s", ropNames[op], x.DType())
	}
	return nil
}

// colsReduce reduces (outer, r, inner) along r, accumulating whole rows of
// length inner into the output row (vectorizable).
func colsReduce[T number](op rop, o, x []T, outer, r, inner int) {
	for b := 0; b < outer; b++ {
		or := o[b*inner : (b+1)*inner]
		base := b * r * inner
		copy(or, x[base:base+inner])
		for k := 1; k < r; k++ {
			xr := x[base+k*inner : base+(k+1)*inner]
			switch op {
			case rSum, rMean:
				if isF32[T]() {
					asm.AddF32(as32(or), as32(or), as32(xr))
					continue
				}
				for i, v := range xr {
					or[i] += v
				}
			case rProd:
				for i, v := range xr {
					or[i] *= v
				}
			case rMax:
				for i, v := range xr {
					if v > or[i] || v != v {
						or[i] = v
					}
				}
			case rMin:
				for i, v := range xr {
					if v < or[i] || v != v {
						or[i] = v
					}
				}
			}
		}
		if op == rMean {
			d := T(r)
			for i := range or {
				or[i] /= d
			}
		}
	}
}

func init() {
	for op := rSum; op <= rStd; op++ {
		op := op
		full := Prefix + ropNames[op]
		register(ropNames[op], "x, axis (Shape or nil = all), keepdims (bool), out", func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(full, args)
			p.count(4)
			x, axes, keep, out := p.tensor(0), p.ints(1), p.bool(2), p.tensor(3)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(reduce(op, out, x, axes, keep))
		})
	}
	for _, op := range []rop{rArgmax, rArgmin} {
		op := op
		full := Prefix + ropNames[op]
		register(ropNames[op], "x, axis (int64 or nil = flattened), keepdims (bool), out (int64)", func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(full, args)
			p.count(4)
			x := p.tensor(0)
			axis, has := p.optInt(1)
			keep, out := p.bool(2), p.tensor(3)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(argReduce(op, out, x, axis, has, keep))
		})
	}
}

// Cumsum computes the inclusive (or exclusive) running sum along axis;
// hasAxis false runs over the flattened input (out is 1-D). out's dtype may
// differ from x's (Relax's dtype attribute).
func Cumsum(out, x *runtime.Tensor, axis int64, hasAxis, exclusive bool) error {
	return scan("cumsum", out, x, axis, hasAxis, exclusive, false)
}

// Cumprod is Cumsum with products.
func Cumprod(out, x *runtime.Tensor, axis int64, hasAxis, exclusive bool) error {
	return scan("cumprod", out, x, axis, hasAxis, exclusive, true)
}

func scan(name string, out, x *runtime.Tensor, axis int64, hasAxis, exclusive, isProd bool) error {
	if x == nil || out == nil {
		return fmt.Errorf("%s: nil tensor", name)
	}
	shape := x.Shape()
	ax := 0
	var flat [1]int64
	if !hasAxis {
		flat[0] = x.NumElements()
		shape = flat[:]
	} else {
		a, err := normAxis(name, axis, x.NDim())
		if err != nil {
			return err
		}
		ax = a
	}
	if err := checkOut(name, out, shape, out.DType()); err != nil {
		return err
	}
	outer, n, inner := splitAxis(shape, ax)
	isInt := !out.DType().IsFloat()
	for o := 0; o < outer; o++ {
		for j := 0; j < inner; j++ {
			acc, iacc := 0.0, int64(0)
			if isProd {
				acc, iacc = 1, 1
			}
			for k := 0; k < n; k++ {
				i := (o*n+k)*inner + j
				v, iv := elemFloat(x, i), elemInt(x, i)
				if !exclusive {
					acc, iacc = step(acc, iacc, v, iv, isProd)
				}
				if isInt {
					if err := setInt(out, i, iacc, float64(iacc)); err != nil {
						return fmt.Errorf("%s: %w", name, err)
					}
				} else {
					setFloat(out, i, acc)
				}
				if exclusive {
					acc, iacc = step(acc, iacc, v, iv, isProd)
				}
			}
		}
	}
	return nil
}

func step(acc float64, iacc int64, v float64, iv int64, isProd bool) (float64, int64) {
	if isProd {
		return acc * v, iacc * iv
	}
	return acc + v, iacc + iv
}

func init() {
	scanPacked := func(op string, isProd bool) {
		register(op, "data, axis (int64 or nil = flattened), dtype (DataType or nil; must match out), exclusive (bool), out",
			func(args []runtime.Value) (runtime.Value, error) {
				p := newArgs(Prefix+op, args)
				p.count(5)
				x := p.tensor(0)
				axis, has := p.optInt(1)
				dt, excl, out := p.dtype(2), p.bool(3), p.tensor(4)
				if p.err != nil {
					return nil, p.err
				}
				if !dt.IsVoid() && dt != out.DType() {
					return nil, fmt.Errorf("kernels.%s: output dtype is %s, want %s", op, out.DType(), dt)
				}
				return nil, wrapErr(scan(op, out, x, axis, has, excl, isProd))
			})
	}
	scanPacked("cumsum", false)
	scanPacked("cumprod", true)
}
