package runtime

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/relaxgo/relaxgo/internal/builtin"
	"github.com/relaxgo/relaxgo/internal/bytecode"
)

func init() {
	// test.vm.add_into(a, b, out): out = a + b (destination-passing style).
	MustRegister("test.vm.add_into", func(args []Value) (Value, error) {
		a, b, out := args[0].(*Tensor), args[1].(*Tensor), args[2].(*Tensor)
		x, y, z := a.Float64s(), b.Float64s(), out.Float64s()
		if len(x) != len(z) || len(y) != len(z) {
			return nil, fmt.Errorf("add_into: sizes %d %d %d", len(x), len(y), len(z))
		}
		for i := range z {
			z[i] = x[i] + y[i]
		}
		return nil, nil
	})
}

func TestPooledAllocator(t *testing.T) {
	a := must[Allocator](t)(NewAllocator(PooledAllocator))
	if s := must[*Storage](t)(a.Alloc(1, CPU)); s.Size() != 64 {
		t.Errorf("1 byte rounded to %d, want 64 (small requests round to alignment)", s.Size())
	}
	if s := must[*Storage](t)(a.Alloc(4095, CPU)); s.Size() != 4096 {
		t.Errorf("4095 bytes rounded to %d, want 4096", s.Size())
	}
	s1 := must[*Storage](t)(a.Alloc(4096, CPU))
	if s1.Size() != 4096 {
		t.Errorf("4096 bytes rounded to %d, want 4096", s1.Size())
	}
	s2 := must[*Storage](t)(a.Alloc(4097, CPU))
	if s2.Size() != 8192 {
		t.Errorf("4097 bytes rounded to %d, want 8192", s2.Size())
	}
	if a.UsedMemory() != 64+4096+4096+8192 {
		t.Errorf("used %d", a.UsedMemory())
	}
	a.Free(s1)
	a.Free(s1) // double free is ignored
	if s := must[*Storage](t)(a.Alloc(4096, CPU)); s != s1 {
		t.Error("freed 4096-byte storage not reused for 4096 bytes")
	}
	if s := must[*Storage](t)(a.Alloc(4096, CPU)); s == s1 {
		t.Error("storage handed out twice")
	}
	a.Free(s2)
	if s := must[*Storage](t)(a.Alloc(4096, CPU)); s == s2 {
		t.Error("8192-byte storage reused for a 4096 request (pool is by exact size)")
	}
	a.Clear()
	if got := a.(*pooledAllocator).cached(); got != 0 {
		t.Errorf("%d cached after Clear", got)
	}
	if _, err := a.Alloc(-1, CPU); err == nil {
		t.Error("negative size accepted")
	}
	// Storages of other allocators are not adopted.
	foreign := must[*Storage](t)(NewStorage(4096, CPU))
	a.Free(foreign)
	if s := must[*Storage](t)(a.Alloc(4096, CPU)); s == foreign {
		t.Error("foreign storage adopted")
	}
	if _, err := NewAllocator(7); err == nil {
		t.Error("allocator type 7 accepted")
	}
}

func TestNaiveAllocator(t *testing.T) {
	a := must[Allocator](t)(NewAllocator(NaiveAllocator))
	s := must[*Storage](t)(a.Alloc(10, CPU))
	if s.Size() != 10 || a.Type() != NaiveAllocator || a.UsedMemory() != 10 {
		t.Errorf("size %d type %s used %d", s.Size(), a.Type(), a.UsedMemory())
	}
	a.Free(s)
	if t2 := must[*Storage](t)(a.Alloc(10, CPU)); t2 == s {
		t.Error("naive allocator reused storage")
	}
}

// planExec is a small model in the shape TVM's lowering produces: shape
// matching into a heap, a planned intermediate storage, and an output storage.
func planExec(t testing.TB) *Executable {
	return build(t, func(b *execBuilder) {
		c := func(v Value) bytecode.Arg { return must[bytecode.Arg](t)(b.ConvertConstant(v)) }
		ctx := c("ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((n,), dtype=\"float64\"))")
		b.EmitFunction("main", 1, []string{"x"}, FuncKindVM, 0)
		b.EmitCall("vm.builtin.check_tensor_info", []bytecode.Arg{bytecode.Reg(0), bytecode.Imm(1), c(Float64), ctx}, bytecode.VoidRegister)
		b.EmitCall("vm.builtin.alloc_shape_heap", []bytecode.Arg{bytecode.VMReg(), bytecode.Imm(1)}, 1)
		b.EmitCall("vm.builtin.match_shape", []bytecode.Arg{bytecode.Reg(0), bytecode.Reg(1), bytecode.Imm(1), bytecode.Imm(builtin.MatchStoreToHeap), bytecode.Imm(0), ctx}, bytecode.VoidRegister)
		b.EmitCall("vm.builtin.make_shape", []bytecode.Arg{bytecode.Reg(1), bytecode.Imm(1), bytecode.Imm(builtin.MakeLoadShape), bytecode.Imm(0)}, 2)
		b.EmitCall("vm.builtin.alloc_storage", []bytecode.Arg{bytecode.VMReg(), bytecode.Reg(2), bytecode.Imm(0), c(Float64), c("global")}, 3)
		b.EmitCall("vm.builtin.alloc_tensor", []bytecode.Arg{bytecode.Reg(3), bytecode.Imm(0), bytecode.Reg(2), c(Float64)}, 4)
		b.EmitCall("test.vm.add_into", []bytecode.Arg{bytecode.Reg(0), bytecode.Reg(0), bytecode.Reg(4)}, bytecode.VoidRegister)
		b.EmitCall("vm.builtin.alloc_storage", []bytecode.Arg{bytecode.VMReg(), bytecode.Reg(2), bytecode.Imm(0), c(Float64), c("global")}, 5)
		b.EmitCall("vm.builtin.alloc_tensor", []bytecode.Arg{bytecode.Reg(5), bytecode.Imm(0), bytecode.Reg(2), c(Float64)}, 6)
		b.EmitCall("test.vm.add_into", []bytecode.Arg{bytecode.Reg(4), bytecode.Reg(0), bytecode.Reg(6)}, bytecode.VoidRegister)
		b.EmitCall("vm.builtin.null_value", nil, 4)
		b.EmitRet(bytecode.Reg(6))
		b.EndFunction("main")
	})
}

