// Package rtimpl contains the hooks used by relaxgo-generated code.
//
// It should only be imported by generated code (the model packages that
// `relaxgo gen` writes); it is not covered by compatibility guarantees and
// may change in any release, in step with the generator. Users of generated
// packages need only package runtime.
package rtimpl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/relaxgo/relaxgo/internal/rtlink"
	"github.com/relaxgo/relaxgo/runtime"
)

// GenVersion is the version of the contract between generated code and this
// package. A generated package checks it at compile time, as protoc-gen-go's
// output checks protoimpl's:
//
//	const (
//		_ = rtimpl.EnforceVersion(rtimpl.GenVersion - 4)
//		_ = rtimpl.EnforceVersion(4 - rtimpl.MinGenVersion)
//	)
//
// where 4 is the generator's version: code generated for a newer or an older
// runtime than this one supports fails to build (a negative constant does not
// convert to the unsigned EnforceVersion).
//
// Version 3: one generated file a model, and generated tests state their
// arguments as rtimpltest.Tensor specs. Version 4: the package-level ...Into
// functions call Package.Runtime().InvokeInto (version 3 packages still build).
const GenVersion = 4

// MinGenVersion is the oldest generated-code version this package supports.
const MinGenVersion = 3

// EnforceVersion is the unsigned type generated code converts version
// differences to, making a mismatch a compile-time error.
type EnforceVersion uint

// CompiledFunc is a Relax function compiled to Go together with the size of
// the register file it needs (parameters, the return slot, temporaries).
type CompiledFunc struct {
	Func             func(vm *runtime.VM, regs []runtime.Value) error
	RegisterFileSize int64
}

// ModelSpec is what a generated model package hands LoadModel.
type ModelSpec struct {
	// Name prefixes errors and names the model's modules.
	Name string
	// Executable is the serialized bytecode executable (with the weights).
	Executable []byte
	// Compiled are the Relax functions compiled to Go, by name.
	Compiled map[string]CompiledFunc
	// PrimFuncs are the model's TIR functions compiled to Go, by the names
	// the executable calls them.
	PrimFuncs map[string]runtime.PackedFunc
}

// LoadModel loads a model package's executable and wires its Go functions:
// the bytecode executable as is, and a compiled-mode executable sharing its
// constants whose Relax functions are spec.Compiled.
func LoadModel(spec ModelSpec) (*runtime.Model, error) {
	ls := rtlink.ModelSpec{
		Name:       spec.Name,
		Executable: spec.Executable,
		Compiled:   make(map[string]rtlink.CompiledFunc, len(spec.Compiled)),
		PrimFuncs:  make(map[string]func([]any) (any, error), len(spec.PrimFuncs)),
	}
	for n, f := range spec.Compiled {
		lf := rtlink.CompiledFunc{RegisterFileSize: f.RegisterFileSize}
		if f.Func != nil {
			lf.Func = f.Func
		}
		ls.Compiled[n] = lf
	}
	for n, f := range spec.PrimFuncs {
		ls.PrimFuncs[n] = f
	}
	m, err := rtlink.LoadModel(ls)
	if err != nil {
		return nil, err
	}
	return m.(*runtime.Model), nil
}

// ConstPool is the VM's constant pool (shared, read-only).
func ConstPool(vm *runtime.VM) []runtime.Value { return rtlink.ConstPool(vm) }

// FuncPool is the VM's resolved function table: a PackedFunc or *Closure per
// entry (shared, read-only).
func FuncPool(vm *runtime.VM) []runtime.Value { return rtlink.FuncPool(vm) }

// CallFunc calls function-table entry idx with args: packed functions
// directly, bytecode and compiled functions on vm. It does not run the
// instrument.
func CallFunc(vm *runtime.VM, idx int, args ...runtime.Value) (runtime.Value, error) {
	return rtlink.CallFunc(vm, idx, args)
}

// MakeShapeAt is vm.builtin.make_shape at call site (an index the code
// generator assigns). As in the bytecode VM, while the shape a site makes is
// unchanged its previous (immutable) Shape value is returned again instead of
// a new allocation.
func MakeShapeAt(vm *runtime.VM, site int, args []runtime.Value) (runtime.Value, error) {
	return rtlink.MakeShapeAt(vm, site, args)
}

// DirectFlags reports, per name, whether the global function of that name
// is still its first registration (for a kernel: the kernels package's), so
// that compiled code may call the kernel's typed function directly.
func DirectFlags(names ...string) []bool {
	out := make([]bool, len(names))
	for i, n := range names {
		out[i] = !rtlink.Replaced(n)
	}
	return out
}

