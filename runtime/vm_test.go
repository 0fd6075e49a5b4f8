package runtime

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/relaxgo/relaxgo/internal/bytecode"
)

func addMulExec(t testing.TB) *Executable {
	return build(t, func(b *execBuilder) {
		fn(b, "func0", 2, func() {
			b.EmitCall("test.vm.add", []bytecode.Arg{bytecode.Reg(0), bytecode.Reg(1)}, 2)
			b.EmitRet(bytecode.Reg(2))
		})
		fn(b, "func1", 2, func() {
			b.EmitCall("test.vm.mul", []bytecode.Arg{bytecode.Reg(0), bytecode.Reg(1)}, 2)
			b.EmitRet(bytecode.Reg(2))
		})
	})
}

func TestVMExecuteAddMul(t *testing.T) {
	vm := newVM(t, addMulExec(t))
	a, b := vec(1, 2, 3, 4), vec(0.5, 0.25, 2, -1)
	tests := []struct {
		fn   string
		want []float64
	}{
		{"func0", []float64{1.5, 2.25, 5, 3}},
		{"func1", []float64{0.5, 0.5, 6, -4}},
	}
	for _, tc := range tests {
		got := floats(t, must[Value](t)(vm.Invoke(tc.fn, a, b)))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s = %v, want %v", tc.fn, got, tc.want)
		}
	}
}

func TestVMCheckerUseBeforeDef(t *testing.T) {
	b := newExecBuilder()
	fn(b, "func0", 2, func() {
		b.EmitCall("test.vm.add", []bytecode.Arg{bytecode.Reg(0), bytecode.Reg(2)}, 2)
		b.EmitRet(bytecode.Reg(2))
	})
	_, err := b.Get()
	if err == nil || !strings.Contains(err.Error(), `function "func0", instruction 0`) || !strings.Contains(err.Error(), "%2") {
		t.Fatalf("err = %v, want a use-before-def error naming func0 instruction 0 and %%2", err)
	}
	if !errors.Is(err, ErrInvalidExecutable) {
		t.Errorf("err does not wrap ErrInvalidExecutable")
	}
}

func TestVMNegativeImmediate(t *testing.T) {
	e := build(t, func(b *execBuilder) {
		fn(b, "func0", 1, func() {
			b.EmitCall("test.vm.add_scalar", []bytecode.Arg{bytecode.Imm(-3), bytecode.Reg(0)}, 1)
			b.EmitRet(bytecode.Reg(1))
		})
	})
	vm := newVM(t, e)
	for _, tc := range []struct{ in, want int64 }{{1, -2}, {-3, -6}, {0, -3}} {
		if got := must[Value](t)(vm.Invoke("func0", tc.in)); got != tc.want {
			t.Errorf("func0(%d) = %v, want %d", tc.in, got, tc.want)
		}
	}
	// Extreme immediates survive encoding.
	for _, v := range []int64{bytecode.MaxArgValue, bytecode.MinArgValue, -1, 0} {
		if got := bytecode.Imm(v).Value(); got != v {
			t.Errorf("Imm(%d).Value() = %d", v, got)
		}
		if bytecode.Imm(v).Kind() != bytecode.ArgImmediate {
			t.Errorf("Imm(%d).Kind() = %s", v, bytecode.Imm(v).Kind())
		}
	}
	if _, err := bytecode.MakeArg(bytecode.ArgImmediate, bytecode.MaxArgValue+1); err == nil {
		t.Error("MakeArg accepted 2^55")
	}
}