func TestPooledReuseAndEscape(t *testing.T) {
	vm := newVM(t, planExec(t))
	out1 := floats(t, must[Value](t)(vm.Invoke("main", vec(1, 2, 3))))
	keep := must[Value](t)(vm.Invoke("main", vec(1, 2, 3))).(*Tensor)
	pool := vm.Allocator().(*pooledAllocator)
	if got := pool.cached(); got != 2 {
		t.Errorf("%d storages cached after a call, want 2 (heap and intermediate)", got)
	}
	for i := 0; i < 5; i++ {
		must[Value](t)(vm.Invoke("main", vec(10, 20, 30)))
	}
	if got := floats(t, keep); !slices.Equal(got, out1) || out1[2] != 9 {
		t.Errorf("returned tensor changed by later calls: %v (first %v)", got, out1)
	}
	if got := pool.cached(); got != 2 {
		t.Errorf("%d storages cached after repeated calls, want 2", got)
	}
	_, err := vm.Invoke("main", MustNewTensor([]int64{2, 2}, Float64))
	if err == nil || err.Error() != `main: parameter x: ndim mismatch: expected 1, got 2 (tensor shape (2, 2)) (annotation: R.Tensor((n,), dtype="float64"))` {
		t.Errorf("err = %v", err)
	}
}

func TestSteadyStateAllocatesOnlyOutputs(t *testing.T) {
	const n = 1 << 16
	x := MustNewTensor([]int64{n}, Float64)
	outBytes := float64(n * 8)
	vm := newVM(t, planExec(t))
	for i := 0; i < 3; i++ {
		must[Value](t)(vm.Invoke("main", x))
	}
	var before, after runtime.MemStats
	const calls = 20
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < calls; i++ {
		vm.Invoke("main", x)
	}
	runtime.ReadMemStats(&after)
	perCall := float64(after.TotalAlloc-before.TotalAlloc) / calls
	if perCall > outBytes*1.15 {
		t.Errorf("steady state allocates %.0f bytes per call, output is %.0f", perCall, outBytes)
	}
	naive := newVM(t, planExec(t), WithAllocator(NaiveAllocator))
	naive.Invoke("main", x)
	runtime.ReadMemStats(&before)
	for i := 0; i < calls; i++ {
		naive.Invoke("main", x)
	}
	runtime.ReadMemStats(&after)
	if naivePer := float64(after.TotalAlloc-before.TotalAlloc) / calls; naivePer < 1.9*outBytes {
		t.Errorf("naive allocator allocated only %.0f bytes per call", naivePer)
	}
	t.Logf("pooled: %.0f bytes/call for a %.0f-byte output", perCall, outBytes)
}

func TestInstrumentDisablesRecycling(t *testing.T) {
	vm := newVM(t, planExec(t))
	var kept []*Tensor
	vm.SetInstrument(func(fn Value, sym string, before bool, ret Value, args []Value) InstrumentReturnKind {
		if !before && sym == "vm.builtin.alloc_tensor" {
			kept = append(kept, ret.(*Tensor))
		}
		return InstrumentNoOp
	})
	vm.Invoke("main", vec(1))
	vm.Invoke("main", vec(5))
	if kept[0].Storage() == kept[2].Storage() {
		t.Error("storage recycled while an instrument may hold tensors")
	}
}

// TestTimingInstrumentRecycles: an instrument installed as keeping nothing
// leaves recycling on (a call's heap and intermediate storage return to the
// pool, as TestPooledReuseAndEscape has it without an instrument), one that
// may keep tensors turns it off.
func TestTimingInstrumentRecycles(t *testing.T) {
	for _, keeps := range []bool{false, true} {
		vm := newVM(t, planExec(t))
		calls := 0
		f := func(fn Value, sym string, before bool, ret Value, args []Value) InstrumentReturnKind {
			calls++
			return InstrumentNoOp
		}
		if keeps {
			vm.SetInstrument(f)
		} else {
			vm.SetTimingInstrument(f)
		}
		for i := 0; i < 3; i++ {
			must[Value](t)(vm.Invoke("main", vec(1, 2, 3)))
		}
		want := 2
		if keeps {
			want = 0
		}
		if got := vm.Allocator().(*pooledAllocator).cached(); got != want || calls == 0 {
			t.Errorf("keeps=%v: %d storages cached after calls, want %d (instrument ran %d times)", keeps, got, want, calls)
		}
	}
}

func TestMemoryManagerClear(t *testing.T) {
	vm := newVM(t, planExec(t))
	vm.Invoke("main", vec(1))
	pool := vm.Allocator().(*pooledAllocator)
	if pool.cached() == 0 {
		t.Fatal("nothing cached")
	}
	must[Value](t)(call(t, "vm.builtin.memory_manager.clear"))
	if pool.cached() != 0 {
		t.Error("memory_manager.clear left cached storages")
	}
}
