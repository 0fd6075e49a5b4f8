package runtime

import (
	"fmt"
	"slices"

	"github.com/relaxgo/relaxgo/internal/builtin"
)

// The helpers below decode one argument with Args, so builtins and kernels
// report bad arguments in the same words.

func wantArgs(fn string, args []Value, lo, hi int) error {
	a := Args{Func: fn, Values: args}
	a.Count(lo, hi)
	return a.Err()
}

func intArg(fn string, args []Value, i int) (int64, error) {
	a := Args{Func: fn, Values: args}
	v := a.Int(i)
	return v, a.Err()
}

func tensorArg(fn string, args []Value, i int) (*Tensor, error) {
	a := Args{Func: fn, Values: args}
	t := a.Tensor(i)
	return t, a.Err()
}

func shapeArg(fn string, args []Value, i int) (Shape, error) {
	a := Args{Func: fn, Values: args}
	s := a.Shape(i)
	return s, a.Err()
}

func vmArg(fn string, args []Value) (*VM, error) {
	if len(args) == 0 {
		return nil, argErr(fn, "missing the VM argument (%%vm)")
	}
	vm, ok := args[0].(*VM)
	if !ok || vm == nil {
		return nil, argErr(fn, "argument 0 must be the VM (%%vm), got %s", TypeName(args[0]))
	}
	return vm, nil
}

// dtypeArg accepts a DataType or its string spelling; nil means "none".
func dtypeArg(fn string, args []Value, i int) (DataType, bool, error) {
	a := Args{Func: fn, Values: args}
	dt := a.DType(i)
	return dt, a.Err() == nil && args[i] != nil, a.Err()
}

func strArg(fn string, args []Value, i int) (string, error) {
	a := Args{Func: fn, Values: args}
	s := a.String(i)
	return s, a.Err()
}

// heapArg returns the int64 data of a shape heap argument, or nil for None.
func heapArg(fn string, args []Value, i int) ([]int64, error) {
	switch h := args[i].(type) {
	case nil:
		return nil, nil
	case *Tensor:
		if h == nil {
			return nil, nil
		}
		if h.dtype != Int64 {
			return nil, argErr(fn, "shape heap must be an int64 tensor, got %s", h.dtype)
		}
		return h.Int64s(), nil
	}
	return nil, argErr(fn, "argument %d (shape heap) must be a Tensor or None, got %s", i, TypeName(args[i]))
}

func heapIndex(fn string, heap []int64, reg int64) error {
	if heap == nil {
		return argErr(fn, "heap slot %d used but no shape heap was passed", reg)
	}
	if reg < 0 || reg >= int64(len(heap)) {
		return argErr(fn, "heap slot %d outside the shape heap of %d", reg, len(heap))
	}
	return nil
}

func init() {
	for name, f := range map[string]PackedFunc{
		builtin.AllocShapeHeap:     builtinAllocShapeHeap,
		builtin.MatchShape:         builtinMatchShape,
		builtin.MakeShape:          builtinMakeShape,
		builtin.MatchPrimValue:     builtinMatchPrimValue,
		builtin.MakePrimValue:      builtinMakePrimValue,
		builtin.CheckTensorInfo:    builtinCheckTensorInfo,
		builtin.CheckShapeInfo:     builtinCheckShapeInfo,
		builtin.CheckPrimValueInfo: builtinCheckPrimValueInfo,
		builtin.CheckTupleInfo:     builtinCheckTupleInfo,
		builtin.CheckFuncInfo:      builtinCheckFuncInfo,
		builtin.AllocStorage:       builtinAllocStorage,
		builtin.AllocTensor:        builtinAllocTensor,
		builtin.MemoryManagerClear: builtinMemoryManagerClear,
		builtin.NullValue:          builtinNullValue,
		builtin.Copy:               builtinCopy,
		builtin.MakeTuple:          builtinMakeTuple,
		builtin.TupleGetItem:       builtinTupleGetItem,
		builtin.TupleResetItem:     builtinTupleResetItem,
		builtin.ShapeOf:            builtinShapeOf,
		builtin.Reshape:            builtinReshape,
		builtin.TensorToShape:      builtinTensorToShape,
		builtin.EnsureZeroOffset:   builtinEnsureZeroOffset,
		builtin.ReadIfCond:         builtinReadIfCond,
		builtin.MakeClosure:        builtinMakeClosure,
		builtin.InvokeClosure:      builtinInvokeClosure,
		builtin.CallTIRDyn:         builtinCallTIRDyn,
		builtin.ToDevice:           builtinToDevice,
		builtin.InvokeDebugFunc:    builtinInvokeDebugFunc,
	} {
		MustRegister(name, f)
	}
}

