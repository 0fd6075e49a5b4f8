// Package runtime is what a compiled relaxgo model needs at run time: values
// and tensors, packed functions and their registry, modules, and the Relax
// virtual machine with its executable format, modelled on Apache TVM's
// src/runtime/vm.
//
// # Executables
//
// An Executable holds a function table, a constant pool and a flat stream of
// 64-bit instruction words in TVM's encoding (four opcodes: Call, Ret, Goto,
// If; Call arguments are 8-bit kind + 56-bit value words). The compiler
// assembles one (vmtir.ExecBuilder); Executable.SaveToBytes and
// LoadExecutable read and write TVM's "0.14" binary layout byte for byte. The loader checks every count
// against the bytes that remain before allocating and validates every index,
// register and jump, so a VM never panics on a loaded executable.
// AsText, AsPython and Stats print TVM's formats.
//
// # The VM
//
// NewVM resolves the function pool once: packed functions from the modules
// given with WithImports, then from the global registry; bytecode functions
// and compiled functions (a generated package's Go functions, registered as
// "__vmtir__<name>") become Closures.
// Invoke runs a function; each bytecode activation gets a recycled frame
// whose register file and call-argument buffer are reused, so dispatch does
// not allocate. A VM is used by one goroutine at a time; Executables are
// immutable and shared by any number of VMs.
//
// # Memory
//
// With the pooled allocator (the default) a request under 4096 bytes is
// rounded up to a multiple of 64 bytes (the alignment) and a larger one to a
// multiple of 4096-byte pages; storages are recycled by exact rounded size.
// Go has no reference counts, so the VM decides when a storage is dead:
// storages allocated by vm.builtin.alloc_storage and
// vm.builtin.alloc_shape_heap during a function activation go back to the
// pool when the activation returns, except those reachable from its return
// value (through tensors, tuples and closure captures). Packed functions must
// therefore not keep tensors they receive beyond the call, other than by
// copying; while an Instrument installed with SetInstrument is in place
// nothing is recycled (SetTimingInstrument's keeps recycling).
//
// # Builtins
//
// The vm.builtin.* functions of TVM are registered at init with TVM's names
// and argument conventions; those that need the VM take the %vm register as
// their first argument. Checking builtins return *CheckError whose message
// begins with the compiler's error context, e.g.
// "main: parameter x: shape mismatch at dim 1: expected 16, got 15".
//
// # Generated code
//
// Generated model packages also import runtime/rtimpl, the hooks their code
// calls (constant and function pools, storage allocation, error wrapping, the
// version guard). Users of a generated package need only this package.
package runtime
