package runtime

import (
	"errors"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/internal/builtin"
)

func call(t testing.TB, name string, args ...Value) (Value, error) {
	t.Helper()
	f, ok := Lookup(name)
	if !ok {
		t.Fatalf("builtin %s is not registered", name)
	}
	return f(args)
}

const xCtx = `ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((n, 16), dtype="float32"))`

type builtinCase struct {
	name    string
	fn      string
	args    []Value
	want    Value  // checked with valueEqual when wantErr is empty
	wantErr string // substring of the error
	kind    error  // errors.Is target when set
}

// anyValue as a case's want accepts any result.
type anyValue struct{}

func valueEqual(a, b Value) bool {
	if _, ok := b.(anyValue); ok {
		return true
	}
	x, ok1 := a.(Tuple)
	y, ok2 := b.(Tuple)
	if !ok1 || !ok2 {
		return ValuesEqual(a, b)
	}
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if !valueEqual(x[i], y[i]) {
			return false
		}
	}
	return true
}

func runBuiltinCases(t *testing.T, cases []builtinCase) {
	t.Helper()
	for _, tc := range cases {
		got, err := call(t, tc.fn, tc.args...)
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			} else if !valueEqual(got, tc.want) {
				t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.name, err, tc.wantErr)
			continue
		}
		if tc.kind != nil && !errors.Is(err, tc.kind) {
			t.Errorf("%s: err %v is not %v", tc.name, err, tc.kind)
		}
	}
}

func i64s(xs ...int64) *Tensor {
	t, err := FromSlice(xs, int64(len(xs)))
	if err != nil {
		panic(err)
	}
	return t
}

