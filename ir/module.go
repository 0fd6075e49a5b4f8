package ir

import "fmt"

// BaseFunc is a module function: *Function or *PrimFunc.
type BaseFunc interface{ funcName() string }

func (f *Function) funcName() string { return f.Name }
func (f *PrimFunc) funcName() string { return f.Name }

// Module is an IRModule: named functions in declaration order, and attributes.
type Module struct {
	Funcs map[string]BaseFunc
	// Order lists function names in declaration order.
	Order []string
	Attrs Attrs
	// STIR records @I.ir_module(s_tir=True).
	STIR bool
	// GlobalInfos holds I.module_global_infos entries verbatim (name -> printed value).
	GlobalInfos Attrs
}

// NewModule makes an empty module.
func NewModule() *Module { return &Module{Funcs: map[string]BaseFunc{}} }

// Add appends a function; names must be unique.
func (m *Module) Add(name string, f BaseFunc) error {
	if _, ok := m.Funcs[name]; ok {
		return fmt.Errorf("duplicate function %q in module", name)
	}
	m.Funcs[name] = f
	m.Order = append(m.Order, name)
	return nil
}

// Replace sets name's function (appending it when new).
func (m *Module) Replace(name string, f BaseFunc) {
	if _, ok := m.Funcs[name]; !ok {
		m.Order = append(m.Order, name)
	}
	m.Funcs[name] = f
}

// Remove deletes a function.
func (m *Module) Remove(name string) {
	if _, ok := m.Funcs[name]; !ok {
		return
	}
	delete(m.Funcs, name)
	for i, n := range m.Order {
		if n == name {
			m.Order = append(m.Order[:i:i], m.Order[i+1:]...)
			break
		}
	}
}

// RelaxFuncs lists the Relax functions in declaration order.
func (m *Module) RelaxFuncs() []*Function {
	var out []*Function
	for _, n := range m.Order {
		if f, ok := m.Funcs[n].(*Function); ok {
			out = append(out, f)
		}
	}
	return out
}

// PrimFuncs lists the TIR functions in declaration order.
func (m *Module) PrimFuncs() []*PrimFunc {
	var out []*PrimFunc
	for _, n := range m.Order {
		if f, ok := m.Funcs[n].(*PrimFunc); ok {
			out = append(out, f)
		}
	}
	return out
}

// Function returns the Relax function name.
func (m *Module) Function(name string) (*Function, bool) {
	f, ok := m.Funcs[name].(*Function)
	return f, ok
}

// PrimFunc returns the TIR function name.
func (m *Module) PrimFunc(name string) (*PrimFunc, bool) {
	f, ok := m.Funcs[name].(*PrimFunc)
	return f, ok
}

// Clone makes a shallow copy whose function table can be changed independently.
func (m *Module) Clone() *Module {
	c := &Module{Funcs: make(map[string]BaseFunc, len(m.Funcs)), Order: append([]string{}, m.Order...),
		Attrs: append(Attrs{}, m.Attrs...), STIR: m.STIR, GlobalInfos: append(Attrs{}, m.GlobalInfos...)}
	for k, v := range m.Funcs {
		c.Funcs[k] = v
	}
	return c
}
