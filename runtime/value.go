package runtime

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"
)

// Value is a type-erased runtime value, TVM's Any. It holds one of: *Tensor,
// Shape, int64, float64, bool, string, DataType, Tuple, *Closure, PackedFunc,
// *Storage, *VM (the %vm register), or nil.
type Value = any

// Shape is a shape value (TVM's ShapeTuple), distinct from a tensor. Shape
// values are immutable once made: the VM hands out the same value again
// (vm.builtin.make_shape returns its previous result while the shape is
// unchanged), so code must not modify a Shape it did not create.
type Shape []int64

// String prints a shape as a Python tuple: "(3, 4)", "(5,)", "()".
func (s Shape) String() string {
	var b strings.Builder
	b.WriteByte('(')
	for i, d := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, d)
	}
	if len(s) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
	return b.String()
}

// Equal reports whether two shapes are identical.
func (s Shape) Equal(o Shape) bool {
	return slices.Equal(s, o)
}

// Tuple is a runtime tuple (TVM's Array<Any>).
type Tuple []Value

// tupleBox holds a Tuple's slice header and its elements (A an array of
// Value) in one object.
type tupleBox[A any] struct {
	hdr   Tuple
	elems A
}

// fill makes the box's tuple the n = len(args) values args (n at most the
// array's length) and returns it as a Value.
func (b *tupleBox[A]) fill(args []Value) Value {
	el := unsafe.Slice((*Value)(unsafe.Pointer(&b.elems)), len(args))
	copy(el, args)
	b.hdr = Tuple(el)
	return tupleValue(&b.hdr)
}

// tupleValue returns the Tuple at h as a Value whose data word points at h
// itself, where converting the Tuple would copy its slice header to a new
// heap object: one allocation fewer per tuple. *h must not change while
// the Value lives; the Value behaves as any other Tuple in an interface
// (a type assertion copies the header out).
func tupleValue(h *Tuple) Value {
	v := Value(Tuple(nil))
	(*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1] = unsafe.Pointer(h)
	return v
}

// newTupleValue returns a new Tuple of args as a Value in one allocation
// (header and elements together) for up to 8 elements.
func newTupleValue(args []Value) Value {
	switch n := len(args); {
	case n == 0:
		return Tuple{}
	case n <= 2:
		return new(tupleBox[[2]Value]).fill(args)
	case n <= 4:
		return new(tupleBox[[4]Value]).fill(args)
	case n <= 8:
		return new(tupleBox[[8]Value]).fill(args)
	}
	return append(Tuple(make([]Value, 0, len(args))), args...)
}

// PackedFunc is a type-erased function: TVM's PackedFunc / ffi.Function.
type PackedFunc func(args []Value) (Value, error)

// TypeName names the runtime type of v for error messages.
func TypeName(v Value) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case *Tensor:
		if x == nil {
			return "nil Tensor"
		}
		return "Tensor"
	case Shape:
		return "Shape"
	case int64:
		return "int"
	case float64:
		return "float"
	case bool:
		return "bool"
	case string:
		return "str"
	case DataType:
		return "DataType"
	case Tuple:
		return "Tuple"
	case PackedFunc:
		return "Function"
	case *Storage:
		return "Storage"
	case *Closure:
		return "Closure"
	case *VM:
		return "VM"
	default:
		return fmt.Sprintf("%T", x)
	}
}
