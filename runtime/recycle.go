package runtime

import "fmt"

// WithRecycledOutputs makes the results of a call valid only until the next
// call on the VM (Invoke, InvokeContext, InvokeStateful): the storage of the
// tensors a call returns goes back to the VM's pooled allocator when the
// next call starts, and that call's results reuse it; the first tuple a call
// makes reuses the tuple the previous call returned, when it has as many
// elements. In steady state a function returning tensors, or a tuple of
// them, of static shapes then allocates nothing; a caller that keeps a
// result past the next call must copy it (Tensor.Clone). It applies to both modes and needs the
// pooled allocator (the default); with the naive allocator it does nothing.
func WithRecycledOutputs() VMOption { return func(c *vmConfig) { c.recycle = true } }

// recycleOutputs returns the previous call's result storages to the
// allocator (WithRecycledOutputs); the VM calls it when a top-level call
// starts.
func (vm *VM) recycleOutputs() {
	for i, s := range vm.recycled {
		vm.alloc.Free(s)
		vm.recycled[i] = nil
	}
	vm.recycled = vm.recycled[:0]
}

// InvokeInto calls a function by name, as Invoke, and copies its results
// into the caller's tensors dst: the result's tensors in order (one tensor,
// or a tuple's, nested tuples depth first), each dst[i] of its result's
// shape and dtype. The results' own storage then goes back to the VM's
// pool at once, as WithRecycledOutputs does at the next call, so in steady
// state a call of a function of static shapes allocates nothing on any VM
// with the pooled allocator, and dst stays the caller's. A result that is
// not made of tensors, or dst of another count, shape or dtype, is an error
// and dst is left as it was.
func (vm *VM) InvokeInto(dst []*Tensor, name string, args ...Value) error {
	if len(vm.frames) != 0 {
		return fmt.Errorf("runtime: InvokeInto %s: called inside a call of the VM", name)
	}
	prev := vm.recycle
	vm.recycle = true
	v, err := vm.Invoke(name, args...)
	vm.recycle = prev
	defer vm.recycleOutputs()
	if err != nil {
		return err
	}
	n, err := intoResults(dst, v, 0, false)
	if err == nil && n != len(dst) {
		err = fmt.Errorf("%d result tensors, but %d destinations", n, len(dst))
	}
	if err != nil {
		return fmt.Errorf("runtime: InvokeInto %s: %w", name, err)
	}
	_, err = intoResults(dst, v, 0, true)
	return err
}

// intoResults checks (copy false) or copies (copy true) the tensors of
// result v from index i of dst on, and returns the index after them.
func intoResults(dst []*Tensor, v Value, i int, copyData bool) (int, error) {
	switch x := v.(type) {
	case *Tensor:
		if x == nil {
			return i, fmt.Errorf("result %d is a nil tensor", i)
		}
		if i >= len(dst) {
			return i + 1, nil // counted; the caller reports the count
		}
		d := dst[i]
		if copyData {
			copy(d.data, x.data)
			return i + 1, nil
		}
		if d == nil {
			return i, fmt.Errorf("destination %d is nil", i)
		}
		if d.dtype != x.dtype || !Shape(d.shape).Equal(Shape(x.shape)) {
			return i, fmt.Errorf("result %d is %s, destination %d is %s", i, x, i, d)
		}
		return i + 1, nil
	case Tuple:
		for _, e := range x {
			var err error
			if i, err = intoResults(dst, e, i, copyData); err != nil {
				return i, err
			}
		}
		return i, nil
	}
	return i, fmt.Errorf("result %d is %s, not a tensor", i, TypeName(v))
}
