package tvmscript

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/runtime/half"
)

// constElemOK reports whether R.const supports element type dt.
func constElemOK(dt runtime.DataType) bool {
	if dt.Lanes != 1 {
		return false
	}
	switch {
	case dt.IsBool():
		return true
	case dt.Code == runtime.CodeFloat:
		return dt.Bits == 16 || dt.Bits == 32 || dt.Bits == 64
	case dt.Code == runtime.CodeInt || dt.Code == runtime.CodeUInt:
		return dt.Bits == 8 || dt.Bits == 16 || dt.Bits == 32 || dt.Bits == 64
	}
	return false
}

// setElem stores v (float64 or int64 or bool) as element i of t.
func setElem(t *runtime.Tensor, i int, v any) error {
	dt := t.DType()
	b := t.Bytes()
	var f float64
	var n int64
	switch x := v.(type) {
	case float64:
		f, n = x, int64(x)
		if dt.Code != runtime.CodeFloat && x != math.Trunc(x) {
			return fmt.Errorf("value %v is not an integer, but the dtype is %s", x, dt)
		}
	case int64:
		f, n = float64(x), x
	case bool:
		if x {
			f, n = 1, 1
		}
	}
	w := dt.ElemBytes()
	p := b[i*w : (i+1)*w]
	switch {
	case dt.IsBool():
		p[0] = 0
		if n != 0 {
			p[0] = 1
		}
	case dt.Code == runtime.CodeFloat && dt.Bits == 16:
		binary.LittleEndian.PutUint16(p, half.Float64ToFloat16(f))
	case dt.Code == runtime.CodeFloat && dt.Bits == 32:
		binary.LittleEndian.PutUint32(p, math.Float32bits(float32(f)))
	case dt.Code == runtime.CodeFloat && dt.Bits == 64:
		binary.LittleEndian.PutUint64(p, math.Float64bits(f))
	default:
		switch w {
		case 1:
			p[0] = byte(n)
		case 2:
			binary.LittleEndian.PutUint16(p, uint16(n))
		case 4:
			binary.LittleEndian.PutUint32(p, uint32(n))
		case 8:
			binary.LittleEndian.PutUint64(p, uint64(n))
		}
	}
	return nil
}

// getElem reads element i of t as float64 (floats), int64 (integers) or bool.
func getElem(t *runtime.Tensor, i int) any {
	dt := t.DType()
	w := dt.ElemBytes()
	b := t.Bytes()
	if (i+1)*w > len(b) {
		return int64(0)
	}
	p := b[i*w : (i+1)*w]
	switch {
	case dt.IsBool():
		return p[0] != 0
	case dt.Code == runtime.CodeFloat && dt.Bits == 16:
		return float64(half.Float16ToFloat32(binary.LittleEndian.Uint16(p)))
	case dt.Code == runtime.CodeFloat && dt.Bits == 32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(p)))
	case dt.Code == runtime.CodeFloat && dt.Bits == 64:
		return math.Float64frombits(binary.LittleEndian.Uint64(p))
	case dt.Code == runtime.CodeInt:
		switch w {
		case 1:
			return int64(int8(p[0]))
		case 2:
			return int64(int16(binary.LittleEndian.Uint16(p)))
		case 4:
			return int64(int32(binary.LittleEndian.Uint32(p)))
		case 8:
			return int64(binary.LittleEndian.Uint64(p))
		}
	default:
		switch w {
		case 1:
			return int64(p[0])
		case 2:
			return int64(binary.LittleEndian.Uint16(p))
		case 4:
			return int64(binary.LittleEndian.Uint32(p))
		case 8:
			return int64(binary.LittleEndian.Uint64(p))
		}
	}
	return int64(0)
}