func TestConstantDedup(t *testing.T) {
	b := newExecBuilder()
	conv := func(v Value) bytecode.Arg { return must[bytecode.Arg](t)(b.ConvertConstant(v)) }
	i32 := func(xs ...int32) *Tensor { return must[*Tensor](t)(FromSlice(xs, int64(len(xs)))) }
	tests := []struct {
		name     string
		a, b     Value
		same     bool
		wantKind bytecode.ArgKind
	}{
		{"string", "str0", "str0", true, bytecode.ArgConstIdx},
		{"shape", Shape{1, 2}, Shape{1, 2}, true, bytecode.ArgConstIdx},
		{"shape differs", Shape{1, 2}, Shape{1, 3}, false, bytecode.ArgConstIdx},
		{"tensor", i32(1, 2, 3), i32(1, 2, 3), true, bytecode.ArgConstIdx},
		{"tensor differs", i32(1, 2, 3), i32(1, 2, 4), false, bytecode.ArgConstIdx},
		{"dtype", Float32, Float32, true, bytecode.ArgConstIdx},
		{"float", 1.5, 1.5, true, bytecode.ArgConstIdx},
		{"small int", int64(7), int64(7), true, bytecode.ArgImmediate},
		{"big int", int64(1) << 60, int64(1) << 60, true, bytecode.ArgConstIdx},
		{"neg big int", -(int64(1) << 60), -(int64(1) << 60), true, bytecode.ArgConstIdx},
	}
	for _, tc := range tests {
		x, y := conv(tc.a), conv(tc.b)
		if (x == y) != tc.same {
			t.Errorf("%s: %s vs %s, same=%v want %v", tc.name, x, y, x == y, tc.same)
		}
		if x.Kind() != tc.wantKind {
			t.Errorf("%s: kind %s, want %s", tc.name, x.Kind(), tc.wantKind)
		}
	}
	if _, err := b.ConvertConstant(Tuple{}); err == nil {
		t.Error("ConvertConstant accepted a tuple")
	}
}

func TestFormalize(t *testing.T) {
	e0 := build(t, func(b *execBuilder) {
		fn(b, "func0", 2, func() {
			b.EmitCall("test.vm.add", []bytecode.Arg{bytecode.Reg(0), bytecode.Reg(1)}, 100)
			b.EmitCall("test.vm.mul", []bytecode.Arg{bytecode.Reg(1), bytecode.Reg(100)}, 50)
			b.EmitRet(bytecode.Reg(50))
		})
	})
	e1 := build(t, func(b *execBuilder) {
		fn(b, "func0", 2, func() {
			b.EmitCall("test.vm.add", []bytecode.Arg{bytecode.Reg(0), bytecode.Reg(1)}, 2)
			b.EmitCall("test.vm.mul", []bytecode.Arg{bytecode.Reg(1), bytecode.Reg(2)}, 3)
			b.EmitRet(bytecode.Reg(3))
		})
	})
	if e0.AsText() != e1.AsText() {
		t.Errorf("formalized text differs:\n%s\nvs\n%s", e0.AsText(), e1.AsText())
	}
	f, _ := e0.Func(0)
	if f.RegisterFileSize != 4 {
		t.Errorf("register file size = %d, want 4", f.RegisterFileSize)
	}
}

func TestShapeOf(t *testing.T) {
	arr := MustNewTensor([]int64{32, 16}, Float64)
	e := build(t, func(b *execBuilder) {
		c := must[bytecode.Arg](t)(b.ConvertConstant(arr))
		fn(b, "main", 0, func() {
			b.EmitCall("vm.builtin.shape_of", []bytecode.Arg{c}, 0)
			b.EmitRet(bytecode.Reg(0))
		})
	})
	got := must[Value](t)(newVM(t, e).Invoke("main"))
	if s, ok := got.(Shape); !ok || !s.Equal(Shape{32, 16}) {
		t.Errorf("shape_of = %v, want (32, 16)", got)
	}
}

func storageExec(t testing.TB) *Executable {
	return build(t, func(b *execBuilder) {
		c := func(v Value) bytecode.Arg { return must[bytecode.Arg](t)(b.ConvertConstant(v)) }
		fn(b, "main", 0, func() {
			b.EmitCall("vm.builtin.alloc_storage", []bytecode.Arg{bytecode.VMReg(), c(Shape{24}), c(0), c(Float32), c("global")}, 1)
			b.EmitCall("vm.builtin.alloc_tensor", []bytecode.Arg{bytecode.Reg(1), bytecode.Imm(0), c(Shape{4, 6}), c(Float32)}, 2)
			b.EmitRet(bytecode.Reg(2))
		})
	})
}

