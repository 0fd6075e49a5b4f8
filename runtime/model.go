package runtime

import (
	"context"
	"fmt"
	goruntime "runtime"

	"github.com/relaxgo/relaxgo/internal/freelist"
	"github.com/relaxgo/relaxgo/internal/rtlink"
)

// Model is a loaded model: its bytecode executable, the compiled-mode
// executable derived from it (same constants), the module of its Go
// functions, and a pool of VMs. It is safe for concurrent use: each Invoke
// runs on a VM of its own. The pool keeps up to GOMAXPROCS idle VMs, with
// their intermediate storage, for the Model's lifetime (as an inference
// session keeps its arena): garbage collections do not empty it.
type Model struct {
	name     string
	exec     *Executable
	compiled *Executable
	tirMod   *Module
	vmtirMod *Module
	mode     Mode
	pool     *freelist.List[*VM]
	// origin is the Model loaded first, which WithMode copies keep
	// reachable with their VMs: cleanups attached to it (rtimpl forgets the
	// weights' packed forms) must not run while a copy or a VM is in use.
	origin *Model
}

// Mode is how a Model's Invoke runs functions.
type Mode int

const (
	// Compiled runs the functions compiled to Go (the default).
	Compiled Mode = iota
	// Bytecode runs the bytecode executable on the VM's interpreter.
	Bytecode
)