// vm.builtin.alloc_shape_heap(vm, n) -> int64 tensor of n elements.
func builtinAllocShapeHeap(args []Value) (Value, error) {
	const fn = builtin.AllocShapeHeap
	if err := wantArgs(fn, args, 2, 2); err != nil {
		return nil, err
	}
	vm, err := vmArg(fn, args)
	if err != nil {
		return nil, err
	}
	n, err := intArg(fn, args, 1)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > 1<<24 {
		return nil, argErr(fn, "shape heap size %d out of range", n)
	}
	if n < int64(len(heapShapes)) {
		return vm.allocTensor(heapShapes[n], Int64)
	}
	return vm.allocTensor([]int64{n}, Int64)
}

// heapShapes are the shapes of shape heaps of up to 64 slots, made once and
// never changed (the heap's tensor keeps its shape without a copy):
// alloc_shape_heap runs on every call of a function with symbolic shapes,
// and a shape made per call was an allocation per call.
var heapShapes = func() (s [65][]int64) {
	for i := range s {
		s[i] = []int64{int64(i)}
	}
	return s
}()

// allocTensor allocates a dense tensor from the VM's allocator on the host,
// tracked for recycling like alloc_storage.
func (vm *VM) allocTensor(shape []int64, dt DataType) (*Tensor, error) {
	n, err := NumBytes(shape, dt)
	if err != nil {
		return nil, err
	}
	if err := vm.reserve(n, shape, dt); err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	s, err := vm.alloc.Alloc(n, CPU)
	if err != nil {
		return nil, err
	}
	vm.account(s)
	vm.trackStorage(s)
	return s.viewTensor(0, shape, dt)
}

// vm.builtin.match_shape(input Tensor|Shape, heap, n, code_0, val_0, ...,
// code_{n-1}, val_{n-1}[, err_ctx]) -> nil.
func builtinMatchShape(args []Value) (Value, error) {
	const fn = builtin.MatchShape
	if err := wantArgs(fn, args, 3, -1); err != nil {
		return nil, err
	}
	var shape Shape
	var what string
	switch x := args[0].(type) {
	case *Tensor:
		if x == nil {
			return nil, argErr(fn, "nil tensor")
		}
		shape, what = Shape(x.shape), "tensor"
	case Shape:
		shape, what = x, "shape"
	default:
		return nil, argErr(fn, "argument 0 must be a Tensor or Shape, got %s", TypeName(args[0]))
	}
	heap, err := heapArg(fn, args, 1)
	if err != nil {
		return nil, err
	}
	n, err := intArg(fn, args, 2)
	if err != nil {
		return nil, err
	}
	if n < 0 || 3+2*n > int64(len(args)) || 3+2*n+1 < int64(len(args)) {
		return nil, argErr(fn, "size %d does not agree with %d arguments", n, len(args))
	}
	var ctx Value
	if int64(len(args)) == 3+2*n+1 {
		ctx = args[3+2*n]
	}
	if int64(len(shape)) != n {
		return nil, checkErr(ErrMatch, fn, ctx, fmt.Sprintf("ndim mismatch: expected %d, got %d (%s %s)", n, len(shape), what, shape))
	}
	for i := int64(0); i < n; i++ {
		code, err := intArg(fn, args, int(3+2*i))
		if err != nil {
			return nil, err
		}
		reg, err := intArg(fn, args, int(4+2*i))
		if err != nil {
			return nil, err
		}
		switch code {
		case builtin.MatchAssertEqualToImm:
			if shape[i] != reg {
				return nil, checkErr(ErrMatch, fn, ctx, fmt.Sprintf("shape mismatch at dim %d: expected %d, got %d (%s %s)", i, reg, shape[i], what, shape))
			}
		case builtin.MatchStoreToHeap:
			if err := heapIndex(fn, heap, reg); err != nil {
				return nil, err
			}
			heap[reg] = shape[i]
		case builtin.MatchNoOp:
		case builtin.MatchAssertEqualToLoad:
			if err := heapIndex(fn, heap, reg); err != nil {
				return nil, err
			}
			if shape[i] != heap[reg] {
				return nil, checkErr(ErrMatch, fn, ctx, fmt.Sprintf("shape mismatch at dim %d: expected %d (bound by an earlier dimension), got %d (%s %s)", i, heap[reg], shape[i], what, shape))
			}
		default:
			return nil, argErr(fn, "unknown match shape code %d", code)
		}
	}
	return nil, nil
}