func TestBuiltinShapes(t *testing.T) {
	heap := i64s(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	x := MustNewTensor([]int64{4, 15}, Float32)
	runBuiltinCases(t, []builtinCase{
		{name: "make_shape", fn: "vm.builtin.make_shape", args: []Value{heap, int64(3), builtin.MakeUseImm, int64(10), builtin.MakeLoadShape, int64(0), builtin.MakeLoadShape, int64(2)}, want: Shape{10, 0, 2}},
		{name: "make_shape no heap", fn: "vm.builtin.make_shape", args: []Value{nil, int64(1), builtin.MakeUseImm, int64(5)}, want: Shape{5}},
		{name: "make_shape heap missing", fn: "vm.builtin.make_shape", args: []Value{nil, int64(1), builtin.MakeLoadShape, int64(0)}, wantErr: "no shape heap", kind: ErrBuiltinArgs},
		{name: "make_shape heap range", fn: "vm.builtin.make_shape", args: []Value{heap, int64(1), builtin.MakeLoadShape, int64(10)}, wantErr: "outside the shape heap", kind: ErrBuiltinArgs},
		{name: "make_shape bad code", fn: "vm.builtin.make_shape", args: []Value{heap, int64(1), int64(9), int64(0)}, wantErr: "invalid shape code 9"},
		{name: "make_shape count", fn: "vm.builtin.make_shape", args: []Value{heap, int64(2), builtin.MakeUseImm, int64(0)}, wantErr: "does not agree"},
		{name: "make_prim_value imm", fn: "vm.builtin.make_prim_value", args: []Value{nil, builtin.MakeUseImm, int64(42)}, want: int64(42)},
		{name: "make_prim_value load", fn: "vm.builtin.make_prim_value", args: []Value{heap, builtin.MakeLoadShape, int64(7)}, want: int64(7)},
		{name: "make_prim_value bad", fn: "vm.builtin.make_prim_value", args: []Value{heap, int64(4), int64(7)}, wantErr: "invalid shape code"},
		{name: "shape_of", fn: "vm.builtin.shape_of", args: []Value{x}, want: Shape{4, 15}},
		{name: "shape_of bad", fn: "vm.builtin.shape_of", args: []Value{Shape{1}}, wantErr: "expects a Tensor", kind: ErrType},
		{name: "tensor_to_shape 64", fn: "vm.builtin.tensor_to_shape", args: []Value{i64s(3, 4)}, want: Shape{3, 4}},
		{name: "tensor_to_shape 32", fn: "vm.builtin.tensor_to_shape", args: []Value{must[*Tensor](t)(FromSlice([]int32{5, 6, 7}, 3))}, want: Shape{5, 6, 7}},
		{name: "tensor_to_shape 16", fn: "vm.builtin.tensor_to_shape", args: []Value{must[*Tensor](t)(FromSlice([]int16{-1}, 1))}, want: Shape{-1}},
		{name: "tensor_to_shape float", fn: "vm.builtin.tensor_to_shape", args: []Value{vec(1)}, wantErr: "1-d integer tensor"},
		{name: "tensor_to_shape 2d", fn: "vm.builtin.tensor_to_shape", args: []Value{MustNewTensor([]int64{1, 1}, Int64)}, wantErr: "1-d integer tensor"},
	})
}

func TestBuiltinMatchShape(t *testing.T) {
	heap := i64s(0, 0, 0, 0)
	s := Shape{1, 2, 3}
	x := MustNewTensor([]int64{1, 2, 3}, Float64)
	ms := "vm.builtin.match_shape"
	runBuiltinCases(t, []builtinCase{
		{name: "store", fn: ms, args: []Value{s, heap, int64(3), builtin.MatchAssertEqualToImm, int64(1), builtin.MatchStoreToHeap, int64(2), builtin.MatchNoOp, int64(0), ""}},
		{name: "load", fn: ms, args: []Value{x, heap, int64(3), builtin.MatchAssertEqualToImm, int64(1), builtin.MatchAssertEqualToLoad, int64(2), builtin.MatchAssertEqualToImm, int64(3), ""}},
		{name: "no err ctx", fn: ms, args: []Value{x, heap, int64(3), builtin.MatchNoOp, int64(0), builtin.MatchNoOp, int64(0), builtin.MatchNoOp, int64(0)}},
		{name: "ndim", fn: ms, args: []Value{s, heap, int64(2), builtin.MatchAssertEqualToImm, int64(1), builtin.MatchStoreToHeap, int64(2), xCtx}, wantErr: "main: parameter x: ndim mismatch: expected 2, got 3", kind: ErrMatch},
		{name: "imm", fn: ms, args: []Value{s, heap, int64(3), builtin.MatchAssertEqualToImm, int64(2), builtin.MatchStoreToHeap, int64(2), builtin.MatchNoOp, int64(0), xCtx}, wantErr: "main: parameter x: shape mismatch at dim 0: expected 2, got 1", kind: ErrMatch},
		{name: "load mismatch", fn: ms, args: []Value{Shape{5, 6}, heap, int64(2), builtin.MatchStoreToHeap, int64(0), builtin.MatchAssertEqualToLoad, int64(0), "myctx"}, wantErr: "myctx: shape mismatch at dim 1: expected 5", kind: ErrMatch},
		{name: "bad code", fn: ms, args: []Value{s, heap, int64(1), int64(7), int64(0), ""}, wantErr: "ndim mismatch"},
		{name: "bad code 2", fn: ms, args: []Value{Shape{1}, heap, int64(1), int64(7), int64(0), ""}, wantErr: "unknown match shape code 7", kind: ErrBuiltinArgs},
		{name: "heap index", fn: ms, args: []Value{Shape{1}, heap, int64(1), builtin.MatchStoreToHeap, int64(99), ""}, wantErr: "outside the shape heap", kind: ErrBuiltinArgs},
		{name: "not shape", fn: ms, args: []Value{int64(3), heap, int64(0), ""}, wantErr: "Tensor or Shape", kind: ErrBuiltinArgs},
		{name: "bad heap", fn: ms, args: []Value{s, vec(1), int64(0), ""}, wantErr: "int64 tensor"},
		{name: "count", fn: ms, args: []Value{s, heap, int64(5), ""}, wantErr: "does not agree"},
	})
	if got := heap.Int64s()[2]; got != 2 {
		t.Errorf("heap[2] = %d, want 2", got)
	}
	// The message a user sees for a wrong input dimension.
	_, err := call(t, ms, MustNewTensor([]int64{4, 15}, Float32), i64s(0), int64(2), builtin.MatchStoreToHeap, int64(0), builtin.MatchAssertEqualToImm, int64(16), xCtx)
	want := `main: parameter x: shape mismatch at dim 1: expected 16, got 15 (tensor (4, 15)) (annotation: R.Tensor((n, 16), dtype="float32"))`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant  %s", err, want)
	}
}

