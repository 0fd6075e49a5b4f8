package runtime

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
