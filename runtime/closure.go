package runtime

import "fmt"

// ClosureImpl is the implementation of a Closure: it receives the VM it runs
// on (TVM's ctx pointer) and the arguments. It must not retain args.
type ClosureImpl func(vm *VM, args []Value) (Value, error)

// Closure is a callable VM value (TVM's VMClosure): a named implementation
// taking the VM as its first argument, plus trailing arguments bound by
// BindLastArgs (captured variables of lifted lambdas, SaveFunction inputs).
// Closures are immutable.
type Closure struct {
	name  string
	impl  ClosureImpl
	bound []Value
}

// NewClosure makes a closure named name.
func NewClosure(name string, impl ClosureImpl) *Closure {
	return &Closure{name: name, impl: impl}
}

// Name is the closure's function name.
func (c *Closure) Name() string { return c.name }

// Bound returns the arguments bound by BindLastArgs, in call order.
func (c *Closure) Bound() []Value { return append([]Value(nil), c.bound...) }

// String names the closure.
func (c *Closure) String() string {
	if len(c.bound) == 0 {
		return fmt.Sprintf("Closure(%s)", c.name)
	}
	return fmt.Sprintf("Closure(%s, %d bound)", c.name, len(c.bound))
}

// BindLastArgs returns a closure that calls c with the call's arguments
// followed by last (TVM's VMClosure::BindLastArgs).
func (c *Closure) BindLastArgs(last ...Value) *Closure {
	b := make([]Value, 0, len(last)+len(c.bound))
	b = append(b, last...)
	b = append(b, c.bound...)
	return &Closure{name: c.name, impl: c.impl, bound: b}
}

// call runs the closure on vm.
func (c *Closure) call(vm *VM, args []Value) (Value, error) {
	if len(c.bound) == 0 {
		return c.impl(vm, args)
	}
	full := make([]Value, 0, len(args)+len(c.bound))
	full = append(full, args...)
	full = append(full, c.bound...)
	return c.impl(vm, full)
}