func TestStorage(t *testing.T) {
	for _, at := range []AllocatorType{NaiveAllocator, PooledAllocator} {
		vm := newVM(t, storageExec(t), WithAllocator(at))
		got := must[Value](t)(vm.Invoke("main"))
		x, ok := got.(*Tensor)
		if !ok || !Shape(x.Shape()).Equal(Shape{4, 6}) || x.DType() != Float32 || x.Device() != CPU {
			t.Errorf("%s: got %v", at, got)
		}
	}
}

func TestGoto(t *testing.T) {
	e := build(t, func(b *execBuilder) {
		fn(b, "main", 2, func() {
			b.EmitCall("test.vm.add", []bytecode.Arg{bytecode.Reg(0), bytecode.Reg(1)}, 2)
			b.EmitGoto(2)
			b.EmitCall("test.vm.mul", []bytecode.Arg{bytecode.Reg(2), bytecode.Reg(1)}, 2)
			b.EmitRet(bytecode.Reg(2))
		})
	})
	got := floats(t, must[Value](t)(newVM(t, e).Invoke("main", vec(1, 2), vec(3, 4))))
	if !slices.Equal(got, []float64{4, 6}) {
		t.Errorf("got %v", got)
	}
}

func ifExec(t testing.TB) *Executable {
	return build(t, func(b *execBuilder) {
		fn(b, "main", 3, func() {
			b.EmitIf(bytecode.Reg(0), 3)
			b.EmitCall("test.vm.add", []bytecode.Arg{bytecode.Reg(1), bytecode.Reg(2)}, 3)
			b.EmitGoto(2)
			b.EmitCall("test.vm.mul", []bytecode.Arg{bytecode.Reg(1), bytecode.Reg(2)}, 3)
			b.EmitRet(bytecode.Reg(3))
		})
	})
}

func TestIf(t *testing.T) {
	vm := newVM(t, ifExec(t))
	a, b := vec(1, 2), vec(3, 4)
	tests := []struct {
		cond Value
		want []float64
	}{
		{int64(0), []float64{3, 8}},
		{int64(1), []float64{4, 6}},
		{int64(-5), []float64{4, 6}},
		{true, []float64{4, 6}},
		{false, []float64{3, 8}},
	}
	for _, tc := range tests {
		got := floats(t, must[Value](t)(vm.Invoke("main", tc.cond, a, b)))
		if !slices.Equal(got, tc.want) {
			t.Errorf("cond %v: got %v, want %v", tc.cond, got, tc.want)
		}
	}
	if _, err := vm.Invoke("main", "yes", a, b); err == nil || !strings.Contains(err.Error(), "If condition") {
		t.Errorf("string condition: err = %v", err)
	}
}

func TestInvokeClosure(t *testing.T) {
	e := build(t, func(b *execBuilder) {
		fn(b, "lifted_func_1", 4, func() {
			b.EmitCall("test.vm.add", []bytecode.Arg{bytecode.Reg(0), bytecode.Reg(1)}, 4)
			b.EmitCall("test.vm.add", []bytecode.Arg{bytecode.Reg(2), bytecode.Reg(4)}, 5)
			b.EmitCall("test.vm.add", []bytecode.Arg{bytecode.Reg(3), bytecode.Reg(5)}, 6)
			b.EmitRet(bytecode.Reg(6))
		})
		fn(b, "main", 2, func() {
			f := must[bytecode.Arg](t)(b.GetFunction("lifted_func_1"))
			b.EmitCall("vm.builtin.make_closure", []bytecode.Arg{f, bytecode.Reg(0), bytecode.Reg(1)}, 2)
			b.EmitRet(bytecode.Reg(2))
		})
		// invoke_closure from bytecode too.
		fn(b, "apply", 3, func() {
			b.EmitCall("vm.builtin.invoke_closure", []bytecode.Arg{bytecode.VMReg(), bytecode.Reg(0), bytecode.Reg(1), bytecode.Reg(2)}, 3)
			b.EmitRet(bytecode.Reg(3))
		})
	})
	vm := newVM(t, e)
	w, x, y, z := vec(1), vec(10), vec(100), vec(1000)
	clo := must[Value](t)(vm.Invoke("main", w, x))
	if _, ok := clo.(*Closure); !ok {
		t.Fatalf("main returned %s", TypeName(clo))
	}
	got := floats(t, must[Value](t)(vm.InvokeClosure(clo, y, z)))
	if got[0] != 1111 {
		t.Errorf("invoke_closure = %v, want 1111", got)
	}
	got = floats(t, must[Value](t)(vm.Invoke("apply", clo, y, z)))
	if got[0] != 1111 {
		t.Errorf("apply = %v, want 1111", got)
	}
	// Closures of one executable refuse to run on another.
	other := newVM(t, addMulExec(t))
	if _, err := other.InvokeClosure(clo, y, z); err == nil {
		t.Error("closure ran on a VM of another executable")
	}
}

