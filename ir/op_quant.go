package ir

import (
	"github.com/relaxgo/relaxgo/runtime"
)

// quantize(data, scale, zero_point, axis=-1, out_dtype="int8") and
// dequantize(data, scale, zero_point, axis=-1, out_dtype="float32"), as in
// TVM's relax.quantize/dequantize (QuantizeAttrs: axis, out_dtype). scale and
// zero_point are per-tensor (scalar or all-ones shape) or per-channel (1-D,
// the size of data's axis).
func init() {
	qargs := args(arg("data"), arg("scale"), arg("zero_point"))
	reg("relax.quantize", true, inferQDQ(true), qargs,
		attrI("axis", -1), AttrDef{Name: "out_dtype", Kind: AttrDType, Default: "int8"})
	reg("relax.dequantize", true, inferQDQ(false), qargs,
		attrI("axis", -1), AttrDef{Name: "out_dtype", Kind: AttrDType, Default: "float32"})
}

func isDType(d DataType, set ...DataType) bool {
	for _, s := range set {
		if d == s {
			return true
		}
	}
	return false
}

// singletonParam reports whether a qparam is a scalar or has every dim provably 1.
func singletonParam(t *TensorSInfo) bool {
	if t.NDim == 0 {
		return true
	}
	if t.Shape == nil || len(t.Shape) == 0 {
		return false
	}
	for _, d := range t.Shape {
		if !ProveEqual(d, Int64(1)) {
			return false
		}
	}
	return true
}

func inferQDQ(quant bool) func(*Call, *InferCtx) (StructInfo, error) {
	return func(c *Call, _ *InferCtx) (StructInfo, error) {
		x, err := tensorArg(c, 0, false)
		if err != nil {
			return nil, err
		}
		scale, err := tensorArg(c, 1, false)
		if err != nil {
			return nil, err
		}
		zp, err := tensorArg(c, 2, false)
		if err != nil {
			return nil, err
		}
		out := dtypeAttr(c, "out_dtype")
		qtypes := []DataType{runtime.Int8, runtime.UInt8, runtime.Int16, runtime.UInt16}
		if quant {
			if !isDType(out, qtypes...) {
				return nil, opErr(c, "unsupported out_dtype %s (want int8, uint8, int16 or uint16)", out)
			}
		} else if !isDType(out, runtime.Float16, runtime.Float32) {
			return nil, opErr(c, "unsupported out_dtype %s (want float16 or float32)", out)
		}
		if x.DType.IsVoid() || scale.DType.IsVoid() || zp.DType.IsVoid() {
			return &TensorSInfo{Shape: x.Shape, NDim: x.NDim}, nil
		}
		in := []DataType{runtime.Float16, runtime.Float32}
		if !quant {
			in = append(qtypes, runtime.Int32, runtime.Float16, runtime.Float32)
		}
		if !isDType(x.DType, in...) {
			return nil, opErr(c, "unsupported input dtype %s", x.DType)
		}
		if !isDType(scale.DType, runtime.Float16, runtime.Float32) {
			return nil, opErr(c, "scale dtype must be float16 or float32, got %s", scale.DType)
		}
		if !isDType(zp.DType, append(qtypes, runtime.Int32, runtime.UInt32, runtime.Float16)...) {
			return nil, opErr(c, "zero_point dtype must be int8, uint8, int16, uint16, int32, uint32 or float16, got %s", zp.DType)
		}
		if x.NDim >= 0 {
			axis, _ := c.AttrInt64("axis")
			ax := axis
			if ax < 0 {
				ax += int64(x.NDim)
			}
			if x.NDim != 0 && (ax < 0 || ax >= int64(x.NDim)) {
				return nil, opErr(c, "axis %d is out of range for a tensor of rank %d", axis, x.NDim)
			}
			for _, p := range []struct {
				name string
				t    *TensorSInfo
			}{{"scale", scale}, {"zero_point", zp}} {
				if singletonParam(p.t) {
					continue
				}
				if x.NDim == 0 {
					return nil, opErr(c, "scale and zero_point must be scalar or singleton tensors for a rank-0 input")
				}
				if p.t.NDim > 1 {
					return nil, opErr(c, "%s must be a scalar or a 1-D tensor, got %s", p.name, SInfoString(p.t))
				}
				if p.t.Shape != nil && x.Shape != nil && !ProveEqual(p.t.Shape[0], x.Shape[ax]) {
					return nil, opErr(c, "size mismatch: the input shape at dim %d is %s, but the size of %s is %s",
						axis, dimsString(x.Shape[ax:ax+1]), p.name, dimsString(p.t.Shape[:1]))
				}
			}
		}
		return &TensorSInfo{Shape: x.Shape, NDim: x.NDim, DType: out}, nil
	}
}