// String names the mode.
func (m Mode) String() string {
	switch m {
	case Compiled:
		return "compiled"
	case Bytecode:
		return "bytecode"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// WithMode returns a Model that shares m's executables and weights and whose
// Invoke runs in mode, on a VM pool of its own. Generated packages wrap it so
// that their typed functions run in either mode:
// m.WithMode(runtime.Bytecode).Main(x).
func (m *Model) WithMode(mode Mode) *Model {
	if mode != Compiled && mode != Bytecode {
		mode = Compiled
	}
	origin := m.origin
	if origin == nil {
		origin = m
	}
	return &Model{name: m.name, exec: m.exec, compiled: m.compiled, tirMod: m.tirMod, vmtirMod: m.vmtirMod, mode: mode, pool: newVMPool(), origin: origin}
}

// Mode reports how Invoke runs functions.
func (m *Model) Mode() Mode { return m.mode }

// loadModel loads a model package's executable and wires its Go functions
// (rtimpl.LoadModel, through rtlink.LoadModel).
func loadModel(spec rtlink.ModelSpec) (*Model, error) {
	exec, err := LoadExecutable(spec.Executable)
	if err != nil {
		return nil, fmt.Errorf("%s: loading the executable: %w", spec.Name, err)
	}
	tirMod := NewModule(spec.Name + ".tir")
	for name, f := range spec.PrimFuncs {
		if err := tirMod.Register(name, f); err != nil {
			return nil, fmt.Errorf("%s: %w", spec.Name, err)
		}
	}
	funcs := make(map[string]compiledFunc, len(spec.Compiled))
	for name, cf := range spec.Compiled {
		f, ok := cf.Func.(func(*VM, []Value) error)
		if !ok && cf.Func != nil {
			return nil, fmt.Errorf("%s: compiled function %q has type %T", spec.Name, name, cf.Func)
		}
		funcs[name] = compiledFunc{Func: f, RegisterFileSize: cf.RegisterFileSize}
	}
	compiled, vmtirMod, err := exec.withCompiled(funcs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.Name, err)
	}
	vmtirMod.Import(tirMod)
	return &Model{name: spec.Name, exec: exec, compiled: compiled, tirMod: tirMod, vmtirMod: vmtirMod, pool: newVMPool()}, nil
}

// newVMPool is a Model's pool of idle VMs: one per processor at most.
func newVMPool() *freelist.List[*VM] {
	return &freelist.List[*VM]{Max: goruntime.GOMAXPROCS(0)}
}

// Executable is the bytecode executable (TVM's "0.14" format).
func (m *Model) Executable() *Executable { return m.exec }

// NewVM returns a VM that runs the model as bytecode. A VM is for one goroutine at a time.
func (m *Model) NewVM(opts ...VMOption) (*VM, error) {
	return NewVM(m.exec, append([]VMOption{WithImports(m.tirMod), withOwner(m)}, opts...)...)
}

// NewCompiledVM returns a VM whose functions are the compiled Go ones. A VM
// is for one goroutine at a time.
func (m *Model) NewCompiledVM(opts ...VMOption) (*VM, error) {
	return NewVM(m.compiled, append([]VMOption{WithImports(m.vmtirMod), withOwner(m)}, opts...)...)
}

// Invoke calls a function by name on a pooled VM, in the Model's mode
// (compiled unless WithMode chose bytecode).
func (m *Model) Invoke(name string, args ...Value) (Value, error) {
	vm, err := m.getVM()
	if err != nil {
		return nil, err
	}
	v, err := vm.Invoke(name, args...)
	m.pool.Put(vm)
	return v, err
}

// InvokeInto is VM.InvokeInto on a pooled VM, in the Model's mode: the
// results are copied into the caller's tensors dst and a warm call of a
// static-shape function allocates nothing.
func (m *Model) InvokeInto(dst []*Tensor, name string, args ...Value) error {
	vm, err := m.getVM()
	if err != nil {
		return err
	}
	err = vm.InvokeInto(dst, name, args...)
	m.pool.Put(vm)
	return err
}

// InvokeContext is Invoke that stops when ctx is done: bytecode functions
// look at ctx every 1024 instructions and compiled functions when they
// start (kernels already running finish first); the error wraps ctx.Err().
func (m *Model) InvokeContext(ctx context.Context, name string, args ...Value) (Value, error) {
	if ctx.Done() == nil {
		// context.Background and the like can never be cancelled.
		return m.Invoke(name, args...)
	}
	vm, err := m.getVM()
	if err != nil {
		return nil, err
	}
	v, err := vm.InvokeContext(ctx, name, args...)
	m.pool.Put(vm)
	return v, err
}

// getVM takes a VM of the Model's mode from the pool, or makes one.
func (m *Model) getVM() (*VM, error) {
	if vm := m.pool.Get(); vm != nil {
		return vm, nil
	}
	if m.mode == Bytecode {
		return m.NewVM()
	}
	return m.NewCompiledVM()
}

// CompareModes calls name with args on a new bytecode VM and a new compiled
// VM and returns both results and errors; generated tests check that the
// modes agree (with ValuesEqual). A VM that cannot start is reported as that
// mode's error (e.g. ErrMissingFunction).
func (m *Model) CompareModes(name string, args ...Value) (bytecode, compiled Value, bytecodeErr, compiledErr error) {
	if vm, err := m.NewVM(); err != nil {
		bytecodeErr = err
	} else {
		bytecode, bytecodeErr = vm.Invoke(name, args...)
	}
	if vm, err := m.NewCompiledVM(); err != nil {
		compiledErr = err
	} else {
		compiled, compiledErr = vm.Invoke(name, args...)
	}
	return bytecode, compiled, bytecodeErr, compiledErr
}

// SampleTensor makes a tensor of deterministic sample data from seed, for
// tests and benchmarks: floats in [-1.25, 1.25] in steps of 0.25, integers
// in 1..5, alternating bools; other dtypes stay zero.
func SampleTensor(shape []int64, dt DataType, seed int) (*Tensor, error) {
	x, err := NewTensor(shape, dt)
	if err != nil {
		return nil, err
	}
	v := func(i int) int { return (i*7 + seed*3) % 11 }
	switch dt {
	case Float32:
		for i := range x.Float32s() {
			x.Float32s()[i] = float32(v(i)-5) / 4
		}
	case Float64:
		for i := range x.Float64s() {
			x.Float64s()[i] = float64(v(i)-5) / 4
		}
	case Int32:
		for i := range x.Int32s() {
			x.Int32s()[i] = int32(v(i)%5 + 1)
		}
	case Int64:
		for i := range x.Int64s() {
			x.Int64s()[i] = int64(v(i)%5 + 1)
		}
	case Bool:
		for i := range x.Bools() {
			x.Bools()[i] = (v(i)+seed)%2 == 0
		}
	}
	return x, nil
}