// vm.builtin.make_shape(heap, n, code_0, val_0, ...) -> Shape.
func builtinMakeShape(args []Value) (Value, error) {
	var buf [8]int64
	out, err := makeShapeInto(buf[:0], args)
	if err != nil {
		return nil, err
	}
	res := make(Shape, len(out))
	copy(res, out)
	return res, nil
}

// makeShapeInto is vm.builtin.make_shape writing the shape into dst[:0]
// (grown if needed). The VM calls it directly with a stack buffer and
// returns a cached Shape value when the result has not changed (see
// VM.makeShape).
func makeShapeInto(dst []int64, args []Value) ([]int64, error) {
	const fn = builtin.MakeShape
	if err := wantArgs(fn, args, 2, -1); err != nil {
		return nil, err
	}
	heap, err := heapArg(fn, args, 0)
	if err != nil {
		return nil, err
	}
	n, err := intArg(fn, args, 1)
	if err != nil {
		return nil, err
	}
	if n < 0 || 2+2*n != int64(len(args)) {
		return nil, argErr(fn, "size %d does not agree with %d arguments", n, len(args))
	}
	out := slices.Grow(dst[:0], int(n))[:n]
	for i := int64(0); i < n; i++ {
		code, err := intArg(fn, args, int(2+2*i))
		if err != nil {
			return nil, err
		}
		reg, err := intArg(fn, args, int(3+2*i))
		if err != nil {
			return nil, err
		}
		switch code {
		case builtin.MakeUseImm:
			out[i] = reg
		case builtin.MakeLoadShape:
			if err := heapIndex(fn, heap, reg); err != nil {
				return nil, err
			}
			out[i] = heap[reg]
		default:
			return nil, argErr(fn, "invalid shape code %d", code)
		}
	}
	return out, nil
}

// vm.builtin.match_prim_value(value, heap, code, reg[, err_ctx]) -> nil.
func builtinMatchPrimValue(args []Value) (Value, error) {
	const fn = builtin.MatchPrimValue
	if err := wantArgs(fn, args, 4, 5); err != nil {
		return nil, err
	}
	v, err := intArg(fn, args, 0)
	if err != nil {
		return nil, err
	}
	heap, err := heapArg(fn, args, 1)
	if err != nil {
		return nil, err
	}
	code, err := intArg(fn, args, 2)
	if err != nil {
		return nil, err
	}
	reg, err := intArg(fn, args, 3)
	if err != nil {
		return nil, err
	}
	var ctx Value
	if len(args) == 5 {
		ctx = args[4]
	}
	switch code {
	case builtin.MatchAssertEqualToImm:
		if v != reg {
			return nil, checkErr(ErrMatch, fn, ctx, fmt.Sprintf("value mismatch: expected %d, got %d", reg, v))
		}
	case builtin.MatchStoreToHeap:
		if err := heapIndex(fn, heap, reg); err != nil {
			return nil, err
		}
		heap[reg] = v
	case builtin.MatchNoOp:
	case builtin.MatchAssertEqualToLoad:
		if err := heapIndex(fn, heap, reg); err != nil {
			return nil, err
		}
		if v != heap[reg] {
			return nil, checkErr(ErrMatch, fn, ctx, fmt.Sprintf("value mismatch: expected %d (bound earlier), got %d", heap[reg], v))
		}
	default:
		return nil, argErr(fn, "unknown match code %d", code)
	}
	return nil, nil
}