func recursionExec(t testing.TB) *Executable {
	// sum(n) = n == 0 ? 0 : n + sum(n-1)
	return build(t, func(b *execBuilder) {
		b.DeclareFunction("sum", FuncKindVM)
		fn(b, "sum", 1, func() {
			b.EmitCall("test.vm.equal_zero", []bytecode.Arg{bytecode.Reg(0)}, 1)
			b.EmitIf(bytecode.Reg(1), 3)
			b.EmitCall("vm.builtin.copy", []bytecode.Arg{bytecode.Imm(0)}, 2)
			b.EmitGoto(4)
			b.EmitCall("test.vm.subtract_one", []bytecode.Arg{bytecode.Reg(0)}, 3)
			b.EmitCall("sum", []bytecode.Arg{bytecode.Reg(3)}, 4)
			b.EmitCall("test.vm.add_scalar", []bytecode.Arg{bytecode.Reg(0), bytecode.Reg(4)}, 2)
			b.EmitRet(bytecode.Reg(2))
		})
	})
}

func TestRecursion(t *testing.T) {
	vm := newVM(t, recursionExec(t))
	for _, n := range []int64{0, 1, 10, 500} {
		got := must[Value](t)(vm.Invoke("sum", n))
		if got != n*(n+1)/2 {
			t.Errorf("sum(%d) = %v", n, got)
		}
	}
	if len(vm.frames) != 0 {
		t.Errorf("%d frames left", len(vm.frames))
	}
	shallow := newVM(t, recursionExec(t), WithMaxCallDepth(50))
	if _, err := shallow.Invoke("sum", int64(100)); err == nil || !strings.Contains(err.Error(), "maximum call depth") {
		t.Errorf("deep recursion: err = %v", err)
	}
	if got := must[Value](t)(shallow.Invoke("sum", int64(10))); got != int64(55) {
		t.Errorf("after overflow sum(10) = %v", got)
	}
}

func TestStackRestoredAfterFailure(t *testing.T) {
	e := build(t, func(b *execBuilder) {
		fn(b, "inner", 1, func() {
			b.EmitCall("vm.builtin.check_tensor_info", []bytecode.Arg{bytecode.Reg(0), bytecode.Imm(1), must[bytecode.Arg](t)(b.ConvertConstant(Float64)), must[bytecode.Arg](t)(b.ConvertConstant("ErrorContext(fn=inner, loc=param[0], param=x, annotation=R.Tensor((n,), dtype=\"float64\"))"))}, bytecode.VoidRegister)
			b.EmitCall("test.vm.add", []bytecode.Arg{bytecode.Reg(0), bytecode.Reg(0)}, 1)
			b.EmitRet(bytecode.Reg(1))
		})
		fn(b, "main", 1, func() {
			b.EmitCall("inner", []bytecode.Arg{bytecode.Reg(0)}, 1)
			b.EmitRet(bytecode.Reg(1))
		})
		fn(b, "boom", 0, func() {
			b.EmitCall("test.vm.panic", nil, 0)
			b.EmitRet(bytecode.Reg(0))
		})
	})
	vm := newVM(t, e)
	bad := MustNewTensor([]int64{2, 2}, Float64)
	_, err := vm.Invoke("main", bad)
	if err == nil || !strings.Contains(err.Error(), "inner: parameter x: ndim mismatch: expected 1, got 2") {
		t.Fatalf("err = %v", err)
	}
	if !errors.Is(err, ErrValue) {
		t.Errorf("err is not ErrValue: %v", err)
	}
	if len(vm.frames) != 0 {
		t.Fatalf("%d frames left after failure", len(vm.frames))
	}
	_, err = vm.Invoke("boom")
	if err == nil || !strings.Contains(err.Error(), "panic: boom") {
		t.Fatalf("panic: err = %v", err)
	}
	if len(vm.frames) != 0 {
		t.Fatalf("%d frames left after panic", len(vm.frames))
	}
	got := floats(t, must[Value](t)(vm.Invoke("main", vec(1, 2))))
	if !slices.Equal(got, []float64{2, 4}) {
		t.Errorf("after failure got %v", got)
	}
	// A failing packed function is reported with its location.
	e2 := build(t, func(b *execBuilder) {
		fn(b, "main", 0, func() {
			b.EmitCall("test.vm.noop", nil, bytecode.VoidRegister)
			b.EmitCall("test.vm.fail", nil, 0)
			b.EmitRet(bytecode.Reg(0))
		})
	})
	_, err = newVM(t, e2).Invoke("main")
	var ce *CallError
	if !errors.As(err, &ce) || ce.Func != "main" || ce.Instr != 1 || ce.Callee != "test.vm.fail" || !errors.Is(err, errTestFail) {
		t.Errorf("err = %#v", err)
	}
}

