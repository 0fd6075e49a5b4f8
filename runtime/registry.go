package runtime

import (
	"fmt"
	"sort"
	"sync"
)

var registry = struct {
	sync.RWMutex
	funcs map[string]PackedFunc
	// replaced are the names whose first registration was overridden.
	replaced map[string]bool
}{funcs: map[string]PackedFunc{}, replaced: map[string]bool{}}

// replacedFunc reports whether name's first registration was overridden
// (Register with override): compiled code then calls it as registered,
// never a library function of the same name directly.
func replacedFunc(name string) bool {
	registry.RLock()
	defer registry.RUnlock()
	return registry.replaced[name]
}

// Register adds f to the global function registry under name. Registering a
// name twice is an error unless override is true (TVM's register_func semantics).
func Register(name string, f PackedFunc, override bool) error {
	if f == nil {
		return fmt.Errorf("runtime: register %q: nil function", name)
	}
	registry.Lock()
	defer registry.Unlock()
	if _, ok := registry.funcs[name]; ok {
		if !override {
			return fmt.Errorf("runtime: global function %q is already registered", name)
		}
		registry.replaced[name] = true
	}
	registry.funcs[name] = f
	return nil
}

// MustRegister is Register for package initialisation: it panics when name is
// already taken, which is a programming error in the registering package.
func MustRegister(name string, f PackedFunc) {
	if err := Register(name, f, false); err != nil {
		panic(err)
	}
}

// Lookup returns the global function registered under name.
func Lookup(name string) (PackedFunc, bool) {
	registry.RLock()
	defer registry.RUnlock()
	f, ok := registry.funcs[name]
	return f, ok
}

// Unregister removes name from the registry and reports whether it was there.
func Unregister(name string) bool {
	registry.Lock()
	defer registry.Unlock()
	_, ok := registry.funcs[name]
	delete(registry.funcs, name)
	return ok
}

// ListGlobalFuncs lists the registered names in sorted order.
func ListGlobalFuncs() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.funcs))
	for n := range registry.funcs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