// vm.builtin.make_prim_value(heap, code, reg) -> int64.
func builtinMakePrimValue(args []Value) (Value, error) {
	const fn = builtin.MakePrimValue
	if err := wantArgs(fn, args, 3, 3); err != nil {
		return nil, err
	}
	heap, err := heapArg(fn, args, 0)
	if err != nil {
		return nil, err
	}
	code, err := intArg(fn, args, 1)
	if err != nil {
		return nil, err
	}
	reg, err := intArg(fn, args, 2)
	if err != nil {
		return nil, err
	}
	switch code {
	case builtin.MakeUseImm:
		return reg, nil
	case builtin.MakeLoadShape:
		if err := heapIndex(fn, heap, reg); err != nil {
			return nil, err
		}
		return heap[reg], nil
	}
	return nil, argErr(fn, "invalid shape code %d", code)
}

// vm.builtin.check_tensor_info(x, ndim|-1, [dtype|None,] err_ctx) -> nil.
func builtinCheckTensorInfo(args []Value) (Value, error) {
	const fn = builtin.CheckTensorInfo
	if err := wantArgs(fn, args, 3, 4); err != nil {
		return nil, err
	}
	ndim, err := intArg(fn, args, 1)
	if err != nil {
		return nil, err
	}
	var dt DataType
	hasDT := false
	ctx := args[2]
	if len(args) == 4 {
		if dt, hasDT, err = dtypeArg(fn, args, 2); err != nil {
			return nil, err
		}
		ctx = args[3]
	}
	t, ok := args[0].(*Tensor)
	if !ok || t == nil {
		return nil, checkErr(ErrType, fn, ctx, fmt.Sprintf("type mismatch: expected a Tensor, got %s", TypeName(args[0])))
	}
	if ndim != -1 && int64(t.NDim()) != ndim {
		return nil, checkErr(ErrValue, fn, ctx, fmt.Sprintf("ndim mismatch: expected %d, got %d (tensor shape %s)", ndim, t.NDim(), Shape(t.shape)))
	}
	if hasDT && !dt.IsVoid() && t.dtype != dt {
		return nil, checkErr(ErrValue, fn, ctx, fmt.Sprintf("dtype mismatch: expected %s, got %s", dt, t.dtype))
	}
	return nil, nil
}

// vm.builtin.check_shape_info(x, ndim|-1, err_ctx) -> nil.
func builtinCheckShapeInfo(args []Value) (Value, error) {
	const fn = builtin.CheckShapeInfo
	if err := wantArgs(fn, args, 3, 3); err != nil {
		return nil, err
	}
	ndim, err := intArg(fn, args, 1)
	if err != nil {
		return nil, err
	}
	s, ok := args[0].(Shape)
	if !ok {
		return nil, checkErr(ErrType, fn, args[2], fmt.Sprintf("type mismatch: expected a Shape, got %s", TypeName(args[0])))
	}
	if ndim != -1 && int64(len(s)) != ndim {
		return nil, checkErr(ErrValue, fn, args[2], fmt.Sprintf("ndim mismatch: expected a shape with %d dims, got %d (shape %s)", ndim, len(s), s))
	}
	return nil, nil
}