// Tensors2 returns x and y as tensors when direct is set and both are
// non-nil tensors: the arguments of a typed kernel call in compiled code,
// which otherwise calls the packed function.
func Tensors2(direct bool, x, y runtime.Value) (a, b *runtime.Tensor, ok bool) {
	if !direct {
		return nil, nil, false
	}
	a, ok1 := x.(*runtime.Tensor)
	b, ok2 := y.(*runtime.Tensor)
	return a, b, ok1 && ok2 && a != nil && b != nil
}

// Tensors3 is Tensors2 for three arguments.
func Tensors3(direct bool, x, y, z runtime.Value) (a, b, c *runtime.Tensor, ok bool) {
	a, b, ok = Tensors2(direct, x, y)
	c, ok3 := z.(*runtime.Tensor)
	return a, b, c, ok && ok3 && c != nil
}

// MakeTuple is vm.builtin.make_tuple for compiled code, as the bytecode
// VM runs it: with recycled outputs (runtime.WithRecycledOutputs) the first
// tuple a call makes may reuse the tuple the previous call returned.
func MakeTuple(vm *runtime.VM, args []runtime.Value) (runtime.Value, error) {
	return rtlink.MakeTuple(vm, args)
}

// AllocTensor is vm.builtin.alloc_tensor for compiled code: args are the
// builtin's (storage, offset, shape, dtype); offset and dt are their values,
// known when the code was generated. A tensor of args[2]'s shape is made on
// the storage directly; anything unexpected goes through the builtin f
// (staged in window), so errors are the bytecode's.
func AllocTensor(f runtime.PackedFunc, window []runtime.Value, offset int64, dt runtime.DataType, args ...runtime.Value) (runtime.Value, error) {
	if len(args) > 2 {
		if st, ok := args[0].(*runtime.Storage); ok && st != nil {
			if sh, ok := args[2].(runtime.Shape); ok {
				return st.ViewTensor(offset, sh, dt)
			}
		}
	}
	return Call(f, window, args...)
}

// AllocStorage is vm.builtin.alloc_storage: n bytes on the VM's first device,
// recycled like any storage the running call allocates.
func AllocStorage(vm *runtime.VM, n int64) (*runtime.Storage, error) {
	s, err := rtlink.AllocStorage(vm, n)
	if err != nil {
		return nil, err
	}
	return s.(*runtime.Storage), nil
}

// Call calls f with args copied into window, the slice of the register file
// the call passes (so f sees its arguments where the bytecode VM puts them).
// len(window) must be len(args).
func Call(f runtime.PackedFunc, window []runtime.Value, args ...runtime.Value) (runtime.Value, error) {
	copy(window, args)
	return f(window)
}

// IfCond reads an If condition as the VM does: a bool, or an integer that is
// true when non-zero.
func IfCond(v runtime.Value) (bool, error) { return rtlink.IfCond(v) }

// ResolveFuncs looks names up in the global registry, reporting every
// missing one (generated code resolves its kernels and builtins once).
func ResolveFuncs(names ...string) ([]runtime.PackedFunc, error) {
	out := make([]runtime.PackedFunc, len(names))
	var missing []string
	for i, n := range names {
		f, ok := runtime.Lookup(n)
		if !ok {
			missing = append(missing, n)
			continue
		}
		out[i] = f
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("rtimpl: functions not registered (is the kernels package rtlinked in?): %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// CallErr is the error compiled code returns when the call at instruction
// instr of callee fails: the error with that position, except for the
// checking builtins' *runtime.CheckError, which already names the function,
// parameter and values and is returned as is (as the bytecode VM does).
func CallErr(instr int, callee string, err error) error {
	var ce *runtime.CheckError
	var cl *runtime.CallError
	if errors.As(err, &ce) || errors.As(err, &cl) {
		return err
	}
	// The function's name is filled in when the error leaves it.
	return &runtime.CallError{Instr: instr, Callee: callee, Err: err}
}

// ValueShape returns the dimensions of a tensor (its shape) or of a shape
// value. Callers must not modify them.
func ValueShape(v runtime.Value) ([]int64, bool) {
	switch x := v.(type) {
	case *runtime.Tensor:
		if x != nil {
			return x.Shape(), true
		}
	case runtime.Shape:
		return x, true
	}
	return nil, false
}

// ShapeHeap returns the slots of a shape heap (vm.builtin.alloc_shape_heap's
// int64 tensor).
func ShapeHeap(v runtime.Value) ([]int64, bool) {
	if t, ok := v.(*runtime.Tensor); ok && t != nil && t.DType() == runtime.Int64 && t.NDim() == 1 {
		return t.Int64s(), true
	}
	return nil, false
}