func TestArgumentCount(t *testing.T) {
	e := build(t, func(b *execBuilder) {
		b.EmitFunction("main", 2, []string{"x", "y"}, FuncKindVM, 0)
		b.EmitCall("test.vm.add", []bytecode.Arg{bytecode.Reg(0), bytecode.Reg(1)}, 2)
		b.EmitRet(bytecode.Reg(2))
		b.EndFunction("main")
	})
	vm := newVM(t, e)
	_, err := vm.Invoke("main", vec(1))
	if !errors.Is(err, ErrArity) || !strings.Contains(err.Error(), "main expects 2 arguments (x, y), but 1 arguments were provided") {
		t.Errorf("err = %v", err)
	}
	if _, err := vm.Invoke("nope"); !errors.Is(err, ErrUnknownFunction) {
		t.Errorf("unknown function: err = %v", err)
	}
	if _, err := vm.Invoke("test.vm.add", vec(1), vec(2)); err == nil {
		t.Error("invoking a packed function entry succeeded")
	}
	if n := must[int](t)(vm.FunctionArity("main")); n != 2 {
		t.Errorf("arity %d", n)
	}
	if p := must[string](t)(vm.FunctionParamName("main", 1)); p != "y" {
		t.Errorf("param name %q", p)
	}
}

func TestUnknownPackedFunction(t *testing.T) {
	e := build(t, func(b *execBuilder) {
		fn(b, "main", 0, func() {
			b.EmitCall("no.such.function", nil, 0)
			b.EmitRet(bytecode.Reg(0))
		})
	})
	_, err := NewVM(e)
	if err == nil || !strings.Contains(err.Error(), `"no.such.function"`) {
		t.Fatalf("err = %v", err)
	}
	// Imports are searched before the registry.
	m := NewModule("lib")
	noErr(t, m.Register("no.such.function", func([]Value) (Value, error) { return "from module", nil }))
	vm := newVM(t, e, WithImports(m))
	if got := must[Value](t)(vm.Invoke("main")); got != "from module" {
		t.Errorf("got %v", got)
	}
}

func TestInstrumentSkip(t *testing.T) {
	vm := newVM(t, ifExec(t))
	var log []string
	vm.SetInstrument(func(fn Value, sym string, before bool, ret Value, args []Value) InstrumentReturnKind {
		if before {
			log = append(log, "before "+sym)
			if sym == "test.vm.mul" {
				return InstrumentSkipRun
			}
			return InstrumentNoOp
		}
		log = append(log, "after "+sym+" "+TypeName(ret))
		return InstrumentNoOp
	})
	got := floats(t, must[Value](t)(vm.Invoke("main", int64(1), vec(1), vec(2))))
	if got[0] != 3 {
		t.Errorf("add = %v", got)
	}
	ret := must[Value](t)(vm.Invoke("main", int64(0), vec(1), vec(2)))
	if ret != nil {
		t.Errorf("skipped mul returned %v, want nil", ret)
	}
	want := []string{"before test.vm.add", "after test.vm.add Tensor", "before test.vm.mul"}
	if strings.Join(log, "|") != strings.Join(want, "|") {
		t.Errorf("log = %q, want %q", log, want)
	}
	vm.SetInstrument(nil)
	got = floats(t, must[Value](t)(vm.Invoke("main", int64(0), vec(2), vec(3))))
	if got[0] != 6 {
		t.Errorf("mul after removing instrument = %v", got)
	}
}