// vm.builtin.check_prim_value_info(x, dtype, err_ctx) -> nil.
func builtinCheckPrimValueInfo(args []Value) (Value, error) {
	const fn = builtin.CheckPrimValueInfo
	if err := wantArgs(fn, args, 3, 3); err != nil {
		return nil, err
	}
	dt, ok, err := dtypeArg(fn, args, 1)
	if err != nil {
		return nil, err
	}
	if !ok {
		dt = Void
	}
	ctx := args[2]
	bad := func() error {
		return checkErr(ErrType, fn, ctx, fmt.Sprintf("type mismatch: expected a %s value, got %s", dt, TypeName(args[0])))
	}
	switch args[0].(type) {
	case *Tensor, Shape, Tuple, *Closure, PackedFunc, *Storage, string, DataType:
		return nil, bad()
	}
	switch {
	case dt.IsBool(), dt.Code == CodeInt, dt.Code == CodeUInt:
		if _, ok := toInt64(args[0]); !ok {
			return nil, bad()
		}
	case dt.IsFloat():
		switch args[0].(type) {
		case float64, float32, int64, int, int32:
		default:
			return nil, bad()
		}
	case dt.Code == CodeHandle && !dt.IsVoid():
	default:
		return nil, checkErr(ErrType, fn, ctx, fmt.Sprintf("unsupported dtype %s", dt))
	}
	return nil, nil
}

// vm.builtin.check_tuple_info(x, size, err_ctx) -> nil.
func builtinCheckTupleInfo(args []Value) (Value, error) {
	const fn = builtin.CheckTupleInfo
	if err := wantArgs(fn, args, 3, 3); err != nil {
		return nil, err
	}
	size, err := intArg(fn, args, 1)
	if err != nil {
		return nil, err
	}
	t, ok := args[0].(Tuple)
	if !ok {
		return nil, checkErr(ErrType, fn, args[2], fmt.Sprintf("type mismatch: expected a Tuple, got %s", TypeName(args[0])))
	}
	if int64(len(t)) != size {
		return nil, checkErr(ErrValue, fn, args[2], fmt.Sprintf("tuple size mismatch: expected %d elements, got %d elements", size, len(t)))
	}
	return nil, nil
}

// vm.builtin.check_func_info(x, err_ctx) -> nil.
func builtinCheckFuncInfo(args []Value) (Value, error) {
	const fn = builtin.CheckFuncInfo
	if err := wantArgs(fn, args, 2, 2); err != nil {
		return nil, err
	}
	switch f := args[0].(type) {
	case PackedFunc:
		if f != nil {
			return nil, nil
		}
	case *Closure:
		if f != nil {
			return nil, nil
		}
	}
	return nil, checkErr(ErrType, fn, args[1], fmt.Sprintf("type mismatch: expected a Function, got %s", TypeName(args[0])))
}

func checkScope(fn, scope string) error {
	if scope != "" && scope != "global" {
		return argErr(fn, "memory scope %q is not supported on the CPU (only \"global\")", scope)
	}
	return nil
}

// vm.builtin.alloc_storage(vm, Shape size, device_index, dtype_hint, scope)
// -> *Storage of prod(size)*bytes(dtype_hint) bytes.
func builtinAllocStorage(args []Value) (Value, error) {
	const fn = builtin.AllocStorage
	if err := wantArgs(fn, args, 5, 5); err != nil {
		return nil, err
	}
	vm, err := vmArg(fn, args)
	if err != nil {
		return nil, err
	}
	shape, err := shapeArg(fn, args, 1)
	if err != nil {
		return nil, err
	}
	dev, err := intArg(fn, args, 2)
	if err != nil {
		return nil, err
	}
	if dev == -1 {
		dev = int64(len(vm.devices) - 1)
	}
	if dev < 0 || dev >= int64(len(vm.devices)) {
		return nil, argErr(fn, "device index %d outside the VM's %d devices", dev, len(vm.devices))
	}
	dt, ok, err := dtypeArg(fn, args, 3)
	if err != nil {
		return nil, err
	}
	if !ok || dt.ElemBytes() == 0 {
		dt = UInt8
	}
	scope, err := strArg(fn, args, 4)
	if err != nil {
		return nil, err
	}
	if err := checkScope(fn, scope); err != nil {
		return nil, err
	}
	n, err := NumBytes(shape, dt)
	if err != nil {
		return nil, fmt.Errorf("runtime: %s: %w", fn, err)
	}
	if err := vm.reserve(n, shape, dt); err != nil {
		return nil, fmt.Errorf("runtime: %s: %w", fn, err)
	}
	s, err := vm.alloc.Alloc(n, vm.devices[dev])
	if err != nil {
		return nil, fmt.Errorf("runtime: %s: %w", fn, err)
	}
	vm.account(s)
	vm.trackStorage(s)
	return s, nil
}

