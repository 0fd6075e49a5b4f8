package ir

import (
	"math"
	"strconv"
	"strings"

	"github.com/relaxgo/relaxgo/runtime"
)

// StructInfo is Relax's static type-and-shape information of a value.
type StructInfo interface{ structInfo() }

// ObjectSInfo is any value (R.Object in v0.23, R.Any today).
type ObjectSInfo struct{}

// PrimSInfo is a scalar value of DType, optionally with a known Value (R.Prim(value=n)).
type PrimSInfo struct {
	DType DataType
	Value PrimExpr // nil when unknown
}

// ShapeSInfo is a shape value. Values is nil when only the rank (NDim) is
// known; NDim is -1 when even the rank is unknown.
type ShapeSInfo struct {
	Values []PrimExpr
	NDim   int
}

// TensorSInfo is a tensor. Shape is nil when unknown; NDim is -1 when the rank
// is unknown; DType is runtime.Void when unknown.
type TensorSInfo struct {
	Shape []PrimExpr
	NDim  int
	DType DataType
}

// TupleSInfo is a tuple of values.
type TupleSInfo struct{ Fields []StructInfo }

// FuncSInfo is a callable. Params is nil for an opaque callable (R.Callable without signature).
type FuncSInfo struct {
	Params []StructInfo
	Ret    StructInfo
	Pure   bool
	Opaque bool
	// DeriveFunc names the global function TVM calls to derive a call's
	// result type (R.Callable(derive_func=...)); relaxgo keeps the name
	// and types such calls as R.Object.
	DeriveFunc string
}

func (*ObjectSInfo) structInfo() {}
func (*PrimSInfo) structInfo()   {}
func (*ShapeSInfo) structInfo()  {}
func (*TensorSInfo) structInfo() {}
func (*TupleSInfo) structInfo()  {}
func (*FuncSInfo) structInfo()   {}

// NewTensorSInfo makes a tensor struct info with a known shape.
func NewTensorSInfo(shape []PrimExpr, dt DataType) *TensorSInfo {
	return &TensorSInfo{Shape: shape, NDim: len(shape), DType: dt}
}

// StaticTensorSInfo makes a tensor struct info from integer dimensions.
func StaticTensorSInfo(shape []int64, dt DataType) *TensorSInfo {
	dims := make([]PrimExpr, len(shape))
	for i, d := range shape {
		dims[i] = Int64(d)
	}
	return NewTensorSInfo(dims, dt)
}

// StaticShape returns the tensor's dimensions when all are integer literals.
func (t *TensorSInfo) StaticShape() ([]int64, bool) {
	if t.Shape == nil {
		return nil, false
	}
	out := make([]int64, len(t.Shape))
	for i, d := range t.Shape {
		v, ok := AsInt(d)
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// VoidSInfo is the struct info of R.Tuple() (unit).
func VoidSInfo() *TupleSInfo { return &TupleSInfo{} }

// SInfoString renders struct info in the current TVMScript dialect.
func SInfoString(s StructInfo) string { return SInfoStringDialect(s, false) }

// SInfoStringDialect renders struct info; v023 selects the v0.23 spelling (R.Object).
func SInfoStringDialect(s StructInfo, v023 bool) string {
	var b strings.Builder
	writeSInfo(&b, s, v023)
	return b.String()
}

func writeDims(b *strings.Builder, dims []PrimExpr) {
	b.WriteByte('(')
	for i, d := range dims {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(ExprString(d))
	}
	if len(dims) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
}

func writeSInfo(b *strings.Builder, s StructInfo, v023 bool) {
	switch x := s.(type) {
	case nil:
		b.WriteString("None")
	case *ObjectSInfo:
		if v023 {
			b.WriteString("R.Object")
		} else {
			b.WriteString("R.Any")
		}
	case *PrimSInfo:
		if x.Value != nil {
			b.WriteString("R.Prim(value=" + ExprString(x.Value) + ")")
		} else {
			b.WriteString("R.Prim(" + strconv.Quote(x.DType.String()) + ")")
		}
	case *ShapeSInfo:
		switch {
		case x.Values != nil:
			b.WriteString("R.Shape([")
			for i, d := range x.Values {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(ExprString(d))
			}
			b.WriteString("])")
		case x.NDim >= 0:
			b.WriteString("R.Shape(ndim=" + strconv.Itoa(x.NDim) + ")")
		default:
			b.WriteString("R.Shape")
		}
	case *TensorSInfo:
		b.WriteString("R.Tensor(")
		var parts []string
		switch {
		case x.Shape != nil:
			var sb strings.Builder
			writeDims(&sb, x.Shape)
			parts = append(parts, sb.String())
		case x.NDim >= 0:
			parts = append(parts, "ndim="+strconv.Itoa(x.NDim))
		}
		if !x.DType.IsVoid() {
			parts = append(parts, "dtype="+strconv.Quote(x.DType.String()))
		}
		b.WriteString(strings.Join(parts, ", "))
		b.WriteString(")")
	case *TupleSInfo:
		b.WriteString("R.Tuple(")
		for i, f := range x.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			writeSInfo(b, f, v023)
		}
		b.WriteString(")")
	case *FuncSInfo:
		if x.Opaque && x.DeriveFunc != "" {
			b.WriteString("R.Callable(derive_func=" + strconv.Quote(x.DeriveFunc) + ", purity=" + pyBool(x.Pure) + ")")
			return
		}
		if x.Opaque {
			b.WriteString("R.Callable")
			return
		}
		b.WriteString("R.Callable((")
		for i, p := range x.Params {
			if i > 0 {
				b.WriteString(", ")
			}
			writeSInfo(b, p, v023)
		}
		if len(x.Params) == 1 {
			b.WriteByte(',')
		}
		b.WriteString("), ")
		writeSInfo(b, x.Ret, v023)
		if !x.Pure {
			b.WriteString(", purity=False")
		}
		b.WriteString(")")
	}
}

// FormatFloat formats v as TVM's printer does: 17 significant digits
// (C's %.17g), with ".0" appended when the result would read as an integer.
func FormatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsNaN(v):
		return "nan"
	}
	s := strconv.FormatFloat(v, 'g', 17, 64)
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		// Go trims nothing in 'g' with explicit precision; mirror %g's trailing-zero removal.
		mant := s[:i]
		if strings.Contains(mant, ".") {
			mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
		}
		s = mant + s[i:]
	} else if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// IsVoidDType reports whether dt is unknown.
func IsVoidDType(dt DataType) bool { return dt == runtime.Void }

// pyBool spells b as Python does.
func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}
