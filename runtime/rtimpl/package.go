package rtimpl

import (
	"fmt"
	goruntime "runtime"
	"sync"

	"github.com/relaxgo/relaxgo/kernels"
	"github.com/relaxgo/relaxgo/runtime"
)

// Package is a generated package's loading state: its model spec, the
// table of library functions its compiled code calls and its shared model.
// Generated code keeps one in a package variable; M is the package's Model
// type, which Wrap makes of a loaded *runtime.Model.
type Package[M any] struct {
	Spec ModelSpec
	// Lib receives the functions named by LibNames, resolved once.
	Lib      *[]runtime.PackedFunc
	LibNames []string
	// Direct receives, per name of LibNames, whether compiled code may call
	// the kernels package's typed function of that name instead (its
	// registration was not overridden).
	Direct *[]bool
	// Wrap makes the generated package's Model of a loaded one.
	Wrap func(*runtime.Model) *M

	once sync.Once
	err  error

	defOnce sync.Once
	def     *M
	defRT   *runtime.Model // def's runtime Model
	defErr  error
}

// Load resolves the library functions (once), loads the embedded executable
// and registers the model's constant weights with the GEMM kernels, which
// pack them on first use and drop them when the returned Model is
// unreachable.
func (p *Package[M]) Load() (*runtime.Model, error) {
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

// New is the generated package's New: Load, wrapped in the package's Model.
func (p *Package[M]) New() (*M, error) {
	_, m, err := p.load()
	return m, err
}

// load is Load and the package's Model wrapping the loaded one.
func (p *Package[M]) load() (*runtime.Model, *M, error) {
	rt, err := p.Load()
	if err != nil {
		return nil, nil, err
	}
	return rt, p.Wrap(rt), nil
}

// Default is the generated package's Default: the Model New loads on the
// first call, shared by every later one (with its error, if loading failed).
func (p *Package[M]) Default() (*M, error) {
	p.defOnce.Do(func() { p.defRT, p.def, p.defErr = p.load() })
	return p.def, p.defErr
}

// Runtime is the Default model's runtime Model, or its loading error, for
// the generated package-level ...Into functions:
// pkg.Runtime().InvokeInto(dst, name, args...).
func (p *Package[M]) Runtime() DefaultModel {
	_, err := p.Default()
	return DefaultModel{p.defRT, err}
}

// DefaultModel is a generated package's Default runtime Model, or the error
// that loading it gave. (Its methods are not generic: a generic method's
// arguments escape to the heap, and a warm InvokeInto must not allocate.)
type DefaultModel struct {
	m   *runtime.Model
	err error
}

// InvokeInto is runtime.Model.InvokeInto on the model, in compiled mode, or
// the loading error.
func (d DefaultModel) InvokeInto(dst []*runtime.Tensor, name string, args ...runtime.Value) error {
	if d.err != nil {
		return d.err
	}
	return d.m.InvokeInto(dst, name, args...)
}
