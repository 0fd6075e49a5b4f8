package kernels

import (
	"fmt"
	"math"

	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/runtime/half"
)

// pargs decodes the arguments of one packed call with a sticky error: after
// the first failure every accessor returns a zero value and err keeps the
// first message. It lives on the caller's stack and does not allocate unless
// an error is reported.
type pargs struct {
	op   string
	args []runtime.Value
	err  error
}

func newArgs(op string, args []runtime.Value) pargs { return pargs{op: op, args: args} }

// fail records the first error.
func (p *pargs) fail(format string, a ...any) {
	if p.err == nil {
		p.err = fmt.Errorf(p.op+": "+format, a...)
	}
}

// count requires exactly n arguments.
func (p *pargs) count(n int) bool {
	if len(p.args) != n {
		p.fail("want %d arguments, got %d", n, len(p.args))
		return false
	}
	return true
}

// atLeast requires at least n arguments.
func (p *pargs) atLeast(n int) bool {
	if len(p.args) < n {
		p.fail("want at least %d arguments, got %d", n, len(p.args))
		return false
	}
	return true
}

func (p *pargs) get(i int) (runtime.Value, bool) {
	if p.err != nil {
		return nil, false
	}
	if i < 0 || i >= len(p.args) {
		p.fail("missing argument %d", i)
		return nil, false
	}
	return p.args[i], true
}

// tensor decodes argument i as a non-nil tensor.
func (p *pargs) tensor(i int) *runtime.Tensor {
	v, ok := p.get(i)
	if !ok {
		return nil
	}
	t, isT := v.(*runtime.Tensor)
	if !isT || t == nil {
		p.fail("argument %d: want Tensor, got %s", i, runtime.TypeName(v))
		return nil
	}
	return t
}

// toInt converts an integer-like value.
func toInt(v runtime.Value) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
			return int64(x), true
		}
	case *runtime.Tensor:
		if x != nil && x.NumElements() == 1 && !x.DType().IsFloat() {
			return scalarInt(x), true
		}
	}
	return 0, false
}

// int decodes argument i as an integer (int64, int, bool, integral float64, or
// a one-element integer tensor).
func (p *pargs) int(i int) int64 {
	v, ok := p.get(i)
	if !ok {
		return 0
	}
	n, ok := toInt(v)
	if !ok {
		p.fail("argument %d: want int, got %s", i, runtime.TypeName(v))
	}
	return n
}

// optInt decodes argument i as an integer or nil (reported by the bool).
func (p *pargs) optInt(i int) (int64, bool) {
	v, ok := p.get(i)
	if !ok || v == nil {
		return 0, false
	}
	return p.int(i), true
}

// optInts decodes argument i as an int list, or nil.
func (p *pargs) optInts(i int) []int64 {
	if v, ok := p.get(i); !ok || v == nil {
		return nil
	}
	return p.ints(i)
}

// optString decodes argument i as a string, or "" for nil.
func (p *pargs) optString(i int) string {
	if v, ok := p.get(i); !ok || v == nil {
		return ""
	}
	return p.string(i)
}

// bool decodes argument i as a bool (bool or int64 0/1).
func (p *pargs) bool(i int) bool {
	v, ok := p.get(i)
	if !ok {
		return false
	}
	switch x := v.(type) {
	case bool:
		return x
	case int64:
		return x != 0
	case int:
		return x != 0
	}
	p.fail("argument %d: want bool, got %s", i, runtime.TypeName(v))
	return false
}

// toFloat converts a number-like value.
func toFloat(v runtime.Value) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case *runtime.Tensor:
		if x != nil && x.NumElements() == 1 {
			return scalarFloat(x), true
		}
	}
	return 0, false
}

// float decodes argument i as a float64 (float64, int64, or a one-element tensor).
func (p *pargs) float(i int) float64 {
	v, ok := p.get(i)
	if !ok {
		return 0
	}
	f, ok := toFloat(v)
	if !ok {
		p.fail("argument %d: want float, got %s", i, runtime.TypeName(v))
	}
	return f
}

