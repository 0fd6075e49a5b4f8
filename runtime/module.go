package runtime

import (
	"fmt"
	"sort"
	"sync"
)

// vmtirFuncPrefix is the symbol prefix of compiled Relax functions: the
// function table entry "main" of kind FuncKindVMTIR is implemented by the
// vmtirFunc "__vmtir__main".
const vmtirFuncPrefix = "__vmtir__"

// vmtirFunc is a Relax function compiled to Go (TVM's exec_mode="compiled").
// regs is a fresh register file of the entry's register_file_size:
// regs[0:num_args] hold the arguments and the function stores its result in
// regs[num_args]. Constants and the function pool are reached through
// vm.constPool and vm.funcPool, calls through vm.callFunc / vm.InvokeClosure.
type vmtirFunc func(vm *VM, regs []Value) error

// Module is a named collection of packed functions and compiled functions
// with imports (TVM's runtime.Module): a kernel library, or a generated model
// package. The VM resolves packed functions from its imported modules before
// the global registry. A Module is safe for concurrent use.
type Module struct {
	name    string
	mu      sync.RWMutex
	funcs   map[string]PackedFunc
	vmtir   map[string]vmtirFunc
	imports []*Module
}

// NewModule returns an empty module.
func NewModule(name string) *Module {
	return &Module{name: name, funcs: map[string]PackedFunc{}, vmtir: map[string]vmtirFunc{}}
}

// Name is the module's name.
func (m *Module) Name() string { return m.name }

// Register adds a packed function; registering a name twice is an error.
func (m *Module) Register(name string, f PackedFunc) error {
	if f == nil {
		return fmt.Errorf("runtime: module %s: register %q: nil function", m.name, name)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.funcs[name]; ok {
		return fmt.Errorf("runtime: module %s: function %q is already registered", m.name, name)
	}
	m.funcs[name] = f
	return nil
}

// registerVMTIR adds a compiled function under its full symbol, e.g.
// "__vmtir__main"; registering a symbol twice is an error.
func (m *Module) registerVMTIR(symbol string, f vmtirFunc) error {
	if f == nil {
		return fmt.Errorf("runtime: module %s: register %q: nil function", m.name, symbol)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.vmtir[symbol]; ok {
		return fmt.Errorf("runtime: module %s: compiled function %q is already registered", m.name, symbol)
	}
	m.vmtir[symbol] = f
	return nil
}

// Import adds other to the modules searched after m's own functions.
func (m *Module) Import(other *Module) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.imports = append(m.imports, other)
}

// Imports lists the imported modules.
func (m *Module) Imports() []*Module {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return append([]*Module(nil), m.imports...)
}

// GetFunction looks name up in m, then (depth first) in its imports.
func (m *Module) GetFunction(name string) (PackedFunc, bool) {
	return m.getFunction(name, 0)
}

func (m *Module) getFunction(name string, depth int) (PackedFunc, bool) {
	if depth > 64 {
		return nil, false
	}
	m.mu.RLock()
	f, ok := m.funcs[name]
	imps := m.imports
	m.mu.RUnlock()
	if ok {
		return f, true
	}
	for _, im := range imps {
		if f, ok := im.getFunction(name, depth+1); ok {
			return f, true
		}
	}
	return nil, false
}

// getVMTIRFunc looks a compiled function's symbol up in m, then in its imports.
func (m *Module) getVMTIRFunc(symbol string) (vmtirFunc, bool) {
	return m.getVMTIR(symbol, 0)
}

func (m *Module) getVMTIR(symbol string, depth int) (vmtirFunc, bool) {
	if depth > 64 {
		return nil, false
	}
	m.mu.RLock()
	f, ok := m.vmtir[symbol]
	imps := m.imports
	m.mu.RUnlock()
	if ok {
		return f, true
	}
	for _, im := range imps {
		if f, ok := im.getVMTIR(symbol, depth+1); ok {
			return f, true
		}
	}
	return nil, false
}

// ListFunctions lists the module's own packed and compiled function names, sorted.
func (m *Module) ListFunctions() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]string, 0, len(m.funcs)+len(m.vmtir))
	for n := range m.funcs {
		out = append(out, n)
	}
	for n := range m.vmtir {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

var vmtirRegistry = struct {
	sync.RWMutex
	funcs map[string]vmtirFunc
}{funcs: map[string]vmtirFunc{}}

// registerVMTIR adds a compiled function to the global registry under its
// full symbol ("__vmtir__<name>"). Registering a symbol twice is an error
// unless override is true. Because symbols are global, generated packages
// should prefer a Module passed with WithImports, which cannot collide.
func registerVMTIR(symbol string, f vmtirFunc, override bool) error {
	if f == nil {
		return fmt.Errorf("runtime: register %q: nil function", symbol)
	}
	vmtirRegistry.Lock()
	defer vmtirRegistry.Unlock()
	if _, ok := vmtirRegistry.funcs[symbol]; ok && !override {
		return fmt.Errorf("runtime: compiled function %q is already registered", symbol)
	}
	vmtirRegistry.funcs[symbol] = f
	return nil
}

// lookupVMTIR returns the globally registered compiled function symbol.
func lookupVMTIR(symbol string) (vmtirFunc, bool) {
	vmtirRegistry.RLock()
	defer vmtirRegistry.RUnlock()
	f, ok := vmtirRegistry.funcs[symbol]
	return f, ok
}

// unregisterVMTIR removes symbol from the global registry and reports whether it was there.
func unregisterVMTIR(symbol string) bool {
	vmtirRegistry.Lock()
	defer vmtirRegistry.Unlock()
	_, ok := vmtirRegistry.funcs[symbol]
	delete(vmtirRegistry.funcs, symbol)
	return ok
}