func TestBuiltinPrimValue(t *testing.T) {
	heap := i64s(0, 0)
	mp := "vm.builtin.match_prim_value"
	runBuiltinCases(t, []builtinCase{
		{name: "imm ok", fn: mp, args: []Value{int64(3), nil, builtin.MatchAssertEqualToImm, int64(3), ""}},
		{name: "imm bad", fn: mp, args: []Value{int64(4), nil, builtin.MatchAssertEqualToImm, int64(3), "ErrorContext(fn=f, loc=param[1], param=n, annotation=R.Prim(value=3))"}, wantErr: "f: parameter n: value mismatch: expected 3, got 4", kind: ErrMatch},
		{name: "store", fn: mp, args: []Value{int64(8), heap, builtin.MatchStoreToHeap, int64(1), ""}},
		{name: "load ok", fn: mp, args: []Value{int64(8), heap, builtin.MatchAssertEqualToLoad, int64(1), ""}},
		{name: "load bad", fn: mp, args: []Value{int64(9), heap, builtin.MatchAssertEqualToLoad, int64(1), ""}, wantErr: "expected 8 (bound earlier), got 9", kind: ErrMatch},
		{name: "noop", fn: mp, args: []Value{int64(9), nil, builtin.MatchNoOp, int64(0)}},
		{name: "not int", fn: mp, args: []Value{"x", nil, builtin.MatchNoOp, int64(0)}, wantErr: "must be an int", kind: ErrBuiltinArgs},
		{name: "bad code", fn: mp, args: []Value{int64(1), nil, int64(5), int64(0)}, wantErr: "unknown match code 5"},
	})
}

