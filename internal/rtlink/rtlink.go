// Package rtlink connects package runtime to the packages that need its
// unexported state: runtime/rtimpl (the hooks generated code calls) and vmtir
// (the executable builder). They import runtime, so runtime cannot import
// them; instead runtime fills in the function variables below in its init
// function, and they call them with runtime's own values. Values typed any
// are of the runtime type each comment names; the signatures use any only
// because this package cannot import runtime.
package rtlink

import "github.com/relaxgo/relaxgo/internal/bytecode"

// CompiledFunc is a Relax function compiled to Go.
type CompiledFunc struct {
	// Func is a func(*runtime.VM, []runtime.Value) error.
	Func any
	// RegisterFileSize is the number of registers the function uses.
	RegisterFileSize int64
}

// ModelSpec is what a generated package hands rtimpl.LoadModel.
type ModelSpec struct {
	Name       string
	Executable []byte
	Compiled   map[string]CompiledFunc
	PrimFuncs  map[string]func([]any) (any, error)
}

// Hooks set by package runtime. vm is a *runtime.VM.
var (
	// ConstPool returns the VM's constant pool (shared, read-only).
	ConstPool func(vm any) []any
	// FuncPool returns the VM's resolved function table (shared, read-only).
	FuncPool func(vm any) []any
	// CallFunc calls function-table entry idx on the VM.
	CallFunc func(vm any, idx int, args []any) (any, error)
	// MakeShapeAt is vm.builtin.make_shape at a compiled call site.
	MakeShapeAt func(vm any, site int, args []any) (any, error)
	// Replaced reports whether a global function's first registration was
	// overridden.
	Replaced func(name string) bool
	// MakeTuple is vm.builtin.make_tuple on a VM (reusing the previous
	// call's result under recycled outputs).
	MakeTuple func(vm any, args []any) (any, error)
	// AllocStorage returns a *runtime.Storage of n bytes from the VM's pool.
	AllocStorage func(vm any, n int64) (any, error)
	// IfCond reads an If condition as the VM does.
	IfCond func(v any) (bool, error)
	// LoadModel returns a *runtime.Model.
	LoadModel func(spec ModelSpec) (any, error)
	// ViewInto makes *dst (a *runtime.Tensor the caller owns) a view of
	// src (a *runtime.Tensor) with shape (not copied; the caller keeps it
	// unchanged while dst is used) and src's dtype, as Tensor.View does
	// but without allocating a header: the kernels' 1-D operators run as
	// 2-D ones over views made every call.
	ViewInto func(dst, src any, shape []int64) error
)

// ExecBuilder is package runtime's executable builder, which vmtir.ExecBuilder
// wraps. Function kinds are runtime.FuncKind values.
type ExecBuilder interface {
	DeclareFunction(name string, kind int32) error
	EmitFunction(name string, numInputs int64, paramNames []string, kind int32, initRegisterSize int64) error
	EndFunction(name string) error
	EmitCallIdx(funcIdx int64, args []bytecode.Arg, dst int64) error
	EmitRet(result bytecode.Arg) error
	EmitGoto(pcOffset int64) error
	EmitIf(cond bytecode.Arg, falseOffset int64) error
	ConvertConstant(v any) (bytecode.Arg, error)
	// Get returns the *runtime.Executable.
	Get() (any, error)
}

// NewExecBuilder returns an empty builder; set by package runtime.
var NewExecBuilder func() ExecBuilder