// ints decodes argument i as an int list: runtime.Shape, []int64, a Tuple of
// ints, or a 1-D integer tensor. nil gives nil.
func (p *pargs) ints(i int) []int64 {
	v, ok := p.get(i)
	if !ok || v == nil {
		return nil
	}
	switch x := v.(type) {
	case runtime.Shape:
		if x == nil {
			return []int64{}
		}
		return x
	case []int64:
		if x == nil {
			return []int64{}
		}
		return x
	case runtime.Tuple:
		out := make([]int64, len(x))
		for k, e := range x {
			n, ok := toInt(e)
			if !ok {
				p.fail("argument %d: element %d: want int, got %s", i, k, runtime.TypeName(e))
				return nil
			}
			out[k] = n
		}
		return out
	case *runtime.Tensor:
		if x != nil && x.NDim() <= 1 && !x.DType().IsFloat() {
			out := make([]int64, x.NumElements())
			for k := range out {
				out[k] = elemInt(x, k)
			}
			return out
		}
	case int64:
		return []int64{x}
	}
	p.fail("argument %d: want Shape, got %s", i, runtime.TypeName(v))
	return nil
}

// string decodes argument i as a string.
func (p *pargs) string(i int) string {
	v, ok := p.get(i)
	if !ok {
		return ""
	}
	s, isS := v.(string)
	if !isS {
		p.fail("argument %d: want str, got %s", i, runtime.TypeName(v))
	}
	return s
}

// dtype decodes argument i as a data type (DataType or its spelling); nil and
// "void" give runtime.Void.
func (p *pargs) dtype(i int) runtime.DataType {
	v, ok := p.get(i)
	if !ok || v == nil {
		return runtime.Void
	}
	switch x := v.(type) {
	case runtime.DataType:
		return x
	case string:
		dt, err := runtime.ParseDataType(x)
		if err != nil {
			p.fail("argument %d: %v", i, err)
		}
		return dt
	}
	p.fail("argument %d: want DataType, got %s", i, runtime.TypeName(v))
	return runtime.Void
}

// tensors decodes argument i as a Tuple (or []*Tensor) of tensors.
func (p *pargs) tensors(i int) []*runtime.Tensor {
	v, ok := p.get(i)
	if !ok {
		return nil
	}
	switch x := v.(type) {
	case []*runtime.Tensor:
		return x
	case runtime.Tuple:
		out := make([]*runtime.Tensor, len(x))
		for k, e := range x {
			t, isT := e.(*runtime.Tensor)
			if !isT || t == nil {
				p.fail("argument %d: element %d: want Tensor, got %s", i, k, runtime.TypeName(e))
				return nil
			}
			out[k] = t
		}
		return out
	case *runtime.Tensor:
		return []*runtime.Tensor{x}
	}
	p.fail("argument %d: want Tuple of Tensors, got %s", i, runtime.TypeName(v))
	return nil
}

// scalarFloat reads element 0 of t as float64.
func scalarFloat(t *runtime.Tensor) float64 { return elemFloat(t, 0) }

// scalarInt reads element 0 of t as int64.
func scalarInt(t *runtime.Tensor) int64 { return elemInt(t, 0) }

// elemFloat reads element k of t as float64 (any supported dtype).
func elemFloat(t *runtime.Tensor, k int) float64 {
	switch t.DType() {
	case runtime.Float32:
		return float64(elems[float32](t)[k])
	case runtime.Float64:
		return elems[float64](t)[k]
	case runtime.Float16:
		return float64(half.Float16ToFloat32(elems[uint16](t)[k]))
	case runtime.Bool:
		if elems[bool](t)[k] {
			return 1
		}
		return 0
	}
	if t.DType().IsUInt() {
		return float64(uint64(elemInt(t, k)))
	}
	return float64(elemInt(t, k))
}

// elemInt reads element k of t as int64 (any supported dtype; floats truncate).
func elemInt(t *runtime.Tensor, k int) int64 {
	switch t.DType() {
	case runtime.Int8:
		return int64(elems[int8](t)[k])
	case runtime.Int16:
		return int64(elems[int16](t)[k])
	case runtime.Int32:
		return int64(elems[int32](t)[k])
	case runtime.Int64:
		return elems[int64](t)[k]
	case runtime.UInt8:
		return int64(elems[uint8](t)[k])
	case runtime.UInt16:
		return int64(elems[uint16](t)[k])
	case runtime.UInt32:
		return int64(elems[uint32](t)[k])
	case runtime.UInt64:
		return int64(elems[uint64](t)[k])
	case runtime.Bool:
		if elems[bool](t)[k] {
			return 1
		}
		return 0
	case runtime.Float32, runtime.Float64, runtime.Float16:
		return int64(elemFloat(t, k))
	}
	return 0
}