// vm.builtin.alloc_tensor(storage, offset, Shape, dtype[, scope]) -> *Tensor
// viewing storage at byte offset.
func builtinAllocTensor(args []Value) (Value, error) {
	const fn = builtin.AllocTensor
	if err := wantArgs(fn, args, 4, 5); err != nil {
		return nil, err
	}
	s, ok := args[0].(*Storage)
	if !ok || s == nil {
		return nil, argErr(fn, "argument 0 must be a Storage, got %s", TypeName(args[0]))
	}
	off, err := intArg(fn, args, 1)
	if err != nil {
		return nil, err
	}
	shape, err := shapeArg(fn, args, 2)
	if err != nil {
		return nil, err
	}
	dt, ok, err := dtypeArg(fn, args, 3)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, argErr(fn, "missing dtype")
	}
	if len(args) == 5 {
		scope, err := strArg(fn, args, 4)
		if err != nil {
			return nil, err
		}
		if err := checkScope(fn, scope); err != nil {
			return nil, err
		}
	}
	t, err := s.viewTensor(off, shape, dt)
	if err != nil {
		return nil, fmt.Errorf("runtime: %s: %w", fn, err)
	}
	return t, nil
}

// vm.builtin.memory_manager.clear([vm]) -> nil: drops cached pooled memory of
// the given VM, or of every VM when called without arguments.
func builtinMemoryManagerClear(args []Value) (Value, error) {
	const fn = builtin.MemoryManagerClear
	if err := wantArgs(fn, args, 0, 1); err != nil {
		return nil, err
	}
	if len(args) == 1 {
		vm, err := vmArg(fn, args)
		if err != nil {
			return nil, err
		}
		vm.alloc.Clear()
		return nil, nil
	}
	clearAllocators()
	return nil, nil
}

// vm.builtin.null_value() -> nil.
func builtinNullValue(args []Value) (Value, error) {
	if err := wantArgs(builtin.NullValue, args, 0, 0); err != nil {
		return nil, err
	}
	return nil, nil
}

// vm.builtin.copy(x) -> x.
func builtinCopy(args []Value) (Value, error) {
	if err := wantArgs(builtin.Copy, args, 1, 1); err != nil {
		return nil, err
	}
	return args[0], nil
}

// vm.builtin.make_tuple(xs...) -> Tuple.
func builtinMakeTuple(args []Value) (Value, error) {
	return newTupleValue(args), nil
}

func tupleIndexArgs(fn string, args []Value) (Tuple, int64, error) {
	if err := wantArgs(fn, args, 2, 2); err != nil {
		return nil, 0, err
	}
	t, ok := args[0].(Tuple)
	if !ok {
		return nil, 0, argErr(fn, "argument 0 must be a Tuple, got %s", TypeName(args[0]))
	}
	i, err := intArg(fn, args, 1)
	if err != nil {
		return nil, 0, err
	}
	if i < 0 || i >= int64(len(t)) {
		return nil, 0, argErr(fn, "index %d out of range for a tuple of %d elements", i, len(t))
	}
	return t, i, nil
}

// vm.builtin.tuple_getitem(t, i) -> t[i].
func builtinTupleGetItem(args []Value) (Value, error) {
	t, i, err := tupleIndexArgs(builtin.TupleGetItem, args)
	if err != nil {
		return nil, err
	}
	return t[i], nil
}

// vm.builtin.tuple_reset_item(t, i) -> nil, setting t[i] to nil in place.
func builtinTupleResetItem(args []Value) (Value, error) {
	t, i, err := tupleIndexArgs(builtin.TupleResetItem, args)
	if err != nil {
		return nil, err
	}
	t[i] = nil
	return nil, nil
}

// vm.builtin.shape_of(t) -> Shape (sharing the tensor's shape; do not modify).
func builtinShapeOf(args []Value) (Value, error) {
	const fn = builtin.ShapeOf
	if err := wantArgs(fn, args, 1, 1); err != nil {
		return nil, err
	}
	t, ok := args[0].(*Tensor)
	if !ok || t == nil {
		return nil, fmt.Errorf("runtime: %s: %w: expects a Tensor, but got %s", fn, ErrType, TypeName(args[0]))
	}
	return Shape(t.shape), nil
}