func TestStatefulAPI(t *testing.T) {
	e := build(t, func(b *execBuilder) {
		fn(b, "main", 2, func() {
			b.EmitCall("test.vm.add", []bytecode.Arg{bytecode.Reg(0), bytecode.Reg(1)}, 2)
			b.EmitCall("test.vm.mul", []bytecode.Arg{bytecode.Reg(0), bytecode.Reg(1)}, 3)
			b.EmitCall("vm.builtin.make_tuple", []bytecode.Arg{bytecode.Reg(2), bytecode.Reg(3)}, 4)
			b.EmitCall("vm.builtin.make_tuple", []bytecode.Arg{bytecode.Reg(4), bytecode.Reg(2)}, 5)
			b.EmitRet(bytecode.Reg(5))
		})
		fn(b, "single", 1, func() {
			b.EmitRet(bytecode.Reg(0))
		})
	})
	vm := newVM(t, e)
	if err := vm.InvokeStateful("main"); err == nil || !strings.Contains(err.Error(), "SetInput") {
		t.Errorf("invoke before set_input: %v", err)
	}
	if err := vm.SetInput("main", vec(1)); !errors.Is(err, ErrArity) {
		t.Errorf("SetInput with 1 arg: %v", err)
	}
	if _, err := vm.GetOutput("main"); err == nil {
		t.Error("GetOutput before InvokeStateful succeeded")
	}
	noErr(t, vm.SetInput("main", vec(2), vec(3)))
	noErr(t, vm.InvokeStateful("main"))
	if n := must[int](t)(vm.GetOutputArity("main")); n != 2 {
		t.Errorf("arity %d", n)
	}
	if n := must[int](t)(vm.GetOutputArity("main", 0)); n != 2 {
		t.Errorf("arity [0] %d", n)
	}
	if n := must[int](t)(vm.GetOutputArity("main", 1)); n != -1 {
		t.Errorf("arity [1] %d", n)
	}
	if _, err := vm.GetOutput("main", 0); err == nil {
		t.Error("GetOutput returned a tuple")
	}
	if got := floats(t, must[Value](t)(vm.GetOutput("main", 0, 1))); got[0] != 6 {
		t.Errorf("output[0][1] = %v", got)
	}
	if got := floats(t, must[Value](t)(vm.GetOutput("main", 1))); got[0] != 5 {
		t.Errorf("output[1] = %v", got)
	}
	if _, err := vm.GetOutput("main", 5); err == nil {
		t.Error("out of range index accepted")
	}
	noErr(t, vm.SetInput("single", int64(4)))
	noErr(t, vm.InvokeStateful("single"))
	if got := must[Value](t)(vm.GetOutput("single")); got != int64(4) {
		t.Errorf("single = %v", got)
	}
	if _, err := vm.GetOutputs("main"); err != nil {
		t.Error(err)
	}
}

func TestSaveFunction(t *testing.T) {
	vm := newVM(t, addMulExec(t))
	a, b := vec(1, 2), vec(3, 4)
	noErr(t, vm.SaveFunction("func0", "saved_all", true, a, b))
	noErr(t, vm.SaveFunction("func1", "saved_last", true, b))
	noErr(t, vm.SaveFunction("func0", "saved_noret", false, a, b))
	if got := floats(t, must[Value](t)(vm.Invoke("saved_all"))); !slices.Equal(got, []float64{4, 6}) {
		t.Errorf("saved_all = %v", got)
	}
	if got := floats(t, must[Value](t)(vm.Invoke("saved_last", a))); !slices.Equal(got, []float64{3, 8}) {
		t.Errorf("saved_last = %v", got)
	}
	if got := must[Value](t)(vm.Invoke("saved_noret")); got != nil {
		t.Errorf("saved_noret = %v", got)
	}
	// Saving under the name of the function it binds (which SaveFunction
	// itself just looked up) replaces what GetClosure remembered.
	noErr(t, vm.SaveFunction("func1", "func1", true, b))
	if got := floats(t, must[Value](t)(vm.Invoke("func1", a))); !slices.Equal(got, []float64{3, 8}) {
		t.Errorf("func1 saved over itself = %v", got)
	}
	if err := vm.SaveFunction("nope", "x", true); err == nil {
		t.Error("saving an unknown function succeeded")
	}
}

