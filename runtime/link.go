package runtime

import "github.com/relaxgo/relaxgo/runtime/internal/link"

// init hands package rtimpl (through runtime/internal/link) the VM internals
// that generated code needs, without exporting them from runtime.
func init() {
	link.ConstPool = func(vm any) []any { return vm.(*VM).consts }
	link.FuncPool = func(vm any) []any { return vm.(*VM).poolVals }
	link.CallFunc = func(vm any, idx int, args []any) (any, error) { return vm.(*VM).callFunc(idx, args...) }
	link.MakeShapeAt = func(vm any, site int, args []any) (any, error) { return vm.(*VM).makeShapeAt(site, args) }
	link.AllocStorage = func(vm any, n int64) (any, error) { return vm.(*VM).allocStorageBytes(n) }
	link.IfCond = func(v any) (bool, error) {
		c, err := condValue(v)
		return c != 0, err
	}
	link.LoadModel = func(spec link.ModelSpec) (any, error) { return loadModel(spec) }
}
