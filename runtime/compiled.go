package runtime

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// GenVersion is the version of the contract between generated model
// packages and this runtime. Generated code checks it at compile time:
//
//	const _ = runtime.EnforceVersion(GenVersion - runtime.MinGenVersion)
//	const _ = runtime.EnforceVersion(runtime.GenVersion - GenVersion)
//
// so a package generated for another runtime version fails to build (a
// negative constant does not convert to the unsigned EnforceVersion).
const GenVersion = 1

// MinGenVersion is the oldest generated-code version this runtime supports.
const MinGenVersion = 1

// EnforceVersion is the unsigned type generated code converts version
// differences to, making a mismatch a compile-time error.
type EnforceVersion uint

// CompiledFunc is a Relax function compiled to Go together with the size of
// the register file it needs (parameters, the return slot, temporaries).
type CompiledFunc struct {
	Func             VMTIRFunc
	RegisterFileSize int64
}

// WithCompiled returns a copy of e in which the named Relax functions are
// compiled (FuncKindVMTIR) entries with the given register file sizes, and a
// module registering their Go implementations as "__vmtir__<name>". The copy
// shares e's constant pool, so weights are stored once. Pass the module to
// NewVM with WithImports.
func (e *Executable) WithCompiled(funcs map[string]CompiledFunc) (*Executable, *Module, error) {
	c := &Executable{
		funcMap:     e.funcMap,
		scopes:      e.scopes,
		constants:   e.constants,
		instrOffset: e.instrOffset,
		instrData:   e.instrData,
		funcs:       make([]FuncInfo, len(e.funcs)),
	}
	mod := NewModule("compiled")
	names := make([]string, 0, len(funcs))
	for n := range funcs {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, f := range e.funcs {
		c.funcs[i] = f.clone()
	}
	for _, n := range names {
		cf := funcs[n]
		i, ok := e.funcMap[n]
		if !ok {
			return nil, nil, fmt.Errorf("runtime: compiled function %q is not in the executable", n)
		}
		f := &c.funcs[i]
		if f.Kind != FuncKindVM && f.Kind != FuncKindVMTIR {
			return nil, nil, fmt.Errorf("runtime: %q is a %s, not a Relax function", n, f.Kind)
		}
		if cf.Func == nil || cf.RegisterFileSize < f.NumArgs+1 {
			return nil, nil, fmt.Errorf("runtime: compiled function %q needs a body and at least %d registers", n, f.NumArgs+1)
		}
		f.Kind = FuncKindVMTIR
		f.StartInstr, f.EndInstr = 0, 0
		f.RegisterFileSize = cf.RegisterFileSize
		if err := mod.RegisterVMTIR(VMTIRFuncPrefix+n, cf.Func); err != nil {
			return nil, nil, err
		}
	}
	return c, mod, nil
}

// IfCond reads an If condition as the VM does: a bool, or an integer that is
// true when non-zero.
func IfCond(v Value) (bool, error) {
	c, err := condValue(v)
	return c != 0, err
}

// ResolveFuncs looks names up in the global registry, reporting every
// missing one (generated code resolves its kernels and builtins once).
func ResolveFuncs(names ...string) ([]PackedFunc, error) {
	out := make([]PackedFunc, len(names))
	var missing []string
	for i, n := range names {
		f, ok := Lookup(n)
		if !ok {
			missing = append(missing, n)
			continue
		}
		out[i] = f
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("runtime: functions not registered (is the kernels package linked in?): %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// ValuesEqual reports whether two values are identical: tensors with equal
// dtype, shape and bytes, equal shapes, scalars and strings, and tuples of
// identical values. Generated tests use it to check that the bytecode and
// compiled modes agree bit for bit.
func ValuesEqual(a, b Value) bool {
	switch x := a.(type) {
	case *Tensor:
		y, ok := b.(*Tensor)
		if !ok || x == nil || y == nil {
			return ok && x == y
		}
		return x.dtype == y.dtype && Shape(x.shape).Equal(Shape(y.shape)) && string(x.data) == string(y.data)
	case Shape:
		y, ok := b.(Shape)
		return ok && x.Equal(y)
	case Tuple:
		y, ok := b.(Tuple)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !ValuesEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case int64, float64, bool, string, DataType, nil:
		return a == b
	}
	return false
}

// CallErr is the error compiled code returns when the call at instruction
// instr of callee fails: the error with that position, except for the
// checking builtins' *CheckError, which already names the function,
// parameter and values and is returned as is (as the bytecode VM does).
func CallErr(instr int, callee string, err error) error {
	var ce *CheckError
	if errors.As(err, &ce) {
		return err
	}
	return fmt.Errorf("instruction %d: call %s: %w", instr, callee, err)
}

// AllocStorageBytes is vm.builtin.alloc_storage for compiled code: n bytes on
// the VM's first device, recycled like any storage the running call allocates.
func (vm *VM) AllocStorageBytes(n int64) (*Storage, error) {
	s, err := vm.alloc.Alloc(n, vm.devices[0])
	if err != nil {
		return nil, fmt.Errorf("runtime: vm.builtin.alloc_storage: %w", err)
	}
	vm.trackStorage(s)
	return s, nil
}

// ViewTensor is vm.builtin.alloc_tensor for compiled code: a tensor of shape
// (an immutable Shape value, not copied) and dt at offset within s.
func (s *Storage) ViewTensor(offset int64, shape Shape, dt DataType) (*Tensor, error) {
	t, err := s.viewTensor(offset, shape, dt)
	if err != nil {
		return nil, fmt.Errorf("runtime: vm.builtin.alloc_tensor: %w", err)
	}
	return t, nil
}

// ValueShape returns the dimensions of a tensor (its shape) or of a shape value.
func ValueShape(v Value) ([]int64, bool) {
	switch x := v.(type) {
	case *Tensor:
		if x != nil {
			return x.shape, true
		}
	case Shape:
		return x, true
	}
	return nil, false
}

// ShapeHeap returns the slots of a shape heap (vm.builtin.alloc_shape_heap's int64 tensor).
func ShapeHeap(v Value) ([]int64, bool) {
	if t, ok := v.(*Tensor); ok && t != nil && t.dtype == Int64 && len(t.shape) == 1 {
		return viewAs[int64](t.data), true
	}
	return nil, false
}

// maxShapeSites bounds the make_shape call sites a compiled program may use.
const maxShapeSites = 1 << 20

// MakeShapeAt is vm.builtin.make_shape for compiled code at call site (an
// index the code generator assigns). As in the bytecode VM, while the shape a
// site makes is unchanged its previous (immutable) Shape value is returned
// again instead of a new allocation.
func (vm *VM) MakeShapeAt(site int, args []Value) (Value, error) {
	if site < 0 || site >= maxShapeSites {
		return nil, fmt.Errorf("runtime: make_shape call site %d out of range", site)
	}
	var buf [8]int64
	s, err := makeShapeInto(buf[:0], args)
	if err != nil {
		return nil, err
	}
	if site >= len(vm.siteShapes) {
		vm.siteShapes = append(vm.siteShapes, make([]Value, site+1-len(vm.siteShapes))...)
	}
	return reuseShape(&vm.siteShapes[site], s), nil
}
