package runtime

import (
	"testing"

	"github.com/relaxgo/relaxgo/internal/bytecode"
)

// noopProgram is main(a, b) with calls no-op calls of test.vm.noop(a, b, imm)
// followed by ret: calls+1 executed instructions.
func noopProgram(t testing.TB, calls int) *Executable {
	return build(t, func(b *execBuilder) {
		fn(b, "main", 2, func() {
			for i := 0; i < calls; i++ {
				b.EmitCall("test.vm.noop", []bytecode.Arg{bytecode.Reg(0), bytecode.Reg(1), bytecode.Imm(int64(1000 + i))}, 2)
			}
			b.EmitRet(bytecode.Reg(2))
		})
	})
}

func TestDispatchDoesNotAllocate(t *testing.T) {
	vm := newVM(t, noopProgram(t, 100))
	args := []Value{vec(1), vec(2)}
	vm.Invoke("main", args...)
	if n := testing.AllocsPerRun(100, func() { vm.Invoke("main", args...) }); n != 0 {
		t.Errorf("100 dispatched calls allocate %v times", n)
	}
	rec := newVM(t, recursionExec(t))
	rec.Invoke("sum", int64(20))
	// Each level boxes its int64 results (subtract_one, add_scalar); frames
	// and argument buffers are recycled.
	if n := testing.AllocsPerRun(20, func() { rec.Invoke("sum", int64(20)) }); n > 3*21 {
		t.Errorf("recursive sum(20) allocates %v times", n)
	}
}

// BenchmarkDispatch reports the cost of one executed instruction (a Call of a
// no-op packed function with three arguments).
func BenchmarkDispatch(b *testing.B) { benchNoops(b, 1000) }

// BenchmarkNoopCalls100 runs a 100-instruction program (99 no-op packed
// calls and a ret) per operation.
func BenchmarkNoopCalls100(b *testing.B) { benchNoops(b, 99) }

// benchNoops runs a program of calls no-op packed calls and a ret per
// operation, reporting the time per instruction too.
func benchNoops(b *testing.B, calls int) {
	vm := newVM(b, noopProgram(b, calls))
	args := []Value{vec(1), vec(2)}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := vm.Invoke("main", args...); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(calls+1), "ns/instr")
}

// BenchmarkNoopCalls100Instrumented is the same program with an instrument
// installed.
func BenchmarkNoopCalls100Instrumented(b *testing.B) {
	vm := newVM(b, noopProgram(b, 99))
	vm.SetInstrument(func(Value, string, bool, Value, []Value) InstrumentReturnKind { return InstrumentNoOp })
	args := []Value{vec(1), vec(2)}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		vm.Invoke("main", args...)
	}
}

// BenchmarkRecursion measures nested bytecode calls (sum(20): 21 frames).
func BenchmarkRecursion(b *testing.B) {
	vm := newVM(b, recursionExec(b))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		vm.Invoke("sum", int64(20))
	}
}

// BenchmarkPlannedModel runs the shape-checked, memory-planned program of
// allocator_test on 1024 elements with the pooled allocator.
func BenchmarkPlannedModel(b *testing.B) {
	vm := newVM(b, planExec(b))
	x := MustNewTensor([]int64{1024}, Float64)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		vm.Invoke("main", x)
	}
}

func BenchmarkLoadExecutable(b *testing.B) {
	data := must[[]byte](b)(goldenExec(b).SaveToBytes())
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, err := LoadExecutable(data); err != nil {
			b.Fatal(err)
		}
	}
}