func TestBuiltinChecks(t *testing.T) {
	x := MustNewTensor([]int64{2, 3}, Int32)
	f := PackedFunc(func([]Value) (Value, error) { return nil, nil })
	ct, cs, cp, ctu, cf := "vm.builtin.check_tensor_info", "vm.builtin.check_shape_info", "vm.builtin.check_prim_value_info", "vm.builtin.check_tuple_info", "vm.builtin.check_func_info"
	runBuiltinCases(t, []builtinCase{
		{name: "tensor ok", fn: ct, args: []Value{x, int64(2), Int32, ""}},
		{name: "tensor any ndim", fn: ct, args: []Value{x, int64(-1), Int32, ""}},
		{name: "tensor no dtype", fn: ct, args: []Value{x, int64(2), nil, ""}},
		{name: "tensor dtype string", fn: ct, args: []Value{x, int64(2), "int32", ""}},
		{name: "tensor 3 args", fn: ct, args: []Value{x, int64(2), ""}},
		{name: "tensor ndim", fn: ct, args: []Value{x, int64(3), Int32, xCtx}, wantErr: "main: parameter x: ndim mismatch: expected 3, got 2", kind: ErrValue},
		{name: "tensor dtype", fn: ct, args: []Value{x, int64(2), Float32, "myerror"}, wantErr: "myerror: dtype mismatch: expected float32, got int32", kind: ErrValue},
		{name: "tensor ctx 3 args", fn: ct, args: []Value{x, int64(3), "myerror"}, wantErr: "myerror: ndim mismatch", kind: ErrValue},
		{name: "tensor type", fn: ct, args: []Value{Tuple{}, int64(2), nil, ""}, wantErr: "vm.builtin.check_tensor_info: type mismatch: expected a Tensor, got Tuple", kind: ErrType},
		{name: "tensor bad dtype arg", fn: ct, args: []Value{x, int64(2), int64(5), ""}, wantErr: "must be a DataType", kind: ErrBuiltinArgs},
		{name: "shape ok", fn: cs, args: []Value{Shape{1, 2, 3}, int64(3), ""}},
		{name: "shape any", fn: cs, args: []Value{Shape{1, 2, 3}, int64(-1), ""}},
		{name: "shape ndim", fn: cs, args: []Value{Shape{1, 2, 3}, int64(2), ""}, wantErr: "ndim mismatch", kind: ErrValue},
		{name: "shape type", fn: cs, args: []Value{Tuple{}, int64(2), ""}, wantErr: "expected a Shape", kind: ErrType},
		{name: "prim int", fn: cp, args: []Value{int64(3), Int64, ""}},
		{name: "prim bool", fn: cp, args: []Value{true, Bool, ""}},
		{name: "prim float", fn: cp, args: []Value{1.5, Float32, ""}},
		{name: "prim float from int", fn: cp, args: []Value{int64(1), Float64, ""}},
		{name: "prim int from float", fn: cp, args: []Value{1.5, Int64, "c"}, wantErr: "c: type mismatch: expected a int64 value, got float", kind: ErrType},
		{name: "prim object", fn: cp, args: []Value{x, Int64, ""}, wantErr: "got Tensor", kind: ErrType},
		{name: "prim void", fn: cp, args: []Value{int64(1), Void, ""}, wantErr: "unsupported dtype void", kind: ErrType},
		{name: "tuple ok", fn: ctu, args: []Value{Tuple{x, x, x}, int64(3), ""}},
		{name: "tuple size", fn: ctu, args: []Value{Tuple{x, x, x}, int64(2), ""}, wantErr: "expected 2 elements, got 3 elements", kind: ErrValue},
		{name: "tuple type", fn: ctu, args: []Value{x, int64(2), ""}, wantErr: "expected a Tuple", kind: ErrType},
		{name: "func ok", fn: cf, args: []Value{f, ""}},
		{name: "closure ok", fn: cf, args: []Value{NewClosure("c", nil), ""}},
		{name: "func type", fn: cf, args: []Value{x, "myerror"}, wantErr: "myerror: type mismatch: expected a Function, got Tensor", kind: ErrType},
		{name: "arity", fn: cf, args: []Value{x}, wantErr: "expects 2 arguments", kind: ErrBuiltinArgs},
	})
}