// vm.builtin.reshape(t, Shape) -> zero-copy view.
func builtinReshape(args []Value) (Value, error) {
	const fn = builtin.Reshape
	if err := wantArgs(fn, args, 2, 2); err != nil {
		return nil, err
	}
	t, ok := args[0].(*Tensor)
	if !ok || t == nil {
		return nil, fmt.Errorf("runtime: %s: %w: expects a Tensor, but got %s", fn, ErrType, TypeName(args[0]))
	}
	s, err := shapeArg(fn, args, 1)
	if err != nil {
		return nil, err
	}
	var v *Tensor
	if st := t.storage; st != nil && st.owner != nil {
		// A tensor of the VM's pooled storage (RewriteDataflowReshape's
		// views): a header the storage keeps for its later leases, so that
		// steady-state calls make none.
		if err = t.viewable(s, t.dtype); err == nil {
			v, err = st.cachedView(t.offset, s, t.dtype, true)
		}
	} else {
		v, err = t.View(s, t.dtype)
	}
	if err != nil {
		return nil, fmt.Errorf("runtime: %s: %w", fn, err)
	}
	return v, nil
}

// vm.builtin.tensor_to_shape(t) -> Shape from a 1-d int16/int32/int64 tensor.
func builtinTensorToShape(args []Value) (Value, error) {
	const fn = builtin.TensorToShape
	if err := wantArgs(fn, args, 1, 1); err != nil {
		return nil, err
	}
	t, err := tensorArg(fn, args, 0)
	if err != nil {
		return nil, err
	}
	if t.NDim() != 1 || t.dtype.Code != CodeInt || t.dtype.Lanes != 1 {
		return nil, argErr(fn, "expects a 1-d integer tensor, got %s", t)
	}
	n := t.shape[0]
	out := make(Shape, n)
	switch t.dtype.Bits {
	case 16:
		for i, v := range viewAs[int16](t.data) {
			out[i] = int64(v)
		}
	case 32:
		for i, v := range viewAs[int32](t.data) {
			out[i] = int64(v)
		}
	case 64:
		copy(out, viewAs[int64](t.data))
	default:
		return nil, argErr(fn, "unknown scalar int type %s", t.dtype)
	}
	return out, nil
}

// vm.builtin.ensure_zero_offset(t) -> t, or a view/copy whose data starts
// its storage.
func builtinEnsureZeroOffset(args []Value) (Value, error) {
	const fn = builtin.EnsureZeroOffset
	if err := wantArgs(fn, args, 1, 1); err != nil {
		return nil, err
	}
	t, err := tensorArg(fn, args, 0)
	if err != nil {
		return nil, err
	}
	if t.offset == 0 {
		return t, nil
	}
	if t.offset%alignment == 0 {
		st := &Storage{data: t.data, device: t.device}
		return &Tensor{dtype: t.dtype, shape: t.shape, data: t.data, storage: st, device: t.device}, nil
	}
	return t.Clone(), nil
}

// vm.builtin.read_if_cond(x) -> bool from a bool, an int, or a scalar
// int/uint/bool tensor.
func builtinReadIfCond(args []Value) (Value, error) {
	const fn = builtin.ReadIfCond
	if err := wantArgs(fn, args, 1, 1); err != nil {
		return nil, err
	}
	if v, ok := toInt64(args[0]); ok {
		return v != 0, nil
	}
	t, ok := args[0].(*Tensor)
	if !ok || t == nil {
		return nil, argErr(fn, "condition must be a bool, an int or a tensor, got %s", TypeName(args[0]))
	}
	if t.dtype.Code != CodeInt && t.dtype.Code != CodeUInt {
		return nil, argErr(fn, "condition tensor must have an int, uint or bool dtype, got %s", t.dtype)
	}
	if len(t.data) == 0 {
		return nil, argErr(fn, "condition tensor %s is empty", t)
	}
	var v int64
	switch t.dtype.Bits {
	case 1, 8:
		v = int64(t.data[0])
	case 16:
		v = int64(viewAs[int16](t.data)[0])
	case 32:
		v = int64(viewAs[int32](t.data)[0])
	case 64:
		v = viewAs[int64](t.data)[0]
	default:
		return nil, argErr(fn, "unknown scalar int type %s", t.dtype)
	}
	return v != 0, nil
}

