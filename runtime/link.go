package runtime

import (
	"github.com/relaxgo/relaxgo/internal/rtlink"
)

// init hands package rtimpl the VM internals that generated code needs, and
// vmtir the executable builder, through internal/rtlink, without exporting
// them from runtime.
func init() {
	rtlink.ConstPool = func(vm any) []any { return vm.(*VM).consts }
	rtlink.FuncPool = func(vm any) []any { return vm.(*VM).poolVals }
	rtlink.CallFunc = func(vm any, idx int, args []any) (any, error) { return vm.(*VM).callFunc(idx, args...) }
	rtlink.MakeShapeAt = func(vm any, site int, args []any) (any, error) { return vm.(*VM).makeShapeAt(site, args) }
	rtlink.Replaced = replacedFunc
	rtlink.MakeTuple = func(vm any, args []any) (any, error) { return vm.(*VM).makeTuple(args) }
	rtlink.AllocStorage = func(vm any, n int64) (any, error) { return vm.(*VM).allocStorageBytes(n) }
	rtlink.IfCond = func(v any) (bool, error) {
		c, err := condValue(v)
		return c != 0, err
	}
	rtlink.NewExecBuilder = func() rtlink.ExecBuilder { return linkedBuilder{newExecBuilder()} }
	rtlink.LoadModel = func(spec rtlink.ModelSpec) (any, error) { return loadModel(spec) }
	rtlink.ViewInto = func(dst, src any, shape []int64) error {
		s := src.(*Tensor)
		return s.viewInto(dst.(*Tensor), shape, s.dtype)
	}
}

// linkedBuilder adapts execBuilder to rtlink.ExecBuilder's signatures.
type linkedBuilder struct{ *execBuilder }

// DeclareFunction takes the kind as rtlink spells it.
func (b linkedBuilder) DeclareFunction(name string, kind int32) error {
	return b.execBuilder.DeclareFunction(name, FuncKind(kind))
}

// EmitFunction takes the kind as rtlink spells it.
func (b linkedBuilder) EmitFunction(name string, numInputs int64, paramNames []string, kind int32, initRegisterSize int64) error {
	return b.execBuilder.EmitFunction(name, numInputs, paramNames, FuncKind(kind), initRegisterSize)
}

// Get returns the *Executable as any (rtlink cannot name it).
func (b linkedBuilder) Get() (any, error) {
	e, err := b.execBuilder.Get()
	if err != nil {
		return nil, err
	}
	return e, nil
}