func TestBuiltinData(t *testing.T) {
	a, b := vec(1), vec(2)
	tup := Tuple{a, b}
	x := must[*Tensor](t)(FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3))
	runBuiltinCases(t, []builtinCase{
		{name: "null", fn: "vm.builtin.null_value", want: nil},
		{name: "null args", fn: "vm.builtin.null_value", args: []Value{int64(1)}, wantErr: "expects 0 arguments"},
		{name: "copy", fn: "vm.builtin.copy", args: []Value{int64(5)}, want: int64(5)},
		{name: "copy arity", fn: "vm.builtin.copy", wantErr: "expects 1 arguments"},
		{name: "make_tuple", fn: "vm.builtin.make_tuple", args: []Value{a, int64(1)}, want: Tuple{a, int64(1)}},
		{name: "make_tuple empty", fn: "vm.builtin.make_tuple", want: Tuple{}},
		{name: "getitem", fn: "vm.builtin.tuple_getitem", args: []Value{tup, int64(1)}, want: b},
		{name: "getitem range", fn: "vm.builtin.tuple_getitem", args: []Value{tup, int64(2)}, wantErr: "out of range"},
		{name: "getitem negative", fn: "vm.builtin.tuple_getitem", args: []Value{tup, int64(-1)}, wantErr: "out of range"},
		{name: "getitem type", fn: "vm.builtin.tuple_getitem", args: []Value{a, int64(0)}, wantErr: "must be a Tuple"},
		{name: "reshape", fn: "vm.builtin.reshape", args: []Value{x, Shape{3, 2}}, want: must[*Tensor](t)(FromSlice([]float64{1, 2, 3, 4, 5, 6}, 3, 2))},
		{name: "reshape size", fn: "vm.builtin.reshape", args: []Value{x, Shape{4}}, wantErr: "byte sizes"},
		{name: "reshape type", fn: "vm.builtin.reshape", args: []Value{Shape{1}, Shape{1}}, wantErr: "expects a Tensor", kind: ErrType},
		{name: "read_if_cond bool", fn: "vm.builtin.read_if_cond", args: []Value{true}, want: true},
		{name: "read_if_cond int", fn: "vm.builtin.read_if_cond", args: []Value{int64(0)}, want: false},
		{name: "read_if_cond bool tensor", fn: "vm.builtin.read_if_cond", args: []Value{Scalar(true)}, want: true},
		{name: "read_if_cond int32 tensor", fn: "vm.builtin.read_if_cond", args: []Value{Scalar(int32(0))}, want: false},
		{name: "read_if_cond int64 tensor", fn: "vm.builtin.read_if_cond", args: []Value{Scalar(int64(-2))}, want: true},
		{name: "read_if_cond uint8 tensor", fn: "vm.builtin.read_if_cond", args: []Value{Scalar(uint8(1))}, want: true},
		{name: "read_if_cond float tensor", fn: "vm.builtin.read_if_cond", args: []Value{Scalar(1.0)}, wantErr: "int, uint or bool dtype"},
		{name: "read_if_cond string", fn: "vm.builtin.read_if_cond", args: []Value{"x"}, wantErr: "condition must be"},
		{name: "to_device", fn: "vm.builtin.to_device", args: []Value{x, int64(1), int64(0)}, want: x},
		{name: "to_device gpu", fn: "vm.builtin.to_device", args: []Value{x, int64(2), int64(0)}, wantErr: "not available"},
	})
	_, err := call(t, "vm.builtin.tuple_reset_item", tup, int64(0))
	if err != nil || tup[0] != nil {
		t.Errorf("tuple_reset_item: %v, %v", err, tup)
	}
}

func TestBuiltinEnsureZeroOffset(t *testing.T) {
	st := must[*Storage](t)(NewStorage(256, CPU))
	aligned := must[*Tensor](t)(st.AllocTensor(64, []int64{4}, Float32))
	odd := must[*Tensor](t)(st.AllocTensor(4, []int64{4}, Float32))
	zero := must[*Tensor](t)(st.AllocTensor(0, []int64{4}, Float32))
	aligned.Float32s()[0] = 7
	odd.Float32s()[0] = 9
	for _, tc := range []struct {
		in        *Tensor
		same      bool
		sharesMem bool
		first     float32
	}{{zero, true, true, 0}, {aligned, false, true, 7}, {odd, false, false, 9}} {
		got := must[Value](t)(call(t, "vm.builtin.ensure_zero_offset", tc.in)).(*Tensor)
		if got.ByteOffset() != 0 || (got == tc.in) != tc.same || (&got.Bytes()[0] == &tc.in.Bytes()[0]) != tc.sharesMem || got.Float32s()[0] != tc.first {
			t.Errorf("offset %d: got offset %d same=%v shares=%v", tc.in.ByteOffset(), got.ByteOffset(), got == tc.in, &got.Bytes()[0] == &tc.in.Bytes()[0])
		}
	}
	if _, err := call(t, "vm.builtin.ensure_zero_offset", int64(1)); err == nil {
		t.Error("ensure_zero_offset accepted an int")
	}
}

