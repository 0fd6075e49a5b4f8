package kernels

import (
	"fmt"
	"math"

	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/runtime/half"
)

// fillValue sets every element of t to v (converted to t's dtype).
func fillValue(t *runtime.Tensor, v float64) error {
	var w uint64
	if err := scalarBits(t.DType(), v, &w); err != nil {
		return err
	}
	switch t.DType().ElemBytes() {
	case 1:
		fillSlice(elems[uint8](t), uint8(w))
	case 2:
		fillSlice(elems[uint16](t), uint16(w))
	case 4:
		fillSlice(elems[uint32](t), uint32(w))
	default:
		fillSlice(elems[uint64](t), w)
	}
	return nil
}

func fillSlice[T any](s []T, v T) {
	for i := range s {
		s[i] = v
	}
}

// fillFrom fills t with the value v: a scalar tensor (copied with dtype
// conversion, exactly for integers) or a float64/int64.
func fillFrom(name string, t *runtime.Tensor, v runtime.Value) error {
	if ft, ok := v.(*runtime.Tensor); ok && ft != nil {
		if ft.NumElements() != 1 {
			return fmt.Errorf("%s: fill value must be a scalar, got %s", name, ft)
		}
		if t.NumElements() == 0 {
			return nil
		}
		if !ft.DType().IsFloat() && !t.DType().IsFloat() {
			iv := elemInt(ft, 0)
			if t.DType() == runtime.Int64 {
				fillSlice(elems[int64](t), iv)
				return nil
			}
			return fillValue(t, float64(iv))
		}
		return fillValue(t, elemFloat(ft, 0))
	}
	if iv, ok := v.(int64); ok && t.DType() == runtime.Int64 {
		fillSlice(elems[int64](t), iv)
		return nil
	}
	f, ok := toFloat(v)
	if !ok {
		return fmt.Errorf("%s: fill value must be a number or scalar tensor, got %s", name, runtime.TypeName(v))
	}
	if err := fillValue(t, f); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// Full fills out (shape and dtype as allocated, checked against shape) with
// value: a scalar tensor, float64 or int64.
func Full(out *runtime.Tensor, shape []int64, value runtime.Value) error {
	if err := checkOut("full", out, shape, out.DType()); err != nil {
		return err
	}
	return fillFrom("full", out, value)
}

// Zeros fills out with 0 after checking it has shape.
func Zeros(out *runtime.Tensor, shape []int64) error {
	if err := checkOut("zeros", out, shape, out.DType()); err != nil {
		return err
	}
	clear(out.Bytes())
	return nil
}

// Ones fills out with 1 after checking it has shape.
func Ones(out *runtime.Tensor, shape []int64) error {
	if err := checkOut("ones", out, shape, out.DType()); err != nil {
		return err
	}
	return fillValue(out, 1)
}

// checkLike verifies out has x's shape and dtype dt (x's dtype when dt is void).
func checkLike(name string, out, x *runtime.Tensor, dt runtime.DataType) error {
	if x == nil {
		return fmt.Errorf("%s: nil input", name)
	}
	if dt.IsVoid() {
		dt = x.DType()
	}
	return checkOut(name, out, x.Shape(), dt)
}

// Arange fills the 1-D out with start, start+step, ... below end (above end
// for negative steps). Integer dtypes are computed exactly in int64.
func Arange(out *runtime.Tensor, start, end, step float64) error {
	const name = "arange"
	if step == 0 {
		return fmt.Errorf("%s: step is zero", name)
	}
	n := int64(math.Ceil((end - start) / step))
	if n < 0 {
		n = 0
	}
	s := [1]int64{n}
	if err := checkOut(name, out, s[:], out.DType()); err != nil {
		return err
	}
	dt := out.DType()
	switch {
	case dt == runtime.Float32:
		o := elems[float32](out)
		for i := range o {
			o[i] = float32(start + float64(i)*step)
		}
	case dt == runtime.Float64:
		o := elems[float64](out)
		for i := range o {
			o[i] = start + float64(i)*step
		}
	default:
		for i := 0; i < int(n); i++ {
			if err := setInt(out, i, int64(start)+int64(i)*int64(step), start+float64(i)*step); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	return nil
}

// setInt stores an integer (or, for float dtypes, f) into element k.
func setInt(t *runtime.Tensor, k int, v int64, f float64) error {
	switch t.DType() {
	case runtime.Int8:
		elems[int8](t)[k] = int8(v)
	case runtime.Int16:
		elems[int16](t)[k] = int16(v)
	case runtime.Int32:
		elems[int32](t)[k] = int32(v)
	case runtime.Int64:
		elems[int64](t)[k] = v
	case runtime.UInt8:
		elems[uint8](t)[k] = uint8(v)
	case runtime.UInt16:
		elems[uint16](t)[k] = uint16(v)
	case runtime.UInt32:
		elems[uint32](t)[k] = uint32(v)
	case runtime.UInt64:
		elems[uint64](t)[k] = uint64(v)
	case runtime.Bool:
		elems[bool](t)[k] = v != 0
	case runtime.Float16, runtime.Float32, runtime.Float64:
		setFloat(t, k, f)
	default:
		return fmt.Errorf("unsupported dtype %s", t.DType())
	}
	return nil
}

// Tril copies x into out keeping elements with col <= row + k in the last two
// dims and zeroing the rest.
func Tril(out, x *runtime.Tensor, k int64) error { return trilu("tril", out, x, k, true) }

// Triu copies x into out keeping elements with col >= row + k in the last two
// dims and zeroing the rest.
func Triu(out, x *runtime.Tensor, k int64) error { return trilu("triu", out, x, k, false) }

func trilu(name string, out, x *runtime.Tensor, k int64, lower bool) error {
	if x == nil {
		return fmt.Errorf("%s: nil input", name)
	}
	if x.NDim() < 2 {
		return fmt.Errorf("%s: input must have at least 2 dims, got %s", name, shapeStr(x.Shape()))
	}
	if err := checkOut(name, out, x.Shape(), x.DType()); err != nil {
		return err
	}
	s := x.Shape()
	rows, cols := s[len(s)-2], s[len(s)-1]
	eb := int64(x.DType().ElemBytes())
	if !sameData(out, x) {
		copy(out.Bytes(), x.Bytes())
	}
	o := out.Bytes()
	mats := x.NumElements() / max(rows*cols, 1)
	if rows*cols == 0 {
		return nil
	}
	for m := int64(0); m < mats; m++ {
		for i := int64(0); i < rows; i++ {
			row := o[(m*rows+i)*cols*eb : (m*rows+i+1)*cols*eb]
			// keep [lo, hi) columns
			var lo, hi int64
			if lower {
				lo, hi = 0, min(max(i+k+1, 0), cols)
			} else {
				lo, hi = min(max(i+k, 0), cols), cols
			}
			clear(row[:lo*eb])
			clear(row[hi*eb:])
		}
	}
	return nil
}

// Astype converts x elementwise into out's dtype (float to int truncates;
// to bool is x != 0; float16 goes through float32).
func Astype(out, x *runtime.Tensor) error {
	const name = "astype"
	if x == nil || out == nil {
		return fmt.Errorf("%s: nil tensor", name)
	}
	if err := checkOut(name, out, x.Shape(), out.DType()); err != nil {
		return err
	}
	if out.DType() == x.DType() {
		if !sameData(out, x) {
			copy(out.Bytes(), x.Bytes())
		}
		return nil
	}
	var err error
	switch x.DType() {
	case runtime.Float32:
		err = castFrom(out, elems[float32](x))
	case runtime.Float64:
		err = castFrom(out, elems[float64](x))
	case runtime.Float16:
		err = castFrom(out, widen(x))
	case runtime.Int8:
		err = castFrom(out, elems[int8](x))
	case runtime.Int16:
		err = castFrom(out, elems[int16](x))
	case runtime.Int32:
		err = castFrom(out, elems[int32](x))
	case runtime.Int64:
		err = castFrom(out, elems[int64](x))
	case runtime.UInt8, runtime.Bool:
		err = castFrom(out, elems[uint8](x))
	case runtime.UInt16:
		err = castFrom(out, elems[uint16](x))
	case runtime.UInt32:
		err = castFrom(out, elems[uint32](x))
	case runtime.UInt64:
		err = castFrom(out, elems[uint64](x))
	default:
		err = fmt.Errorf("unsupported input dtype %s", x.DType())
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func castFrom[S number](out *runtime.Tensor, x []S) error {
	switch out.DType() {
	case runtime.Float32:
		castSlice(elems[float32](out), x)
	case runtime.Float64:
		castSlice(elems[float64](out), x)
	case runtime.Float16:
		o := elems[uint16](out)
		for i, v := range x {
			o[i] = half.Float64ToFloat16(float64(v))
		}
	case runtime.Int8:
		castSlice(elems[int8](out), x)
	case runtime.Int16:
		castSlice(elems[int16](out), x)
	case runtime.Int32:
		castSlice(elems[int32](out), x)
	case runtime.Int64:
		castSlice(elems[int64](out), x)
	case runtime.UInt8:
		castSlice(elems[uint8](out), x)
	case runtime.UInt16:
		castSlice(elems[uint16](out), x)
	case runtime.UInt32:
		castSlice(elems[uint32](out), x)
	case runtime.UInt64:
		castSlice(elems[uint64](out), x)
	case runtime.Bool:
		o := elems[bool](out)
		for i, v := range x {
			o[i] = v != 0
		}
	default:
		return fmt.Errorf("unsupported output dtype %s", out.DType())
	}
	return nil
}

func castSlice[D, S number](o []D, x []S) {
	x = x[:len(o)]
	for i, v := range x {
		o[i] = D(v)
	}
}

func init() {
	register("zeros", "shape (Shape), dtype (DataType), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs("kernels.zeros", args)
		p.count(3)
		shape, dt, out := p.ints(0), p.dtype(1), p.tensor(2)
		if p.err != nil {
			return nil, p.err
		}
		if err := checkOut("zeros", out, shape, dt); err != nil {
			return nil, wrapErr(err)
		}
		return nil, wrapErr(Zeros(out, shape))
	})
	register("ones", "shape (Shape), dtype (DataType), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs("kernels.ones", args)
		p.count(3)
		shape, dt, out := p.ints(0), p.dtype(1), p.tensor(2)
		if p.err != nil {
			return nil, p.err
		}
		if err := checkOut("ones", out, shape, dt); err != nil {
			return nil, wrapErr(err)
		}
		return nil, wrapErr(Ones(out, shape))
	})
	register("full", "shape (Shape), fill_value (scalar Tensor, float64 or int64), dtype (DataType or nil), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs("kernels.full", args)
			p.count(4)
			shape, dt, out := p.ints(0), p.dtype(2), p.tensor(3)
			if p.err != nil {
				return nil, p.err
			}
			if !dt.IsVoid() && out.DType() != dt {
				return nil, fmt.Errorf("kernels.full: output dtype is %s, want %s", out.DType(), dt)
			}
			return nil, wrapErr(Full(out, shape, args[1]))
		})
	likeOp := func(op string, fill float64) {
		register(op, "x, dtype (DataType or nil = x's), out", func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(Prefix+op, args)
			p.count(3)
			x, dt, out := p.tensor(0), p.dtype(1), p.tensor(2)
			if p.err != nil {
				return nil, p.err
			}
			if err := checkLike(op, out, x, dt); err != nil {
				return nil, wrapErr(err)
			}
			return nil, wrapErr(fillValue(out, fill))
		})
	}
	likeOp("zeros_like", 0)
	likeOp("ones_like", 1)
	register("full_like", "x, fill_value (scalar Tensor, float64 or int64), dtype (DataType or nil = x's), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs("kernels.full_like", args)
			p.count(4)
			x, dt, out := p.tensor(0), p.dtype(2), p.tensor(3)
			if p.err != nil {
				return nil, p.err
			}
			if err := checkLike("full_like", out, x, dt); err != nil {
				return nil, wrapErr(err)
			}
			return nil, wrapErr(fillFrom("full_like", out, args[1]))
		})
	register("arange", "start, end, step (int64 or float64 each), dtype (DataType or nil), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs("kernels.arange", args)
			p.count(5)
			start, end, step, dt, out := p.float(0), p.float(1), p.float(2), p.dtype(3), p.tensor(4)
			if p.err != nil {
				return nil, p.err
			}
			if !dt.IsVoid() && out.DType() != dt {
				return nil, fmt.Errorf("kernels.arange: output dtype is %s, want %s", out.DType(), dt)
			}
			return nil, wrapErr(Arange(out, start, end, step))
		})
	register("tril", "x, k (int64), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs("kernels.tril", args)
		p.count(3)
		x, k, out := p.tensor(0), p.int(1), p.tensor(2)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(Tril(out, x, k))
	})
	register("triu", "x, k (int64), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs("kernels.triu", args)
		p.count(3)
		x, k, out := p.tensor(0), p.int(1), p.tensor(2)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(Triu(out, x, k))
	})
	register("astype", "x, dtype (DataType), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs("kernels.astype", args)
		p.count(3)
		x, dt, out := p.tensor(0), p.dtype(1), p.tensor(2)
		if p.err != nil {
			return nil, p.err
		}
		if out.DType() != dt {
			return nil, fmt.Errorf("kernels.astype: output dtype is %s, want %s", out.DType(), dt)
		}
		return nil, wrapErr(Astype(out, x))
	})
}
