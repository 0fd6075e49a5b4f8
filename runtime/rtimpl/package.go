package rtimpl

import (
	"fmt"
	goruntime "runtime"
	"sync"

	"github.com/relaxgo/relaxgo/kernels"
	"github.com/relaxgo/relaxgo/runtime"
)

// Package is a generated package's loading state: its model spec and the
// table of library functions its compiled code calls. Generated code keeps
// one in a package variable.
type Package struct {
	Spec ModelSpec
	// Lib receives the functions named by LibNames, resolved once.
	Lib      *[]runtime.PackedFunc
	LibNames []string
	// Direct receives, per name of LibNames, whether compiled code may call
	// the kernels package's typed function of that name instead (its
	// registration was not overridden).
	Direct *[]bool

	once sync.Once
	err  error
}

// Load resolves the library functions (once), loads the embedded executable
// and registers the model's constant weights with the GEMM kernels, which
// pack them on first use and drop them when the returned Model is
// unreachable.
func (p *Package) Load() (*runtime.Model, error) {
	p.once.Do(func() {
		var lib []runtime.PackedFunc
		lib, p.err = ResolveFuncs(p.LibNames...)
		if p.Lib != nil {
			*p.Lib = lib
		}
		if p.Direct != nil {
			*p.Direct = DirectFlags(p.LibNames...)
		}
	})
	if p.err != nil {
		return nil, fmt.Errorf("%s: %w", p.Spec.Name, p.err)
	}
	m, err := LoadModel(p.Spec)
	if err != nil {
		return nil, err
	}
	exec := m.Executable()
	kernels.RegisterConstants(exec)
	goruntime.AddCleanup(m, kernels.UnregisterConstants, exec)
	return m, nil
}