func TestBuiltinStorageAndClosures(t *testing.T) {
	vm := newVM(t, addMulExec(t))
	sto := must[Value](t)(call(t, "vm.builtin.alloc_storage", vm, Shape{24}, int64(0), Float32, "global")).(*Storage)
	if sto.Size() < 96 {
		t.Errorf("storage of %d bytes, want >= 96", sto.Size())
	}
	runBuiltinCases(t, []builtinCase{
		{name: "alloc_storage host", fn: "vm.builtin.alloc_storage", args: []Value{vm, Shape{8}, int64(-1), UInt8, "global"}, want: anyValue{}},
		{name: "alloc_storage device", fn: "vm.builtin.alloc_storage", args: []Value{vm, Shape{8}, int64(3), UInt8, "global"}, wantErr: "device index 3"},
		{name: "alloc_storage scope", fn: "vm.builtin.alloc_storage", args: []Value{vm, Shape{8}, int64(0), UInt8, "texture"}, wantErr: "memory scope"},
		{name: "alloc_storage no vm", fn: "vm.builtin.alloc_storage", args: []Value{int64(0), Shape{8}, int64(0), UInt8, "global"}, wantErr: "must be the VM"},
		{name: "alloc_storage negative", fn: "vm.builtin.alloc_storage", args: []Value{vm, Shape{-8}, int64(0), UInt8, "global"}, wantErr: "negative dimension"},
		{name: "alloc_tensor oob", fn: "vm.builtin.alloc_tensor", args: []Value{sto, int64(sto.Size() - 4), Shape{4}, Float32}, wantErr: "does not fit"},
		{name: "alloc_tensor not storage", fn: "vm.builtin.alloc_tensor", args: []Value{vec(1), int64(0), Shape{1}, Float32}, wantErr: "must be a Storage"},
		{name: "alloc_tensor scope", fn: "vm.builtin.alloc_tensor", args: []Value{sto, int64(0), Shape{1}, Float32, "texture"}, wantErr: "memory scope"},
		{name: "alloc_shape_heap bad", fn: "vm.builtin.alloc_shape_heap", args: []Value{vm, int64(-1)}, wantErr: "out of range"},
		{name: "memory clear", fn: "vm.builtin.memory_manager.clear", args: nil},
		{name: "memory clear vm", fn: "vm.builtin.memory_manager.clear", args: []Value{vm}},
		{name: "memory clear bad", fn: "vm.builtin.memory_manager.clear", args: []Value{int64(1)}, wantErr: "must be the VM"},
		{name: "make_closure bad", fn: "vm.builtin.make_closure", args: []Value{int64(1)}, wantErr: "must be a closure"},
		{name: "invoke_closure bad", fn: "vm.builtin.invoke_closure", args: []Value{vm, int64(1)}, wantErr: "expected a closure or function"},
		{name: "invoke_closure no vm", fn: "vm.builtin.invoke_closure", args: []Value{nil, int64(1)}, wantErr: "must be the VM"},
		{name: "call_tir_dyn not shape", fn: "vm.builtin.call_tir_dyn", args: []Value{PackedFunc(func([]Value) (Value, error) { return nil, nil }), int64(1)}, wantErr: "must be a Shape"},
	})
	tt := must[Value](t)(call(t, "vm.builtin.alloc_tensor", sto, int64(0), Shape{4, 6}, Float32)).(*Tensor)
	if tt.Storage() != sto || !Shape(tt.Shape()).Equal(Shape{4, 6}) {
		t.Errorf("alloc_tensor: %v", tt)
	}
	heap := must[Value](t)(call(t, "vm.builtin.alloc_shape_heap", vm, int64(3))).(*Tensor)
	if heap.DType() != Int64 || heap.NumElements() != 3 {
		t.Errorf("shape heap %v", heap)
	}

	// make_closure over a packed function, then invoke_closure.
	add, _ := Lookup("test.vm.add_scalar")
	clo := must[Value](t)(call(t, "vm.builtin.make_closure", add, int64(10)))
	if got := must[Value](t)(call(t, "vm.builtin.invoke_closure", vm, clo, int64(5))); got != int64(15) {
		t.Errorf("invoke_closure = %v", got)
	}
	// call_tir_dyn unpacks the shape as trailing ints.
	var seen []Value
	rec := PackedFunc(func(a []Value) (Value, error) { seen = append([]Value(nil), a...); return nil, nil })
	must[Value](t)(call(t, "vm.builtin.call_tir_dyn", rec, vec(1), vec(2), Shape{7, 8}))
	if len(seen) != 4 || seen[2] != int64(7) || seen[3] != int64(8) {
		t.Errorf("call_tir_dyn passed %v", seen)
	}
	// invoke_debug_func
	var line Value
	noErr(t, Register("test.debug", func(a []Value) (Value, error) { line = a[0]; return nil, nil }, true))
	must[Value](t)(call(t, "vm.builtin.invoke_debug_func", nil, "test.debug", "model.py:3", int64(1)))
	if line != "model.py:3" {
		t.Errorf("debug func got %v", line)
	}
	if _, err := call(t, "vm.builtin.invoke_debug_func", nil, "test.nope", "x"); err == nil {
		t.Error("unknown debug func accepted")
	}
}

