package runtime

import (
	"fmt"
	"sync"
)

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
	PrimFuncs map[string]PackedFunc
}

// Model is a loaded model: its bytecode executable, the compiled-mode
// executable derived from it (same constants), the module of its Go
// functions, and a pool of VMs. It is safe for concurrent use: each Invoke
// runs on a VM of its own.
type Model struct {
	name     string
	exec     *Executable
	compiled *Executable
	tirMod   *Module
	vmtirMod *Module
	pool     sync.Pool
}

// LoadModel loads a model package's executable and wires its Go functions.
func LoadModel(spec ModelSpec) (*Model, error) {
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
	compiled, vmtirMod, err := exec.WithCompiled(spec.Compiled)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.Name, err)
	}
	vmtirMod.Import(tirMod)
	return &Model{name: spec.Name, exec: exec, compiled: compiled, tirMod: tirMod, vmtirMod: vmtirMod}, nil
}

// Executable is the bytecode executable (TVM's "0.14" format).
func (m *Model) Executable() *Executable { return m.exec }

// NewVM returns a VM that runs the model as bytecode. A VM is for one goroutine at a time.
func (m *Model) NewVM(opts ...VMOption) (*VM, error) {
	return NewVM(m.exec, append([]VMOption{WithImports(m.tirMod)}, opts...)...)
}

// NewCompiledVM returns a VM whose functions are the compiled Go ones. A VM
// is for one goroutine at a time.
func (m *Model) NewCompiledVM(opts ...VMOption) (*VM, error) {
	return NewVM(m.compiled, append([]VMOption{WithImports(m.vmtirMod)}, opts...)...)
}

// Invoke calls a function by name in compiled mode on a pooled VM.
func (m *Model) Invoke(name string, args ...Value) (Value, error) {
	vm, _ := m.pool.Get().(*VM)
	if vm == nil {
		var err error
		if vm, err = m.NewCompiledVM(); err != nil {
			return nil, err
		}
	}
	v, err := vm.Invoke(name, args...)
	m.pool.Put(vm)
	return v, err
}
