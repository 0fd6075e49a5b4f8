package kernels

import (
	"fmt"
	"math"

	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/runtime/half"
)

// qparamIndex returns, for every element of data, a function giving the
// element of a quantization parameter to use: element 0 for a per-tensor
// parameter (scalar or every dim 1), the element at the channel index along
// axis for a per-channel (1-D) parameter.
func qparamIndex(name string, p *runtime.Tensor, shape []int64, axis int) (per bool, err error) {
	if p.NumElements() == 1 {
		return false, nil
	}
	if p.NDim() != 1 || len(shape) == 0 || p.Shape()[0] != shape[axis] {
		return false, fmt.Errorf("%s: parameter of shape %s does not match data %s at axis %d",
			name, shapeStr(p.Shape()), shapeStr(shape), axis)
	}
	return true, nil
}

// qdqSetup validates a quantize/dequantize call and returns the normalized
// axis, the stride of that axis and whether scale and zero_point are per-channel.
func qdqSetup(name string, out, data, scale, zp *runtime.Tensor, axis int64, outDT runtime.DataType) (inner, size int64, ps, pz bool, err error) {
	if err = checkRank(name, out, data, scale, zp); err != nil {
		return
	}
	if err = checkOut(name, out, data.Shape(), outDT); err != nil {
		return
	}
	shape := data.Shape()
	ax := 0
	if len(shape) > 0 {
		if ax, err = normAxis(name, axis, len(shape)); err != nil {
			return
		}
	}
	if ps, err = qparamIndex(name, scale, shape, ax); err != nil {
		return
	}
	if pz, err = qparamIndex(name, zp, shape, ax); err != nil {
		return
	}
	inner, size = 1, 1
	if len(shape) > 0 {
		inner = prod(shape[ax+1:])
		size = shape[ax]
	}
	return
}

// intRange is the range of an integer dtype.
func intRange(dt runtime.DataType) (lo, hi float64, ok bool) {
	switch dt {
	case runtime.Int8:
		return math.MinInt8, math.MaxInt8, true
	case runtime.UInt8:
		return 0, math.MaxUint8, true
	case runtime.Int16:
		return math.MinInt16, math.MaxInt16, true
	case runtime.UInt16:
		return 0, math.MaxUint16, true
	case runtime.Int32:
		return math.MinInt32, math.MaxInt32, true
	}
	return 0, 0, false
}

// Quantize computes out = clip(round(data / scale) + zero_point, min, max) in
// out's integer dtype (Relax quantize, as TVM legalizes it): the division is
// float32 (rounded to float16 when data and scale are both float16, as is the
// addition of the zero point then), round is to nearest even, and scale and
// zero_point are per-tensor or per-channel along axis.
func Quantize(out, data, scale, zp *runtime.Tensor, axis int64) error {
	const name = "quantize"
	if out == nil {
		return fmt.Errorf("%s: output tensor is nil", name)
	}
	lo, hi, ok := intRange(out.DType())
	if !ok || out.DType() == runtime.Int32 {
		return fmt.Errorf("%s: unsupported out_dtype %s", name, out.DType())
	}
	if data == nil || !isDT(data.DType(), runtime.Float32, runtime.Float16) {
		return fmt.Errorf("%s: input must be float32 or float16", name)
	}
	if scale == nil || !isDT(scale.DType(), runtime.Float32, runtime.Float16) {
		return fmt.Errorf("%s: scale must be float32 or float16", name)
	}
	inner, size, ps, pz, err := qdqSetup(name, out, data, scale, zp, axis, out.DType())
	if err != nil {
		return err
	}
	f16 := data.DType() == runtime.Float16 && scale.DType() == runtime.Float16
	n := int(data.NumElements())
	for i := 0; i < n; i++ {
		c := int((int64(i) / inner) % size)
		si, zi := 0, 0
		if ps {
			si = c
		}
		if pz {
			zi = c
		}
		v := float32(elemFloat(data, i)) / float32(elemFloat(scale, si))
		if f16 {
			v = half.RoundFloat16(v)
		}
		v = float32(math.RoundToEven(float64(v))) + float32(elemFloat(zp, zi))
		if f16 {
			v = half.RoundFloat16(v)
		}
		r := min(max(float64(v), lo), hi)
		if math.IsNaN(r) {
			r = 0
		}
		if err := setInt(out, i, int64(r), r); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// Dequantize computes out = (data - zero_point) * scale (Relax dequantize, as
// TVM legalizes it): the subtraction is int32 for integer data (float32 for
// float data), the product float32, clipped to ±65504 for a float16 output;
// scale and zero_point are per-tensor or per-channel along axis.
func Dequantize(out, data, scale, zp *runtime.Tensor, axis int64) error {
	const name = "dequantize"
	if out == nil || !isDT(out.DType(), runtime.Float32, runtime.Float16) {
		return fmt.Errorf("%s: out_dtype must be float32 or float16", name)
	}
	if data == nil {
		return fmt.Errorf("%s: nil input", name)
	}
	if _, _, ok := intRange(data.DType()); !ok && !isDT(data.DType(), runtime.Float32, runtime.Float16) {
		return fmt.Errorf("%s: unsupported input dtype %s", name, data.DType())
	}
	if scale == nil || !isDT(scale.DType(), runtime.Float32, runtime.Float16) {
		return fmt.Errorf("%s: scale must be float32 or float16", name)
	}
	inner, size, ps, pz, err := qdqSetup(name, out, data, scale, zp, axis, out.DType())
	if err != nil {
		return err
	}
	intSub := !data.DType().IsFloat() && !zp.DType().IsFloat()
	n := int(data.NumElements())
	for i := 0; i < n; i++ {
		c := int((int64(i) / inner) % size)
		si, zi := 0, 0
		if ps {
			si = c
		}
		if pz {
			zi = c
		}
		var sub float32
		if intSub {
			sub = float32(int32(elemInt(data, i) - elemInt(zp, zi)))
		} else {
			sub = float32(elemFloat(data, i)) - float32(elemFloat(zp, zi))
		}
		v := sub * float32(elemFloat(scale, si))
		if out.DType() == runtime.Float16 {
			v = min(max(v, -65504), 65504)
		}
		setFloat(out, i, float64(v))
	}
	return nil
}

func isDT(d runtime.DataType, set ...runtime.DataType) bool {
	for _, s := range set {
		if d == s {
			return true
		}
	}
	return false
}

func init() {
	for _, op := range []string{"quantize", "dequantize"} {
		f := Quantize
		if op == "dequantize" {
			f = Dequantize
		}
		full := Prefix + op
		register(op, "data, scale, zero_point, axis (int64), out_dtype (DataType; must match out), out",
			func(args []runtime.Value) (runtime.Value, error) {
				p := newArgs(full, args)
				p.count(6)
				data, scale, zp, axis, dt, out := p.tensor(0), p.tensor(1), p.tensor(2), p.int(3), p.dtype(4), p.tensor(5)
				if p.err != nil {
					return nil, p.err
				}
				if !dt.IsVoid() && dt != out.DType() {
					return nil, fmt.Errorf("%s: out_dtype %s does not match the output's %s", full, dt, out.DType())
				}
				return nil, wrapErr(f(out, data, scale, zp, axis))
			})
	}
}
