// Package builtin names the VM's builtin packed functions and the codes of
// their arguments. The compiler (lower, vmtir, gen) emits calls to these names
// and package runtime registers their implementations, so both sides spell
// them from one place.
package builtin

// Names of the builtin packed functions, as TVM's Relax VM registers them
// (plus relaxgo's own vm.builtin.relaxgo.* helpers).
const (
	// AllocTensor is vm.builtin.alloc_tensor.
	AllocTensor = "vm.builtin.alloc_tensor"
	// AllocStorage is vm.builtin.alloc_storage.
	AllocStorage = "vm.builtin.alloc_storage"
	// MatchShape is vm.builtin.match_shape.
	MatchShape = "vm.builtin.match_shape"
	// CheckTensorInfo is vm.builtin.check_tensor_info.
	CheckTensorInfo = "vm.builtin.check_tensor_info"
	// MakeShape is vm.builtin.make_shape.
	MakeShape = "vm.builtin.make_shape"
	// ReadIfCond is vm.builtin.read_if_cond.
	ReadIfCond = "vm.builtin.read_if_cond"
	// MakeTuple is vm.builtin.make_tuple.
	MakeTuple = "vm.builtin.make_tuple"
	// Copy is vm.builtin.copy.
	Copy = "vm.builtin.copy"
	// AllocShapeHeap is vm.builtin.alloc_shape_heap.
	AllocShapeHeap = "vm.builtin.alloc_shape_heap"
	// TupleGetItem is vm.builtin.tuple_getitem.
	TupleGetItem = "vm.builtin.tuple_getitem"
	// NullValue is vm.builtin.null_value.
	NullValue = "vm.builtin.null_value"
	// InvokeClosure is vm.builtin.invoke_closure.
	InvokeClosure = "vm.builtin.invoke_closure"
	// TensorToShape is vm.builtin.tensor_to_shape.
	TensorToShape = "vm.builtin.tensor_to_shape"
	// MakeClosure is vm.builtin.make_closure.
	MakeClosure = "vm.builtin.make_closure"
	// ShapeOf is vm.builtin.shape_of.
	ShapeOf = "vm.builtin.shape_of"
	// MemoryManagerClear is vm.builtin.memory_manager.clear.
	MemoryManagerClear = "vm.builtin.memory_manager.clear"
	// MakePrimValue is vm.builtin.make_prim_value.
	MakePrimValue = "vm.builtin.make_prim_value"
	// Reshape is vm.builtin.reshape.
	Reshape = "vm.builtin.reshape"
	// MatchPrimValue is vm.builtin.match_prim_value.
	MatchPrimValue = "vm.builtin.match_prim_value"
	// CallTIRDyn is vm.builtin.call_tir_dyn.
	CallTIRDyn = "vm.builtin.call_tir_dyn"
	// ToDevice is vm.builtin.to_device.
	ToDevice = "vm.builtin.to_device"
	// InvokeDebugFunc is vm.builtin.invoke_debug_func.
	InvokeDebugFunc = "vm.builtin.invoke_debug_func"
	// EnsureZeroOffset is vm.builtin.ensure_zero_offset.
	EnsureZeroOffset = "vm.builtin.ensure_zero_offset"
	// CheckTupleInfo is vm.builtin.check_tuple_info.
	CheckTupleInfo = "vm.builtin.check_tuple_info"
	// CheckShapeInfo is vm.builtin.check_shape_info.
	CheckShapeInfo = "vm.builtin.check_shape_info"
	// CheckPrimValueInfo is vm.builtin.check_prim_value_info.
	CheckPrimValueInfo = "vm.builtin.check_prim_value_info"
	// CheckFuncInfo is vm.builtin.check_func_info.
	CheckFuncInfo = "vm.builtin.check_func_info"
	// TupleResetItem is vm.builtin.tuple_reset_item.
	TupleResetItem = "vm.builtin.tuple_reset_item"
	// ShapeCompute evaluates a compiled symbolic-shape expression: relaxgo's stand-in for the
	// shape PrimFunc that TVM's VMShapeLower generates. Arguments: (heap *Tensor
	// of int64, dst int64, program Shape); it stores the result in heap[dst].
	ShapeCompute = "vm.builtin.relaxgo.shape_compute"
)

// Match codes of MatchShape and MatchPrimValue (TVM's MatchShapeCode).
const (
	MatchAssertEqualToImm  int64 = 0 // assert value == immediate
	MatchStoreToHeap       int64 = 1 // heap[reg] = value
	MatchNoOp              int64 = 2 // ignore
	MatchAssertEqualToLoad int64 = 3 // assert value == heap[reg]
)

// Make codes of MakeShape and MakePrimValue (TVM's MakeShapeCode).
const (
	MakeUseImm    int64 = 0 // use the immediate
	MakeLoadShape int64 = 1 // load heap[reg]
)