func TestTimeEvaluator(t *testing.T) {
	vm := newVM(t, addMulExec(t))
	res := must[*TimingResult](t)(vm.TimeEvaluator("func0", 3, 4, 0)(vec(1), vec(2)))
	if len(res.Samples) != 4 {
		t.Fatalf("%d samples, want 4", len(res.Samples))
	}
	if res.Number != 3 || res.Mean() <= 0 || res.Min() > res.Max() {
		t.Errorf("result %+v", res)
	}
	res = must[*TimingResult](t)(vm.TimeEvaluator("func0", 1, 1, 2)(vec(1), vec(2)))
	if res.Number <= 1 {
		t.Errorf("min_repeat_ms did not raise number: %d", res.Number)
	}
	if _, err := vm.TimeEvaluator("func0", 1, 1, 0)(vec(1)); err == nil {
		t.Error("time evaluator ignored an error")
	}
}

func TestCompiledFunction(t *testing.T) {
	// main is compiled: regs[0], regs[1] params, regs[2] return slot.
	b := newExecBuilder()
	noErr(t, b.EmitFunction("main", 2, []string{"x", "y"}, FuncKindVMTIR, 4))
	noErr(t, b.EndFunction("main"))
	fn(b, "wrapper", 2, func() {
		b.EmitCall("main", []bytecode.Arg{bytecode.Reg(0), bytecode.Reg(1)}, 2)
		b.EmitRet(bytecode.Reg(2))
	})
	b.DeclareFunction("test.vm.add", FuncKindPacked)
	e := must[*Executable](t)(b.Get())
	addIdx, _ := e.FuncIndex("test.vm.add")
	impl := func(vm *VM, r []Value) error {
		v, err := vm.callFunc(addIdx, r[0], r[1])
		if err != nil {
			return err
		}
		r[3] = v
		r[2], err = vm.callFunc(addIdx, r[3], r[3])
		return err
	}
	if _, err := NewVM(e); err == nil || !strings.Contains(err.Error(), "__vmtir__main") {
		t.Fatalf("missing compiled function: err = %v", err)
	}
	m := NewModule("model")
	noErr(t, m.registerVMTIR("__vmtir__main", impl))
	vm := newVM(t, e, WithImports(m))
	for _, name := range []string{"main", "wrapper"} {
		if got := floats(t, must[Value](t)(vm.Invoke(name, vec(1), vec(2)))); got[0] != 6 {
			t.Errorf("%s = %v", name, got)
		}
	}
	if _, err := vm.Invoke("main", vec(1)); !errors.Is(err, ErrArity) {
		t.Errorf("arity: %v", err)
	}
	// Global registry.
	noErr(t, registerVMTIR("__vmtir__main", impl, false))
	defer unregisterVMTIR("__vmtir__main")
	vm2 := newVM(t, e)
	if got := floats(t, must[Value](t)(vm2.Invoke("main", vec(1), vec(1)))); got[0] != 4 {
		t.Errorf("global main = %v", got)
	}
	if !strings.Contains(e.AsText(), "@main num_inputs=2 vm_tir_func;") {
		t.Errorf("AsText:\n%s", e.AsText())
	}
}

func TestConcurrentVMs(t *testing.T) {
	e := recursionExec(t)
	e2 := addMulExec(t)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			vm, err := NewVM(e)
			if err != nil {
				errs <- err
				return
			}
			vm2, err := NewVM(e2)
			if err != nil {
				errs <- err
				return
			}
			for i := 0; i < 50; i++ {
				n := int64(g*7 + i)
				got, err := vm.Invoke("sum", n)
				if err != nil || got != n*(n+1)/2 {
					errs <- errors.New("wrong sum")
					return
				}
				if _, err := vm2.Invoke("func0", vec(float64(i)), vec(1)); err != nil {
					errs <- err
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
