package runtime

import (
	"fmt"
	"sort"
)

// compiledFunc is a Relax function compiled to Go together with the size of
// the register file it needs (parameters, the return slot, temporaries).
type compiledFunc struct {
	Func             vmtirFunc
	RegisterFileSize int64
}

// withCompiled returns a copy of e in which the named Relax functions are
// compiled (FuncKindVMTIR) entries with the given register file sizes, and a
// module registering their Go implementations as "__vmtir__<name>". The copy
// shares e's constant pool, so weights are stored once. Pass the module to
// NewVM with WithImports.
func (e *Executable) withCompiled(funcs map[string]compiledFunc) (*Executable, *Module, error) {
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
		if err := mod.registerVMTIR(vmtirFuncPrefix+n, cf.Func); err != nil {
			return nil, nil, err
		}
	}
	return c, mod, nil
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

// allocStorageBytes is vm.builtin.alloc_storage for compiled code: n bytes on
// the VM's first device, recycled like any storage the running call allocates.
func (vm *VM) allocStorageBytes(n int64) (*Storage, error) {
	if err := vm.reserve(n, nil, DataType{}); err != nil {
		return nil, fmt.Errorf("runtime: vm.builtin.alloc_storage: %w", err)
	}
	s, err := vm.alloc.Alloc(n, vm.devices[0])
	if err != nil {
		return nil, fmt.Errorf("runtime: vm.builtin.alloc_storage: %w", err)
	}
	vm.account(s)
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

// maxShapeSites bounds the make_shape call sites a compiled program may use.
const maxShapeSites = 1 << 20

// makeShapeAt is vm.builtin.make_shape for compiled code at call site (an
// index the code generator assigns). As in the bytecode VM, while the shape a
// site makes is unchanged its previous (immutable) Shape value is returned
// again instead of a new allocation.
func (vm *VM) makeShapeAt(site int, args []Value) (Value, error) {
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
