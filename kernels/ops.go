package kernels

import (
	"fmt"
	"sort"
	"strings"

	"github.com/relaxgo/relaxgo/runtime"
)

// Prefix is the registry prefix of every kernel: the packed function for Relax
// op "relax.X" is registered as Prefix + "X" (e.g. "kernels.nn.softmax").
const Prefix = "kernels."

// OpSpec describes the packed calling convention of one kernel.
type OpSpec struct {
	// Name is the registered packed-function name, e.g. "kernels.add".
	Name string
	// Args spells the packed argument order: tensor inputs in Relax order,
	// then attributes in Relax's attribute order, then the output tensor(s).
	Args string
}

// ops is the table of operators this package implements, keyed by the Relax
// op name without the "relax." prefix ("add", "nn.softmax", ...). It is filled
// at package initialisation and read through Lookup and Names. Kernels
// registered elsewhere in the package (matmul, convolutions) are listed by
// Supported as well.
//
// Packed convention: ints are int64, bools are bool or int64 0/1, floats are
// float64, int lists are runtime.Shape, strings are string, dtypes are
// runtime.DataType (or their spelling), None is nil; output tensors come last
// and are preallocated with the shape and dtype the op computes; the function
// returns (nil, nil) or an error.
var ops = map[string]OpSpec{}

// Lookup returns the calling convention of the table kernel for Relax op
// name (without "relax.", e.g. "nn.softmax").
func Lookup(op string) (OpSpec, bool) {
	s, ok := ops[op]
	return s, ok
}

// Names lists the ops of the table (see Lookup), sorted.
func Names() []string {
	out := make([]string, 0, len(ops))
	for n := range ops {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// register records op in the table and registers its packed function globally.
func register(op, args string, f runtime.PackedFunc) {
	ops[op] = OpSpec{Name: Prefix + op, Args: args}
	runtime.MustRegister(Prefix+op, f)
}

// registerUnary registers op with packed arguments (x, out).
func registerUnary(op, args string, f func(out, x *runtime.Tensor) error) {
	full := Prefix + op
	register(op, args, func(a []runtime.Value) (runtime.Value, error) {
		p := newArgs(full, a)
		p.count(2)
		x, out := p.tensor(0), p.tensor(1)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(f(out, x))
	})
}

// registerWithInts registers op with packed arguments (x, an int list, out).
func registerWithInts(op, args string, f func(out, x *runtime.Tensor, v []int64) error) {
	full := Prefix + op
	register(op, args, func(a []runtime.Value) (runtime.Value, error) {
		p := newArgs(full, a)
		p.count(3)
		x, v, out := p.tensor(0), p.ints(1), p.tensor(2)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(f(out, x, v))
	})
}

// Supported lists the Relax op names (without "relax.") that have a kernel
// registered under Prefix, in sorted order.
func Supported() []string {
	var out []string
	for _, n := range runtime.ListGlobalFuncs() {
		if strings.HasPrefix(n, Prefix) {
			out = append(out, strings.TrimPrefix(n, Prefix))
		}
	}
	sort.Strings(out)
	return out
}

// Run calls the kernel registered for Relax op name (e.g. "add" or
// "nn.softmax") with packed args (inputs, attributes, then preallocated
// outputs). The compiler uses it for constant folding: allocate the output
// with the inferred shape and dtype, call Run, and read the output back.
func Run(op string, args ...runtime.Value) error {
	f, ok := runtime.Lookup(Prefix + op)
	if !ok {
		return fmt.Errorf("kernels: no kernel registered for %q", op)
	}
	if _, err := f(args); err != nil {
		return err
	}
	return nil
}