func TestDescribeErrCtx(t *testing.T) {
	tests := []struct{ in, prefix, ann string }{
		{xCtx, "main: parameter x", `R.Tensor((n, 16), dtype="float32")`},
		{"ErrorContext(fn=f, loc=return, annotation=R.Shape([n]))", "f: return value", "R.Shape([n])"},
		{"ErrorContext(fn=f, loc=match_cast)", "f: match_cast", ""},
		{"plain text", "plain text", ""},
		{"", "", ""},
		{"ErrorContext(garbage)", "ErrorContext(garbage)", ""},
		{`ErrorContext(fn=g, param=y, annotation=R.Tensor((2, 3), dtype="a,b"))`, "g: parameter y", `R.Tensor((2, 3), dtype="a,b")`},
	}
	for _, tc := range tests {
		p, a := describeErrCtx(tc.in)
		if p != tc.prefix || a != tc.ann {
			t.Errorf("describeErrCtx(%q) = %q, %q; want %q, %q", tc.in, p, a, tc.prefix, tc.ann)
		}
	}
}

// TestReshapeViewOfPooledStorage checks vm.builtin.reshape on a tensor of
// pooled storage (RewriteDataflowReshape's views): the view shares the data,
// keeps its own copy of the shape, is the same header in the storage's next
// lease (no allocation in steady state), and a size mismatch is an error.
func TestReshapeViewOfPooledStorage(t *testing.T) {
	a, err := NewAllocator(PooledAllocator)
	if err != nil {
		t.Fatal(err)
	}
	xs := Shape{3, 4}
	lease := func() (*Storage, *Tensor) {
		s, err := a.Alloc(48, CPU)
		if err != nil {
			t.Fatal(err)
		}
		x, err := s.viewTensor(0, xs, Float32)
		if err != nil {
			t.Fatal(err)
		}
		return s, x
	}
	s, x := lease()
	shape := Shape{2, 6}
	v, err := builtinReshape([]Value{x, shape})
	if err != nil {
		t.Fatal(err)
	}
	view := v.(*Tensor)
	shape[0] = 99
	if !Shape(view.Shape()).Equal(Shape{2, 6}) || &view.Bytes()[0] != &x.Bytes()[0] {
		t.Fatalf("view %v over %p, want shape (2, 6) over x's data %p", view.Shape(), &view.Bytes()[0], &x.Bytes()[0])
	}
	a.Free(s)
	s2, x2 := lease()
	if s2 != s {
		t.Fatal("the pool did not hand the storage back")
	}
	if v2, err := builtinReshape([]Value{x2, Shape{2, 6}}); err != nil || v2 != Value(view) {
		t.Fatalf("next lease: %v (%v), want the same header", v2, err)
	}
	args := []Value{x2, Shape{2, 6}}
	if n := testing.AllocsPerRun(20, func() {
		a.Free(s2)
		_, x3 := lease()
		args[0] = x3
		if _, err := builtinReshape(args); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations per lease and reshape, want 0", n)
	}
	if _, err := builtinReshape([]Value{x2, Shape{5}}); err == nil {
		t.Error("a view of another size accepted")
	}
}
