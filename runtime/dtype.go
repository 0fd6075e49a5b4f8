package runtime

import (
	"fmt"
	"strconv"
	"strings"
)

// DataType codes, as in DLPack's DLDataTypeCode.
const (
	CodeInt    uint8 = 0 // signed integer
	CodeUInt   uint8 = 1 // unsigned integer; bool is UInt with 1 bit
	CodeFloat  uint8 = 2 // IEEE floating point
	CodeHandle uint8 = 3 // opaque pointer
	CodeBFloat uint8 = 4 // bfloat16
)

// DataType is a DLPack-compatible element type: a type code, a bit width and a
// lane count. It is comparable and its zero value is "void"-like (int0).
type DataType struct {
	Code  uint8
	Bits  uint8
	Lanes uint16
}

// Frequently used data types.
var (
	Float16  = DataType{CodeFloat, 16, 1}
	Float32  = DataType{CodeFloat, 32, 1}
	Float64  = DataType{CodeFloat, 64, 1}
	Int8     = DataType{CodeInt, 8, 1}
	Int16    = DataType{CodeInt, 16, 1}
	Int32    = DataType{CodeInt, 32, 1}
	Int64    = DataType{CodeInt, 64, 1}
	UInt8    = DataType{CodeUInt, 8, 1}
	UInt16   = DataType{CodeUInt, 16, 1}
	UInt32   = DataType{CodeUInt, 32, 1}
	UInt64   = DataType{CodeUInt, 64, 1}
	Bool     = DataType{CodeUInt, 1, 1}
	BFloat16 = DataType{CodeBFloat, 16, 1}
	// Void is TVM's "void" dtype (handle with 0 bits), used for unknown dtypes.
	Void = DataType{CodeHandle, 0, 0}
)

// IsVoid reports whether t is the void (unknown) type.
func (t DataType) IsVoid() bool { return t.Code == CodeHandle && t.Bits == 0 && t.Lanes == 0 }

// IsFloat reports whether t is a floating-point type (including bfloat16).
func (t DataType) IsFloat() bool { return t.Code == CodeFloat || t.Code == CodeBFloat }

// IsInt reports whether t is a signed integer type.
func (t DataType) IsInt() bool { return t.Code == CodeInt }

// IsUInt reports whether t is an unsigned integer type (bool excluded).
func (t DataType) IsUInt() bool { return t.Code == CodeUInt && t.Bits != 1 }

// IsBool reports whether t is bool.
func (t DataType) IsBool() bool { return t.Code == CodeUInt && t.Bits == 1 }

// ElemBytes is the storage size of one element in bytes. Bool occupies one
// byte, as in TVM's NDArray storage.
func (t DataType) ElemBytes() int {
	b := (int(t.Bits) + 7) / 8
	lanes := int(t.Lanes)
	if lanes == 0 {
		lanes = 1
	}
	return b * lanes
}

// String spells t as TVM does: "float32", "int64", "bool", "uint8", "float32x4", "void".
func (t DataType) String() string {
	if t.IsVoid() {
		return "void"
	}
	if t.IsBool() && t.Lanes == 1 {
		return "bool"
	}
	var base string
	switch t.Code {
	case CodeInt:
		base = "int"
	case CodeUInt:
		base = "uint"
	case CodeFloat:
		base = "float"
	case CodeBFloat:
		base = "bfloat"
	case CodeHandle:
		if t.Bits == 64 && t.Lanes == 1 {
			return "handle"
		}
		base = "handle"
	default:
		base = fmt.Sprintf("custom[%d]", t.Code)
	}
	s := base + strconv.Itoa(int(t.Bits))
	if t.Lanes > 1 {
		s += "x" + strconv.Itoa(int(t.Lanes))
	}
	return s
}

// ParseDataType parses TVM's spelling of a data type ("float32", "int64",
// "bool", "uint8", "float16x4", "void", "handle").
func ParseDataType(s string) (DataType, error) {
	switch s {
	case "void", "":
		return Void, nil
	case "bool":
		return Bool, nil
	case "handle":
		return DataType{CodeHandle, 64, 1}, nil
	}
	lanes := 1
	if i := strings.IndexByte(s, 'x'); i > 0 {
		n, err := strconv.Atoi(s[i+1:])
		if err != nil || n <= 0 || n > 65535 {
			return DataType{}, fmt.Errorf("invalid data type %q", s)
		}
		lanes = n
		s2 := s[:i]
		t, err := ParseDataType(s2)
		if err != nil {
			return DataType{}, fmt.Errorf("invalid data type %q", s)
		}
		t.Lanes = uint16(lanes)
		return t, nil
	}
	var code uint8
	var rest string
	switch {
	case strings.HasPrefix(s, "bfloat"):
		code, rest = CodeBFloat, s[len("bfloat"):]
	case strings.HasPrefix(s, "float"):
		code, rest = CodeFloat, s[len("float"):]
	case strings.HasPrefix(s, "uint"):
		code, rest = CodeUInt, s[len("uint"):]
	case strings.HasPrefix(s, "int"):
		code, rest = CodeInt, s[len("int"):]
	default:
		return DataType{}, fmt.Errorf("invalid data type %q", s)
	}
	bits := 32
	if rest != "" {
		n, err := strconv.Atoi(rest)
		if err != nil || n <= 0 || n > 255 {
			return DataType{}, fmt.Errorf("invalid data type %q", s)
		}
		bits = n
	}
	return DataType{code, uint8(bits), uint16(lanes)}, nil
}

// MustParseDataType is ParseDataType for constant spellings; it panics on a
// malformed name and is meant for package-level initialisation only.
func MustParseDataType(s string) DataType {
	t, err := ParseDataType(s)
	if err != nil {
		panic(err)
	}
	return t
}
