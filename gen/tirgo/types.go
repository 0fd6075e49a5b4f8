package tirgo

import (
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/relaxgo/relaxgo/runtime"
)

func supportedDType(dt runtime.DataType) bool {
	if dt.Lanes != 1 {
		return false
	}
	switch dt.Code {
	case runtime.CodeInt, runtime.CodeUInt:
		return dt.Bits == 1 && dt.Code == runtime.CodeUInt || dt.Bits == 8 || dt.Bits == 16 || dt.Bits == 32 || dt.Bits == 64
	case runtime.CodeFloat:
		return dt.Bits == 16 || dt.Bits == 32 || dt.Bits == 64
	case runtime.CodeBFloat:
		return dt.Bits == 16
	}
	return false
}

func isHalf(dt runtime.DataType) bool { return dt.IsFloat() && dt.Bits == 16 }

// goScalar is the Go type of a TIR scalar of type dt in generated code.
func goScalar(dt runtime.DataType) string {
	switch {
	case dt.IsBool():
		return "bool"
	case dt.IsFloat():
		if dt.Bits == 64 {
			return "float64"
		}
		return "float32"
	case dt.IsInt():
		if dt.Bits == 64 {
			return "int"
		}
		return "int" + strconv.Itoa(int(dt.Bits))
	}
	return "uint" + strconv.Itoa(int(dt.Bits))
}

// goElem is the Go element type of a buffer of type dt.
func goElem(dt runtime.DataType) string {
	switch {
	case isHalf(dt):
		return "uint16"
	case dt.IsInt() && dt.Bits == 64:
		return "int64"
	}
	return goScalar(dt)
}

// viewMethod is the runtime.Tensor method giving the typed view.
func viewMethod(dt runtime.DataType) string {
	switch {
	case isHalf(dt):
		return "Uint16s"
	case dt.IsBool():
		return "Bools"
	case dt.IsFloat():
		return "Float" + strconv.Itoa(int(dt.Bits)) + "s"
	case dt.IsInt():
		return "Int" + strconv.Itoa(int(dt.Bits)) + "s"
	}
	return "Uint" + strconv.Itoa(int(dt.Bits)) + "s"
}

func dtypeCode(dt runtime.DataType) jen.Code {
	named := map[runtime.DataType]string{
		runtime.Float16: "Float16", runtime.Float32: "Float32", runtime.Float64: "Float64", runtime.Int8: "Int8",
		runtime.Int16: "Int16", runtime.Int32: "Int32", runtime.Int64: "Int64", runtime.UInt8: "UInt8",
		runtime.UInt16: "UInt16", runtime.UInt32: "UInt32", runtime.UInt64: "UInt64", runtime.Bool: "Bool",
		runtime.BFloat16: "BFloat16",
	}
	if n, ok := named[dt]; ok {
		return jen.Qual(runtimePkg, n)
	}
	return jen.Qual(runtimePkg, "DataType").Values(jen.Dict{
		jen.Id("Code"): jen.Lit(int(dt.Code)), jen.Id("Bits"): jen.Lit(int(dt.Bits)), jen.Id("Lanes"): jen.Lit(int(dt.Lanes)),
	})
}