// vm.builtin.make_closure(f, captures...) -> *Closure with the captures bound
// as trailing arguments.
func builtinMakeClosure(args []Value) (Value, error) {
	const fn = builtin.MakeClosure
	if err := wantArgs(fn, args, 1, -1); err != nil {
		return nil, err
	}
	var c *Closure
	switch f := args[0].(type) {
	case *Closure:
		c = f
	case PackedFunc:
		if f != nil {
			c = NewClosure("packed", func(_ *VM, a []Value) (Value, error) { return f(a) })
		}
	}
	if c == nil {
		return nil, argErr(fn, "argument 0 must be a closure, got %s", TypeName(args[0]))
	}
	return c.BindLastArgs(args[1:]...), nil
}

// vm.builtin.invoke_closure(vm, f, args...) -> f(args...).
func builtinInvokeClosure(args []Value) (Value, error) {
	const fn = builtin.InvokeClosure
	if err := wantArgs(fn, args, 2, -1); err != nil {
		return nil, err
	}
	vm, err := vmArg(fn, args)
	if err != nil {
		return nil, err
	}
	return vm.callValue(args[1], args[2:])
}

// vm.builtin.call_tir_dyn(f, args..., Shape) -> f(args..., shape[0], shape[1], ...).
func builtinCallTIRDyn(args []Value) (Value, error) {
	const fn = builtin.CallTIRDyn
	if err := wantArgs(fn, args, 2, -1); err != nil {
		return nil, err
	}
	f, ok := args[0].(PackedFunc)
	if !ok || f == nil {
		return nil, argErr(fn, "argument 0 must be a function, got %s", TypeName(args[0]))
	}
	s, err := shapeArg(fn, args, len(args)-1)
	if err != nil {
		return nil, err
	}
	call := make([]Value, 0, len(args)-2+len(s))
	call = append(call, args[1:len(args)-1]...)
	for _, d := range s {
		call = append(call, d)
	}
	return f(call)
}

// vm.builtin.to_device(t, device_type, device_id[, scope]) -> a copy of t on
// the device (only the CPU exists).
func builtinToDevice(args []Value) (Value, error) {
	const fn = builtin.ToDevice
	if err := wantArgs(fn, args, 3, 4); err != nil {
		return nil, err
	}
	t, err := tensorArg(fn, args, 0)
	if err != nil {
		return nil, err
	}
	dt, err := intArg(fn, args, 1)
	if err != nil {
		return nil, err
	}
	id, err := intArg(fn, args, 2)
	if err != nil {
		return nil, err
	}
	if dt != int64(deviceCPU) {
		return nil, argErr(fn, "device type %d is not available (only CPU = 1)", dt)
	}
	c := t.Clone()
	c.device = Device{Type: deviceCPU, ID: int32(id)}
	c.storage.device = c.device
	return c, nil
}

// vm.builtin.invoke_debug_func(io_effect=None, func_name, line_info, args...)
// calls the global function func_name(line_info, args...) and returns nil.
func builtinInvokeDebugFunc(args []Value) (Value, error) {
	const fn = builtin.InvokeDebugFunc
	if err := wantArgs(fn, args, 3, -1); err != nil {
		return nil, err
	}
	if args[0] != nil {
		return nil, argErr(fn, "IOEffect is expected to be lowered to None")
	}
	name, err := strArg(fn, args, 1)
	if err != nil {
		return nil, err
	}
	f, ok := Lookup(name)
	if !ok {
		return nil, argErr(fn, "%s is not found; register it with runtime.Register", name)
	}
	call := append([]Value{args[2]}, args[3:]...)
	if _, err := f(call); err != nil {
		return nil, err
	}
	return nil, nil
}
