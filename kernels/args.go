package kernels

import (
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/runtime/half"
)

// pargs decodes the arguments of one packed call with runtime.Args (one
// decoder and one wording for builtins, kernels and user functions), adding
// what only kernels accept: one-element tensors as scalars and 1-D integer
// tensors as int lists. Errors are sticky; err mirrors the first one for the
// kernels that test it directly. It lives on the caller's stack and does not
// allocate unless an error is reported.
type pargs struct {
	a   runtime.Args
	err error
}

func newArgs(op string, args []runtime.Value) pargs {
	return pargs{a: runtime.Args{Func: op, Values: args}}
}

func (p *pargs) sync() { p.err = p.a.Err() }

// fail records the first error.
func (p *pargs) fail(format string, a ...any) { p.a.Fail(format, a...); p.sync() }

// count requires exactly n arguments.
func (p *pargs) count(n int) bool { ok := p.a.Count(n, n); p.sync(); return ok }

// atLeast requires at least n arguments.
func (p *pargs) atLeast(n int) bool { ok := p.a.Count(n, -1); p.sync(); return ok }

// tensor decodes argument i as a non-nil tensor.
func (p *pargs) tensor(i int) *runtime.Tensor {
	if t, ok := laArg[*runtime.Tensor](p.a.Values, i); ok && t != nil && p.err == nil {
		return t // the common case, without the decoder's bookkeeping
	}
	t := p.a.Tensor(i)
	p.sync()
	return t
}

// scalarTensor returns argument i when it is a one-element tensor (not float
// when integer is wanted).
func (p *pargs) scalarTensor(i int, integer bool) (*runtime.Tensor, bool) {
	if p.err != nil || i < 0 || i >= len(p.a.Values) {
		return nil, false
	}
	t, ok := p.a.Values[i].(*runtime.Tensor)
	if !ok || t == nil || t.NumElements() != 1 || (integer && t.DType().IsFloat()) {
		return nil, false
	}
	return t, true
}

// int decodes argument i as an integer (int64, int, bool, integral float64, or
// a one-element integer tensor).
func (p *pargs) int(i int) int64 {
	if t, ok := p.scalarTensor(i, true); ok {
		return scalarInt(t)
	}
	n := p.a.Int(i)
	p.sync()
	return n
}

// optInt decodes argument i as an integer or nil (reported by the bool).
func (p *pargs) optInt(i int) (int64, bool) {
	if p.err != nil || i < 0 || i >= len(p.a.Values) || p.a.Values[i] == nil {
		return 0, false
	}
	return p.int(i), true
}

// get returns argument i, or false when it is out of range or an error is
// already recorded.
func (p *pargs) get(i int) (runtime.Value, bool) {
	if p.err != nil || i < 0 || i >= len(p.a.Values) {
		return nil, false
	}
	return p.a.Values[i], true
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
func (p *pargs) bool(i int) bool { b := p.a.Bool(i); p.sync(); return b }

// toFloat converts a fill value to float64: a number, a bool or a
// one-element tensor. (Packed arguments are decoded by pargs.float; this
// converts a value without allocating an Args for it.)
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
	case int32:
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
	if t, ok := p.scalarTensor(i, false); ok {
		return scalarFloat(t)
	}
	f := p.a.Float(i)
	p.sync()
	return f
}

// ints decodes argument i as an int list: runtime.Shape, []int64, a Tuple of
// ints, or a 1-D integer tensor. nil gives nil.
func (p *pargs) ints(i int) []int64 {
	if p.err == nil && i >= 0 && i < len(p.a.Values) {
		if x, ok := p.a.Values[i].(*runtime.Tensor); ok && x != nil && x.NDim() <= 1 && !x.DType().IsFloat() {
			out := make([]int64, x.NumElements())
			for k := range out {
				out[k] = elemInt(x, k)
			}
			return out
		}
	}
	v := p.a.Ints(i)
	p.sync()
	return v
}

// string decodes argument i as a string.
func (p *pargs) string(i int) string { s := p.a.String(i); p.sync(); return s }

// dtype decodes argument i as a data type (DataType or its spelling); nil and
// "void" give runtime.Void.
func (p *pargs) dtype(i int) runtime.DataType { d := p.a.DType(i); p.sync(); return d }

// tensors decodes argument i as a Tuple (or []*Tensor) of tensors.
func (p *pargs) tensors(i int) []*runtime.Tensor { t := p.a.Tensors(i); p.sync(); return t }

// tensorsInto decodes argument i as tensors appended to buf (see
// runtime.Args.TensorsInto): no allocation while buf has room.
func (p *pargs) tensorsInto(i int, buf []*runtime.Tensor) []*runtime.Tensor {
	t := p.a.TensorsInto(i, buf)
	p.sync()
	return t
}

// tensorList reads the leading tensor list of a call (tensors..., attr,
// out): one Tuple (or tensor) when the call has three arguments, else the
// tensors themselves, flattened by the compiler so that no tuple is built
// per call; they are appended to buf, so that reading them allocates
// nothing (a one-tensor list, which the compiler passes flattened too, is
// the three-argument form).
func (p *pargs) tensorList(buf []*runtime.Tensor) []*runtime.Tensor {
	if !p.atLeast(3) {
		return nil
	}
	if len(p.a.Values) == 3 {
		return p.tensorsInto(0, buf)
	}
	for i := 0; i < len(p.a.Values)-2; i++ {
		buf = append(buf, p.tensor(i))
	}
	return buf
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
